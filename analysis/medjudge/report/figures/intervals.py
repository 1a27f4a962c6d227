"""Interval plots: one row per judge, a point estimate with its interval.

:func:`forest_plot` (estimates per judge and dimension with baseline and expert-ceiling lines),
:func:`rank_interval_plot` (rank with its interval) and :func:`position_bias_plot` (the
estimate in each presentation order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..escape import literal_figure_args
from ..style import PAGE_WIDTH_IN, PALETTE, figsize, style_context
from .common import (
    BASELINE_STYLE,
    CEILING_STYLE,
    _grid,
    _order,
    _per_group_value,
    _require,
)

__all__ = ["forest_plot", "rank_interval_plot", "position_bias_plot"]


def _forest_range(
    results: pd.DataFrame,
    dims: Sequence[Any],
    baseline: float | Mapping[Any, float] | None,
    ceiling: float | Mapping[Any, float] | None,
    xlim: tuple[float, float] | None,
) -> tuple[float, float]:
    """One x range for all panels: intervals, estimates and reference lines, padded; kept
    inside [0, 1] when everything is a proportion."""
    if xlim is not None:
        return float(xlim[0]), float(xlim[1])
    vals = list(results[["ci_low", "ci_high", "estimate"]].to_numpy(dtype=float).ravel())
    for col, ref in (("baseline", baseline), ("ceiling", ceiling)):
        if col in results:
            vals += list(pd.to_numeric(results[col], errors="coerce"))
        for d in dims:
            v = _per_group_value(ref, d)
            if v is not None:
                vals.append(float(v))
    arr = np.asarray(vals, dtype=float)
    arr = arr[np.isfinite(arr)]
    if not arr.size:
        return 0.0, 1.0
    lo, hi = float(arr.min()), float(arr.max())
    pad = max(0.02, 0.04 * (hi - lo))
    if lo >= 0 and hi <= 1:
        return max(0.0, lo - pad), min(1.0, hi + pad)
    return lo - pad, hi + pad


@literal_figure_args
def forest_plot(
    results: pd.DataFrame,
    *,
    baseline: float | Mapping[Any, float] | None = None,
    ceiling: float | Mapping[Any, float] | None = None,
    judge_order: Sequence[Any] | None = None,
    dimension_order: Sequence[Any] | None = None,
    xlabel: str = "accuracy",
    max_cols: int = 3,
    baseline_label: str = "trivial baseline",
    ceiling_label: str = "expert ceiling",
    xlim: tuple[float, float] | None = None,
) -> Figure:
    """Forest plot: judge accuracy with confidence intervals, one panel per dimension.

    Every panel shares one x range that covers all intervals *and* every reference line, so
    none is cut off (values outside [0, 1], e.g. differences, are allowed); ``xlim`` fixes it.
    ``baseline_label`` / ``ceiling_label`` name the reference lines in the legend.

    Parameters
    ----------
    results
        Columns ``judge, dimension, estimate, ci_low, ci_high``; optional ``baseline`` and
        ``ceiling`` columns (one value per dimension) override the arguments.
    baseline
        Trivial baseline (e.g. majority class or chance), drawn as a dashed grey line; a number
        or ``{dimension: value}``.
    ceiling
        Expert ceiling (e.g. a second physician's accuracy against the gold label), drawn as a
        dotted vermillion line; a number or ``{dimension: value}``.
    judge_order
        Top-to-bottom order; default: by mean estimate across dimensions, best on top.
    """
    _require(results, ["judge", "dimension", "estimate", "ci_low", "ci_high"], "forest_plot")
    dims = _order(results["dimension"], dimension_order)
    if judge_order is None:
        judges = results.groupby("judge", sort=False)["estimate"].mean().sort_values().index
        judges = list(judges)  # ascending → best ends on top
    else:
        judges = list(judge_order)[::-1]
    ypos = {j: i for i, j in enumerate(judges)}
    nrows, ncols = _grid(len(dims), max_cols)
    with style_context():
        w, h = figsize(len(judges) * nrows, extra=0.9 + 0.4 * (nrows - 1))
        fig, axes = plt.subplots(nrows, ncols, figsize=(w, h), sharey=True, squeeze=False)
        handles: dict[str, Any] = {}
        lo_all, hi_all = _forest_range(results, dims, baseline, ceiling, xlim)
        for k, dim in enumerate(dims):
            ax = axes[k // ncols][k % ncols]
            sub = results[results["dimension"] == dim]
            y = sub["judge"].map(ypos).to_numpy(dtype=float)
            est = sub["estimate"].to_numpy(dtype=float)
            err = np.vstack(
                [est - sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float) - est]
            )
            ax.errorbar(
                est, y, xerr=np.abs(err), fmt="o", color=PALETTE[0], ecolor=PALETTE[0],
                elinewidth=1.4, markersize=4, zorder=3,
            )  # fmt: skip
            base = sub["baseline"].iloc[0] if "baseline" in sub else _per_group_value(baseline, dim)
            ceil = sub["ceiling"].iloc[0] if "ceiling" in sub else _per_group_value(ceiling, dim)
            if base is not None and np.isfinite(base):
                handles[baseline_label] = ax.axvline(base, **BASELINE_STYLE, label="baseline")
            if ceil is not None and np.isfinite(ceil):
                handles[ceiling_label] = ax.axvline(ceil, **CEILING_STYLE, label="ceiling")
            ax.set_title(str(dim))
            ax.set_yticks(range(len(judges)), [str(j) for j in judges])
            ax.set_ylim(-0.7, len(judges) - 0.3)
            ax.grid(axis="x")
            ax.set_xlim(lo_all, hi_all)
            if k // ncols == nrows - 1 or k + ncols >= len(dims):
                ax.set_xlabel(xlabel)
        for k in range(len(dims), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        if handles:
            fig.legend(
                list(handles.values()), list(handles.keys()), loc="lower center",
                ncol=len(handles), bbox_to_anchor=(0.5, 0.0),
            )  # fmt: skip
            fig.tight_layout(rect=(0, 0.06, 1, 1))
        else:
            fig.tight_layout()
    return fig


@literal_figure_args
def rank_interval_plot(results: pd.DataFrame, *, xlabel: str = "rank (1 = best)") -> Figure:
    """Rank of each judge with its resampling interval.

    Parameters
    ----------
    results
        Columns ``judge, rank, rank_low, rank_high`` (e.g. bootstrap 95 % rank intervals).
    """
    _require(results, ["judge", "rank", "rank_low", "rank_high"], "rank_interval_plot")
    df = results.sort_values(["rank", "judge"], ascending=[False, True])
    k = len(df)
    with style_context():
        fig, ax = plt.subplots(figsize=figsize(k, width=min(PAGE_WIDTH_IN, 4.8)))
        y = np.arange(k)
        ax.hlines(y, df["rank_low"], df["rank_high"], color=PALETTE[0], linewidth=3, alpha=0.45)
        ax.plot(df["rank"], y, "o", color=PALETTE[0], zorder=3)
        ax.set_yticks(y, [str(j) for j in df["judge"]])
        top = int(np.nanmax(results["rank_high"]))
        ax.set_xlim(0.5, top + 0.5)
        ax.set_xticks(range(1, top + 1, max(1, top // 10)))
        ax.set_xlabel(xlabel)
        ax.grid(axis="x")
        fig.tight_layout()
    return fig


@literal_figure_args
def position_bias_plot(
    results: pd.DataFrame,
    *,
    reference: float | None = 0.5,
    xlabel: str = "proportion choosing the first response",
    order_labels: Mapping[Any, str] | None = None,
) -> Figure:
    """Position bias: an estimate per presentation order, per judge, with intervals.

    Parameters
    ----------
    results
        Columns ``judge, order, estimate, ci_low, ci_high``; ``order`` is the presentation
        order (e.g. ``"AB"`` / ``"BA"``). ``estimate`` is e.g. P(verdict = first position) or
        accuracy under that order — say which in ``xlabel``.
    reference
        Value expected without bias (dashed line), e.g. 0.5; ``None`` for none.
    """
    _require(results, ["judge", "order", "estimate", "ci_low", "ci_high"], "position_bias_plot")
    judges = _order(results["judge"], None)[::-1]
    orders = _order(results["order"], None)
    ypos = {j: i for i, j in enumerate(judges)}
    offs = np.linspace(-0.15, 0.15, len(orders)) if len(orders) > 1 else np.zeros(1)
    labels = dict(order_labels or {})
    with style_context():
        fig, ax = plt.subplots(figsize=figsize(len(judges), width=min(PAGE_WIDTH_IN, 5.2)))
        for j in judges:
            sub = results[results["judge"] == j].set_index("order").reindex(orders)
            ax.plot(sub["estimate"], ypos[j] + offs, color="0.7", linewidth=0.8, zorder=1)
        for k, o in enumerate(orders):
            sub = results[results["order"] == o]
            y = sub["judge"].map(ypos).to_numpy(float) + offs[k]
            est = sub["estimate"].to_numpy(float)
            err = np.abs(np.vstack([est - sub["ci_low"].to_numpy(float),
                                    sub["ci_high"].to_numpy(float) - est]))  # fmt: skip
            ax.errorbar(
                est, y, xerr=err, fmt="os"[k % 2], color=PALETTE[k % len(PALETTE)],
                label=labels.get(o, str(o)), zorder=3,
            )  # fmt: skip
        if reference is not None:
            ax.axvline(reference, **BASELINE_STYLE)
        ax.set_yticks(range(len(judges)), [str(j) for j in judges])
        ax.set_xlabel(xlabel)
        ax.grid(axis="x")
        ax.legend(title="presentation order", loc="best")
        fig.tight_layout()
    return fig
