"""Matrix figures: a value per cell of a two-way table.

:func:`organ_heatmap` (accuracy per judge × subgroup, uncertain cells marked),
:func:`pairwise_matrix` (difference and p-value for every pair of judges) and
:func:`agreement_matrix` (agreement between every pair of raters).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..escape import literal_figure_args
from ..style import DIVERGING_CMAP, PAGE_WIDTH_IN, SEQUENTIAL_CMAP, style_context
from ..tables import fmt_num, fmt_p
from .common import _matrix, _order, _require, _text_color

__all__ = ["organ_heatmap", "pairwise_matrix", "agreement_matrix"]


@literal_figure_args
def organ_heatmap(
    results: pd.DataFrame,
    *,
    row: str = "judge",
    col: str = "organ",
    min_n: int = 30,
    max_ci_width: float | None = 0.3,
    value_label: str = "accuracy",
    vmin: float | None = None,
    vmax: float | None = None,
    row_order: Sequence[Any] | None = None,
    col_order: Sequence[Any] | None = None,
) -> Figure:
    """Judge × organ-system heatmap annotated with the estimate and n.

    Parameters
    ----------
    results
        Columns ``judge, organ, estimate, n`` (names set by ``row``/``col``); optional
        ``ci_low, ci_high`` and a boolean ``uncertain`` column.
    min_n, max_ci_width
        A cell is *uncertain* (hatched, estimate in brackets) when ``uncertain`` is true, or
        ``n < min_n``, or its interval is wider than ``max_ci_width``.
    """
    _require(results, [row, col, "estimate", "n"], "organ_heatmap")
    rows = _order(results[row], row_order)
    cols = _order(results[col], col_order)
    df = results.copy()
    unc = df["n"].to_numpy(float) < min_n
    if "uncertain" in df:
        unc |= df["uncertain"].fillna(False).to_numpy(bool)
    if max_ci_width is not None and {"ci_low", "ci_high"} <= set(df.columns):
        width = (df["ci_high"] - df["ci_low"]).to_numpy(float)
        unc |= np.nan_to_num(width, nan=0.0) > max_ci_width
    df["_uncertain"] = unc.astype(float)
    est = _matrix(df, row, col, "estimate", rows, cols)
    n = _matrix(df, row, col, "n", rows, cols)
    flag = _matrix(df, row, col, "_uncertain", rows, cols)
    with style_context():
        width = min(PAGE_WIDTH_IN, 1.6 + 0.62 * len(cols))
        fig, ax = plt.subplots(figsize=(width, 0.9 + 0.36 * len(rows)))
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
                text = fmt_num(est[i, j], 2)
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
                    j, i, f"{text}\nn={int(n[i, j])}", ha="center", va="center", fontsize=6.5,
                    color=ink,
                )  # fmt: skip
        ax.set_xticks(range(len(cols)), [str(c) for c in cols], rotation=35, ha="right")
        ax.set_yticks(range(len(rows)), [str(r) for r in rows])
        ax.spines[:].set_visible(False)
        ax.tick_params(length=0)
        cbar = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
        cbar.set_label(value_label)
        cbar.outline.set_visible(False)
        if np.any(flag > 0):
            note = f"hatched, (…): n < {min_n}"
            if max_ci_width is not None:
                note += f" or CI wider than {fmt_num(max_ci_width, 2)}"
            ax.set_title(note, fontsize=6.5, fontweight="normal", loc="left", color="0.3")
        fig.tight_layout()
    return fig


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
) -> Figure:
    """Pairwise comparison matrix: adjusted p-values and the direction of the effect.

    With more than 8 judges (or ``compact=True``) each cell shows only the difference; the
    significance stays visible as bold (significant) against faded and hatched.

    Parameters
    ----------
    results
        Columns ``judge_a, judge_b, estimate`` (effect of ``judge_a`` minus ``judge_b``, e.g.
        an accuracy difference) and the adjusted p-value column ``p`` (default ``p_adj``).
        Each unordered pair once is enough; the mirror cell shows the negated effect.
    alpha
        Cells with ``p >= alpha`` are drawn faded and hatched (not significant).
    """
    _require(results, ["judge_a", "judge_b", "estimate", p], "pairwise_matrix")
    names = list(order) if order is not None else _order(
        pd.concat([results["judge_a"], results["judge_b"]]), None
    )  # fmt: skip
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
        fig, ax = plt.subplots(figsize=(side + 0.9, side * 0.85))
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
                num = fmt_num(eff[i, j], 2)
                sign = "+" if eff[i, j] > 0 and float(num) != 0 else ""
                ptxt = fmt_p(pv[i, j])
                ptxt = f"p {ptxt}" if ptxt.startswith("<") else f"p = {ptxt}"
                label = f"{sign}{num}" if compact else f"{sign}{num}\n{ptxt}"
                ax.text(
                    j, i, label, ha="center", va="center",
                    fontsize=6.0 if compact else 6.2, fontweight="bold" if sig else "normal",
                )  # fmt: skip
        ax.set_xticks(range(k), [str(n) for n in names], rotation=35, ha="right")
        ax.set_yticks(range(k), [str(n) for n in names])
        ax.spines[:].set_visible(False)
        ax.tick_params(length=0)
        cbar = fig.colorbar(im, ax=ax, fraction=0.045, pad=0.02)
        cbar.set_label(value_label)
        cbar.outline.set_visible(False)
        ax.set_title(
            f"bold: {p_label} < {alpha:g}; hatched: not significant",
            fontsize=6.5, fontweight="normal", loc="left", color="0.3",
        )  # fmt: skip
        fig.tight_layout()
    return fig


@literal_figure_args
def agreement_matrix(
    results: pd.DataFrame,
    *,
    order: Sequence[Any] | None = None,
    value_label: str = "Cohen's κ",
    vmin: float | None = None,
    vmax: float = 1.0,
) -> Figure:
    """Rater × rater agreement matrix (e.g. pairwise Cohen's κ between annotators).

    Parameters
    ----------
    results
        Columns ``rater_a, rater_b, estimate``; optional ``n``. Symmetric: each pair once is
        enough. The diagonal is left blank.
    """
    _require(results, ["rater_a", "rater_b", "estimate"], "agreement_matrix")
    names = list(order) if order is not None else _order(
        pd.concat([results["rater_a"], results["rater_b"]]), None
    )  # fmt: skip
    idx = {r: i for i, r in enumerate(names)}
    k = len(names)
    mat = np.full((k, k), np.nan)
    for a, b, e in results[["rater_a", "rater_b", "estimate"]].itertuples(index=False):
        mat[idx[a], idx[b]] = mat[idx[b], idx[a]] = e
    low = min(0.0, float(np.nanmin(mat))) if vmin is None else vmin
    with style_context():
        side = min(PAGE_WIDTH_IN, 1.8 + 0.55 * k)
        fig, ax = plt.subplots(figsize=(side + 0.9, side * 0.85))
        cmap = plt.get_cmap(SEQUENTIAL_CMAP)
        norm = Normalize(vmin=low, vmax=vmax)
        im = ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, norm=norm)
        for i in range(k):
            for j in range(k):
                if i != j and np.isfinite(mat[i, j]):
                    ax.text(
                        j, i, fmt_num(mat[i, j], 2), ha="center", va="center", fontsize=6.5,
                        color=_text_color(cmap(norm(mat[i, j]))),
                    )  # fmt: skip
        ax.set_xticks(range(k), [str(n) for n in names], rotation=35, ha="right")
        ax.set_yticks(range(k), [str(n) for n in names])
        ax.spines[:].set_visible(False)
        ax.tick_params(length=0)
        cbar = fig.colorbar(im, ax=ax, fraction=0.045, pad=0.02)
        cbar.set_label(value_label)
        cbar.outline.set_visible(False)
        fig.tight_layout()
    return fig
