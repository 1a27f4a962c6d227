"""Rank intervals: the rank of each judge with its resampling (confidence-set) interval.

Overlapping intervals mean the data do not establish the order of those judges.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ._common import _one_axes, _require
from ._literal import literal_figure_args
from .style import PAGE_WIDTH_IN, PALETTE, figsize, style_context

__all__ = ["rank_interval_plot"]


@literal_figure_args
def rank_interval_plot(
    results: pd.DataFrame, *, xlabel: str = "rank (1 = best)", ax: Axes | None = None
) -> Axes:
    """Rank of each judge with its interval, best on top.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``judge, rank, rank_low, rank_high`` (one row per judge, e.g. the bootstrap
        rank confidence sets of a leaderboard's dimension).
    xlabel : str
        Label of the x axis.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on, or ``None`` for a new figure 4.8 in wide with a row per judge.

    Returns
    -------
    matplotlib.axes.Axes
        The axes, holding a point per judge and one line collection of the intervals.

    Raises
    ------
    ValueError
        If ``ax`` is not an Axes, or ``results`` is empty or lacks a rank column.

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.demo()
    >>> ev = mj.evaluate_judges(study, bootstrap=mj.Bootstrap(100, seed=0), dimensions=["overall"])
    >>> ax = mj.plots.rank_interval_plot(ev.leaderboard)
    >>> len(ax.collections[0].get_segments()) == len(ev.leaderboard)
    True
    """
    _require(results, ["judge", "rank", "rank_low", "rank_high"], "rank_interval_plot")
    df = results.sort_values(["rank", "judge"], ascending=[False, True])
    k = len(df)
    with style_context():
        size = figsize(k, width=min(PAGE_WIDTH_IN, 4.8))
        fig, ax, owned = _one_axes(ax, size, "rank_interval_plot")
        y = np.arange(k)
        ax.hlines(y, df["rank_low"], df["rank_high"], color=PALETTE[0], linewidth=3, alpha=0.45)
        ax.plot(df["rank"], y, "o", color=PALETTE[0], zorder=3)
        ax.set_yticks(y, [str(j) for j in df["judge"]])
        top = int(np.nanmax(results["rank_high"]))
        ax.set_xlim(0.5, top + 0.5)
        ax.set_xticks(range(1, top + 1, max(1, top // 10)))
        ax.set_xlabel(xlabel)
        ax.grid(axis="x")
        if owned:
            fig.tight_layout()
    return ax
