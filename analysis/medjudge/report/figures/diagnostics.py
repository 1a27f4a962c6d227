"""Diagnostic figures of the judges' verdicts: parse accounting and calibration.

:func:`parse_status_bars` (how many verdicts parsed, partially parsed, were invalid or
missing, per judge) and :func:`reliability_diagram` (stated confidence against observed
accuracy).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..escape import literal_figure_args
from ..style import PAGE_WIDTH_IN, PALETTE, STATUS_COLORS, figsize, style_context
from .common import BASELINE_STYLE, _order, _require

__all__ = ["parse_status_bars", "reliability_diagram"]


@literal_figure_args
def parse_status_bars(
    results: pd.DataFrame,
    *,
    normalize: bool = True,
    status_order: Sequence[str] | None = None,
) -> Figure:
    """Stacked horizontal bars of verdict parse status per judge.

    Parameters
    ----------
    results
        Columns ``judge, status, count`` (status: ``ok, broadcast, partial, invalid``; other
        values are appended in first-seen order).
    normalize
        Show proportions (default) or raw counts.
    """
    _require(results, ["judge", "status", "count"], "parse_status_bars")
    known = [s for s in STATUS_COLORS if s in set(results["status"])]
    statuses = list(status_order) if status_order is not None else known + [
        s for s in _order(results["status"], None) if s not in STATUS_COLORS
    ]  # fmt: skip
    table = results.pivot_table(index="judge", columns="status", values="count", aggfunc="sum")
    judges = _order(results["judge"], None)[::-1]
    table = table.reindex(index=judges, columns=statuses).fillna(0.0)
    totals = table.sum(axis=1).replace(0, np.nan)
    values = table.div(totals, axis=0).fillna(0.0) if normalize else table
    extra_colors = iter(PALETTE[4:] + PALETTE[:4])
    with style_context():
        fig, ax = plt.subplots(figsize=figsize(len(judges), width=min(PAGE_WIDTH_IN, 5.6)))
        left = np.zeros(len(judges))
        for s in statuses:
            width = values[s].to_numpy(float)
            color = STATUS_COLORS.get(str(s)) or next(extra_colors)
            ax.barh(range(len(judges)), width, left=left, color=color, label=str(s), height=0.7)
            left += width
        ax.set_yticks(range(len(judges)), [str(j) for j in judges])
        ax.set_xlabel("share of verdicts" if normalize else "verdicts")
        if normalize:
            ax.set_xlim(0, 1)
        ax.legend(
            loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(statuses), title=None,
            handlelength=1.0,
        )  # fmt: skip
        fig.tight_layout()
    return fig


@literal_figure_args
def reliability_diagram(
    results: pd.DataFrame,
    *,
    xlabel: str = "stated confidence",
    ylabel: str = "observed accuracy",
) -> Figure:
    """Reliability (calibration) diagram: observed accuracy per confidence bin, per judge.

    Parameters
    ----------
    results
        Columns ``judge, confidence, observed, n`` (mean stated confidence, observed accuracy
        and count per bin); optional ``ci_low, ci_high`` for the observed accuracy.
        Marker area scales with ``n``.
    """
    _require(results, ["judge", "confidence", "observed", "n"], "reliability_diagram")
    judges = _order(results["judge"], None)
    nmax = float(results["n"].max()) or 1.0
    with style_context():
        fig, ax = plt.subplots(figsize=(min(PAGE_WIDTH_IN, 4.2), 3.6))
        ax.plot([0, 1], [0, 1], **BASELINE_STYLE, label="perfect calibration")
        for k, j in enumerate(judges):
            sub = results[results["judge"] == j].sort_values("confidence")
            color = PALETTE[k % len(PALETTE)]
            ax.plot(sub["confidence"], sub["observed"], "-", color=color, label=str(j))
            ax.scatter(
                sub["confidence"], sub["observed"], s=8 + 60 * sub["n"] / nmax, color=color,
                zorder=3, edgecolor="white", linewidth=0.4,
            )  # fmt: skip
            if {"ci_low", "ci_high"} <= set(sub.columns):
                ax.vlines(sub["confidence"], sub["ci_low"], sub["ci_high"], color=color, lw=0.8)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(loc="upper left")
        fig.tight_layout()
    return fig
