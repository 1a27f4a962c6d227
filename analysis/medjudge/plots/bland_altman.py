"""Bland–Altman plot: a score-valued judge against the expert reference, difference against
mean, with the mean difference (bias) and the limits of agreement; one panel per judge."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ._common import _require, _score_panels
from ._literal import literal_figure_args
from .style import OKABE_ITO, PALETTE, style_context

__all__ = ["bland_altman_plot"]


@literal_figure_args
def bland_altman_plot(
    pairs: pd.DataFrame,
    limits: pd.DataFrame | None = None,
    *,
    max_cols: int = 3,
    units: str = "score",
    ax: Axes | Sequence[Axes] | None = None,
) -> Figure:
    """Bland–Altman plots of score-valued judges against the expert reference.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``judge, reference, value``: one row per item and judge (the expert reference
        score, e.g. the mean of the physicians, and the judge's score).
    limits : pandas.DataFrame, optional
        Columns ``judge, bias, loa_low, loa_high`` as computed by the library. If omitted, the
        classic limits are drawn: mean difference ± 1.96 SD of the differences (Bland & Altman
        1986), the one quantity this module computes.
    max_cols : int
        Panels per row of a new figure.
    units : str
        Unit of the scores, in the axis labels.
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        One axes per judge (a single Axes for one judge); ``None`` creates a page-wide figure
        with shared axes and the legend above the panels.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the panels (a multi-panel plot returns its figure); each panel has
        one point per row of its judge and four horizontal lines (zero, bias, two limits).

    Raises
    ------
    ValueError
        ``pairs`` or ``limits`` is empty or lacks a column named above; ``ax`` is not an Axes
        or holds fewer axes than there are judges.

    References
    ----------
    Bland JM, Altman DG (1986). Statistical methods for assessing agreement between two
    methods of clinical measurement. Lancet 327:307–310.

    Examples
    --------
    >>> import medjudge as mj
    >>> import numpy as np, pandas as pd
    >>> ref = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 3.0])
    >>> pairs = pd.DataFrame({"judge": "sim-control", "reference": ref, "value": ref + 0.5})
    >>> fig = mj.plots.bland_altman_plot(pairs)
    >>> fig.axes[0].get_lines()[1].get_ydata()[0]  # the bias
    0.5
    """
    if limits is not None:
        _require(limits, ["judge", "bias", "loa_low", "loa_high"], "bland_altman_plot")
        lim = limits.set_index("judge")
    labels = (f"mean of judge and reference ({units})", f"judge − reference ({units})")
    with style_context():
        fig, owned, panels = _score_panels(pairs, ax, max_cols, 0.4, "bland_altman_plot", labels)
        for a, sub in panels:
            ref = sub["reference"].to_numpy(float)
            val = sub["value"].to_numpy(float)
            mean, diff = (ref + val) / 2.0, val - ref
            a.scatter(mean, diff, s=7, alpha=0.5, color=PALETTE[0], linewidth=0)
            if limits is not None:
                j = sub["judge"].iloc[0]
                bias, lo, hi = (float(lim.loc[j, c]) for c in ("bias", "loa_low", "loa_high"))
            else:
                bias = float(np.nanmean(diff))
                sd = float(np.nanstd(diff, ddof=1)) if np.sum(np.isfinite(diff)) > 1 else 0.0
                lo, hi = bias - 1.96 * sd, bias + 1.96 * sd
            a.axhline(0, color="0.8", linewidth=0.6)
            a.axhline(bias, color=OKABE_ITO["vermillion"], linewidth=1.0)
            for v in (lo, hi):
                a.axhline(v, color=OKABE_ITO["vermillion"], linewidth=0.8, linestyle="--")
        if owned:
            from matplotlib.lines import Line2D

            red = OKABE_ITO["vermillion"]
            handles = [
                Line2D([], [], color=red, linewidth=1.0, label="mean difference"),
                Line2D([], [], color=red, linestyle="--", label="limits of agreement"),
            ]
            fig.legend(handles=handles, loc="upper center", ncol=2, bbox_to_anchor=(0.5, 1.0))
            fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig
