"""Row builders of the judge-assisted estimate's table (one function per kind of row).

:func:`medjudge.analyses.judge_assisted.judge_assisted_estimate` loops over dimensions, judges
and targets; the functions here turn one estimator's result into rows of its tidy table: the
classical and PPI rows, the naive judge-only row, Rogan–Gladen's corrected prevalence and the
per-subgroup rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from medjudge.stats.ppi.mean import classical_mean
from medjudge.stats.ppi.rogan_gladen import rogan_gladen
from medjudge.stats.ppi.stratified import ppi_mean_stratified


@dataclass(frozen=True)
class Sampling:
    """The design every estimate of one target shares: the clusters of the labelled and of the
    unlabelled items (None: independent items), the coverage and the interval rule."""

    clusters: np.ndarray | None
    clusters_unlabeled: np.ndarray | None
    confidence_level: float
    interval: str

    def ppi(self) -> dict[str, Any]:
        """Keyword arguments of the PPI estimators (:mod:`medjudge.stats.ppi`): the fields."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def classical(self, y: np.ndarray, clusters: np.ndarray | None) -> Any:
        """The expert-only (classical) mean of ``y`` with its interval."""
        return classical_mean(
            y, clusters=clusters, confidence_level=self.confidence_level, interval=self.interval
        )


def _row(dim: str, judge: str, target: str, subgroup: str, method: str, e: Any, **kw: Any) -> dict:
    d = {
        "dimension": dim,
        "judge": judge,
        "target": target,
        "subgroup": subgroup,
        "method": method,
        "estimate": e.estimate,
        "se": e.se,
        "ci_low": e.ci_low,
        "ci_high": e.ci_high,
        "level": e.level,
        "ci_method": e.ci_method,
        "lam": e.extra.get("lam") if isinstance(e.extra.get("lam"), float) else math.nan,
        "n_labelled": e.extra.get("n_labelled", e.n),
        "n_unlabelled": e.extra.get("n_unlabelled", 0),
        "n_clusters": e.extra.get("n_clusters"),
        "effective_n": e.extra.get("effective_n", math.nan),
        "width_ratio": math.nan,
        "bias": math.nan,
        "bias_se": math.nan,
    }
    d.update(kw)
    return d


def _naive(
    dim: str,
    judge: str,
    target: str,
    sub: str,
    y: np.ndarray,
    f_l: np.ndarray,
    f_u: np.ndarray,
    sampling: Sampling,
) -> dict:
    cl, clu = sampling.clusters, sampling.clusters_unlabeled
    f_all = np.concatenate([f_l, f_u])
    e = sampling.classical(f_all, None if cl is None else np.concatenate([cl, clu]))
    b = sampling.classical(f_l - y, cl)
    return _row(
        dim,
        judge,
        target,
        sub,
        "naive",
        e,
        n_labelled=0,
        n_unlabelled=f_all.size,
        effective_n=math.nan,
        bias=b.estimate,
        bias_se=b.se,
    )


def _indicator(k: int):
    """Coder ``c -> 1{c == k}`` keeping NaN (no verdict) as NaN."""

    def code(c: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(c), np.nan, (c == k).astype(float))

    return code


def _targets(scale: Any, categories: list[str] | None, contrast: tuple[str, str] | None):
    """(name, coder) pairs: a coder maps category codes (NaN kept) to the target variable."""
    if not scale.is_categorical:
        if categories or contrast:
            raise ValueError("categories/contrast need a categorical scale; this one is numeric")
        return [("mean", lambda c: c, None)]
    cats = list(scale.categories)
    if contrast is not None:
        a, b = contrast
        for v in (a, b):
            if v not in cats:
                raise ValueError(f"contrast category {v!r} is not one of {cats}")
        ia, ib = cats.index(a), cats.index(b)
        return [
            (
                f"{a} - {b}",
                lambda c, ia=ia, ib=ib: np.where(
                    np.isnan(c), np.nan, (c == ia).astype(float) - (c == ib).astype(float)
                ),
                None,
            )
        ]
    chosen = cats if not categories else list(categories)
    for v in chosen:
        if v not in cats:
            raise ValueError(f"category {v!r} is not one of {cats}")
    if not categories and len(cats) == 2:
        chosen = cats[:1]  # the other rate is 1 minus this one
    return [(v, _indicator(cats.index(v)), cats.index(v)) for v in chosen]


def _ratio(e: Any, e0: Any) -> float:
    """Interval width of ``e`` over that of the expert-only ``e0`` (same interval rules)."""
    w, w0 = e.ci_high - e.ci_low, e0.ci_high - e0.ci_low
    return w / w0 if w0 > 0 and np.isfinite(w) else math.nan


def _rogan_gladen_row(
    dim: str,
    judge: str,
    tname: str,
    y: np.ndarray,
    pred_l: np.ndarray,
    pred_u: np.ndarray,
    k: int,
    confidence_level: float,
    ce: Any,
    notes: list[str],
) -> list[dict]:
    ok_l, ok_u = np.isfinite(pred_l), np.isfinite(pred_u)
    if ok_u.sum() == 0:
        return []
    yl = y[ok_l] > 0.5
    fl = pred_l[ok_l] == k
    pos_u = int((pred_u[ok_u] == k).sum())
    try:
        e = rogan_gladen(
            pos_u,
            int(ok_u.sum()),
            int((fl & yl).sum()),
            int(yl.sum()),
            int((~fl & ~yl).sum()),
            int((~yl).sum()),
            confidence_level=confidence_level,
        )
    except ValueError as err:
        notes.append(f"{dim}/{tname}/{judge}: Rogan-Gladen not possible ({err}).")
        return []
    return [
        _row(
            dim,
            judge,
            tname,
            "all",
            "rogan-gladen",
            e,
            n_labelled=int(ok_l.sum()),
            n_unlabelled=int(ok_u.sum()),
            effective_n=math.nan,
            width_ratio=_ratio(e, ce),
        )
    ]


def _by_rows(
    dim: str,
    judge: str,
    tname: str,
    y: np.ndarray,
    f_l: np.ndarray,
    f_u: np.ndarray,
    s_l: np.ndarray,
    s_u: np.ndarray,
    sampling: Sampling,
    notes: list[str],
    with_classical: bool,
) -> list[dict]:
    out: list[dict] = []
    cl = sampling.clusters
    try:
        overall, per = ppi_mean_stratified(y, f_l, f_u, s_l, s_u, **sampling.ppi())
    except ValueError as err:
        notes.append(f"{dim}/{tname}/{judge}: stratified PPI skipped ({err}).")
        return out
    ce = sampling.classical(y, cl)
    out.append(
        _row(
            dim,
            judge,
            tname,
            "all",
            "ppi++ stratified",
            overall,
            width_ratio=_ratio(overall, ce),
        )
    )
    for h, e in per.items():
        yh = y[s_l == h]
        c0 = sampling.classical(yh, None if cl is None else cl[s_l == h])
        if with_classical:
            out.append(
                _row(
                    dim,
                    "(experts only)",
                    tname,
                    h,
                    "classical",
                    c0,
                    n_unlabelled=0,
                    effective_n=float(yh.size),
                    width_ratio=1.0,
                )
            )
        out.append(_row(dim, judge, tname, h, "ppi++", e, width_ratio=_ratio(e, c0)))
    return out
