"""Figures for judge evaluation and annotation audits.

Every function takes a **tidy result table** (the ``to_frame()`` output of the library's
result objects, stacked with identifying columns) and returns a :class:`matplotlib.figure.Figure`
drawn in the medjudge style (:mod:`medjudge.report.style`). Nothing is computed here beyond
layout (the Bland–Altman fallback limits are the one documented exception); nothing is saved
or shown. Figures are created through :mod:`matplotlib.pyplot`, so notebooks and report chunks
display them automatically; scripts should ``plt.close(fig)`` when done.

Column names follow :class:`medjudge.stats.results.Estimate` (``estimate``, ``ci_low``,
``ci_high``, ``n``); each docstring lists what it needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from .escape import literal_figure_args
from .style import (
    DIVERGING_CMAP,
    OKABE_ITO,
    PAGE_WIDTH_IN,
    PALETTE,
    SEQUENTIAL_CMAP,
    STATUS_COLORS,
    figsize,
    style_context,
)
from .tables import fmt_num, fmt_p

__all__ = [
    "forest_plot",
    "organ_heatmap",
    "pairwise_matrix",
    "agreement_matrix",
    "rank_interval_plot",
    "position_bias_plot",
    "parse_status_bars",
    "reliability_diagram",
    "bland_altman_plot",
    "score_scatter",
]

BASELINE_STYLE = {"color": "0.45", "linestyle": "--", "linewidth": 0.9}
CEILING_STYLE = {"color": OKABE_ITO["vermillion"], "linestyle": ":", "linewidth": 1.2}


# ---------------------------------------------------------------------------- helpers
def _require(df: pd.DataFrame, columns: Sequence[str], func: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(
            f"{func}: missing column(s) {missing}; got {list(df.columns)}. "
            "Pass the tidy result table (e.g. stacked Estimate.to_frame() rows)."
        )
    if df.empty:
        raise ValueError(f"{func}: the table is empty")


def _order(values: pd.Series, order: Sequence[Any] | None) -> list[Any]:
    if order is not None:
        return list(order)
    return list(dict.fromkeys(values.tolist()))


def _per_group_value(value: Any, key: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        v = value.get(key)
        return None if v is None else float(v)
    return float(value)


def _grid(n: int, max_cols: int) -> tuple[int, int]:
    cols = min(n, max_cols)
    return int(np.ceil(n / cols)), cols


def _text_color(rgba: Sequence[float]) -> str:
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _matrix(
    df: pd.DataFrame, row: str, col: str, value: str, rows: list[Any], cols: list[Any]
) -> np.ndarray:
    table = df.pivot_table(index=row, columns=col, values=value, aggfunc="first")
    return table.reindex(index=rows, columns=cols).to_numpy(dtype=float)


# ---------------------------------------------------------------------------- forest plot
def _forest_range(
    results: pd.DataFrame,
    dims: Sequence[Any],
    baseline: float | Mapping[Any, float] | None,
    ceiling: float | Mapping[Any, float] | None,
    xlim: tuple[float, float] | None,
) -> tuple[float, float]:
    """One x range for all panels: intervals, estimates and reference lines, padded; kept
    inside [0, 1] when everything is a proportion."""
    if xlim is not None:
        return float(xlim[0]), float(xlim[1])
    vals = list(results[["ci_low", "ci_high", "estimate"]].to_numpy(dtype=float).ravel())
    for col, ref in (("baseline", baseline), ("ceiling", ceiling)):
        if col in results:
            vals += list(pd.to_numeric(results[col], errors="coerce"))
        for d in dims:
            v = _per_group_value(ref, d)
            if v is not None:
                vals.append(float(v))
    arr = np.asarray(vals, dtype=float)
    arr = arr[np.isfinite(arr)]
    if not arr.size:
        return 0.0, 1.0
    lo, hi = float(arr.min()), float(arr.max())
    pad = max(0.02, 0.04 * (hi - lo))
    if lo >= 0 and hi <= 1:
        return max(0.0, lo - pad), min(1.0, hi + pad)
    return lo - pad, hi + pad


@literal_figure_args
def forest_plot(
    results: pd.DataFrame,
    *,
    baseline: float | Mapping[Any, float] | None = None,
    ceiling: float | Mapping[Any, float] | None = None,
    judge_order: Sequence[Any] | None = None,
    dimension_order: Sequence[Any] | None = None,
    xlabel: str = "accuracy",
    max_cols: int = 3,
    baseline_label: str = "trivial baseline",
    ceiling_label: str = "expert ceiling",
    xlim: tuple[float, float] | None = None,
) -> Figure:
    """Forest plot: judge accuracy with confidence intervals, one panel per dimension.

    Every panel shares one x range that covers all intervals *and* every reference line, so
    none is cut off (values outside [0, 1], e.g. differences, are allowed); ``xlim`` fixes it.
    ``baseline_label`` / ``ceiling_label`` name the reference lines in the legend.

    Parameters
    ----------
    results
        Columns ``judge, dimension, estimate, ci_low, ci_high``; optional ``baseline`` and
        ``ceiling`` columns (one value per dimension) override the arguments.
    baseline
        Trivial baseline (e.g. majority class or chance), drawn as a dashed grey line; a number
        or ``{dimension: value}``.
    ceiling
        Expert ceiling (e.g. a second physician's accuracy against the gold label), drawn as a
        dotted vermillion line; a number or ``{dimension: value}``.
    judge_order
        Top-to-bottom order; default: by mean estimate across dimensions, best on top.
    """
    _require(results, ["judge", "dimension", "estimate", "ci_low", "ci_high"], "forest_plot")
    dims = _order(results["dimension"], dimension_order)
    if judge_order is None:
        judges = results.groupby("judge", sort=False)["estimate"].mean().sort_values().index
        judges = list(judges)  # ascending → best ends on top
    else:
        judges = list(judge_order)[::-1]
    ypos = {j: i for i, j in enumerate(judges)}
    nrows, ncols = _grid(len(dims), max_cols)
    with style_context():
        w, h = figsize(len(judges) * nrows, extra=0.9 + 0.4 * (nrows - 1))
        fig, axes = plt.subplots(nrows, ncols, figsize=(w, h), sharey=True, squeeze=False)
        handles: dict[str, Any] = {}
        lo_all, hi_all = _forest_range(results, dims, baseline, ceiling, xlim)
        for k, dim in enumerate(dims):
            ax = axes[k // ncols][k % ncols]
            sub = results[results["dimension"] == dim]
            y = sub["judge"].map(ypos).to_numpy(dtype=float)
            est = sub["estimate"].to_numpy(dtype=float)
            err = np.vstack(
                [est - sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float) - est]
            )
            ax.errorbar(
                est, y, xerr=np.abs(err), fmt="o", color=PALETTE[0], ecolor=PALETTE[0],
                elinewidth=1.4, markersize=4, zorder=3,
            )  # fmt: skip
            base = sub["baseline"].iloc[0] if "baseline" in sub else _per_group_value(baseline, dim)
            ceil = sub["ceiling"].iloc[0] if "ceiling" in sub else _per_group_value(ceiling, dim)
            if base is not None and np.isfinite(base):
                handles[baseline_label] = ax.axvline(base, **BASELINE_STYLE, label="baseline")
            if ceil is not None and np.isfinite(ceil):
                handles[ceiling_label] = ax.axvline(ceil, **CEILING_STYLE, label="ceiling")
            ax.set_title(str(dim))
            ax.set_yticks(range(len(judges)), [str(j) for j in judges])
            ax.set_ylim(-0.7, len(judges) - 0.3)
            ax.grid(axis="x")
            ax.set_xlim(lo_all, hi_all)
            if k // ncols == nrows - 1 or k + ncols >= len(dims):
                ax.set_xlabel(xlabel)
        for k in range(len(dims), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        if handles:
            fig.legend(
                list(handles.values()), list(handles.keys()), loc="lower center",
                ncol=len(handles), bbox_to_anchor=(0.5, 0.0),
            )  # fmt: skip
            fig.tight_layout(rect=(0, 0.06, 1, 1))
        else:
            fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- heatmap
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


# ---------------------------------------------------------------------------- matrices
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


# ---------------------------------------------------------------------------- ranks, bias
@literal_figure_args
def rank_interval_plot(results: pd.DataFrame, *, xlabel: str = "rank (1 = best)") -> Figure:
    """Rank of each judge with its resampling interval.

    Parameters
    ----------
    results
        Columns ``judge, rank, rank_low, rank_high`` (e.g. bootstrap 95 % rank intervals).
    """
    _require(results, ["judge", "rank", "rank_low", "rank_high"], "rank_interval_plot")
    df = results.sort_values(["rank", "judge"], ascending=[False, True])
    k = len(df)
    with style_context():
        fig, ax = plt.subplots(figsize=figsize(k, width=min(PAGE_WIDTH_IN, 4.8)))
        y = np.arange(k)
        ax.hlines(y, df["rank_low"], df["rank_high"], color=PALETTE[0], linewidth=3, alpha=0.45)
        ax.plot(df["rank"], y, "o", color=PALETTE[0], zorder=3)
        ax.set_yticks(y, [str(j) for j in df["judge"]])
        top = int(np.nanmax(results["rank_high"]))
        ax.set_xlim(0.5, top + 0.5)
        ax.set_xticks(range(1, top + 1, max(1, top // 10)))
        ax.set_xlabel(xlabel)
        ax.grid(axis="x")
        fig.tight_layout()
    return fig


@literal_figure_args
def position_bias_plot(
    results: pd.DataFrame,
    *,
    reference: float | None = 0.5,
    xlabel: str = "proportion choosing the first response",
    order_labels: Mapping[Any, str] | None = None,
) -> Figure:
    """Position bias: an estimate per presentation order, per judge, with intervals.

    Parameters
    ----------
    results
        Columns ``judge, order, estimate, ci_low, ci_high``; ``order`` is the presentation
        order (e.g. ``"AB"`` / ``"BA"``). ``estimate`` is e.g. P(verdict = first position) or
        accuracy under that order — say which in ``xlabel``.
    reference
        Value expected without bias (dashed line), e.g. 0.5; ``None`` for none.
    """
    _require(results, ["judge", "order", "estimate", "ci_low", "ci_high"], "position_bias_plot")
    judges = _order(results["judge"], None)[::-1]
    orders = _order(results["order"], None)
    ypos = {j: i for i, j in enumerate(judges)}
    offs = np.linspace(-0.15, 0.15, len(orders)) if len(orders) > 1 else np.zeros(1)
    labels = dict(order_labels or {})
    with style_context():
        fig, ax = plt.subplots(figsize=figsize(len(judges), width=min(PAGE_WIDTH_IN, 5.2)))
        for j in judges:
            sub = results[results["judge"] == j].set_index("order").reindex(orders)
            ax.plot(sub["estimate"], ypos[j] + offs, color="0.7", linewidth=0.8, zorder=1)
        for k, o in enumerate(orders):
            sub = results[results["order"] == o]
            y = sub["judge"].map(ypos).to_numpy(float) + offs[k]
            est = sub["estimate"].to_numpy(float)
            err = np.abs(np.vstack([est - sub["ci_low"].to_numpy(float),
                                    sub["ci_high"].to_numpy(float) - est]))  # fmt: skip
            ax.errorbar(
                est, y, xerr=err, fmt="os"[k % 2], color=PALETTE[k % len(PALETTE)],
                label=labels.get(o, str(o)), zorder=3,
            )  # fmt: skip
        if reference is not None:
            ax.axvline(reference, **BASELINE_STYLE)
        ax.set_yticks(range(len(judges)), [str(j) for j in judges])
        ax.set_xlabel(xlabel)
        ax.grid(axis="x")
        ax.legend(title="presentation order", loc="best")
        fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- parse status
@literal_figure_args
def parse_status_bars(
    results: pd.DataFrame,
    *,
    normalize: bool = True,
    status_order: Sequence[str] | None = None,
) -> Figure:
    """Stacked horizontal bars of verdict parse status per judge.

    Parameters
    ----------
    results
        Columns ``judge, status, count`` (status: ``ok, broadcast, partial, invalid``; other
        values are appended in first-seen order).
    normalize
        Show proportions (default) or raw counts.
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
        fig, ax = plt.subplots(figsize=figsize(len(judges), width=min(PAGE_WIDTH_IN, 5.6)))
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
        fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- calibration
@literal_figure_args
def reliability_diagram(
    results: pd.DataFrame,
    *,
    xlabel: str = "stated confidence",
    ylabel: str = "observed accuracy",
) -> Figure:
    """Reliability (calibration) diagram: observed accuracy per confidence bin, per judge.

    Parameters
    ----------
    results
        Columns ``judge, confidence, observed, n`` (mean stated confidence, observed accuracy
        and count per bin); optional ``ci_low, ci_high`` for the observed accuracy.
        Marker area scales with ``n``.
    """
    _require(results, ["judge", "confidence", "observed", "n"], "reliability_diagram")
    judges = _order(results["judge"], None)
    nmax = float(results["n"].max()) or 1.0
    with style_context():
        fig, ax = plt.subplots(figsize=(min(PAGE_WIDTH_IN, 4.2), 3.6))
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
        fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- scores
@literal_figure_args
def bland_altman_plot(
    pairs: pd.DataFrame,
    limits: pd.DataFrame | None = None,
    *,
    max_cols: int = 3,
    units: str = "score",
) -> Figure:
    """Bland–Altman plots of a score-valued judge against the expert reference.

    Parameters
    ----------
    pairs
        Columns ``judge, reference, value``: one row per item and judge (the expert reference
        score, e.g. the mean of the physicians, and the judge's score).
    limits
        Columns ``judge, bias, loa_low, loa_high`` as computed by the library (with their
        intervals if wanted). If omitted, the classic limits are drawn: mean difference
        ± 1.96 SD of the differences (Bland & Altman 1986, Lancet 327:307–310).
    """
    _require(pairs, ["judge", "reference", "value"], "bland_altman_plot")
    judges = _order(pairs["judge"], None)
    if limits is not None:
        _require(limits, ["judge", "bias", "loa_low", "loa_high"], "bland_altman_plot")
        lim = limits.set_index("judge")
    nrows, ncols = _grid(len(judges), max_cols)
    with style_context():
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(PAGE_WIDTH_IN, 0.4 + 2.1 * nrows), squeeze=False,
            sharex=True, sharey=True,
        )  # fmt: skip
        for k, j in enumerate(judges):
            ax = axes[k // ncols][k % ncols]
            sub = pairs[pairs["judge"] == j]
            ref = sub["reference"].to_numpy(float)
            val = sub["value"].to_numpy(float)
            mean, diff = (ref + val) / 2.0, val - ref
            ax.scatter(mean, diff, s=7, alpha=0.5, color=PALETTE[0], linewidth=0)
            if limits is not None:
                bias, lo, hi = (float(lim.loc[j, c]) for c in ("bias", "loa_low", "loa_high"))
            else:
                bias = float(np.nanmean(diff))
                sd = float(np.nanstd(diff, ddof=1)) if np.sum(np.isfinite(diff)) > 1 else 0.0
                lo, hi = bias - 1.96 * sd, bias + 1.96 * sd
            ax.axhline(0, color="0.8", linewidth=0.6)
            ax.axhline(bias, color=OKABE_ITO["vermillion"], linewidth=1.0)
            for v in (lo, hi):
                ax.axhline(v, color=OKABE_ITO["vermillion"], linewidth=0.8, linestyle="--")
            ax.set_title(str(j))
            if k % ncols == 0:
                ax.set_ylabel(f"judge − reference ({units})")
        for k in range(len(judges), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        handles = [
            Line2D([], [], color=OKABE_ITO["vermillion"], linewidth=1.0, label="mean difference"),
            Line2D([], [], color=OKABE_ITO["vermillion"], linestyle="--", label="limits of agreement"),
        ]  # fmt: skip
        fig.supxlabel(f"mean of judge and reference ({units})", fontsize=8)
        fig.legend(handles=handles, loc="upper center", ncol=2, bbox_to_anchor=(0.5, 1.0))
        fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig


@literal_figure_args
def score_scatter(pairs: pd.DataFrame, *, max_cols: int = 3, units: str = "score") -> Figure:
    """Judge score against expert reference score, with the identity line, per judge.

    Parameters
    ----------
    pairs
        Columns ``judge, reference, value`` (one row per item and judge). Discrete scores
        overlap; points are drawn translucent (no jitter, so positions stay exact).
    """
    _require(pairs, ["judge", "reference", "value"], "score_scatter")
    judges = _order(pairs["judge"], None)
    nrows, ncols = _grid(len(judges), max_cols)
    lo = float(np.nanmin(pairs[["reference", "value"]].to_numpy(float)))
    hi = float(np.nanmax(pairs[["reference", "value"]].to_numpy(float)))
    pad = 0.05 * (hi - lo or 1.0)
    with style_context():
        fig, axes = plt.subplots(
            nrows, ncols, figsize=(PAGE_WIDTH_IN, 0.3 + 2.1 * nrows), squeeze=False,
            sharex=True, sharey=True,
        )  # fmt: skip
        for k, j in enumerate(judges):
            ax = axes[k // ncols][k % ncols]
            sub = pairs[pairs["judge"] == j]
            ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], **BASELINE_STYLE)
            ax.scatter(sub["reference"], sub["value"], s=8, alpha=0.35, color=PALETTE[0], lw=0)
            ax.set_xlim(lo - pad, hi + pad)
            ax.set_ylim(lo - pad, hi + pad)
            ax.set_aspect("equal")
            ax.set_title(str(j))
            if k % ncols == 0:
                ax.set_ylabel(f"judge ({units})")
        for k in range(len(judges), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        fig.supxlabel(f"expert reference ({units})", fontsize=8)
        fig.tight_layout()
    return fig
