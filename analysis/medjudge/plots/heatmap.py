"""Subgroup heatmap: a judge's accuracy in every subgroup (e.g. organ system), with n.

Cells resting on few items or with a wide interval are hatched and bracketed, so a reader
does not take a noisy cell for a weakness.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ._common import _matrix, _matrix_axes, _num, _one_axes, _order, _require, _text_color
from ._literal import literal_figure_args
from .style import MIN_TEXT_PT, SEQUENTIAL_CMAP, style_context

__all__ = ["subgroup_heatmap"]


@literal_figure_args
def subgroup_heatmap(
    results: pd.DataFrame,
    *,
    row: str = "judge",
    col: str = "subgroup",
    min_n: int = 30,
    max_ci_width: float | None = 0.3,
    value_label: str = "accuracy",
    vmin: float | None = None,
    vmax: float | None = None,
    row_order: Sequence[Any] | None = None,
    col_order: Sequence[Any] | None = None,
    flag: str = "uncertain",
    ax: Axes | None = None,
) -> Axes:
    """Judge × subgroup heatmap annotated with the estimate and n; uncertain cells marked.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``judge, subgroup, estimate, n`` (names set by ``row``/``col``; one row per
        cell); optional ``ci_low, ci_high`` and a boolean column named by ``flag``.
    row, col : str
        The columns naming the rows (judges) and columns (subgroups) of the heatmap.
    min_n, max_ci_width : int, float
        A cell is *uncertain* (hatched, estimate in brackets) when its ``flag`` is true, or
        ``n < min_n``, or its interval is wider than ``max_ci_width`` (``None``: no limit).
    value_label : str
        Label of the colour bar.
    vmin, vmax : float, optional
        Ends of the colour scale (default: the smallest and largest estimate).
    row_order, col_order : sequence, optional
        Order of the rows and columns (default: first-seen order).
    flag : str, default "uncertain"
        The boolean column marking a cell uncertain on the analysis' own rule (e.g. ``small``
        of :func:`medjudge.subgroup_accuracy`).
    ax : matplotlib.axes.Axes, optional
        Where to draw (the colour bar takes a slice of it); ``None`` creates a figure sized
        for the page.

    Returns
    -------
    matplotlib.axes.Axes
        The heatmap's axes: one ``estimate / n`` text per cell of ``results``.

    Raises
    ------
    ValueError
        ``results`` has no cell or lacks the ``row``/``col`` columns, ``estimate`` or ``n``;
        ``ax`` is not an Axes.

    Examples
    --------
    >>> import medjudge as mj
    >>> cells = mj.subgroup_accuracy(mj.datasets.demo(), by=["organ_system"]).table("cells")
    >>> ax = mj.plots.subgroup_heatmap(cells, col="organ_system", flag="small")
    >>> sum("n=" in t.get_text() for t in ax.texts) == len(cells)
    True
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    _require(results, [row, col, "estimate", "n"], "subgroup_heatmap")
    rows = _order(results[row], row_order)
    cols = _order(results[col], col_order)
    df = results.copy()
    unc = df["n"].to_numpy(float) < min_n
    if flag in df:
        unc |= df[flag].fillna(False).to_numpy(bool)
    if max_ci_width is not None and {"ci_low", "ci_high"} <= set(df.columns):
        width = (df["ci_high"] - df["ci_low"]).to_numpy(float)
        unc |= np.nan_to_num(width, nan=0.0) > max_ci_width
    df["_uncertain"] = unc.astype(float)
    est = _matrix(df, row, col, "estimate", rows, cols)
    n = _matrix(df, row, col, "n", rows, cols)
    flag = _matrix(df, row, col, "_uncertain", rows, cols)
    with style_context():
        fig, ax, owned = _one_axes(ax, _heatmap_size(est, n, rows, cols), "subgroup_heatmap")
        norm = Normalize(
            vmin=np.nanmin(est) if vmin is None else vmin,
            vmax=np.nanmax(est) if vmax is None else vmax,
        )
        cmap = plt.get_cmap(SEQUENTIAL_CMAP)
        im = ax.imshow(np.ma.masked_invalid(est), cmap=cmap, norm=norm, aspect="auto")
        for i in range(len(rows)):
            for j in range(len(cols)):
                if not np.isfinite(est[i, j]):
                    continue
                text = _num(est[i, j], 2)
                ink = _text_color(cmap(norm(est[i, j])))
                if flag[i, j] > 0:
                    text = f"({text})"
                    hatch_ink = (0, 0, 0, 0.45) if ink == "black" else (1, 1, 1, 0.55)
                    ax.add_patch(
                        Rectangle(
                            (j - 0.5, i - 0.5), 1, 1, fill=False, hatch="////",
                            edgecolor=hatch_ink, linewidth=0, label="_uncertain",
                        )
                    )  # fmt: skip
                ax.text(
                    j, i, f"{text}\nn={int(n[i, j])}", ha="center", va="center", fontsize=MIN_TEXT_PT,
                    color=ink,
                )  # fmt: skip
        _matrix_axes(fig, ax, im, cols, rows, value_label, 0.04)
        if np.any(flag > 0):
            note = f"hatched, (…): n < {min_n}"
            if max_ci_width is not None:
                note += f" or CI wider than {_num(max_ci_width, 2)}"
            ax.set_title(note, fontsize=MIN_TEXT_PT, fontweight="normal", loc="left", color="0.3")
        if owned:
            fig.tight_layout()
    return ax


def _text_in(text: str, size: float) -> float:
    """Width of ``text`` in DejaVu Sans at ``size`` points, in inches (matplotlib's glyphs)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    path = TextPath((0, 0), text, size=size, prop=FontProperties(family="DejaVu Sans"))
    return float(path.get_extents().width) / 72.0


def _heatmap_size(est: np.ndarray, n: np.ndarray, rows: list, cols: list) -> tuple[float, float]:
    """Figure size from the content: each cell as wide as its widest text (``(0.62)``,
    ``n=1234``) at :data:`~medjudge.plots.style.MIN_TEXT_PT`, plus the row labels and the colour
    bar; at least 3 in wide. A figure wider than the page is scaled to it in the PDF; on a
    screen it keeps its text size."""
    texts = [f"({_num(e, 2)})" for e in est.ravel() if np.isfinite(e)]
    texts += [f"n={int(k)}" for k in n.ravel() if np.isfinite(k)]
    cell = 0.12 + max((_text_in(t, MIN_TEXT_PT) for t in texts), default=0.3)
    labels = 0.25 + max((_text_in(str(r), 7.5) for r in rows), default=0.5)
    width = max(3.0, labels + cell * len(cols) + 0.95)
    return width, 0.9 + 0.36 * len(rows)
