"""Leaderboard: accuracies, bootstrap rank intervals, and groups of indistinguishable judges.

A leaderboard is only as good as the separation between adjacent ranks (RewardBench and HELM
publish ranks that are statistically tied; see research/anchors.md). Each row therefore shows

- the accuracy and its interval (:func:`medjudge.stats.accuracy.judge_accuracy`);
- a bootstrap rank interval: the ``alpha/2`` and ``1-alpha/2`` quantiles of the judge's rank
  over resamples that all judges share (Hall & Miller 2009, "Using the bootstrap to quantify
  the authority of an empirical ranking", Ann. Statist. 37:3929-3959 — who also show such
  intervals are conservative for judges whose true accuracies tie), and ``p_best``, the
  share of resamples in which the judge ranks first;
- ``group``: a compact letter display (Piepho 2004, J. Comput. Graph. Stat. 13:456-466) from
  the all-pairs McNemar tests with Holm adjustment: judges sharing a letter are not
  distinguishable at level ``alpha``; ``top_set`` marks judges not distinguishable from the
  leader.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np
import pandas as pd

from medjudge.stats.accuracy import AccuracyMethod, Policy, bootstrap_accuracy, judge_accuracy
from medjudge.stats.comparisons import McNemarMethod, all_pairs
from medjudge.stats.resampling import ResamplePlan

__all__ = ["bootstrap_ranks", "rank_intervals", "letter_groups", "leaderboard"]


def bootstrap_ranks(boot: np.ndarray) -> np.ndarray:
    """Competition ranks (1 = highest, ties share the best rank) of each row of ``boot`` (B, J)."""
    b = np.asarray(boot, dtype=float)
    b = np.where(np.isnan(b), -np.inf, b)
    # rank = 1 + number of judges strictly better in that resample
    srt = np.sort(b, axis=1)
    j = b.shape[1]
    out = np.empty(b.shape, dtype=np.int32)
    for r in range(b.shape[0]):
        out[r] = j - np.searchsorted(srt[r], b[r], side="right") + 1
    return out


def rank_intervals(ranks: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed bootstrap rank interval per judge (integers, ``lower``/``higher`` quantiles)."""
    a = (1 - level) / 2
    lo = np.quantile(ranks, a, axis=0, method="lower")
    hi = np.quantile(ranks, 1 - a, axis=0, method="higher")
    return lo.astype(int), hi.astype(int)


def letter_groups(order: Sequence[str], significant: dict[tuple[str, str], bool]) -> dict[str, str]:
    """Compact letter display for judges sorted best-first.

    A group is a maximal run ``order[i..e]`` in which no pair differs significantly; each
    group gets a letter and every judge lists the letters of the groups containing it. With a
    sorted order these runs are the "lines" of the classical underlining display.
    """
    order = list(order)
    k = len(order)

    def sig(a: str, b: str) -> bool:
        return bool(significant.get((a, b), significant.get((b, a), False)))

    runs: list[tuple[int, int]] = []
    prev_end = -1
    for i in range(k):
        e = i
        while e + 1 < k and not any(sig(order[t], order[e + 1]) for t in range(i, e + 1)):
            e += 1
        if e > prev_end:
            runs.append((i, e))
            prev_end = e
    letters = list(string.ascii_lowercase) + [
        f"{a}{b}" for a in string.ascii_lowercase for b in string.ascii_lowercase
    ]
    out = {name: "" for name in order}
    for (i, e), letter in zip(runs, letters, strict=False):
        for t in range(i, e + 1):
            out[order[t]] += letter
    return out


def leaderboard(
    outcome: np.ndarray,
    judges: Sequence[str] | None = None,
    *,
    policy: Policy = "wrong",
    clusters: np.ndarray | None = None,
    method: AccuracyMethod = "wilson",
    test: McNemarMethod = "midp",
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    alpha: float = 0.05,
    weights: np.ndarray | None = None,
) -> pd.DataFrame:
    """Leaderboard of judges for one dimension, best first.

    Columns: ``rank`` (competition rank of the point estimate), ``judge``, ``accuracy``,
    ``ci_low``, ``ci_high``, ``ci_method``, ``rank_low``, ``rank_high`` (bootstrap rank
    interval at ``level``), ``p_best``, ``group`` (letters; shared letter = not distinguishable
    by Holm-adjusted McNemar at ``alpha``), ``top_set``, ``n``, ``n_invalid``, ``policy``.
    """
    y = np.asarray(outcome, dtype=float)
    n, j = y.shape
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(j)]
    acc = judge_accuracy(
        y,
        judges,
        policy=policy,
        clusters=clusters,
        method=method,
        level=level,
        n_resamples=n_resamples,
        seed=seed,
    )
    w = (
        weights
        if weights is not None
        else ResamplePlan(n, n_resamples, seed, clusters=clusters).weights()
    )
    boot = bootstrap_accuracy(y, policy=policy, weights=w)
    ranks = bootstrap_ranks(boot)
    r_lo, r_hi = rank_intervals(ranks, level)
    p_best = (ranks == 1).mean(0)
    pairs = all_pairs(
        y,
        judges,
        policy=policy,
        test=test,
        ci="tango",
        clusters=clusters,
        within="holm",
        across="fdr_bh",
    )
    sig = {
        (a, b): p < alpha
        for a, b, p in zip(pairs["judge_a"], pairs["judge_b"], pairs["p_holm"], strict=True)
    }
    point = acc["accuracy"].to_numpy()
    order_idx = np.argsort(-np.where(np.isnan(point), -np.inf, point), kind="stable")
    order = [judges[i] for i in order_idx]
    letters = letter_groups(order, sig)
    best = order[0]
    comp_rank = 1 + (point[None, :] > point[:, None]).sum(1)
    df = pd.DataFrame(
        {
            "rank": comp_rank,
            "judge": judges,
            "accuracy": point,
            "ci_low": acc["ci_low"].to_numpy(),
            "ci_high": acc["ci_high"].to_numpy(),
            "ci_method": acc["ci_method"].to_numpy(),
            "rank_low": r_lo,
            "rank_high": r_hi,
            "p_best": p_best,
            "group": [letters[name] for name in judges],
            "top_set": [
                name == best or not sig.get((best, name), sig.get((name, best), False))
                for name in judges
            ],
            "n": acc["n"].to_numpy(),
            "n_invalid": acc["n_invalid"].to_numpy(),
            "policy": policy,
        }
    )
    return df.iloc[order_idx].reset_index(drop=True)
