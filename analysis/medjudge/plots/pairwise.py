"""Pairwise comparison matrix: the difference between every two judges and its adjusted p-value.

Row minus column in each cell, on a diverging scale; pairs that are not significant after
the multiplicity adjustment are faded and hatched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ._common import _matrix_axes, _num, _one_axes, _pair_names, _pvalue, _require
from ._literal import literal_figure_args
from .style import DIVERGING_CMAP, MIN_TEXT_PT, PAGE_WIDTH_IN, style_context

__all__ = ["pairwise_matrix"]


@literal_figure_args
def pairwise_matrix(
    results: pd.DataFrame,
    *,
    p: str = "p_adj",
    alpha: float = 0.05,
    order: Sequence[Any] | None = None,
    value_label: str = "difference (row − column)",
    compact: bool | None = None,
    p_label: str = "adjusted p",
    ax: Axes | None = None,
) -> Axes:
    """Pairwise comparison matrix: adjusted p-values and the direction of the effect.

    With more than 8 judges (or ``compact=True``) each cell shows only the difference; the
    significance stays visible as bold (significant) against faded and hatched.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``judge_a, judge_b, estimate`` (effect of ``judge_a`` minus ``judge_b``, e.g.
        an accuracy difference) and the adjusted p-value column ``p``; one row per pair.
        Each unordered pair once is enough; the mirror cell shows the negated effect.
    p : str
        The column of adjusted p-values (e.g. ``p_holm``).
    alpha : float
        Cells with ``p >= alpha`` are drawn faded and hatched (not significant).
    order : sequence, optional
        Order of the judges (default: first-seen order); pairs of other judges are left out.
    value_label : str
        Label of the colour bar.
    compact : bool, optional
        Show the difference only (default: when there are more than 8 judges).
    p_label : str
        Name of the p-value in the note above the matrix.
    ax : matplotlib.axes.Axes, optional
        The axes to draw the matrix on (its colour bar takes a slice of them), or ``None`` for
        a new square figure that grows with the number of judges.

    Returns
    -------
    matplotlib.axes.Axes
        The axes of the matrix, with a text in both cells of every pair.

    Raises
    ------
    ValueError
        ``results`` has no pair or lacks ``judge_a``, ``judge_b``, ``estimate`` or the ``p``
        column; ``ax`` is not an Axes.

    Examples
    --------
    >>> import medjudge as mj
    >>> boot = mj.Bootstrap(100, seed=0)
    >>> ev = mj.evaluate_judges(mj.datasets.demo(), bootstrap=boot, dimensions=["overall"])
    >>> pairs = ev.pairs.rename(columns={"difference": "estimate"})
    >>> ax = mj.plots.pairwise_matrix(pairs, p="p_holm", p_label="Holm-adjusted p")
    >>> len(ax.texts) == 2 * len(pairs)
    True
    """
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle

    _require(results, ["judge_a", "judge_b", "estimate", p], "pairwise_matrix")
    names = _pair_names(results, "judge_a", "judge_b", order)
    idx = {j: i for i, j in enumerate(names)}
    k = len(names)
    compact = k > 8 if compact is None else compact
    results = results[results["judge_a"].isin(idx) & results["judge_b"].isin(idx)]
    eff = np.full((k, k), np.nan)
    pv = np.full((k, k), np.nan)
    for a, b, e, pp in results[["judge_a", "judge_b", "estimate", p]].itertuples(index=False):
        i, j = idx[a], idx[b]
        eff[i, j], eff[j, i] = e, -e
        pv[i, j] = pv[j, i] = pp
    lim = float(np.nanmax(np.abs(eff))) if np.isfinite(eff).any() else 1.0
    lim = lim or 1.0
    with style_context():
        side = min(PAGE_WIDTH_IN, 1.8 + 0.62 * k)
        fig, ax, owned = _one_axes(ax, (side + 0.9, side * 0.85), "pairwise_matrix")
        norm = TwoSlopeNorm(vcenter=0.0, vmin=-lim, vmax=lim)
        im = ax.imshow(np.ma.masked_invalid(eff), cmap=DIVERGING_CMAP, norm=norm)
        for i in range(k):
            for j in range(k):
                if i == j or not np.isfinite(eff[i, j]):
                    continue
                sig = pv[i, j] < alpha
                if not sig:
                    ax.add_patch(
                        Rectangle(
                            (j - 0.5, i - 0.5), 1, 1, facecolor=(1, 1, 1, 0.55), hatch="///",
                            edgecolor="0.75", linewidth=0,
                        )
                    )  # fmt: skip
                num = _num(eff[i, j], 2)
                sign = "+" if eff[i, j] > 0 and float(num) != 0 else ""
                label = f"{sign}{num}" if compact else f"{sign}{num}\n{_pvalue(pv[i, j])}"
                ax.text(
                    j, i, label, ha="center", va="center",
                    fontsize=MIN_TEXT_PT, fontweight="bold" if sig else "normal",
                )  # fmt: skip
        _matrix_axes(fig, ax, im, names, names, value_label, 0.045)
        ax.set_title(
            f"bold: {p_label} < {alpha:g}; hatched: not significant",
            fontsize=MIN_TEXT_PT, fontweight="normal", loc="left", color="0.3",
        )  # fmt: skip
        if owned:
            fig.tight_layout()
    return ax
