"""Score scatter: a score-valued judge against the expert reference score, with the identity
line, one panel per judge (points on the line: the judge gives the experts' score)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._common import BASELINE_STYLE, _grid, _panel_axes, _score_pairs
from ._literal import literal_figure_args
from .style import PAGE_WIDTH_IN, PALETTE, style_context

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["score_scatter"]


@literal_figure_args
def score_scatter(
    pairs: pd.DataFrame,
    *,
    max_cols: int = 3,
    units: str = "score",
    ax: Axes | Sequence[Axes] | None = None,
) -> Figure:
    """Judge score against expert reference score, with the identity line, per judge.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``judge, reference, value`` (one row per item and judge). Discrete scores
        overlap; points are drawn translucent (no jitter, so positions stay exact).
    max_cols : int
        Panels per row of a new figure.
    units : str
        Unit of the scores, in the axis labels.
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        One axes per judge (a single Axes for one judge); ``None`` creates a page-wide figure
        with shared axes.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the panels (a multi-panel plot returns its figure); each panel has
        the identity line and one point per row of its judge.

    Raises
    ------
    ValueError
        A required column is missing, the table is empty, or ``ax`` holds too few axes.

    Examples
    --------
    >>> import medjudge as mj
    >>> import numpy as np, pandas as pd
    >>> ref = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 3.0])
    >>> pairs = pd.DataFrame({"judge": "sim-control", "reference": ref, "value": ref + 0.5})
    >>> fig = mj.plots.score_scatter(pairs)
    >>> len(fig.axes[0].collections[0].get_offsets()) == len(pairs)
    True
    """
    judges = _score_pairs(pairs, "score_scatter")
    nrows, ncols = _grid(len(judges), max_cols)
    lo = float(np.nanmin(pairs[["reference", "value"]].to_numpy(float)))
    hi = float(np.nanmax(pairs[["reference", "value"]].to_numpy(float)))
    pad = 0.05 * (hi - lo or 1.0)
    with style_context():
        fig, axes, owned = _panel_axes(
            ax, len(judges), max_cols, (PAGE_WIDTH_IN, 0.3 + 2.1 * nrows), "score_scatter",
            sharex=True, sharey=True,
        )  # fmt: skip
        for k, (j, a) in enumerate(zip(judges, axes, strict=True)):
            sub = pairs[pairs["judge"] == j]
            a.plot([lo - pad, hi + pad], [lo - pad, hi + pad], **BASELINE_STYLE)
            a.scatter(sub["reference"], sub["value"], s=8, alpha=0.35, color=PALETTE[0], lw=0)
            a.set_xlim(lo - pad, hi + pad)
            a.set_ylim(lo - pad, hi + pad)
            a.set_aspect("equal")
            a.set_title(str(j))
            if not owned or k % ncols == 0:
                a.set_ylabel(f"judge ({units})")
            if not owned:
                a.set_xlabel(f"expert reference ({units})")
        if owned:
            fig.supxlabel(f"expert reference ({units})", fontsize=8)
            fig.tight_layout()
    return fig
