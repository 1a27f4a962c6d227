"""Score scatter: a score-valued judge against the expert reference score, with the identity
line, one panel per judge (points on the line: the judge gives the experts' score)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ._common import BASELINE_STYLE, _require, _score_panels
from ._literal import literal_figure_args
from .style import PALETTE, style_context

__all__ = ["score_scatter"]


@literal_figure_args
def score_scatter(
    pairs: pd.DataFrame, *, max_cols: int = 3, units: str = "score",
    ax: Axes | Sequence[Axes] | None = None,
) -> Figure:  # fmt: skip
    """Judge score against expert reference score, with the identity line, per judge.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``judge, reference, value`` (one row per item and judge). Discrete scores
        overlap; points are drawn translucent (no jitter, so positions stay exact).
    max_cols, units : int and str
        How many panels a row of a new figure holds, and the unit of the scores (axis labels).
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        The axes to draw on, one per judge, or ``None`` for a new page-wide figure whose
        panels share their axes.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the panels (as every multi-panel plot): each shows the identity line and
        a point per row of its judge.

    Raises
    ------
    ValueError
        ``pairs`` has no row or lacks ``judge``, ``reference`` or ``value``; ``ax`` is not an
        Axes or holds fewer axes than there are judges.

    Examples
    --------
    >>> import medjudge as mj
    >>> import pandas as pd
    >>> pairs = pd.DataFrame({"judge": ["sim-control"] * 5, "reference": [1, 2, 3, 4, 5],
    ...                       "value": [2, 2, 3, 5, 4]})
    >>> fig = mj.plots.score_scatter(pairs)
    >>> len(fig.axes[0].collections[0].get_offsets()) == len(pairs)
    True
    """
    _require(pairs, ["judge", "reference", "value"], "score_scatter")
    lo = float(np.nanmin(pairs[["reference", "value"]].to_numpy(float)))
    hi = float(np.nanmax(pairs[["reference", "value"]].to_numpy(float)))
    pad = 0.05 * (hi - lo or 1.0)
    labels = (f"expert reference ({units})", f"judge ({units})")
    with style_context():
        fig, owned, panels = _score_panels(pairs, ax, max_cols, 0.3, "score_scatter", labels)
        for a, sub in panels:
            a.plot([lo - pad, hi + pad], [lo - pad, hi + pad], **BASELINE_STYLE)
            a.scatter(sub["reference"], sub["value"], s=8, alpha=0.35, color=PALETTE[0], lw=0)
            a.set_xlim(lo - pad, hi + pad)
            a.set_ylim(lo - pad, hi + pad)
            a.set_aspect("equal")
        if owned:
            fig.tight_layout()
    return fig
