"""Agreement matrix: the agreement between every two raters (e.g. pairwise Cohen's κ).

The matrix an annotation lead reads first: which annotator agrees with whom, and who drifts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ._common import _matrix_axes, _num, _one_axes, _pair_names, _require, _text_color
from ._literal import literal_figure_args
from .style import MIN_TEXT_PT, PAGE_WIDTH_IN, SEQUENTIAL_CMAP, style_context

__all__ = ["agreement_matrix"]


@literal_figure_args
def agreement_matrix(
    results: pd.DataFrame,
    *,
    order: Sequence[Any] | None = None,
    value_label: str = "Cohen's κ",
    vmin: float | None = None,
    vmax: float = 1.0,
    ax: Axes | None = None,
) -> Axes:
    """Rater × rater agreement matrix; the diagonal is left blank.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``rater_a, rater_b, estimate`` (one row per pair; optional ``n``).
        Symmetric: each pair once is enough.
    order : sequence, optional
        Order of the raters (default: first-seen order).
    value_label : str
        Label of the colour bar (the coefficient).
    vmin, vmax : float
        Ends of the colour scale (default ``vmin``: 0, or the smallest value when negative).
    ax : matplotlib.axes.Axes, optional
        Where to draw (the colour bar takes a slice of it); ``None`` creates a square figure.

    Returns
    -------
    matplotlib.axes.Axes
        The matrix's axes: two texts per pair (both cells).

    Raises
    ------
    ValueError
        ``results`` has no row or lacks ``rater_a``, ``rater_b`` or ``estimate``; ``ax`` is
        not an Axes.

    Examples
    --------
    >>> import medjudge as mj
    >>> audit = mj.audit_study(mj.datasets.demo(), with_dawid_skene=False, ci=None)
    >>> pairs = audit.dimensions["overall"]["pairwise"].rename(columns={"kappa": "estimate"})
    >>> ax = mj.plots.agreement_matrix(pairs)
    >>> len(ax.texts) == 2 * len(pairs)
    True
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    _require(results, ["rater_a", "rater_b", "estimate"], "agreement_matrix")
    names = _pair_names(results, "rater_a", "rater_b", order)
    idx = {r: i for i, r in enumerate(names)}
    k = len(names)
    mat = np.full((k, k), np.nan)
    for a, b, e in results[["rater_a", "rater_b", "estimate"]].itertuples(index=False):
        mat[idx[a], idx[b]] = mat[idx[b], idx[a]] = e
    low = min(0.0, float(np.nanmin(mat))) if vmin is None else vmin
    with style_context():
        side = min(PAGE_WIDTH_IN, 1.8 + 0.55 * k)
        fig, ax, owned = _one_axes(ax, (side + 0.9, side * 0.85), "agreement_matrix")
        cmap = plt.get_cmap(SEQUENTIAL_CMAP)
        norm = Normalize(vmin=low, vmax=vmax)
        im = ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, norm=norm)
        for i in range(k):
            for j in range(k):
                if i != j and np.isfinite(mat[i, j]):
                    ax.text(
                        j, i, _num(mat[i, j], 2), ha="center", va="center", fontsize=MIN_TEXT_PT,
                        color=_text_color(cmap(norm(mat[i, j]))),
                    )  # fmt: skip
        _matrix_axes(fig, ax, im, names, names, value_label, 0.045)
        if owned:
            fig.tight_layout()
    return ax
