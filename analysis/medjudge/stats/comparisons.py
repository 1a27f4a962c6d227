"""Comparing judges on the same items: paired tests, paired intervals, multiplicity.

Two judges
    :func:`mcnemar` (exact conditional, mid-p, asymptotic, asymptotic with continuity
    correction; Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91 — mid-p is the
    default because it keeps the level without the exact test's conservatism), the clustered
    McNemar of Durkalski et al. (2003) when items share a case/patient/image,
    :func:`paired_bootstrap` (difference of accuracies or of Cohen's kappa with gold, on shared
    resamples), :func:`sign_flip_test` (score-valued judges) and :func:`wilcoxon`.

Many judges
    :func:`cochran_q` (Cochran 1950), :func:`friedman_nemenyi` (Friedman 1937; Nemenyi 1963;
    Demšar 2006) and :func:`all_pairs`: every pair of judges (496 for 32) per dimension, with
    the discordant counts, the test, the effect (accuracy difference) and its interval in one
    table, Holm (1979) within a family and Benjamini–Hochberg (1995) across the grid
    (:func:`adjust_pvalues`, statsmodels ``multipletests``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import chdtrc

from medjudge._lazy import stats
from medjudge.stats.accuracy import (
    Policy,
    _as_2d,
    _jackknife_accuracy,
    apply_policy,
    bootstrap_accuracy,
)
from medjudge.stats.intervals import paired_difference_interval
from medjudge.stats.resampling import ResamplePlan, bootstrap_interval, bootstrap_se
from medjudge.stats.results import Estimate, TestResult

McNemarMethod = Literal["midp", "exact", "asymptotic", "asymptotic-cc"]
PairCI = Literal["auto", "bootstrap-percentile", "bootstrap-bca", "tango", "newcombe", "wald"]

__all__ = [
    "mcnemar_pvalue",
    "mcnemar",
    "clustered_mcnemar",
    "pairwise_counts",
    "paired_bootstrap",
    "cohen_kappa_weighted",
    "sign_flip_pvalues",
    "sign_flip_test",
    "wilcoxon",
    "cochran_q",
    "friedman_nemenyi",
    "adjust_pvalues",
    "add_multiplicity",
    "all_pairs",
]


# ----------------------------------------------------------------------------------------------
# McNemar
# ----------------------------------------------------------------------------------------------
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
    if y2 is None:
        t = np.asarray(y1_or_table, dtype=float)
        if t.shape != (2, 2):
            raise ValueError(f"expected a 2x2 paired table, got shape {t.shape}")
        return t
    y1 = np.asarray(y1_or_table, dtype=float)
    y2 = np.asarray(y2, dtype=float)
    if y1.shape != y2.shape:
        raise ValueError(f"paired outcomes must have the same shape, got {y1.shape} and {y2.shape}")
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

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> r = mj.mcnemar(np.array([[40, 12], [5, 43]]))
    >>> round(r.pvalue, 4), r.method
    (0.0963, 'McNemar midp')
    """
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
    _, cc = np.unique(np.asarray(clusters)[ok], return_inverse=True)
    s = np.bincount(cc.ravel(), weights=d)
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
    _, cc = np.unique(np.asarray(clusters), return_inverse=True)
    cc = cc.ravel()
    g = int(cc.max()) + 1 if cc.size else 0
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


# ----------------------------------------------------------------------------------------------
# paired bootstrap
# ----------------------------------------------------------------------------------------------
def cohen_kappa_weighted(
    pred: np.ndarray, gold: np.ndarray, weights: np.ndarray, categories: np.ndarray | None = None
) -> np.ndarray:
    """Cohen's (1960) kappa of each judge with the gold labels under resample weights.

    ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o = sum_i w_i [pred_i = gold_i] / sum_i w_i``,
    ``p_e = sum_k p_k(pred) p_k(gold)`` with weighted marginal proportions. Invalid (NaN)
    predictions count as disagreement and belong to no category. ``weights``: ``(B, n)``;
    returns ``(B, J)``.
    """
    pr = _as_2d(pred)
    g = np.asarray(gold, dtype=float)
    w = np.asarray(weights, dtype=float)
    cats = np.unique(g[~np.isnan(g)]) if categories is None else np.asarray(categories, dtype=float)
    tot = w.sum(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        po = (w @ (pr == g[:, None]).astype(float)) / tot
        pe = np.zeros_like(po)
        for k in cats:
            pe += ((w @ (pr == k).astype(float)) / tot) * (
                (w @ (g == k).astype(float)) / tot[:, 0]
            )[:, None]
        return (po - pe) / (1.0 - pe)


def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    *,
    gold: np.ndarray | None = None,
    statistic: Literal["accuracy", "kappa"] = "accuracy",
    policy: Policy = "wrong",
    clusters: np.ndarray | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    method: Literal["percentile", "bca", "basic"] | None = None,
    level: float = 0.95,
) -> Estimate:
    """Paired bootstrap interval for the difference ``stat(a) - stat(b)`` of two judges.

    ``method`` defaults to ``percentile`` for accuracy and ``bca`` for kappa (the choices that
    covered best in docs/inference.md; for an accuracy difference on independent items at small
    n prefer Tango's score interval, :func:`medjudge.stats.intervals.paired_difference_ci`).

    Both judges are evaluated on the *same* resamples (rows of the engine's weight matrix),
    so the interval reflects the correlation between them. ``statistic="accuracy"``: ``a`` and
    ``b`` are outcome vectors (1/0/NaN). ``statistic="kappa"``: ``a`` and ``b`` are predicted
    category codes and ``gold`` the gold codes; the statistic is Cohen's kappa with gold.
    With ``clusters`` whole clusters are resampled. The Estimate's ``extra`` holds the p-value
    of the bootstrap test (twice the smaller tail of the replicates around 0, Efron &
    Tibshirani 1993, sec. 16.4 style percentile test) and the resampling settings.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> rng = np.random.default_rng(0)
    >>> a = (rng.random(200) < 0.8).astype(float)
    >>> b = (rng.random(200) < 0.7).astype(float)
    >>> e = mj.paired_bootstrap(a, b, n_resamples=500)
    >>> round(e.estimate, 3), bool(e.ci_low < e.estimate < e.ci_high)
    (0.075, True)
    """
    if method is None:
        method = "bca" if statistic == "kappa" else "percentile"
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    n = a.shape[0]
    plan = ResamplePlan(n, n_resamples, seed, clusters=clusters)
    w = plan.weights()
    if statistic == "accuracy":
        y = np.column_stack([a, b])
        boot = bootstrap_accuracy(y, policy=policy, weights=w)
        yy, mm = apply_policy(y, policy)
        full = (mm * yy).sum(0) / mm.sum(0)
        jack = _jackknife_accuracy(yy, mm, clusters) if method == "bca" else None
    elif statistic == "kappa":
        if gold is None:
            raise ValueError("statistic='kappa' needs gold=")
        pr = np.column_stack([a, b])
        if policy == "exclude":
            keep = ~np.isnan(pr).any(1)
            pr, gold_k = pr[keep], np.asarray(gold, float)[keep]
            w = w[:, keep]
            jw = plan.jackknife()[:, keep]
        else:
            gold_k = np.asarray(gold, float)
            jw = plan.jackknife()
        boot = cohen_kappa_weighted(pr, gold_k, w)
        full = cohen_kappa_weighted(pr, gold_k, np.ones((1, pr.shape[0])))[0]
        jack = cohen_kappa_weighted(pr, gold_k, jw) if method == "bca" else None
    else:
        raise ValueError(f"unknown statistic {statistic!r}")
    d_boot = boot[:, 0] - boot[:, 1]
    d = full[0] - full[1]
    d_jack = None if jack is None else jack[:, 0] - jack[:, 1]
    lo, hi = bootstrap_interval(d, d_boot, level=level, method=method, jack=d_jack)
    valid = d_boot[~np.isnan(d_boot)]
    p = min(1.0, 2 * min(np.mean(valid <= 0), np.mean(valid >= 0))) if valid.size else np.nan
    return Estimate(
        name=f"{statistic}_difference",
        estimate=float(d),
        se=float(bootstrap_se(d_boot)),
        ci_low=float(lo),
        ci_high=float(hi),
        ci_method=f"{'cluster ' if clusters is not None else ''}paired bootstrap {method}",
        level=level,
        n=int(n),
        extra={
            "estimate_a": float(full[0]),
            "estimate_b": float(full[1]),
            "p_bootstrap": float(p),
            "B": n_resamples,
            "seed": seed,
            "policy": policy,
        },
    )


# ----------------------------------------------------------------------------------------------
# score-valued judges
# ----------------------------------------------------------------------------------------------
def sign_flip_pvalues(
    diffs: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    n_resamples: int = 9999,
    seed: int = 0,
    exact_max: int = 16,
) -> dict[str, np.ndarray]:
    """Two-sided sign-flip (paired permutation) test of ``E[d] = 0`` for each column of ``diffs``.

    Under H0 (exchangeability of the two judges within an item, or within a cluster) the
    cluster sums ``s_c = sum_{i in c} d_i`` are symmetric about 0, so ``T = sum_c s_c`` is
    compared with ``T* = sum_c e_c s_c`` for random signs ``e_c`` (Fisher 1935; Good 2005,
    ch. 3). With ``<= exact_max`` units all ``2^C`` sign vectors are enumerated (exact p);
    otherwise ``p = (1 + #{|T*| >= |T|}) / (B + 1)`` from ``n_resamples`` random sign vectors
    shared by all columns. NaN differences are dropped per column (treated as 0 in the sum).
    """
    d = np.asarray(diffs, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    d = np.where(np.isnan(d), 0.0, d)
    if clusters is not None:
        _, cc = np.unique(np.asarray(clusters), return_inverse=True)
        s = np.zeros((int(cc.max()) + 1, d.shape[1]))
        np.add.at(s, cc.ravel(), d)
    else:
        s = d
    c = s.shape[0]
    t_obs = s.sum(0)
    tol = 1e-9 * np.maximum(np.abs(s).sum(0), 1.0)
    if c <= exact_max:
        signs = 1.0 - 2.0 * ((np.arange(2**c)[:, None] >> np.arange(c)) & 1)
        t = signs @ s
        p = np.mean(np.abs(t) >= np.abs(t_obs) - tol, axis=0)
        kind = "exact"
    else:
        rng = np.random.default_rng(seed)
        t_ge = np.zeros(d.shape[1])
        chunk = max(1, min(n_resamples, 2_000_000 // max(c, 1)))
        done = 0
        while done < n_resamples:
            k = min(chunk, n_resamples - done)
            signs = rng.choice(np.array([-1.0, 1.0]), size=(k, c))
            t_ge += np.sum(np.abs(signs @ s) >= np.abs(t_obs) - tol, axis=0)
            done += k
        p = (1.0 + t_ge) / (n_resamples + 1.0)
        kind = "monte-carlo"
    return {"statistic": t_obs, "pvalue": p, "n_units": np.asarray(c), "kind": np.asarray(kind)}


def sign_flip_test(
    x: np.ndarray,
    y: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    n_resamples: int = 9999,
    seed: int = 0,
    exact_max: int = 16,
) -> TestResult:
    """Sign-flip permutation test for two score-valued judges on the same items.

    The statistic reported is the mean paired difference ``mean(x - y)`` over items where both
    are present; see :func:`sign_flip_pvalues` for the test.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    d = x - y
    ok = ~np.isnan(d)
    r = sign_flip_pvalues(
        d[ok],
        clusters=None if clusters is None else np.asarray(clusters)[ok],
        n_resamples=n_resamples,
        seed=seed,
        exact_max=exact_max,
    )
    return TestResult(
        name="sign_flip",
        statistic=float(np.mean(d[ok])) if ok.any() else np.nan,
        pvalue=float(r["pvalue"][0]),
        method=f"sign-flip permutation ({r['kind']}{', clustered' if clusters is not None else ''})",
        n=int(ok.sum()),
        counts={"n_units": int(r["n_units"]), "n_excluded": int((~ok).sum())},
        extra={
            "B": n_resamples if str(r["kind"]) == "monte-carlo" else 2 ** int(r["n_units"]),
            "seed": seed,
        },
    )


def wilcoxon(
    x: np.ndarray, y: np.ndarray, *, zero_method: Literal["wilcox", "pratt", "zsplit"] = "wilcox"
) -> TestResult:
    """Wilcoxon (1945) signed-rank test of paired scores (``scipy.stats.wilcoxon``).

    Appropriate for ordinal/interval scores (e.g. Likert ratings of two judges), not for 0/1
    outcomes (use McNemar). Effect size: matched-pairs rank-biserial correlation
    ``r = (W+ - W-) / (W+ + W-)`` (Kerby 2014).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    d = x - y
    ok = ~np.isnan(d)
    d = d[ok]
    res = stats.wilcoxon(d, zero_method=zero_method)
    nz = d[d != 0]
    r = stats.rankdata(np.abs(nz))
    wp, wm = r[nz > 0].sum(), r[nz < 0].sum()
    rbc = (wp - wm) / (wp + wm) if (wp + wm) > 0 else 0.0
    return TestResult(
        name="wilcoxon",
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        method=f"Wilcoxon signed-rank ({zero_method})",
        n=int(ok.sum()),
        counts={"n_zero": int(np.sum(d == 0)), "n_excluded": int((~ok).sum())},
        extra={"rank_biserial": float(rbc)},
    )


# ----------------------------------------------------------------------------------------------
# many judges
# ----------------------------------------------------------------------------------------------
def cochran_q(outcome: np.ndarray, policy: Literal["wrong", "exclude"] = "wrong") -> TestResult:
    """Cochran's (1950) Q test that ``k`` judges have equal accuracy on the same items.

    ``Q = (k-1) (k sum_j C_j^2 - N^2) / (k N - sum_i R_i^2) ~ chi^2_{k-1}`` with column
    (judge) totals ``C_j``, row (item) totals ``R_i`` and grand total ``N``. Under
    ``exclude`` items with any invalid verdict are dropped (listwise, counted in ``counts``).
    """
    y0 = _as_2d(outcome)
    bad = np.isnan(y0).any(1)
    if policy == "exclude":
        y = y0[~bad]
    elif policy == "wrong":
        y = np.where(np.isnan(y0), 0.0, y0)
    else:
        raise ValueError("Cochran's Q needs binary outcomes: policy 'wrong' or 'exclude'")
    y = (y > 0.5).astype(float)
    k = y.shape[1]
    col, row = y.sum(0), y.sum(1)
    tot = y.sum()
    den = k * tot - np.sum(row**2)
    q = (k - 1) * (k * np.sum(col**2) - tot**2) / den if den > 0 else 0.0
    p = float(stats.chi2.sf(q, k - 1)) if den > 0 else 1.0
    return TestResult(
        name="cochran_q",
        statistic=float(q),
        pvalue=p,
        method="Cochran's Q",
        df=float(k - 1),
        n=int(y.shape[0]),
        counts={
            "k": k,
            "n_excluded": int(bad.sum()) if policy == "exclude" else 0,
            "n_informative": int(np.sum((row > 0) & (row < k))),
        },
    )


def friedman_nemenyi(
    scores: np.ndarray,
    judges: Sequence[str] | None = None,
    *,
    higher_is_better: bool = True,
    alpha: float = 0.05,
) -> tuple[TestResult, pd.DataFrame]:
    """Friedman (1937) test over blocks (e.g. organ systems) and Nemenyi (1963) post-hoc.

    ``scores``: ``(n_blocks, k)`` — e.g. each judge's accuracy per subgroup. Within every block
    judges are ranked (1 = best, mid-ranks for ties); with mean ranks ``R_j``::

        chi2_F = 12 N / (k (k+1)) [sum_j R_j^2 - k (k+1)^2 / 4]   / (tie correction)
        F_ID   = (N-1) chi2_F / (N (k-1) - chi2_F)                  (Iman & Davenport 1980)

    Nemenyi: two judges differ when ``|R_i - R_j| > CD = q_alpha sqrt(k (k+1) / (6 N))`` with
    ``q_alpha`` the studentised-range quantile / sqrt(2) (Demšar 2006, JMLR 7:1-30); the
    pairwise p-value is ``P(Q_{k,inf} > sqrt(2) |R_i - R_j| / sqrt(k(k+1)/(6N)))``.

    Returns the Friedman :class:`TestResult` (``extra``: mean ranks, CD, Iman–Davenport F and p)
    and a tidy table of all pairs with mean-rank difference, Nemenyi p and ``significant``.
    """
    x = np.asarray(scores, dtype=float)
    x = x[~np.isnan(x).any(1)]
    n, k = x.shape
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(k)]
    r = stats.rankdata(-x if higher_is_better else x, axis=1)
    rbar = r.mean(0)
    ties = 0.0
    for row in x:
        _, t = np.unique(row, return_counts=True)
        ties += np.sum(t**3 - t)
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(rbar**2) - k * (k + 1) ** 2 / 4)
    corr = 1 - ties / (n * k * (k * k - 1))
    chi2 = chi2 / corr if corr > 0 else 0.0
    p = float(stats.chi2.sf(chi2, k - 1))
    f_id = (n - 1) * chi2 / (n * (k - 1) - chi2) if n * (k - 1) - chi2 > 0 else np.inf
    p_id = float(stats.f.sf(f_id, k - 1, (k - 1) * (n - 1))) if np.isfinite(f_id) else 0.0
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    q_alpha = float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))
    cd = q_alpha * se
    pairs = list(itertools.combinations(range(k), 2))
    diff = np.array([rbar[i] - rbar[j] for i, j in pairs])
    pn = (
        stats.studentized_range.sf(np.sqrt(2) * np.abs(diff) / se, k, np.inf)
        if pairs
        else np.array([])
    )
    table = pd.DataFrame(
        {
            "judge_a": [judges[i] for i, _ in pairs],
            "judge_b": [judges[j] for _, j in pairs],
            "mean_rank_a": [rbar[i] for i, _ in pairs],
            "mean_rank_b": [rbar[j] for _, j in pairs],
            "rank_difference": diff,
            "critical_difference": cd,
            "pvalue_nemenyi": np.minimum(pn, 1.0),
            "significant": np.abs(diff) > cd,
        }
    )
    res = TestResult(
        name="friedman",
        statistic=float(chi2),
        pvalue=p,
        method="Friedman chi-square (tie-corrected)",
        df=float(k - 1),
        n=int(n),
        counts={"k": k, "n_blocks": int(n)},
        extra={
            "mean_ranks": dict(zip(judges, rbar.tolist(), strict=True)),
            "critical_difference": cd,
            "q_alpha": q_alpha,
            "iman_davenport_F": float(f_id),
            "iman_davenport_p": p_id,
        },
    )
    return res, table


# ----------------------------------------------------------------------------------------------
# multiplicity
# ----------------------------------------------------------------------------------------------
def _holm(p: np.ndarray) -> np.ndarray:
    """Holm (1979) step-down: ``p_(i) -> max_{k<=i} min(1, (m - k + 1) p_(k))``."""
    m = p.size
    o = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[o]))
    out = np.empty(m)
    out[o] = adj
    return out


def _bh(p: np.ndarray) -> np.ndarray:
    """Benjamini & Hochberg (1995) step-up: ``p_(i) -> min_{k>=i} min(1, m p_(k) / k)``."""
    m = p.size
    o = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.minimum.accumulate((m * p[o] / np.arange(1, m + 1))[::-1])[::-1])
    out = np.empty(m)
    out[o] = adj
    return out


def adjust_pvalues(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values: ``holm`` (Holm 1979), ``fdr_bh`` (Benjamini & Hochberg 1995), or any
    other statsmodels ``multipletests`` method (``bonferroni``, ``hs``, ``fdr_by`` …).

    Holm and BH are computed in closed form here (identical to ``multipletests``, checked in
    the tests; statsmodels' call costs ~0.1 s, too slow for thousands of families). NaN
    p-values stay NaN and do not count towards the family size. Note statsmodels' own
    default is Holm–Šidák (``hs``); the default here is plain Holm.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> mj.adjust_pvalues(np.array([0.01, 0.04, 0.03])).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        if method == "holm":
            out[ok] = _holm(p[ok])
        elif method == "fdr_bh":
            out[ok] = _bh(p[ok])
        else:
            from statsmodels.stats.multitest import multipletests

            out[ok] = multipletests(p[ok], method=method)[1]
    return out


def add_multiplicity(
    table: pd.DataFrame,
    *,
    p_col: str = "pvalue",
    family: Sequence[str] | None = ("dimension",),
    within: str = "holm",
    across: str = "fdr_bh",
) -> pd.DataFrame:
    """Add ``p_<within>`` (adjusted within each family, e.g. per dimension: the 496 pairs) and
    ``p_<across>`` (adjusted over the whole table, e.g. the exploratory pairs x dimensions x
    subgroups grid) columns. Families are the groups of rows sharing the ``family`` columns
    (those present in the table)."""
    t = table.copy()
    fam = [c for c in (family or ()) if c in t.columns]
    col_w = f"p_{within}"
    if fam:
        t[col_w] = np.nan
        for _, sub in t.groupby(fam, sort=False):
            t.loc[sub.index, col_w] = adjust_pvalues(sub[p_col].to_numpy(), within)
    else:
        t[col_w] = adjust_pvalues(t[p_col].to_numpy(), within)
    t[f"p_{across}"] = adjust_pvalues(t[p_col].to_numpy(), across)
    return t


# ----------------------------------------------------------------------------------------------
# the all-pairs table
# ----------------------------------------------------------------------------------------------
def _as_3d(
    outcome: np.ndarray | dict, dimensions: Sequence[str] | None
) -> tuple[np.ndarray, list[str]]:
    if isinstance(outcome, dict):
        dims = list(outcome)
        arr = np.stack([_as_2d(outcome[d]) for d in dims])
        return arr, dims
    y = np.asarray(outcome, dtype=float)
    if y.ndim == 2:
        y = y[None]
    if y.ndim != 3:
        raise ValueError(
            f"outcome must be (n_items, n_judges) or (n_dimensions, n_items, n_judges), got {y.shape}"
        )
    dims = (
        list(dimensions)
        if dimensions is not None
        else ([""] if y.shape[0] == 1 else [f"dim_{i}" for i in range(y.shape[0])])
    )
    if len(dims) != y.shape[0]:
        raise ValueError(f"{len(dims)} dimension names for {y.shape[0]} outcome slices")
    return y, dims


def _jackknife_pair_common(
    y: np.ndarray, mab: np.ndarray, ii: np.ndarray, jj: np.ndarray, clusters: np.ndarray | None
) -> np.ndarray:
    """Leave-one-out (item or cluster) differences on each pair's common items, for BCa."""
    dvals = mab * (y[:, ii] - y[:, jj])
    if clusters is None:
        g = np.arange(y.shape[0])
    else:
        g = pd.factorize(np.asarray(clusters))[0]
    ng = int(g.max()) + 1
    s_d = np.zeros((ng, ii.size))
    s_m = np.zeros((ng, ii.size))
    np.add.at(s_d, g, np.nan_to_num(dvals))
    np.add.at(s_m, g, mab)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (s_d.sum(0) - s_d) / (s_m.sum(0) - s_m)


def all_pairs(
    outcome: np.ndarray | dict,
    judges: Sequence[str] | None = None,
    *,
    dimensions: Sequence[str] | None = None,
    policy: Policy = "wrong",
    test: McNemarMethod = "midp",
    ci: PairCI = "auto",
    clusters: np.ndarray | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    weights: np.ndarray | None = None,
    family: Sequence[str] = ("dimension",),
    within: str = "holm",
    across: str = "fdr_bh",
    boot_dtype: type = np.float32,
) -> pd.DataFrame:
    """Every pair of judges, per dimension, in one tidy table.

    ``outcome``: ``(n_items, n_judges)``, ``(n_dims, n_items, n_judges)`` or a dict
    ``{dimension: (n_items, n_judges)}``. Per pair ``(a, b)`` (``a`` before ``b`` in ``judges``):

    - ``accuracy_a``, ``accuracy_b``, ``difference = accuracy_a - accuracy_b`` (each judge's
      own accuracy under ``policy``), ``ci_low``, ``ci_high`` (``ci``: ``"auto"`` = Tango's
      score interval from the paired 2x2 table for binary outcomes on independent items, the
      (cluster) paired bootstrap percentile interval on shared resamples otherwise — the
      choices that covered in docs/inference.md; or name one: ``bootstrap-percentile``,
      ``bootstrap-bca``, ``tango``, ``newcombe``, ``wald``). Under ``exclude`` every number of
      a pair — the two accuracies, their difference, its interval and the test — uses one item
      set, the items both judges answered (``n_common``);
    - ``b`` (a right, b wrong), ``c`` (a wrong, b right), ``discordant``, ``n_common``,
      ``odds_ratio = b/c`` (conditional odds ratio);
    - McNemar ``statistic``/``pvalue`` (``test``; with ``clusters`` the clustered McNemar of
      Durkalski et al. 2003), then ``p_holm`` within each ``family`` (default: per
      dimension) and ``p_fdr_bh`` across the whole table.

    All judges and dimensions share one weight matrix (``weights``, or drawn from
    ``n_resamples``/``seed``/``clusters``), so the cost is a few matrix products. Bootstrap
    replicates of the differences are held as ``boot_dtype`` (float32 by default: the
    replicates are differences of accuracies, and float32's 1e-7 relative precision is far
    below the Monte Carlo error; it halves memory and sort time).

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> rng = np.random.default_rng(1)
    >>> y = (rng.random((300, 3)) < [0.9, 0.8, 0.6]).astype(float)
    >>> t = mj.all_pairs(y, ['a', 'b', 'c'])
    >>> t[['judge_a', 'judge_b', 'difference']].round(3).values.tolist()
    [['a', 'b', 0.103], ['a', 'c', 0.313], ['b', 'c', 0.21]]
    """
    y3, dims = _as_3d(outcome, dimensions)
    n_dim, n, j = y3.shape
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(j)]
    if len(judges) != j:
        raise ValueError(f"{len(judges)} judge names for {j} outcome columns")
    ii, jj = np.triu_indices(j, 1)
    if ci == "auto":
        # the defaults that covered in docs/inference.md: Tango's score interval for binary
        # outcomes on independent items (the paired bootstrap percentile interval under-covers
        # at small n and high accuracy); the cluster bootstrap when items are clustered or
        # outcomes are not binary (policy "half")
        ci = "tango" if clusters is None and policy != "half" else "bootstrap-percentile"
    boot_kind = ci.split("-")[1] if ci.startswith("bootstrap") else None
    w = None
    if boot_kind is not None:
        w = (
            weights
            if weights is not None
            else ResamplePlan(n, n_resamples, seed, clusters=clusters).weights()
        )
        w = np.asarray(w)
        # one product for all dimensions and judges
        ys = [apply_policy(y3[d], policy) for d in range(n_dim)]
        if all(np.all(m == 1.0) for _, m in ys):
            stacked = np.concatenate([y for y, _ in ys], axis=1)
            boot_all = (w @ stacked) / w.sum(1, keepdims=True)
        else:
            boot_all = np.concatenate(
                [bootstrap_accuracy(y3[d], policy=policy, weights=w) for d in range(n_dim)], axis=1
            )
        boot_all = boot_all.astype(boot_dtype, copy=False)
    frames = []
    for d in range(n_dim):
        y, m = apply_policy(y3[d], policy)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = (m * y).sum(0) / m.sum(0)
        cnt = pairwise_counts(y3[d], policy)
        bm, cm = cnt["better"][ii, jj], cnt["better"][jj, ii]
        acc_a, acc_b = acc[ii], acc[jj]
        common = policy == "exclude" and not np.all(m == 1.0)
        if common:
            # one item set per pair: the items both judges answered (estimate, interval and test)
            mab = m[:, ii] * m[:, jj]
            nab = mab.sum(0)
            with np.errstate(invalid="ignore", divide="ignore"):
                acc_a = (mab * y[:, ii]).sum(0) / nab
                acc_b = (mab * y[:, jj]).sum(0) / nab
        if clusters is not None:
            stat_m, p_m = _clustered_mcnemar_matrix(y, m, clusters)
            stat, p = stat_m[ii, jj], p_m[ii, jj]
            test_name = "McNemar clustered (Durkalski 2003)"
        else:
            stat, p = mcnemar_pvalue(bm, cm, test)
            test_name = f"McNemar {test}"
        diff = acc_a - acc_b
        if boot_kind is not None and common:
            # paired bootstrap on each pair's common items (same resamples for every pair)
            with np.errstate(invalid="ignore", divide="ignore"):
                bd = (w @ (mab * (y[:, ii] - y[:, jj]))) / (w @ mab)
            bd = bd.astype(boot_dtype, copy=False)
            jack = None
            if boot_kind == "bca":
                ja = _jackknife_pair_common(y, mab, ii, jj, clusters)
                jack = ja
            lo, hi = bootstrap_interval(diff, bd, level=level, method=boot_kind, jack=jack)
            se = bootstrap_se(bd)
            ci_name = f"{'cluster ' if clusters is not None else ''}paired bootstrap {boot_kind} (B={w.shape[0]}; items both answered)"
        elif boot_kind is not None:
            boot = boot_all[:, d * j : (d + 1) * j]
            # all pairwise differences as one product with a +1/-1 contrast matrix (exact:
            # each output is 1*a - 1*b plus zeros), much faster than fancy indexing
            if np.isnan(boot).any():  # NaN * 0 would poison every difference
                bd = boot[:, ii] - boot[:, jj]
            else:
                contrast = np.zeros((j, ii.size), dtype=boot.dtype)
                contrast[ii, np.arange(ii.size)] = 1.0
                contrast[jj, np.arange(ii.size)] = -1.0
                bd = boot @ contrast
            jack = None
            if boot_kind == "bca":
                ja = _jackknife_accuracy(y, m, clusters)
                jack = ja[:, ii] - ja[:, jj]
            lo, hi = bootstrap_interval(diff, bd, level=level, method=boot_kind, jack=jack)
            # SE of every difference from the judges' bootstrap covariance (no pass over bd)
            if np.isnan(boot).any():
                se = bootstrap_se(bd)
            else:
                cov = np.cov(boot, rowvar=False, dtype=np.float64)
                se = np.sqrt(np.maximum(np.diag(cov)[ii] + np.diag(cov)[jj] - 2 * cov[ii, jj], 0.0))
            ci_name = f"{'cluster ' if clusters is not None else ''}paired bootstrap {boot_kind} (B={w.shape[0]})"
        else:
            n11, n22 = cnt["both_right"][ii, jj], cnt["both_wrong"][ii, jj]
            lo, hi = paired_difference_interval(n11, bm, cm, n22, level, ci)
            nn = n11 + bm + cm + n22
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.sqrt(np.maximum((bm + cm) - (bm - cm) ** 2 / nn, 0.0)) / nn
            ci_name = ci
        with np.errstate(invalid="ignore", divide="ignore"):
            oratio = bm / cm
        frames.append(
            pd.DataFrame(
                {
                    "dimension": dims[d],
                    "judge_a": np.asarray(judges, dtype=object)[ii],
                    "judge_b": np.asarray(judges, dtype=object)[jj],
                    "accuracy_a": acc_a,
                    "accuracy_b": acc_b,
                    "difference": diff,
                    "se": se,
                    "ci_low": lo,
                    "ci_high": hi,
                    "ci_method": ci_name,
                    "level": level,
                    "b": bm.astype(int),
                    "c": cm.astype(int),
                    "discordant": (bm + cm).astype(int),
                    "n_common": cnt["n_common"][ii, jj].astype(int),
                    "odds_ratio": oratio,
                    "test": test_name,
                    "statistic": stat,
                    "pvalue": p,
                    "policy": policy,
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)
    return add_multiplicity(table, p_col="pvalue", family=family, within=within, across=across)
