"""McNemar's test for two judges on the same items, and the paired counts it needs.

:func:`mcnemar` and the vectorised :func:`mcnemar_pvalue` (exact conditional, mid-p,
asymptotic, asymptotic with continuity correction; Fagerland, Lydersen & Laake 2013, BMC Med
Res Methodol 13:91 — mid-p is the default because it keeps the level without the exact test's
conservatism), :func:`clustered_mcnemar` (Durkalski et al. 2003) when items share a
case/patient/image, with its all-pairs matrix form, and :func:`pairwise_counts`: the discordant
counts of every pair of judges by matrix products.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from scipy.special import chdtrc

from medjudge._lazy import stats
from medjudge._validation import with_former
from medjudge.stats.accuracy import Policy, apply_policy
from medjudge.stats.groups import group_codes
from medjudge.stats.resampling import Permutation
from medjudge.stats.results import TestResult
from medjudge.stats.score_tests import SIGN_FLIPS, invert_sign_flip

from .._validation import check_choice

McNemarMethod = Literal["midp", "exact", "asymptotic", "asymptotic-cc"]

__all__ = [
    "mcnemar_pvalue",
    "mcnemar",
    "clustered_mcnemar",
    "pairwise_counts",
    "swap_position_test",
]


def mcnemar_pvalue(
    b: np.ndarray | float, c: np.ndarray | float, method: McNemarMethod = "midp"
) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided McNemar p-values from the discordant counts, vectorised.

    ``b`` = items where the first judge is right and the second wrong, ``c`` the reverse,
    ``n = b + c``. Conditional on ``n``, ``b ~ Bin(n, 1/2)`` under H0 (equal accuracies).

    - ``exact``: ``min(1, 2 P(X <= min(b, c)))``
    - ``midp``: ``exact - P(X = min(b, c))``; ``1 - P(X = b)/2`` when ``b = c``
      (Fagerland et al. 2013, eq. 2)
    - ``asymptotic``: ``X^2 = (b - c)^2 / (b + c) ~ chi^2_1`` (McNemar 1947)
    - ``asymptotic-cc``: ``(|b - c| - 1)^2 / (b + c)`` (Edwards 1948)

    Returns ``(statistic, pvalue)``: the chi-square statistic for the asymptotic variants and
    ``b`` for exact / mid-p. With no discordant pairs the p-value is 1.
    """
    b = np.asarray(b, dtype=float)
    c = np.asarray(c, dtype=float)
    n = b + c
    k = np.minimum(b, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        if method in ("exact", "midp"):
            exact = np.minimum(1.0, 2.0 * stats.binom.cdf(k, n, 0.5))
            if method == "exact":
                p = exact
            else:
                pmf = stats.binom.pmf(k, n, 0.5)
                p = np.where(b == c, 1.0 - 0.5 * pmf, exact - pmf)
            stat = b
        elif method == "asymptotic":
            stat = (b - c) ** 2 / n
            p = stats.chi2.sf(stat, 1)
        elif method == "asymptotic-cc":
            stat = np.maximum(np.abs(b - c) - 1.0, 0.0) ** 2 / n
            p = stats.chi2.sf(stat, 1)
        else:
            raise ValueError(
                f"unknown McNemar method {method!r}; use midp, exact, asymptotic or asymptotic-cc"
            )
    p = np.where(n > 0, p, 1.0)
    stat = np.where(n > 0, stat, 0.0)
    return stat, p


def _table_from(y1_or_table: np.ndarray, y2: np.ndarray | None) -> np.ndarray:
    def arr(name: str, v: object) -> np.ndarray:
        try:
            return np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: {v!r} is not allowed (numbers)") from None

    if y2 is None:
        t = arr("y1_or_table", y1_or_table)
        if t.shape != (2, 2) or not np.isfinite(t).all() or (t < 0).any():
            raise ValueError(
                f"y1_or_table: an array of shape {t.shape} is not allowed (a 2x2 paired table "
                "of non-negative counts, or the first judge's 0/1 outcomes with y2)"
            )
        return t
    y1 = arr("y1_or_table", y1_or_table)
    y2 = arr("y2", y2)
    if y1.ndim != 1 or y1.shape != y2.shape:
        raise ValueError(
            f"y2: an array of shape {y2.shape} is not allowed (0/1 outcomes, one per item like "
            f"y1_or_table: {y1.shape})"
        )
    ok = ~(np.isnan(y1) | np.isnan(y2))
    a, b = y1[ok] > 0.5, y2[ok] > 0.5
    return np.array(
        [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]], dtype=float
    )


def mcnemar(
    y1_or_table: np.ndarray, y2: np.ndarray | None = None, method: McNemarMethod = "midp"
) -> TestResult:
    """McNemar's test for two judges on the same items (or a 2x2 paired table).

    Pass either a 2x2 table ``[[n11, n12], [n21, n22]]`` (rows: first judge right/wrong,
    columns: second judge right/wrong) or two 0/1 vectors (NaN pairs dropped). The result
    carries the discordant counts ``b = n12``, ``c = n21`` and, in ``extra``, the p-values of
    all four variants.

    Parameters
    ----------
    y1_or_table : array_like
        A 2x2 table of paired counts, or the first judge's 0/1 correctness per item.
    y2 : array_like, optional
        The second judge's 0/1 correctness on the same items (when ``y1_or_table`` is a vector).
    method : {"midp", "exact", "asymptotic", "asymptotic-cc"}, default "midp"
        The mid-p binomial test (Fagerland et al. 2013's recommendation), the exact binomial
        test on ``b`` of ``b + c``, the chi-square test ``(b - c)^2 / (b + c)``, or it with the
        continuity correction.

    Returns
    -------
    TestResult
        ``statistic``, ``pvalue``, ``method``, ``n`` and ``counts`` (``b``, ``c``,
        ``discordant``).

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12:153-157.
    Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary matched-pairs
    data: mid-p and asymptotic are better than exact conditional. BMC Med Res Methodol 13:91.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> r = mj.mcnemar(np.array([[40, 12], [5, 43]]))
    >>> round(r.pvalue, 4), r.method
    (0.0963, 'McNemar midp')
    """

    check_choice("method", method, ("midp", "exact", "asymptotic", "asymptotic-cc"))
    t = _table_from(y1_or_table, y2)
    (n11, b), (c, n22) = t
    stat, p = mcnemar_pvalue(b, c, method)
    allp = {
        f"p_{m.replace('-', '_')}": float(mcnemar_pvalue(b, c, m)[1])
        for m in ("exact", "midp", "asymptotic", "asymptotic-cc")
    }
    n = t.sum()
    return TestResult(
        name="mcnemar",
        statistic=float(stat),
        pvalue=float(p),
        method=f"McNemar {method}",
        df=1.0 if method.startswith("asymptotic") else np.nan,
        n=int(n),
        counts={
            "n11": int(n11),
            "b": int(b),
            "c": int(c),
            "n22": int(n22),
            "discordant": int(b + c),
        },
        extra={**allp, "difference": float((b - c) / n) if n else np.nan},
    )


def clustered_mcnemar(y1: np.ndarray, y2: np.ndarray, clusters: np.ndarray) -> TestResult:
    """McNemar test for clustered matched pairs (Durkalski, Palesch, Lipsitz & Rust 2003,
    Stat Med 22:2465-2476)::

        X^2 = (sum_c (b_c - c_c))^2 / sum_c (b_c - c_c)^2  ~ chi^2_1

    where ``b_c``, ``c_c`` are the discordant counts inside cluster ``c``. Equals the
    asymptotic McNemar statistic when every cluster holds one item.
    """
    y1 = np.asarray(y1, dtype=float)
    y2 = np.asarray(y2, dtype=float)
    ok = ~(np.isnan(y1) | np.isnan(y2))
    d = (y1[ok] > 0.5).astype(float) - (y2[ok] > 0.5).astype(float)
    cc, _ = group_codes(np.asarray(clusters)[ok])
    s = np.bincount(cc, weights=d)
    den = float(np.sum(s**2))
    stat = float(s.sum() ** 2 / den) if den > 0 else 0.0
    p = float(chdtrc(1, stat)) if den > 0 else 1.0  # chi2(1).sf without importing scipy.stats
    return TestResult(
        name="mcnemar",
        statistic=stat,
        pvalue=p,
        method="McNemar clustered (Durkalski 2003)",
        df=1.0,
        n=int(ok.sum()),
        counts={
            "b": int(np.sum(d > 0)),
            "c": int(np.sum(d < 0)),
            "discordant": int(np.sum(d != 0)),
            "n_clusters": int(s.size),
        },
    )


def _clustered_mcnemar_matrix(
    y: np.ndarray, m: np.ndarray, clusters: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Durkalski statistic and p-value for all pairs at once: ``(J, J)`` matrices.

    Per cluster ``c`` and pair ``(i, j)``: ``s_c(i, j) = sum_{t in c} m_ti m_tj (y_ti - y_tj)``;
    ``X^2 = (sum_c s_c)^2 / sum_c s_c^2``. Computed from per-cluster sums, never a dense
    items x clusters matrix: when every judge has every item (``m`` all ones) ``s_c(i, j) =
    C_ci - C_cj`` with ``C`` the per-cluster correct counts, so ``sum_c s_c^2`` is
    ``G_ii + G_jj - 2 G_ij`` with the ``J x J`` Gram matrix ``G = C^T C``; otherwise one
    segment sum per pair (O(n) memory).
    """
    cc, g = group_codes(clusters)
    n_j = y.shape[1]
    ym = y * m
    if np.all(m == 1):
        c = np.stack([np.bincount(cc, weights=ym[:, k], minlength=g) for k in range(n_j)], 1)
        tot = c.sum(0)
        num = (tot[:, None] - tot[None, :]) ** 2
        gram = c.T @ c
        dg = np.diag(gram)
        den = dg[:, None] + dg[None, :] - 2.0 * gram
    else:
        num = np.zeros((n_j, n_j))
        den = np.zeros((n_j, n_j))
        for a in range(n_j):
            for b in range(a + 1, n_j):
                d = ym[:, a] * m[:, b] - m[:, a] * ym[:, b]
                s_c = np.bincount(cc, weights=d, minlength=g)
                num[a, b] = num[b, a] = s_c.sum() ** 2
                den[a, b] = den[b, a] = s_c @ s_c
    den = np.where(np.abs(den) < 1e-9, 0.0, den)  # exact zero for identical judges
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.where(den > 0, num / den, 0.0)
    p = np.where(den > 0, stats.chi2.sf(stat, 1), 1.0)
    return stat, p


def pairwise_counts(outcome: np.ndarray, policy: Policy = "wrong") -> dict[str, np.ndarray]:
    """Paired counts for every pair of judges, ``(J, J)`` matrices, by matrix products.

    ``better[i, j]`` = items where judge ``i`` scores higher than judge ``j`` (McNemar's
    ``b`` for the pair ``(i, j)``; ``c = better[j, i]``), ``both_right``, ``both_wrong`` and
    ``n_common`` (items included for both). Under ``exclude`` an item counts for a pair only
    if both verdicts are valid; under ``half`` an invalid verdict (0.5) is worse than a correct
    and better than a wrong one, so McNemar becomes the sign test on the paired differences.
    """
    y, m = apply_policy(outcome, policy)
    one = ((y == 1.0) & (m > 0)).astype(float)
    zero = ((y == 0.0) & (m > 0)).astype(float)
    if policy != "half" and np.array_equal(one + zero, m):
        better = one.T @ zero  # binary outcomes: b = #(i right, j wrong)
    else:
        levels = np.unique(y[m > 0])
        better = np.zeros((y.shape[1], y.shape[1]))
        below = np.zeros_like(y)
        for v in levels:
            e = ((y == v) & (m > 0)).astype(float)
            better += e.T @ below
            below = below + e
    return {
        "better": better,
        "both_right": one.T @ one,
        "both_wrong": zero.T @ zero,
        "n_common": m.T @ m,
    }


def swap_position_test(
    first_first: np.ndarray,
    second_second: np.ndarray,
    clusters: np.ndarray | None,
    *,
    confidence_level: float = 0.95,
    permutation: Permutation | None = None,
    **former: Any,
) -> dict[str, float | int | str]:
    """Clustered test of position preference in a swap design, and the interval it gives.

    Per item, ``first_first`` (1 when the judge chose the first-shown answer in both orders)
    and ``second_second``; per cluster ``c`` (image, case) the counts ``f_c``, ``s_c`` and
    ``n_c = f_c + s_c``. The share of first-first among inconsistent pairs is
    ``pi = sum f_c / sum n_c``; for a hypothesised ``pi0`` the cluster terms
    ``d_c(pi0) = f_c - pi0 n_c`` have mean 0, and the test of ``pi0`` is the cluster sign-flip
    (randomisation) test of ``T = |sum_c d_c|`` against ``|sum_c e_c d_c|`` over sign
    patterns ``e`` (all ``2^G`` when ``G <= 14`` clusters hold a discordant pair — exact —
    else ``B`` random patterns, p = (1 + #{>= T}) / (B + 1); ``permutation`` sets ``B`` and
    the seed, default 9,999 from seed 0; the former ``n_flips=``/``seed=`` still work with a
    DeprecationWarning). The p-value is the
    test of ``pi0 = 1/2`` (no position preference; ``d_c = (f_c - s_c)/2``, the per-cluster
    Durkalski terms); the interval is the set of ``pi0`` the same test does not reject
    (bisection on each side of ``pi``), so it excludes 1/2 exactly when ``p <= 1 -
    confidence_level``. Without clusters every item is its own cluster.

    Returns
    -------
    dict
        ``estimate`` (pi), ``ci_low``, ``ci_high``, ``p_value``, ``n_clusters`` (clusters with
        an inconsistent pair), ``first_first``, ``second_second``, ``method``.

    References
    ----------
    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. & Rust, P. F. (2003). Analysis of
    clustered matched-pair data. Stat Med 22:2465-2476.
    Fisher, R. A. (1935). The Design of Experiments (the randomisation test).

    Examples
    --------
    >>> import numpy as np
    >>> from medjudge.stats.mcnemar import swap_position_test
    >>> ff = np.array([1, 1, 0, 1, 0, 1, 1, 0]); ss = np.array([0, 0, 1, 0, 0, 0, 0, 1])
    >>> r = swap_position_test(ff, ss, np.array([1, 1, 2, 3, 3, 4, 5, 6]))
    >>> r["n_clusters"], round(r["p_value"], 4)
    (6, 0.5312)
    """
    f = np.asarray(first_first, dtype=float)
    s = np.asarray(second_second, dtype=float)
    cl = np.arange(f.size) if clusters is None else np.asarray(clusters)
    cc, g_all = group_codes(cl)
    fc = np.bincount(cc, weights=f, minlength=g_all)
    nc = fc + np.bincount(cc, weights=s, minlength=g_all)
    perm = with_former("swap_position_test", "permutation", permutation, former, SIGN_FLIPS,
                       {"n_flips": "n_resamples", "seed": "seed"})  # fmt: skip
    r = invert_sign_flip(
        fc, nc, null=0.5, bounds=(0.0, 1.0), confidence_level=confidence_level,
        permutation=perm,
    )  # fmt: skip
    if r["n_clusters"] == 0:
        r["method"] = "not defined: no inconsistent pair"
    return {"first_first": int(f.sum()), "second_second": int(s.sum()), **r}
