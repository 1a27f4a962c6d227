"""Two-rater coefficients: Cohen's kappa (weighted), Scott's pi, PABAK with prevalence/bias.

Two-rater coefficients use the items both raters rated (listwise; the others are counted in
``excluded["items_missing_a_rating"]``), through the ``q x q`` table ``p_kl`` of proportions.

* Cohen (1960; weighted: Cohen 1968): ``kappa_w = (po - pe) / (1 - pe)`` with
  ``po = sum_kl w_kl p_kl`` and ``pe = sum_kl w_kl p_k. p_.l``. Asymptotic variance of Fleiss,
  Cohen & Everitt (1969, Psychol. Bull. 72:323-327):
  ``var = [sum_kl p_kl (w_kl - (wbar_k. + wbar_.l)(1 - kappa))^2 - (kappa - pe (1 - kappa))^2]
  / (n (1 - pe)^2)`` with ``wbar_k. = sum_l p_.l w_kl`` and ``wbar_.l = sum_k p_k. w_kl``;
  its null version (``extra["se0"]``) replaces ``p_kl`` by ``p_k. p_.l`` and kappa by 0.
  The interval is ``kappa -/+ z se`` (normal, as in Fleiss et al. and statsmodels), upper
  limit clipped at 1.
* Scott (1955): ``pe = sum_kl w_kl pi_k pi_l`` with ``pi_k = (p_k. + p_.k) / 2`` (Fleiss'
  kappa for two raters); SE by Gwet's linearisation.
* PABAK (Byrt, Bishop & Carlin 1993, J Clin Epidemiol 46:423-429): ``(q po - 1)/(q - 1)``
  (= ``2 po - 1`` for two categories), i.e. Brennan–Prediger for two raters. For a 2 x 2 table
  ``[[a, b], [c, d]]`` (proportions; first category = "positive"), the prevalence index is
  ``PI = a - d`` and the bias index ``BI = b - c``, and
  ``kappa = (PABAK - PI^2 + BI^2) / (1 - PI^2 + BI^2)``: with a high prevalence (|PI| near 1) a
  judge that agrees 95% of the time can have a low kappa (the kappa paradox). For ``q > 2``
  the indices are given per category (that category vs the rest).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from ..._lazy import stats
from ..resampling import Bootstrap, ClusterJackknife, ResamplePlan, weighted_onehot
from ..results import Estimate
from .bootstrap import (
    analytic_estimate,
    check_ci,
    clustered_analytic,
    resampling,
    resolve_ci,
)
from .coding import (
    Categories,
    as_ratings,
    category_core,
    finish,
    item_weights,
    resolve_categories,
)
from .conventions import Settings, agreement_input, category_coefficient, with_interval_params
from .kappa import brennan_prediger, fleiss_kappa, without_null_test
from .weights import weight_matrix, weights_name


def _pairs(X: Any) -> tuple[np.ndarray, np.ndarray]:
    X = as_ratings(X)
    if X.shape[1] != 2:
        raise ValueError(
            f"a two-rater coefficient needs exactly 2 columns, got {X.shape[1]}; "
            "use fleiss_kappa / conger_kappa / gwet_ac for more raters"
        )
    complete = ~np.isnan(X).any(axis=1)
    return X, complete


def _cells(X: np.ndarray, complete: np.ndarray, cats: Categories) -> np.ndarray:
    """One-hot table cell of each complete item, shape ``(n, q*q)`` (zeros if incomplete)."""
    out = np.zeros((X.shape[0], cats.q * cats.q))
    out[_cell_index(X, complete, cats)] = 1.0
    return out


def _cell_index(
    X: np.ndarray, complete: np.ndarray, cats: Categories
) -> tuple[np.ndarray, np.ndarray]:
    """``(items, cells)``: the complete items and the index ``a q + b`` of their table cell."""
    q = cats.q
    order = np.argsort(cats.codes)
    sorted_codes = cats.codes[order]
    idx = np.flatnonzero(complete)
    ia = order[np.searchsorted(sorted_codes, X[idx, 0])]
    ib = order[np.searchsorted(sorted_codes, X[idx, 1])]
    return idx, ia * q + ib


def _tables(X: np.ndarray, complete: np.ndarray, cats: Categories, W: np.ndarray) -> np.ndarray:
    """Weighted proportion tables ``p_kl``, shape ``(k, q, q)``."""
    q = cats.q
    T = (W @ _cells(X, complete, cats)).reshape(-1, q, q)
    with np.errstate(invalid="ignore", divide="ignore"):
        return T / T.sum(axis=(1, 2))[:, None, None]


def _kappa_from_tables(
    P: np.ndarray, Wm: np.ndarray, chance: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    po = np.einsum("kl,bkl->b", Wm, P)
    row, col = P.sum(axis=2), P.sum(axis=1)
    if chance == "cohen":
        pe = np.einsum("bk,kl,bl->b", row, Wm, col)
    else:  # scott
        pi = (row + col) / 2
        pe = np.einsum("bk,kl,bl->b", pi, Wm, pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (po - pe) / (1 - pe), po, pe


def _pair_core(
    chance: str, X: Any, w: np.ndarray | None, categories: Any, values: Any, weights: Any
) -> np.ndarray | float:
    X, complete = _pairs(X)
    cats = resolve_categories(X, categories, values)
    W, batched = item_weights(w, X.shape[0])
    P = _tables(X, complete, cats, W)
    return finish(_kappa_from_tables(P, weight_matrix(cats.values, weights), chance)[0], batched)


cohen_kappa_core = category_core(
    "cohen_kappa_core",
    "Cohen's (weighted) kappa of the two columns of ``X`` under item weights ``w``.",
    partial(_pair_core, "cohen"),
    __name__,
)
scott_pi_core = category_core(
    "scott_pi_core",
    "Scott's pi of the two columns of ``X`` under item weights ``w``.",
    partial(_pair_core, "scott"),
    __name__,
)


def cohen_kappa_columns(
    first: np.ndarray,
    others: np.ndarray,
    w: np.ndarray | ClusterJackknife | ResamplePlan | None = None,
    *,
    categories: Sequence[float] | np.ndarray | None = None,
    values: Sequence[float] | np.ndarray | None = None,
    weights: str | np.ndarray = "identity",
) -> np.ndarray:
    """Cohen's kappa of ``first`` with each column of ``others``, all under item weights ``w``.

    Equal to ``[cohen_kappa_core(np.c_[first, others[:, k]], w, ...) for k in ...]`` stacked on
    the first axis — shape ``(K,)`` for ``w=None`` or 1-D weights, ``(K, k)`` for 2-D weights —
    but every table comes out of one product of the weights with the stacked one-hot cells
    (bit-identical for count weights: the table sums are exact integers).

    Examples
    --------
    >>> x = np.array([0, 1, 1, 0.0])
    >>> cohen_kappa_columns(x, np.c_[x, 1 - x], categories=[0, 1]).tolist()
    [1.0, -1.0]
    """
    first = np.asarray(first, dtype=float)
    others = np.asarray(others, dtype=float)
    if others.ndim == 1:
        others = others[:, None]
    X = np.column_stack([first, others])
    cats = resolve_categories(X, categories, values)
    if isinstance(w, (ClusterJackknife, ResamplePlan)):  # weights without their matrix
        if w.shape[1] != X.shape[0]:
            raise ValueError(f"weights have {w.shape[1]} items, ratings {X.shape[0]}")
        W, batched = w, True
    else:
        W, batched = item_weights(w, X.shape[0])
    Wm = weight_matrix(cats.values, weights)
    q, K = cats.q, others.shape[1]
    # the one-hot table cells of every item and column, as indices (never an n x K q^2 array)
    rows, cols = [], []
    for k in range(K):
        x = np.c_[first, others[:, k]]
        idx, cell = _cell_index(x, ~np.isnan(x).any(axis=1), cats)
        rows.append(idx)
        cols.append(cell + k * q * q)
    rows, cols = np.concatenate(rows), np.concatenate(cols)

    def kappas(T: np.ndarray) -> np.ndarray:  # (k, K q^2) weighted counts -> (K, k) kappas
        T = T.reshape(T.shape[0], K, q, q)
        out = []
        for k in range(K):
            Tk = T[:, k]
            with np.errstate(invalid="ignore", divide="ignore"):
                P = Tk / Tk.sum(axis=(1, 2))[:, None, None]
            out.append(np.asarray(_kappa_from_tables(P, Wm, "cohen")[0], dtype=float))
        return np.stack(out, axis=0)

    shape = (X.shape[0], K * q * q)
    if isinstance(W, ClusterJackknife):  # one block of left-out clusters at a time
        from scipy.sparse import csr_matrix

        cells = csr_matrix((np.ones(rows.size), (rows, cols)), shape=shape)
        full = np.concatenate([kappas(T) for _, T in W.blocks(cells)], axis=1)
    else:
        full = kappas(weighted_onehot(W, rows, cols, shape))
    return np.stack([np.asarray(finish(f, batched), dtype=float) for f in full], axis=0)


def fce_variance(P: np.ndarray, Wm: np.ndarray, n: float) -> tuple[float, float]:
    """Fleiss–Cohen–Everitt (1969) variance of weighted kappa and its null version (kappa=0)."""
    row, col = P.sum(axis=1), P.sum(axis=0)
    po = float((Wm * P).sum())
    pe = float(row @ Wm @ col)
    kappa = (po - pe) / (1 - pe)
    wr = Wm @ col  # wbar_k.
    wc = row @ Wm  # wbar_.l
    term = (P * (Wm - (wr[:, None] + wc[None, :]) * (1 - kappa)) ** 2).sum()
    var = (term - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2)
    E = np.outer(row, col)
    var0 = ((E * (Wm - (wr[:, None] + wc[None, :])) ** 2).sum() - pe**2) / (n * (1 - pe) ** 2)
    return float(var), float(var0)


def _common(
    X: Any, categories: Any, values: Any
) -> tuple[np.ndarray, np.ndarray, Categories, dict[str, int]]:
    X, complete = _pairs(X)
    cats = resolve_categories(X, categories, values)
    missing = int((~complete).sum())
    return X, complete, cats, ({"items_missing_a_rating": missing} if missing else {})


def _cohen_kappa(X: Any, s: Settings) -> Estimate:
    categories, values, weights, ci, confidence_level, bootstrap, clusters = s
    ci = check_ci(ci)
    X, complete, cats, excluded = _common(X, categories, values)
    rs = resampling(bootstrap, clusters, X.shape[0], confidence_level)
    Wm = weight_matrix(cats.values, weights)
    n = int(complete.sum())
    ci = resolve_ci(ci, n, clusters)
    P = _tables(X, complete, cats, np.ones((1, X.shape[0])))[0]
    kappa, po, pe = (float(v[0]) for v in _kappa_from_tables(P[None], Wm, "cohen"))
    extra: dict[str, Any] = {"po": po, "pe": pe, "weights": weights_name(weights), "q": cats.q}
    if n >= 2 and np.isfinite(kappa):
        var, var0 = fce_variance(P, Wm, n)
        se0 = math.sqrt(max(var0, 0.0))
        if se0 > 0:
            extra.update(se0=se0, z=kappa / se0, p_value=float(2 * stats.norm.sf(abs(kappa / se0))))
        se = math.sqrt(max(var, 0.0))
    else:
        se = math.nan
    if ci == "bootstrap":

        def stat(W: np.ndarray) -> np.ndarray:
            return _kappa_from_tables(_tables(X, complete, cats, W), Wm, "cohen")[0]

        return rs.estimate("cohen_kappa", stat, X.shape[0], n=n, extra=extra, excluded=excluded)
    if ci == "analytic" and rs.plan.clusters is not None:
        return clustered_analytic(
            "cohen_kappa", kappa,
            lambda W: _kappa_from_tables(_tables(X, complete, cats, W), Wm, "cohen")[0],
            X.shape[0], rs.plan.clusters, n=n, confidence_level=rs.confidence_level,
            keep=complete, extra=extra,
            excluded=excluded,
        )  # fmt: skip
    return analytic_estimate(
        "cohen_kappa",
        kappa,
        se if ci == "analytic" else math.nan,
        n=n,
        df=math.inf,
        confidence_level=rs.confidence_level,
        method="analytic (Fleiss, Cohen & Everitt 1969, normal)" if ci == "analytic" else "",
        extra=extra,
        excluded=excluded,
    )


cohen_kappa = category_coefficient(
    "cohen_kappa",
    "two",
    """Cohen's kappa of two raters (columns of ``X``), unweighted or weighted by category value.

    ``weights="linear"`` gives Cicchetti–Allison weights and ``"quadratic"`` Fleiss–Cohen
    weights when categories are equally spaced; a q x q matrix gives Cohen's (1968) weighted
    kappa with any agreement weights. Analytic SE: Fleiss, Cohen & Everitt (1969), normal
    interval; ``extra`` holds po, pe, the null SE ``se0``, ``z`` and two-sided ``p_value``.

    Parameters
    ----------
    X : array_like, shape (n_items, 2)
        The two raters' category codes, NaN = missing (items missing a rating are excluded
        and counted).
    categories, values, weights, ci, confidence_level, bootstrap, clusters
        As in :func:`medjudge.fleiss_kappa`.

    Returns
    -------
    Estimate

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. EPM 20:37-46.
    Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70:213-220.
    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa and
    weighted kappa. Psychological Bulletin 72:323-327.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> X = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [2, 2], [2, 1]])
    >>> round(mj.cohen_kappa(X, ci=None).estimate, 3)
    0.5
    >>> round(mj.cohen_kappa(X, weights='linear', ci=None).estimate, 3)
    0.571
    """,
    _cohen_kappa,
    __name__,
)


def _scott_pi(X: Any, s: Settings) -> Estimate:
    X, complete, cats, excluded = _common(X, s.categories, s.values)
    Xc = np.where(complete[:, None], X, np.nan)
    e = fleiss_kappa(Xc, **s._replace(categories=cats.codes, values=cats.values)._asdict())
    return replace(e, name="scott_pi", excluded=excluded, extra=without_null_test(e.extra))


scott_pi = category_coefficient(
    "scott_pi",
    "two",
    """Scott's (1955) pi for two raters on the items both rated (Fleiss' kappa, r = 2).

    ``pi = (po - pe) / (1 - pe)`` with ``pe = sum_kl w_kl pi_k pi_l``, where ``pi_k`` is the
    share of category k among both raters' ratings pooled (one chance distribution for both,
    unlike Cohen's kappa). Computed as Fleiss' kappa on the items both raters rated; analytic
    SE by Gwet's linearisation (t, n-1 df), as for Fleiss' kappa.

    Parameters
    ----------
    {two_raters_x}
    categories : sequence of float, optional
        All allowed codes (unused ones still count); default: the observed values.
    values : sequence of float, optional
        Numeric value of each category for weights (default: the codes themselves).
    weights : str or ndarray, default "identity"
        ``"identity"`` (unweighted), ``"linear"``, ``"quadratic"``, ``"ordinal"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"`` or a q x q matrix
        (applied by category value).
    {interval_params}

    Returns
    -------
    Estimate
        ``estimate`` (pi), ``se``, ``ci_low``/``ci_high`` at ``level``, ``n`` items both
        raters rated, ``excluded`` counts; ``extra`` holds ``pa``, ``pe``, ``q``, ``weights``,
        the resampling settings (``n_resamples``, ``seed``) and p-values of pi = 0.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding.
    Public Opinion Quarterly 19:321-325.
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 5 (variance).

    Examples
    --------
    >>> import medjudge as mj
    >>> pi = mj.scott_pi([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 0]], ci=None)
    >>> round(pi.estimate, 3), round(pi.extra["pe"], 3)  # pe from the pooled marginals
    (0.333, 0.5)
    """,
    _scott_pi,
    __name__,
)


def prevalence_bias_indices(
    X: Any, *, categories: Sequence[float] | np.ndarray | None = None
) -> dict[str, Any]:
    """Byrt, Bishop & Carlin (1993) prevalence and bias indices of two raters.

    Binary ratings: ``PI = p_11 - p_22`` and ``BI = p_12 - p_21`` where 1 is the first and 2
    the second category in sorted order (rows: first rater); the signs flip if the labels are
    swapped, the squares used in Byrt's identity do not.
    More categories: per category ``k`` (k vs rest), ``PI_k = p_kk - p_{not k, not k}`` and
    ``BI_k = p_k. - p_.k``, returned as lists.
    """
    X, complete, cats, _ = _common(X, categories, None)
    P = _tables(X, complete, cats, np.ones((1, X.shape[0])))[0]
    if cats.q == 2:
        return {
            "prevalence_index": float(P[0, 0] - P[1, 1]),
            "bias_index": float(P[0, 1] - P[1, 0]),
        }
    row, col = P.sum(axis=1), P.sum(axis=0)
    diag = np.diag(P)
    neither = 1 - row - col + diag
    return {
        "prevalence_index": (diag - neither).tolist(),
        "bias_index": (row - col).tolist(),
        "categories": cats.codes.tolist(),
    }


@agreement_input("two")
@with_interval_params
def pabak(
    X: Any,
    *,
    categories: Sequence[float] | np.ndarray | None = None,
    ci: str | None = "auto",
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    clusters: Any = None,
) -> Estimate:
    """Prevalence- and bias-adjusted kappa (Byrt et al. 1993) shown next to Cohen's kappa.

    ``PABAK = (q po - 1) / (q - 1)`` on the items both raters rated (Brennan–Prediger for two
    raters; SE by Gwet's linearisation). ``extra`` holds ``po``, ``cohen_kappa``, the prevalence
    and bias indices (:func:`prevalence_bias_indices`) so the kappa paradox is visible.

    Parameters
    ----------
    {two_raters_x}
    categories : sequence of float, optional
        All allowed codes; ``q`` is their number, so a category nobody used still counts.
        Default: the observed values.
    {interval_params}

    Returns
    -------
    Estimate
        ``estimate`` (PABAK), ``se``, ``ci_low``/``ci_high`` at ``level``, ``n`` items both
        raters rated, ``excluded`` counts; ``extra`` holds ``po``, ``q``, ``cohen_kappa``,
        ``prevalence_index`` and ``bias_index`` (lists per category when q > 2, with
        ``categories``) and the t-test p-values of PABAK = 0 (``p_value_t``,
        ``p_value_t_greater``).

    References
    ----------
    Byrt, T., Bishop, J. & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of
    Clinical Epidemiology 46:423-429.
    Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and
    alternatives. Educational and Psychological Measurement 41:687-699.
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 5 (variance).

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> X = np.array([[0, 0]] * 8 + [[0, 1], [1, 0]])  # 80 % agreement on a rare category
    >>> e = mj.pabak(X, ci=None)
    >>> round(e.estimate, 2), round(e.extra["cohen_kappa"], 2), e.extra["prevalence_index"]
    (0.6, -0.11, 0.8)
    """
    X, complete, cats, excluded = _common(X, categories, None)
    Xc = np.where(complete[:, None], X, np.nan)
    e = brennan_prediger(
        Xc, categories=cats.codes, ci=ci, confidence_level=confidence_level,
        bootstrap=bootstrap, clusters=clusters,
    )  # fmt: skip
    k = cohen_kappa(X, categories=cats.codes, ci=None)
    extra = {"po": e.extra["pa"], "q": cats.q, "cohen_kappa": k.estimate}
    extra.update(prevalence_bias_indices(X, categories=cats.codes))
    return replace(e, name="pabak", excluded=excluded, extra=extra)
