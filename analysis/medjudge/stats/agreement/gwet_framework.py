"""Gwet's general framework for multi-rater chance-corrected agreement: the machinery.

Per-item agreement, chance agreement of each coefficient for any item weights (the bootstrap
evaluates all replicates at once), the per-coefficient *cores* (numpy functions of the ratings and
an item-weight matrix), Gwet's linearised standard errors and the Fleiss, Nee & Landis null SEs.
The public coefficients built on it live in :mod:`medjudge.stats.agreement.kappa`, whose module
docstring gives the formulas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .coding import (
    Categories,
    as_ratings,
    category_core,
    category_counts,
    finish,
    indicators,
    item_weights,
    resolve_categories,
)
from .weights import weight_matrix

FAMILY = ("percent", "fleiss", "gwet", "bp", "conger")
_NAMES = {
    "percent": "percent_agreement",
    "fleiss": "fleiss_kappa",
    "gwet": "gwet_ac",
    "bp": "brennan_prediger",
    "conger": "conger_kappa",
}
_REFS = {
    "percent": "Gwet 2014",
    "fleiss": "Fleiss 1971; Gwet 2014",
    "gwet": "Gwet 2008",
    "bp": "Brennan & Prediger 1981; Gwet 2014",
    "conger": "Conger 1980; Gwet 2014",
}


@dataclass(frozen=True)
class _Prep:
    X: np.ndarray
    cats: Categories
    C: np.ndarray  # (n, q) counts r_ik
    r: np.ndarray  # (n,) raters per item
    Wm: np.ndarray  # (q, q) weights
    pa_i: np.ndarray  # (n,) per-item agreement (0 when r_i < 2)
    two: np.ndarray  # (n,) float, item rated >= 2 times
    rated: np.ndarray  # (n,) float, item rated >= 1 time
    share: np.ndarray  # (n, q) r_ik / r_i (0 for unrated items)


def _prepare(
    X: Any,
    categories: Sequence[float] | np.ndarray | None,
    values: Sequence[float] | np.ndarray | None,
    weights: str | np.ndarray,
) -> _Prep:
    X = as_ratings(X)
    cats = resolve_categories(X, categories, values)
    C = category_counts(X, cats)
    Wm = weight_matrix(cats.values, weights)
    r = C.sum(axis=1)
    Cw = C @ Wm.T
    sumq = (C * (Cw - 1.0)).sum(axis=1)
    two = r >= 2
    den = np.where(two, r * (r - 1.0), 1.0)
    pa_i = np.where(two, sumq / den, 0.0)
    share = np.where(r[:, None] > 0, C / np.where(r > 0, r, 1.0)[:, None], 0.0)
    return _Prep(X, cats, C, r, Wm, pa_i, two.astype(float), (r >= 1).astype(float), share)


def _conger_pe(p: _Prep, W: np.ndarray) -> np.ndarray:
    n, nr = p.X.shape
    q = p.cats.q
    ind = indicators(p.X, p.cats)  # (n, r, q)
    obs = ind.sum(axis=2)  # (n, r)
    ng = W @ obs  # (k, r)
    ngk = (W @ ind.reshape(n, nr * q)).reshape(-1, nr, q)
    with np.errstate(invalid="ignore", divide="ignore"):
        P = ngk / ng[:, :, None]
    pbar = P.mean(axis=1)
    s2 = (np.einsum("brk,brl->bkl", P, P) - nr * pbar[:, :, None] * pbar[:, None, :]) / (nr - 1)
    return np.einsum("kl,bkl->b", p.Wm, pbar[:, :, None] * pbar[:, None, :] - s2 / nr)


def _family(p: _Prep, kind: str, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(coef, pa, pe)`` for every row of the item weights ``W`` (k, n)."""
    q = p.cats.q
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = (W @ p.pa_i) / (W @ p.two)
        if kind == "percent":
            pe = np.zeros_like(pa)
        elif kind == "bp":
            pe = np.full_like(pa, p.Wm.sum() / q**2 if q >= 2 else np.nan)
        else:
            pi = (W @ p.share) / (W @ p.rated)[:, None]
            if q < 2:
                pe = np.full_like(pa, np.nan)
            elif kind == "fleiss":
                pe = np.einsum("bk,kl,bl->b", pi, p.Wm, pi)
            elif kind == "gwet":
                pe = p.Wm.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=1)
            elif kind == "conger":
                if p.X.shape[1] < 2:
                    raise ValueError("Conger's kappa needs at least two raters (columns)")
                pe = _conger_pe(p, W)
            else:  # pragma: no cover - guarded by callers
                raise ValueError(kind)
        coef = (pa - pe) / (1 - pe)
    return coef, pa, pe


def _family_core(
    kind: str, X: Any, w: np.ndarray | None, categories: Any, values: Any, weights: Any
) -> np.ndarray | float:
    p = _prepare(X, categories, values, weights)
    W, batched = item_weights(w, p.X.shape[0])
    return finish(_family(p, kind, W)[0], batched)


def _core(kind: str):
    return category_core(
        f"{_NAMES[kind]}_core",
        f"{_NAMES[kind]} of ratings ``X`` (items x raters, NaN = missing) under item weights "
        "``w`` ((n,) or (k, n)); see the module docstring for the formula.",
        partial(_family_core, kind),
        __name__,
    )


percent_agreement_core = _core("percent")
fleiss_kappa_core = _core("fleiss")
gwet_ac_core = _core("gwet")
brennan_prediger_core = _core("bp")
conger_kappa_core = _core("conger")


def _linearized_se(p: _Prep, kind: str, coef: float, pe: float) -> float:
    """Gwet's linearisation standard error on the rated items (irrCAC formulas)."""
    keep = p.rated > 0
    C, r, two = p.C[keep], p.r[keep], p.two[keep]
    pa_i = p.pa_i[keep]
    n = int(keep.sum())
    n2 = two.sum()
    q = p.cats.q
    if n < 2 or n2 == 0 or not np.isfinite(coef):
        return math.nan
    if kind == "percent":
        x = (n / n2) * pa_i
    else:
        x = (n / n2) * (pa_i - pe * two) / (1 - pe)
        if kind != "bp":
            if kind == "gwet":
                pi = p.share[keep].mean(axis=0)
                pe_i = p.Wm.sum() / (q * (q - 1)) * (C @ (1 - pi)) / r
            elif kind == "fleiss":
                pi = p.share[keep].mean(axis=0)
                pi_w = (p.Wm @ pi + p.Wm.T @ pi) / 2
                pe_i = (C @ pi_w) / r
            else:  # conger
                pe_i = _conger_pe_items(p, keep)
            x = x - 2 * (1 - coef) * (pe_i - pe) / (1 - pe)
    return float(np.sqrt(((x - coef) ** 2).sum() / (n * (n - 1))))


def _conger_pe_items(p: _Prep, keep: np.ndarray) -> np.ndarray:
    """Per-item linearised chance agreement of Conger's kappa (Gwet 2014, ch. 5)."""
    X = p.X[keep]
    n, nr = X.shape
    D = indicators(X, p.cats)  # delta_igl
    E = (~np.isnan(X)).astype(float)  # epsilon_ig
    ng = E.sum(axis=0)
    P = D.sum(axis=0) / ng[:, None]  # p_gl (r, q)
    A = D - (E - ng / n)[:, :, None] * P[None, :, :]
    lam_k = (n / ng)[None, :, None] * (A @ p.Wm.T)  # (n, r, q): lambda_ig^(k)
    lam = (lam_k * (nr * P.mean(axis=0)[None, None, :] - P[None, :, :])).sum(axis=2)
    return lam.sum(axis=1) / (nr * (nr - 1))


def _fnl_se0(p: _Prep) -> tuple[float, np.ndarray]:
    """Fleiss, Nee & Landis (1979) null SEs (overall, per category); NaN unless m is constant."""
    r = p.r[p.rated > 0]
    q = p.cats.q
    if r.size == 0 or np.unique(r).size != 1 or r[0] < 2:
        return math.nan, np.full(q, np.nan)
    m, n = float(r[0]), r.size
    pj = p.C[p.rated > 0].sum(axis=0) / (n * m)
    pq = pj * (1 - pj)
    c = 2.0 / (n * m * (m - 1))
    if pq.sum() <= 0:
        return math.nan, np.full(q, math.sqrt(c))
    se0 = math.sqrt(c) * math.sqrt(max(pq.sum() ** 2 - (pq * (1 - 2 * pj)).sum(), 0.0)) / pq.sum()
    return se0, np.full(q, math.sqrt(c))
