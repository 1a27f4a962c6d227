"""Parse status bars: how many of each judge's verdicts parsed, partially parsed, were
invalid or broadcast — the accounting to read before any accuracy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ._common import _one_axes, _order, _require
from ._literal import literal_figure_args
from .style import PAGE_WIDTH_IN, PALETTE, STATUS_COLORS, figsize, style_context

__all__ = ["parse_status_bars"]


@literal_figure_args
def parse_status_bars(
    results: pd.DataFrame, *, normalize: bool = True, status_order: Sequence[str] | None = None,
    ax: Axes | None = None,
) -> Axes:  # fmt: skip
    """Stacked horizontal bars of verdict parse status per judge.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``judge, status, count`` (one row per judge and status; status ``ok,
        broadcast, partial, invalid``, other values appended in first-seen order).
    normalize : bool
        Show proportions (default) or raw counts.
    status_order : sequence of str, optional
        Order of the stacked statuses.
    ax : matplotlib.axes.Axes, optional
        Where to draw; ``None`` creates a figure (5.6 in wide, a row per judge).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: one bar per judge and status, a legend of the statuses.

    Raises
    ------
    ValueError
        ``results`` has no count or lacks ``judge``, ``status`` or ``count``; ``ax`` is not an
        Axes.

    Examples
    --------
    >>> import medjudge as mj
    >>> raters = mj.datasets.demo().rater_table()
    >>> judges = raters[raters["role"] == "judge"].rename(columns={"rater": "judge"})
    >>> counts = judges.melt(id_vars="judge", value_vars=["ok", "partial", "invalid"],
    ...                      var_name="status", value_name="count")
    >>> ax = mj.plots.parse_status_bars(counts)
    >>> len(ax.patches) == len(counts)
    True
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
        size = figsize(len(judges), width=min(PAGE_WIDTH_IN, 5.6))
        fig, ax, owned = _one_axes(ax, size, "parse_status_bars")
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
        if owned:
            fig.tight_layout()
    return ax
