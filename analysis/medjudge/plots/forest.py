"""Forest plot: one row per judge, a point estimate with its interval, one panel per dimension.

The plot of a leaderboard (accuracy with its confidence interval beside the trivial baseline
and the expert ceiling), of agreement coefficients, or of any difference with its interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ._common import (
    BASELINE_STYLE,
    CEILING_STYLE,
    _grid,
    _order,
    _panel_axes,
    _per_group_value,
    _require,
)
from ._literal import literal_figure_args
from .style import PALETTE, figsize, style_context

__all__ = ["forest_plot"]


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
    panel: str = "dimension",
    row: str = "judge",
    ax: Axes | Sequence[Axes] | None = None,
) -> Figure:
    """Forest plot: estimates with confidence intervals per judge, one panel per dimension.

    Every panel shares one x range that covers all intervals *and* every reference line, so
    none is cut off (values outside [0, 1], e.g. differences, are allowed); ``xlim`` fixes it.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``judge, dimension, estimate, ci_low, ci_high`` (one row per judge and
        dimension); optional ``baseline`` and ``ceiling`` columns (one value per dimension)
        override the arguments.
    baseline : float or dict, optional
        Trivial baseline (e.g. majority class or chance), drawn as a dashed grey line; a number
        or ``{dimension: value}``.
    ceiling : float or dict, optional
        Expert ceiling (e.g. a second physician's accuracy against the gold label), drawn as a
        dotted vermillion line; a number or ``{dimension: value}``.
    judge_order : sequence, optional
        Top-to-bottom order; default: by mean estimate across dimensions, best on top.
    dimension_order : sequence, optional
        Panel order; default: first-seen order.
    xlabel : str
        Label of the x axis (what ``estimate`` is).
    max_cols : int
        Panels per row of a new figure.
    baseline_label, ceiling_label : str
        Names of the reference lines in the legend.
    xlim : tuple of float, optional
        Fixed x range of every panel.
    panel : str, default "dimension"
        The column whose values get a panel each (e.g. ``effect`` of a bias table).
    row : str, default "judge"
        The column whose values get a row each (e.g. ``evaluator``).
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        Where to draw: one axes per dimension (a single Axes when there is one dimension). When
        ``None``, a new figure sized for the page (6.3 in wide, a row per judge) is created
        and laid out, with the legend of the reference lines below the panels; on given axes
        the legend goes to the first panel and the caller's layout is left alone.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the panels (a multi-panel plot returns its figure).

    Raises
    ------
    ValueError
        ``results`` has no row or lacks one of its five columns; ``ax`` is not an Axes or
        holds fewer axes than there are dimensions.

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.demo()
    >>> ev = mj.evaluate_judges(study, bootstrap=mj.Bootstrap(100, seed=0), dimensions=["overall"])
    >>> board = ev.table("leaderboard")  # judge, dimension, estimate, ci_low, ci_high …
    >>> fig = mj.plots.forest_plot(board, baseline=0.5)
    >>> len(fig.axes[0].get_yticklabels()) == len(board)
    True
    """
    _require(results, [row, panel, "estimate", "ci_low", "ci_high"], "forest_plot")
    # one simultaneous rename, so that row and panel may swap (row="dimension", panel=...)
    names = {panel: "dimension", row: "judge"}
    other = [c for c in ("dimension", "judge") if c in results and c not in names]
    results = results.drop(columns=other).rename(columns=names)
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
        fig, axes, owned = _panel_axes(
            ax, len(dims), max_cols, (w, h), "forest_plot", sharey=True
        )  # fmt: skip
        handles: dict[str, Any] = {}
        lo_all, hi_all = _forest_range(results, dims, baseline, ceiling, xlim)
        for k, (dim, a) in enumerate(zip(dims, axes, strict=True)):
            sub = results[results["dimension"] == dim]
            y = sub["judge"].map(ypos).to_numpy(dtype=float)
            est = sub["estimate"].to_numpy(dtype=float)
            err = np.vstack(
                [est - sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float) - est]
            )
            a.errorbar(
                est, y, xerr=np.abs(err), fmt="o", color=PALETTE[0], ecolor=PALETTE[0],
                elinewidth=1.4, markersize=4, zorder=3,
            )  # fmt: skip
            base = sub["baseline"].iloc[0] if "baseline" in sub else _per_group_value(baseline, dim)
            ceil = sub["ceiling"].iloc[0] if "ceiling" in sub else _per_group_value(ceiling, dim)
            if base is not None and np.isfinite(base):
                handles[baseline_label] = a.axvline(base, **BASELINE_STYLE, label="baseline")
            if ceil is not None and np.isfinite(ceil):
                handles[ceiling_label] = a.axvline(ceil, **CEILING_STYLE, label="ceiling")
            a.set_title(str(dim))
            a.set_yticks(range(len(judges)), [str(j) for j in judges])
            a.set_ylim(-0.7, len(judges) - 0.3)
            a.grid(axis="x")
            a.set_xlim(lo_all, hi_all)
            if not owned or k // ncols == nrows - 1 or k + ncols >= len(dims):
                a.set_xlabel(xlabel)
        if handles and owned:
            fig.legend(
                list(handles.values()), list(handles.keys()), loc="lower center",
                ncol=len(handles), bbox_to_anchor=(0.5, 0.0),
            )  # fmt: skip
            fig.tight_layout(rect=(0, 0.06, 1, 1))
        elif handles:
            axes[0].legend(list(handles.values()), list(handles.keys()), loc="best")
        elif owned:
            fig.tight_layout()
    return fig
