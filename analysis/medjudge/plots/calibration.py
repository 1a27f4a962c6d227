"""Calibration (reliability) diagram: a judge's stated confidence against its observed
accuracy, per confidence bin; a calibrated judge lies on the diagonal."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes

from ._common import BASELINE_STYLE, _one_axes, _order, _require
from ._literal import literal_figure_args
from .style import PAGE_WIDTH_IN, PALETTE, style_context

__all__ = ["reliability_diagram"]


@literal_figure_args
def reliability_diagram(
    results: pd.DataFrame, *, xlabel: str = "stated confidence",
    ylabel: str = "observed accuracy", ax: Axes | None = None,
) -> Axes:  # fmt: skip
    """Reliability (calibration) diagram: observed accuracy per confidence bin, per judge.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``judge, confidence, observed, n`` (one row per judge and bin: mean stated
        confidence, observed accuracy and count); optional ``ci_low, ci_high`` for the
        observed accuracy. Marker area scales with ``n``.
    xlabel, ylabel : str
        Axis labels.
    ax : matplotlib.axes.Axes, optional
        Where to draw; ``None`` creates a square figure (4.2 in wide).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: the diagonal, then per judge a line and one point per bin.

    Raises
    ------
    ValueError
        ``results`` has no bin or lacks ``judge``, ``confidence``, ``observed`` or ``n``; ``ax``
        is not an Axes.

    Examples
    --------
    >>> import medjudge as mj
    >>> import pandas as pd
    >>> bins = pd.DataFrame({"judge": ["sim-control"] * 3, "confidence": [0.3, 0.6, 0.9],
    ...                      "observed": [0.35, 0.55, 0.8], "n": [40, 120, 300]})
    >>> ax = mj.plots.reliability_diagram(bins)
    >>> len(ax.collections[0].get_offsets()) == len(bins)
    True
    """
    _require(results, ["judge", "confidence", "observed", "n"], "reliability_diagram")
    judges = _order(results["judge"], None)
    nmax = float(results["n"].max()) or 1.0
    with style_context():
        fig, ax, owned = _one_axes(ax, (min(PAGE_WIDTH_IN, 4.2), 3.6), "reliability_diagram")
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
        if owned:
            fig.tight_layout()
    return ax
