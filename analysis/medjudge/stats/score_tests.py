"""Paired tests for score-valued judges (Likert ratings, scores) on the same items.

:func:`sign_flip_test` and the vectorised :func:`sign_flip_pvalues` (paired permutation test,
exact for few units, clustered flips with ``clusters=``) and :func:`wilcoxon` (signed-rank, with
the rank-biserial correlation).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from medjudge._lazy import stats
from medjudge.stats.results import TestResult

__all__ = ["sign_flip_pvalues", "sign_flip_test", "wilcoxon"]


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
