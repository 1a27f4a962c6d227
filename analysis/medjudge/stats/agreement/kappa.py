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
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from ..._lazy import stats
from ..resampling import Bootstrap
from ..results import Estimate
from .bootstrap import (
    analytic_estimate,
    check_ci,
    clustered_analytic,
    resampling,
    resolve_ci,
)
from .coding import as_ratings, resolve_categories
from .conventions import Settings, category_coefficient
from .gwet_framework import _NAMES, _REFS, _family, _fnl_se0, _linearized_se, _prepare
from .weights import weights_name

__all__ = [
    "brennan_prediger",
    "conger_kappa",
    "fleiss_category_kappas",
    "fleiss_kappa",
    "gwet_ac",
    "percent_agreement",
    "without_null_test",
]


def _add_null_test(extra: dict[str, Any], coef: float, se0: float) -> None:
    """The Fleiss, Nee & Landis (1979) null SE ``se0``, ``z`` and two-sided ``p_value``."""
    z = coef / se0
    extra.update(
        se0=float(se0),
        z=z,
        p_value=float(2 * stats.norm.sf(abs(z))),
        se0_method="Fleiss, Nee & Landis 1979",
    )


def _estimate(kind: str, X: Any, s: Settings) -> Estimate:
    categories, values, weights, ci, confidence_level, bootstrap, clusters = s
    ci = check_ci(ci)
    p = _prepare(X, categories, values, weights)
    n_all = p.X.shape[0]
    rs = resampling(bootstrap, clusters, n_all, confidence_level)
    coef, pa, pe = (float(a[0]) for a in _family(p, kind, np.ones((1, n_all))))
    n = int(p.rated.sum())
    ci = resolve_ci(ci, n, clusters)
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
            _add_null_test(extra, coef, se0)
    if ci == "bootstrap":

        def stat(W: np.ndarray) -> np.ndarray:
            return _family(p, kind, W)[0]

        return rs.estimate(name, stat, n_all, n=n, extra=extra, excluded=excluded)
    if ci == "analytic" and rs.plan.clusters is not None:
        return clustered_analytic(
            name, coef, lambda W: _family(p, kind, W)[0], n_all, rs.plan.clusters, n=n,
            confidence_level=rs.confidence_level, keep=p.rated > 0,
            extra=extra, excluded=excluded,
        )  # fmt: skip
    se = _linearized_se(p, kind, coef, pe) if ci == "analytic" else math.nan
    return analytic_estimate(
        name,
        coef,
        se,
        n=n,
        df=n - 1,
        confidence_level=rs.confidence_level,
        method=f"analytic ({_REFS[kind]} linearisation, t df=n-1)" if ci == "analytic" else "",
        extra=extra,
        excluded=excluded,
    )


_PARAMS = """
    Parameters
    ----------
    X : array_like, shape (n_items, n_raters)
        Category codes, NaN = missing (or a table/counts with ``layout=``).
    categories : sequence of float, optional
        All allowed codes (unused ones still count); default: the observed values.
    values : sequence of float, optional
        Numeric value of each category for weights (default: the codes themselves).
    weights : str or ndarray, default "identity"
        ``"identity"`` (unweighted), ``"linear"``, ``"quadratic"``, ``"ordinal"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"`` or a q x q matrix
        (see :mod:`medjudge.stats.agreement.weights`; applied by category value).
    {interval_params}

    Returns
    -------
    Estimate
        ``estimate``, ``se``, ``ci_low``/``ci_high`` at ``level``, ``n`` rated items,
        ``excluded`` counts; ``extra`` holds ``pa``, ``pe``, ``q``, ``raters``.
"""


_EXAMPLE_DATA = """    >>> import numpy as np
    >>> import medjudge as mj
    >>> X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])
"""


def _public(
    kind: str, input_kind: str, example: str, summary: str, references: str
) -> Callable[..., Estimate]:
    """The public function of ``kind``, its docstring from the shared parts (``_PARAMS`` and
    the example data) and its own summary, references and example lines."""
    doc = (
        f"{summary}\n{_PARAMS}\n    References\n    ----------\n    {references}\n\n"
        f"    Examples\n    --------\n{_EXAMPLE_DATA}    {example}\n    "
    )
    return category_coefficient(_NAMES[kind], input_kind, doc, partial(_estimate, kind), __name__)


percent_agreement = _public(
    "percent",
    "multi",
    """>>> round(mj.percent_agreement(X, ci=None).estimate, 3)
    0.778""",
    """Percent agreement among any number of raters, missing ratings allowed.

    ``pa = (1/n2) sum_i sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))`` over the ``n2`` items rated
    at least twice (``r_ik`` raters of item ``i`` in category ``k``, ``r*`` weighted counts);
    no chance correction (Gwet 2014, ch. 2).""",
    """Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 2 and 5.""",
)


fleiss_kappa = _public(
    "fleiss",
    "multi",
    """>>> e = mj.fleiss_kappa(X, ci='analytic')
    >>> round(e.estimate, 3), e.ci_method
    (0.556, 'analytic (Fleiss 1971; Gwet 2014 linearisation, t df=n-1)')""",
    """Fleiss' kappa, generalised to unequal raters per item and to weights.

    ``kappa = (pa - pe) / (1 - pe)`` with ``pe = sum_kl w_kl pi_k pi_l`` and
    ``pi_k = (1/n) sum_i r_ik / r_i`` (Fleiss 1971, eq. 2-9; unequal raters per item and
    weights as in Gwet 2014, ch. 5). With identity weights and a constant number of raters per
    item, ``extra`` also holds the Fleiss, Nee & Landis (1979) null SE ``se0`` with ``z`` and a
    two-sided ``p_value`` (for testing kappa = 0; too narrow for intervals).""",
    """Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin 76:378-382.
    Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979). Large sample variance of kappa in the
    case of different sets of raters. Psychological Bulletin 86:974-977.
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 5.""",
)


gwet_ac = _public(
    "gwet",
    "multi",
    """>>> round(mj.gwet_ac(X, ci=None).estimate, 3)
    0.556""",
    """Gwet's AC1 (identity weights) or AC2 (any other weights).

    ``AC = (pa - pe) / (1 - pe)`` with ``pe = T_w / (q (q-1)) sum_k pi_k (1 - pi_k)``,
    ``T_w = sum_kl w_kl`` (Gwet 2008, eq. 15-16; Gwet 2014, ch. 4): a chance agreement that
    stays small when one category dominates, so AC1 avoids kappa's prevalence paradox.""",
    """Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of
    high agreement. British Journal of Mathematical and Statistical Psychology 61:29-48.
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 4-5.""",
)


brennan_prediger = _public(
    "bp",
    "multi",
    """>>> round(mj.brennan_prediger(X, ci=None).estimate, 3)
    0.556""",
    """Brennan & Prediger's coefficient: uniform chance agreement ``pe = T_w / q^2``.

    ``BP = (pa - T_w / q^2) / (1 - T_w / q^2)`` (Brennan & Prediger 1981; weighted form in
    Gwet 2014, ch. 5). With two raters and identity weights this is PABAK.""",
    """Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and
    alternatives. Educational and Psychological Measurement 41:687-699.
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 5.""",
)


conger_kappa = _public(
    "conger",
    "conger",
    """>>> round(mj.conger_kappa(X, ci=None).estimate, 3)
    0.571""",
    """Conger's kappa: Cohen's kappa with rater-specific marginals for two or more raters.

    ``pe = sum_kl w_kl (pbar_k pbar_l - s2_kl / r)`` with ``p_gk`` the share of rater ``g``'s
    ratings in category ``k``, ``pbar_k`` their mean and ``s2_kl`` their covariance across the
    ``r`` raters (Conger 1980, eq. 9; Gwet 2014, ch. 5). Equals Cohen's kappa for two raters.""",
    """Conger, A. J. (1980). Integration and generalization of kappas for multiple raters.
    Psychological Bulletin 88:322-328.
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 5.""",
)


def fleiss_category_kappas(
    X: Any,
    *,
    categories: Sequence[float] | np.ndarray | None = None,
    ci: str | None = "auto",
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    clusters: Any = None,
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
            Xj, categories=[0.0, 1.0], ci=ci, confidence_level=confidence_level,
            bootstrap=bootstrap, clusters=clusters,
        )  # fmt: skip
        extra = without_null_test(e.extra)
        extra["category"] = float(code)
        if np.isfinite(se0s[j]):
            _add_null_test(extra, e.estimate, se0s[j])
        out.append(replace(e, name="fleiss_kappa_category", extra=extra))
    return out


def without_null_test(extra: dict[str, Any]) -> dict[str, Any]:
    """``extra`` without the Fleiss–Nee–Landis null test (it belongs to Fleiss' kappa only)."""
    return {k: v for k, v in extra.items() if k not in ("se0", "z", "p_value", "se0_method")}
