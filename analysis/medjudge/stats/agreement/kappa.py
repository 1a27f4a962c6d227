"""Multi-rater chance-corrected agreement in Gwet's general framework.

For ratings of ``n`` items by up to ``r`` raters into ``q`` categories, let ``r_ik`` be the
number of raters putting item ``i`` in category ``k``, ``r_i = sum_k r_ik`` and, with the
weight matrix ``w`` (:mod:`.weights`), ``r*_ik = sum_l w_kl r_il``. Over the items rated at
least twice (``n2`` items)

    pa = (1 / n2) sum_i sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1)),

and every coefficient is ``(pa - pe) / (1 - pe)`` with its own chance agreement ``pe``:

* percent agreement: ``pe = 0``;
* Fleiss' kappa (Fleiss 1971; unequal raters per item as in Gwet 2014 ch. 5):
  ``pe = sum_kl w_kl pi_k pi_l``, ``pi_k = (1/n) sum_i r_ik / r_i``;
* Gwet's AC1 / AC2 (Gwet 2008; 2014 ch. 4): ``pe = T_w / (q (q-1)) sum_k pi_k (1 - pi_k)``,
  ``T_w = sum_kl w_kl``;
* Brennan–Prediger (1981): ``pe = T_w / q^2`` (with two raters and identity weights this is
  PABAK);
* Conger's kappa (Conger 1980): ``pe = sum_kl w_kl (pbar_k pbar_l - s2_kl / r)`` with
  ``p_gk`` the share of rater ``g``'s ratings in category ``k`` and ``s2_kl`` their covariance
  across raters (Cohen's kappa generalised to ``r`` raters).

Analytic variance: Gwet's linearisation (Gwet 2008, BJMSP 61:29-48; 2014 ch. 5),
``v = 1/(n (n-1)) sum_i (x_i - coef)^2`` with the per-item linearised contributions ``x_i``
(the same formulas as the irrCAC R package), and intervals ``coef -/+ t_{n-1} se`` with the
upper limit clipped at 1, as in irrCAC. Items nobody rated are ignored and counted as excluded.

Fleiss (1971) per-category kappas are the Fleiss kappa of the data dichotomised into
"category j" vs "any other"; with equal raters per item this is Fleiss' ``kappa_j``. The
Fleiss, Nee & Landis (1979) standard errors are the *null* standard errors (kappa = 0) for
testing, defined for a constant number of raters per item; they are reported in ``extra``
(``se0``, ``z``, ``p_value``) and not used for intervals (they are too narrow when kappa > 0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._lazy import stats
from ..resampling import ResamplePlan
from ..results import Estimate
from .bootstrap import BootMethod, analytic_estimate, bootstrap_estimate, check_ci, resolve_ci
from .coding import (
    Categories,
    as_ratings,
    category_counts,
    finish,
    indicators,
    item_weights,
    resolve_categories,
)
from .conventions import agreement_input
from .weights import weight_matrix, weights_name

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


def _core(kind: str):
    def core(
        X: Any,
        w: np.ndarray | None = None,
        *,
        categories: Sequence[float] | np.ndarray | None = None,
        values: Sequence[float] | np.ndarray | None = None,
        weights: str | np.ndarray = "identity",
    ) -> np.ndarray | float:
        p = _prepare(X, categories, values, weights)
        W, batched = item_weights(w, p.X.shape[0])
        return finish(_family(p, kind, W)[0], batched)

    core.__name__ = f"{_NAMES[kind]}_core"
    core.__doc__ = (
        f"{_NAMES[kind]} of ratings ``X`` (items x raters, NaN = missing) under item weights "
        "``w`` ((n,) or (k, n)); see the module docstring for the formula."
    )
    return core


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


def _estimate(
    kind: str,
    X: Any,
    *,
    categories: Sequence[float] | np.ndarray | None,
    values: Sequence[float] | np.ndarray | None,
    weights: str | np.ndarray,
    ci: str | None,
    confidence: float,
    plan: ResamplePlan | None,
    method: BootMethod,
) -> Estimate:
    ci = check_ci(ci)
    p = _prepare(X, categories, values, weights)
    n_all = p.X.shape[0]
    coef, pa, pe = (float(a[0]) for a in _family(p, kind, np.ones((1, n_all))))
    n = int(p.rated.sum())
    ci = resolve_ci(ci, n)
    name = _NAMES[kind]
    if kind == "gwet":
        name = "gwet_ac1" if weights_name(weights) == "identity" else "gwet_ac2"
    extra: dict[str, Any] = {
        "pa": pa,
        "pe": pe,
        "weights": weights_name(weights),
        "q": p.cats.q,
        "raters": p.X.shape[1],
        "items_rated_twice": int(p.two.sum()),
    }
    if kind != "percent" and not np.isfinite(coef):
        extra["undefined"] = (
            "chance agreement pe = 1 (a single category used)"
            if np.isclose(pe, 1)
            else "fewer than two categories"
        )
    excluded = {"items_without_ratings": n_all - n} if n_all > n else {}
    if kind == "fleiss" and weights_name(weights) == "identity":
        se0, _ = _fnl_se0(p)
        if np.isfinite(se0):
            z = coef / se0
            extra.update(
                se0=se0,
                z=z,
                p_value=float(2 * stats.norm.sf(abs(z))),
                se0_method="Fleiss, Nee & Landis 1979",
            )
    if ci == "bootstrap":

        def stat(W: np.ndarray) -> np.ndarray:
            return _family(p, kind, W)[0]

        return bootstrap_estimate(
            name,
            stat,
            n_all,
            plan=plan,
            confidence=confidence,
            method=method,
            n=n,
            extra=extra,
            excluded=excluded,
        )
    se = _linearized_se(p, kind, coef, pe) if ci == "analytic" else math.nan
    return analytic_estimate(
        name,
        coef,
        se,
        n=n,
        df=n - 1,
        confidence=confidence,
        method=f"analytic ({_REFS[kind]} linearisation, t df=n-1)" if ci == "analytic" else "",
        extra=extra,
        excluded=excluded,
    )


_DOC_PARAMS = """
    Parameters
    ----------
    X : items x raters array of category codes, NaN = missing.
    categories : all allowed codes (unused ones still count); default: the observed values.
    values : numeric value of each category for weights (default: the codes themselves).
    weights : ``"identity"`` (unweighted), ``"linear"``, ``"quadratic"``, ``"ordinal"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"`` or a q x q matrix
        (see :mod:`medjudge.stats.agreement.weights`; applied by category value).
    ci : ``"auto"`` (default: the BCa bootstrap below 100 rated items, the analytic interval
        from 100 on — chosen by the coverage study in docs/calibration.md), ``"analytic"``
        (Gwet's linearisation, t with n-1 df), ``"bootstrap"`` (shared resampling engine with
        ``plan``; item-level, 2000 resamples, seed 0 by default) or None.
    confidence : confidence level of the interval.
    plan : :class:`~medjudge.stats.resampling.ResamplePlan` (clusters, strata, B, seed).
    method : bootstrap interval: ``"bca"`` (default), ``"percentile"`` or ``"basic"``.
"""


def _public(kind: str, summary: str, example: str = ""):
    def fn(
        X: Any,
        *,
        categories: Sequence[float] | np.ndarray | None = None,
        values: Sequence[float] | np.ndarray | None = None,
        weights: str | np.ndarray = "identity",
        ci: str | None = "auto",
        confidence: float = 0.95,
        plan: ResamplePlan | None = None,
        method: BootMethod = "bca",
    ) -> Estimate:
        return _estimate(
            kind,
            X,
            categories=categories,
            values=values,
            weights=weights,
            ci=ci,
            confidence=confidence,
            plan=plan,
            method=method,
        )

    fn.__name__ = _NAMES[kind]
    fn.__doc__ = summary + "\n" + _DOC_PARAMS + example
    return agreement_input("conger" if kind == "conger" else "multi")(fn)


percent_agreement = _public(
    "percent",
    "Percent agreement ``pa`` among any number of raters, missing ratings allowed (Gwet 2014).",
    "\n    Examples\n    --------\n    >>> import numpy as np\n    >>> import medjudge as mj\n    >>> X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])\n    >>> round(mj.percent_agreement(X, ci=None).estimate, 3)\n    0.778\n",
)
fleiss_kappa = _public(
    "fleiss",
    "Fleiss' (1971) kappa, generalised to unequal raters per item and to weights (Gwet 2014).\n\n"
    "With identity weights and a constant number of raters per item, ``extra`` also holds the "
    "Fleiss, Nee & Landis (1979) null SE ``se0`` with ``z`` and a two-sided ``p_value``.",
    "\n    Examples\n    --------\n    >>> import numpy as np\n    >>> import medjudge as mj\n    >>> X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])\n    >>> e = mj.fleiss_kappa(X, ci='analytic')\n    >>> round(e.estimate, 3), e.ci_method\n    (0.556, 'analytic (Fleiss 1971; Gwet 2014 linearisation, t df=n-1)')\n",
)
gwet_ac = _public(
    "gwet",
    "Gwet's AC1 (identity weights) / AC2 (any other weights) (Gwet 2008; 2014 ch. 4).",
    "\n    Examples\n    --------\n    >>> import numpy as np\n    >>> import medjudge as mj\n    >>> X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])\n    >>> round(mj.gwet_ac(X, ci=None).estimate, 3)\n    0.556\n",
)
brennan_prediger = _public(
    "bp",
    "Brennan & Prediger's (1981) coefficient, ``pe = T_w / q^2`` (uniform chance agreement).",
    "\n    Examples\n    --------\n    >>> import numpy as np\n    >>> import medjudge as mj\n    >>> X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])\n    >>> round(mj.brennan_prediger(X, ci=None).estimate, 3)\n    0.556\n",
)
conger_kappa = _public(
    "conger",
    "Conger's (1980) kappa: Cohen's kappa with rater-specific marginals for r >= 2 raters.",
    "\n    Examples\n    --------\n    >>> import numpy as np\n    >>> import medjudge as mj\n    >>> X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])\n    >>> round(mj.conger_kappa(X, ci=None).estimate, 3)\n    0.571\n",
)


def fleiss_category_kappas(
    X: Any,
    *,
    categories: Sequence[float] | np.ndarray | None = None,
    ci: str | None = "auto",
    confidence: float = 0.95,
    plan: ResamplePlan | None = None,
    method: BootMethod = "bca",
) -> list[Estimate]:
    """Fleiss (1971) per-category kappas ``kappa_j`` (category j vs all others).

    ``kappa_j = 1 - sum_i r_ij (r_i - r_ij) / (n m (m-1) p_j q_j)`` for ``m`` raters per item;
    computed as Fleiss' kappa of the dichotomised ratings, so unequal raters per item work.
    Each estimate carries ``extra["category"]`` and, for constant ``m``, the Fleiss, Nee &
    Landis (1979) null SE ``se0 = sqrt(2 / (n m (m-1)))`` with ``z`` and ``p_value``.
    """
    X = as_ratings(X)
    cats = resolve_categories(X, categories)
    p_all = _prepare(X, cats.codes, None, "identity")
    _, se0s = _fnl_se0(p_all)
    out = []
    for j, code in enumerate(cats.codes):
        Xj = np.where(np.isnan(X), np.nan, (X == code).astype(float))
        e = fleiss_kappa(
            Xj, categories=[0.0, 1.0], ci=ci, confidence=confidence, plan=plan, method=method
        )
        extra = {k: v for k, v in e.extra.items() if k not in ("se0", "z", "p_value", "se0_method")}
        extra["category"] = float(code)
        if np.isfinite(se0s[j]):
            z = e.estimate / se0s[j]
            extra.update(
                se0=float(se0s[j]),
                z=z,
                p_value=float(2 * stats.norm.sf(abs(z))),
                se0_method="Fleiss, Nee & Landis 1979",
            )
        out.append(
            Estimate(
                name="fleiss_kappa_category",
                estimate=e.estimate,
                se=e.se,
                ci_low=e.ci_low,
                ci_high=e.ci_high,
                ci_method=e.ci_method,
                level=e.level,
                n=e.n,
                excluded=e.excluded,
                extra=extra,
            )
        )
    return out
