"""Figures for score-valued judges against a reference score.

:func:`bland_altman_plot` (difference against mean, with the bias and limits of agreement)
and :func:`score_scatter` (judge score against reference, with the identity line).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..escape import literal_figure_args
from ..style import OKABE_ITO, PAGE_WIDTH_IN, PALETTE, style_context
from .common import BASELINE_STYLE, _grid, _order, _require

__all__ = ["bland_altman_plot", "score_scatter"]


@literal_figure_args
def bland_altman_plot(
    pairs: pd.DataFrame,
    limits: pd.DataFrame | None = None,
    *,
    max_cols: int = 3,
    units: str = "score",
) -> Figure:
    """Bland–Altman plots of a score-valued judge against the expert reference.

    Parameters
    ----------
    pairs
        Columns ``judge, reference, value``: one row per item and judge (the expert reference
        score, e.g. the mean of the physicians, and the judge's score).
    limits
        Columns ``judge, bias, loa_low, loa_high`` as computed by the library (with their
        intervals if wanted). If omitted, the classic limits are drawn: mean difference
        ± 1.96 SD of the differences (Bland & Altman 1986, Lancet 327:307–310).
    """
    _require(pairs, ["judge", "reference", "value"], "bland_altman_plot")
    judges = _order(pairs["judge"], None)
    if limits is not None:
        _require(limits, ["judge", "bias", "loa_low", "loa_high"], "bland_altman_plot")
        lim = limits.set_index("judge")
    nrows, ncols = _grid(len(judges), max_cols)
    with style_context():
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(PAGE_WIDTH_IN, 0.4 + 2.1 * nrows), squeeze=False,
            sharex=True, sharey=True,
        )  # fmt: skip
        for k, j in enumerate(judges):
            ax = axes[k // ncols][k % ncols]
            sub = pairs[pairs["judge"] == j]
            ref = sub["reference"].to_numpy(float)
            val = sub["value"].to_numpy(float)
            mean, diff = (ref + val) / 2.0, val - ref
            ax.scatter(mean, diff, s=7, alpha=0.5, color=PALETTE[0], linewidth=0)
            if limits is not None:
                bias, lo, hi = (float(lim.loc[j, c]) for c in ("bias", "loa_low", "loa_high"))
            else:
                bias = float(np.nanmean(diff))
                sd = float(np.nanstd(diff, ddof=1)) if np.sum(np.isfinite(diff)) > 1 else 0.0
                lo, hi = bias - 1.96 * sd, bias + 1.96 * sd
            ax.axhline(0, color="0.8", linewidth=0.6)
            ax.axhline(bias, color=OKABE_ITO["vermillion"], linewidth=1.0)
            for v in (lo, hi):
                ax.axhline(v, color=OKABE_ITO["vermillion"], linewidth=0.8, linestyle="--")
            ax.set_title(str(j))
            if k % ncols == 0:
                ax.set_ylabel(f"judge − reference ({units})")
        for k in range(len(judges), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        handles = [
            Line2D([], [], color=OKABE_ITO["vermillion"], linewidth=1.0, label="mean difference"),
            Line2D([], [], color=OKABE_ITO["vermillion"], linestyle="--", label="limits of agreement"),
        ]  # fmt: skip
        fig.supxlabel(f"mean of judge and reference ({units})", fontsize=8)
        fig.legend(handles=handles, loc="upper center", ncol=2, bbox_to_anchor=(0.5, 1.0))
        fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig


@literal_figure_args
def score_scatter(pairs: pd.DataFrame, *, max_cols: int = 3, units: str = "score") -> Figure:
    """Judge score against expert reference score, with the identity line, per judge.

    Parameters
    ----------
    pairs
        Columns ``judge, reference, value`` (one row per item and judge). Discrete scores
        overlap; points are drawn translucent (no jitter, so positions stay exact).
    """
    _require(pairs, ["judge", "reference", "value"], "score_scatter")
    judges = _order(pairs["judge"], None)
    nrows, ncols = _grid(len(judges), max_cols)
    lo = float(np.nanmin(pairs[["reference", "value"]].to_numpy(float)))
    hi = float(np.nanmax(pairs[["reference", "value"]].to_numpy(float)))
    pad = 0.05 * (hi - lo or 1.0)
    with style_context():
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(PAGE_WIDTH_IN, 0.3 + 2.1 * nrows), squeeze=False,
            sharex=True, sharey=True,
        )  # fmt: skip
        for k, j in enumerate(judges):
            ax = axes[k // ncols][k % ncols]
            sub = pairs[pairs["judge"] == j]
            ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], **BASELINE_STYLE)
            ax.scatter(sub["reference"], sub["value"], s=8, alpha=0.35, color=PALETTE[0], lw=0)
            ax.set_xlim(lo - pad, hi + pad)
            ax.set_ylim(lo - pad, hi + pad)
            ax.set_aspect("equal")
            ax.set_title(str(j))
            if k % ncols == 0:
                ax.set_ylabel(f"judge ({units})")
        for k in range(len(judges), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        fig.supxlabel(f"expert reference ({units})", fontsize=8)
        fig.tight_layout()
    return fig
