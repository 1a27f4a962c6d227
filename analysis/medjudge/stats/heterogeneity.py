"""Is a judge's accuracy different across subgroups (organs, dimensions)?

Three complementary tools, all per judge:

1. **Chi-square test of homogeneity** of the ``2 x G`` table (correct / wrong by subgroup),
   Pearson's statistic with ``G - 1`` df (``scipy.stats.chi2_contingency``, no continuity
   correction). Assumes independent items — within one dimension each item appears once.
2. **Cochran's Q over subgroup estimates** with **I²** (Higgins & Thompson 2002, Stat Med
   21:1539-1558): with ``p_g`` the subgroup accuracies and inverse-variance weights
   ``w_g = n_g / (p~_g (1 - p~_g))`` (``p~_g = (k_g + 1/2)/(n_g + 1)`` keeps the weight finite
   at 0% or 100%), ``Q = sum_g w_g (p_g - p_w)^2``, ``p_w = sum w_g p_g / sum w_g``,
   ``Q ~ chi2_{G-1}``; ``I² = max(0, (Q - df)/Q)`` — the share of between-subgroup variation
   not explained by sampling error. Interval for I² from the test-based interval for
   ``H = sqrt(Q/df)`` (Higgins & Thompson 2002, eqs. 8-9).
3. **Logistic model of correctness** ``logit P(correct) = judge/organ/dimension terms``,
   fitted by GEE (Liang & Zeger 1986; exchangeable working correlation, groups = item) or by a
   GLM with cluster-robust (sandwich) SEs by item — an item's six dimension verdicts share one
   case. :func:`organ_effect_tests` fits one model per judge,
   ``correct ~ C(organ) + C(dimension)``, and tests all organ terms jointly (robust Wald
   chi-square, ``G - 1`` df), pooling the evidence of the six dimensions.
   :func:`correctness_model` fits the full model with interactions as a tidy table.

Multiplicity: :func:`cell_grid` tests each (dimension x organ) cell of a judge against the
rest of that dimension (Fisher's exact test); Holm within a judge's 6 x 13 = 78 cells and
Benjamini–Hochberg across all cells of all judges (``statsmodels`` ``multipletests``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from medjudge.stats.intervals import z_value
from medjudge.stats.results import TestResult

__all__ = [
    "homogeneity_chi2",
    "cochran_q_subgroups",
    "i2_interval",
]

ModelMethod = Literal["gee", "glm-cluster"]


def homogeneity_chi2(k: np.ndarray, n: np.ndarray) -> TestResult:
    """Pearson chi-square test that ``G`` binomial proportions ``k_g/n_g`` are equal.

    Empty subgroups (``n_g = 0``) are dropped and counted. Statistic
    ``sum_cells (O - E)^2 / E`` over the ``2 x G`` table, ``G - 1`` df.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    keep = n > 0
    t = np.vstack([k[keep], n[keep] - k[keep]])
    g = int(keep.sum())
    if g < 2 or (t.sum(1) == 0).any():
        return TestResult(
            "homogeneity_chi2",
            0.0,
            1.0,
            "Pearson chi-square (degenerate table)",
            df=max(g - 1, 0),
            n=int(n.sum()),
            counts={"groups": g, "empty_groups": int((~keep).sum())},
        )
    res = stats.chi2_contingency(t, correction=False)
    return TestResult(
        "homogeneity_chi2",
        float(res.statistic),
        float(res.pvalue),
        "Pearson chi-square 2 x G",
        df=float(res.dof),
        n=int(n.sum()),
        counts={
            "groups": g,
            "empty_groups": int((~keep).sum()),
            "min_expected": float(res.expected_freq.min()),
        },
    )


def i2_interval(q: float, df: float, confidence_level: float = 0.95) -> tuple[float, float]:
    """Test-based interval for I² via ``H = sqrt(Q/df)`` (Higgins & Thompson 2002, eqs. 8-9).

    ``SE(ln H) = (ln Q - ln df) / (2 (sqrt(2Q) - sqrt(2 df - 1)))`` if ``Q > df + 1`` else
    ``sqrt(1/(2(df - 1)) (1 - 1/(3 (df - 1)^2)))``; ``H`` limits ``exp(ln H -+ z SE)`` are
    mapped to ``I² = (H² - 1)/H²`` and truncated at 0.
    """
    if df < 2 or not np.isfinite(q) or q <= 0:
        return (np.nan, np.nan)
    z = z_value(confidence_level)
    h = np.sqrt(q / df)
    if q > df + 1:
        se = (np.log(q) - np.log(df)) / (2 * (np.sqrt(2 * q) - np.sqrt(2 * df - 1)))
    else:
        se = np.sqrt(1 / (2 * (df - 1)) * (1 - 1 / (3 * (df - 1) ** 2)))
    lo, hi = np.exp(np.log(h) - z * se), np.exp(np.log(h) + z * se)
    f = lambda x: max(0.0, (x * x - 1) / (x * x))  # noqa: E731
    return f(lo), f(hi)


def cochran_q_subgroups(k: np.ndarray, n: np.ndarray, confidence_level: float = 0.95) -> TestResult:
    """Cochran's Q over subgroup accuracies with I² and its interval (see module docstring)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    keep = n > 0
    k, n = k[keep], n[keep]
    p = k / n
    pt = (k + 0.5) / (n + 1.0)
    w = n / (pt * (1 - pt))
    pw = (w * p).sum() / w.sum()
    q = float((w * (p - pw) ** 2).sum())
    df = float(k.size - 1)
    i2 = max(0.0, (q - df) / q) if q > 0 else 0.0
    lo, hi = i2_interval(q, df, confidence_level)
    return TestResult(
        "cochran_q",
        q,
        float(stats.chi2.sf(q, df)) if df > 0 else 1.0,
        "Cochran Q, inverse-variance weights (Higgins & Thompson 2002)",
        df=df,
        n=int(n.sum()),
        counts={"groups": int(k.size)},
        extra={"I2": i2, "I2_ci_low": lo, "I2_ci_high": hi, "pooled": float(pw)},
    )


def _pearson_stat(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Pearson's X² of a 2 x L table from group successes ``k`` and sizes ``n`` (last axis L)."""
    tot_k = k.sum(-1, keepdims=True)
    tot_n = n.sum(-1, keepdims=True)
    p = tot_k / tot_n
    with np.errstate(invalid="ignore", divide="ignore"):
        e = n * p
        v = n * p * (1 - p)
        terms = np.where(n > 0, (k - e) ** 2 / v, 0.0)
    return terms.sum(-1)


def _within_cluster_permutation_p(
    group: np.ndarray,
    cluster: np.ndarray,
    y: np.ndarray,
    m: np.ndarray,
    n_groups: int,
    n_permutations: int = 999,
    seed: int = 0,
) -> np.ndarray:
    """Permutation p-value per judge of Pearson's X², the groups permuted *within* clusters.

    For an attribute that varies within clusters (a question type inside an image): under the
    null that, within an image, the attribute is unrelated to correctness, the attribute's
    labels are exchangeable among the items of each image. Each permutation shuffles the labels
    inside every cluster (so the cluster effects and each cluster's group mix are kept),
    recomputes Pearson's X² of the 2 x G table, and p = (1 + #{X²* >= X²}) / (1 + B) — a
    randomization test, exact at any accuracy, also when a group has 0 or 1 errors (where
    the CR1 Wald statistic of the wild cluster bootstrap it replaces explodes: 98% rejections
    of a true null with 0 errors in a group at accuracy 0.9; docs/calibration.md). The null is
    conditional on the image: a group that differs only because it sits in harder images is
    not flagged. One set of permutations serves every judge (``default_rng([seed, 28, n])``).
    1 for a judge with every outcome equal (no evidence: X² is undefined) and when no cluster
    mixes groups (every permutation repeats the data).
    """
    n = group.size
    ccodes = pd.factorize(cluster)[0]
    order = np.argsort(ccodes, kind="stable")
    rng = np.random.default_rng([seed, 28, n])
    keys = ccodes[None, :] + rng.random((n_permutations, n))
    perm = np.argsort(keys, axis=1, kind="stable")  # every row: the items cluster by cluster
    g_perm = np.empty((n_permutations, n), dtype=np.intp)
    g_perm[np.arange(n_permutations)[:, None], perm] = group[order][None, :]
    flat = (np.arange(n_permutations)[:, None] * n_groups + g_perm).ravel()
    size = n_permutations * n_groups
    out = np.full(y.shape[1], np.nan)
    for j in range(y.shape[1]):
        ky, km = m[:, j] * y[:, j], m[:, j]
        obs = _pearson_stat(
            np.bincount(group, ky, n_groups)[None], np.bincount(group, km, n_groups)[None]
        )[0]
        if not np.isfinite(obs):
            out[j] = 1.0
            continue
        k_p = np.bincount(flat, np.tile(ky, n_permutations), size).reshape(-1, n_groups)
        n_p = np.bincount(flat, np.tile(km, n_permutations), size).reshape(-1, n_groups)
        stat = _pearson_stat(k_p, n_p)
        out[j] = (1.0 + float((stat >= obs - 1e-9).sum())) / (1.0 + n_permutations)
    return out


def _cluster_permutation_p(
    group: np.ndarray,
    cluster: np.ndarray,
    ky: np.ndarray,
    km: np.ndarray,
    n_groups: int,
    n_permutations: int,
    seed: int,
) -> np.ndarray:
    """Permutation p-value per judge of Pearson's X², groups permuted over whole clusters."""
    n_cl = int(cluster.max()) + 1
    cy = np.zeros((n_cl, ky.shape[1]))
    cm = np.zeros((n_cl, km.shape[1]))
    np.add.at(cy, cluster, ky)
    np.add.at(cm, cluster, km)
    g_of = np.zeros(n_cl, dtype=np.intp)
    g_of[cluster] = group
    rng = np.random.default_rng([seed, 20041, n_cl])
    perms = np.stack([rng.permutation(g_of) for _ in range(n_permutations)])  # (B, G)
    onehot = np.zeros((n_permutations, n_cl, n_groups))
    onehot[np.arange(n_permutations)[:, None], np.arange(n_cl)[None, :], perms] = 1.0
    k_perm = np.einsum("bgl,gj->bjl", onehot, cy)
    n_perm = np.einsum("bgl,gj->bjl", onehot, cm)
    obs_onehot = np.zeros((n_cl, n_groups))
    obs_onehot[np.arange(n_cl), g_of] = 1.0
    obs = _pearson_stat((obs_onehot.T @ cy).T, (obs_onehot.T @ cm).T)  # (J,)
    stat = _pearson_stat(k_perm, n_perm)  # (B, J)
    ok = np.isfinite(obs)
    p = (1.0 + (stat >= obs[None, :] - 1e-12).sum(0)) / (1.0 + n_permutations)
    return np.where(ok, p, np.nan)
