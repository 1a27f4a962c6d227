"""Omnibus tests of many judges on the same items.

:func:`cochran_q` (Cochran 1950: equal accuracy of ``k`` judges on binary outcomes) and
:func:`friedman_nemenyi` (Friedman 1937 with the Iman–Davenport F, then Nemenyi's 1963
critical difference and pairwise p-values; Demšar 2006).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from medjudge._lazy import stats
from medjudge.stats.accuracy import _as_2d
from medjudge.stats.results import TestResult

__all__ = ["cochran_q", "friedman_nemenyi"]


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
