"""Leaderboard: accuracies, bootstrap rank intervals, and groups of indistinguishable judges.

A leaderboard is only as good as the separation between adjacent ranks (RewardBench and HELM
publish ranks that are statistically tied; see research/anchors.md). Each row therefore shows

- the accuracy and its interval (:func:`medjudge.stats.accuracy.judge_accuracy`);
- a **simultaneous** rank confidence set: with probability at least ``level`` every judge's
  true rank lies in its ``[rank_low, rank_high]`` *jointly* (Mogstad, Romano, Shaikh & Wilhelm
  2024, max-t over all pairs on the shared bootstrap; :func:`medjudge.stats.rank_sets.
  rank_confidence_sets`). Marginal bootstrap quantile intervals (Hall & Miller 2009) covered
  jointly in only 53-82% of simulated studies and are no longer shown;
- ``share_ranked_first``: the share of bootstrap resamples in which the judge ranks first — a
  description of the resampling spread, **not** the probability that the judge is best;
- ``group``: a compact letter display by Piepho's (2004) insert-and-absorb algorithm from the
  same adjusted pairwise decisions the pairs table shows: two judges share a letter exactly
  when their difference is not significant; ``top_set`` marks the judges that share a letter
  with the leader.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from medjudge._validation import with_former
from medjudge.stats.accuracy import AccuracyMethod, Policy, bootstrap_accuracy, judge_accuracy
from medjudge.stats.mcnemar import McNemarMethod
from medjudge.stats.pairwise import all_pairs
from medjudge.stats.rank_sets import rank_confidence_sets
from medjudge.stats.resampling import Bootstrap

__all__ = [
    "bootstrap_ranks", "rank_intervals", "letter_columns", "letter_code", "letter_groups",
    "groups_from_pairs", "leaderboard",
]  # fmt: skip


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


def rank_intervals(
    ranks: np.ndarray, confidence_level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed bootstrap rank interval per judge (integers, ``lower``/``higher`` quantiles)."""
    a = (1 - confidence_level) / 2
    lo = np.quantile(ranks, a, axis=0, method="lower")
    hi = np.quantile(ranks, 1 - a, axis=0, method="higher")
    return lo.astype(int), hi.astype(int)


def letter_columns(
    order: Sequence[str], significant: dict[tuple[str, str], bool]
) -> dict[str, list[int]]:
    """The letter groups (Piepho 2004 insert-and-absorb) each judge belongs to, as numbers.

    Group ``k`` (0-based, in the order of its best member) is the ``k``-th letter of
    :func:`letter_groups`. Two judges share a group if and only if their difference is not
    significant. Counting from these numbers (never from the letter strings) stays right with
    any number of groups.

    Examples
    --------
    >>> letter_columns(["A", "B", "C", "D"], {("A", "C"): True, ("B", "D"): True})
    {'A': [0, 1], 'B': [0, 2], 'C': [2, 3], 'D': [1, 3]}
    """
    order = list(order)

    def sig(a: str, b: str) -> bool:
        return bool(significant.get((a, b), significant.get((b, a), False)))

    cols: list[frozenset[int]] = [frozenset(range(len(order)))]
    for i in range(len(order)):
        for k in range(i + 1, len(order)):
            if not sig(order[i], order[k]):
                continue
            new: list[frozenset[int]] = []
            for c in cols:
                if i in c and k in c:
                    new.extend([c - {i}, c - {k}])
                else:
                    new.append(c)
            # absorb: drop duplicates and columns contained in another column
            uniq = list(dict.fromkeys(new))
            cols = [c for c in uniq if not any(c < d for d in uniq)]
    cols = [c for c in cols if c]
    cols.sort(key=lambda c: (min(c), sorted(c)))
    out: dict[str, list[int]] = {name: [] for name in order}
    for g, c in enumerate(cols):
        for t in sorted(c):
            out[order[t]].append(g)
    return out


def letter_code(k: int) -> str:
    """Letter name of group ``k`` (0-based): ``a … z, aa, ab, …, zz, aaa, …`` (bijective base 26).

    >>> [letter_code(k) for k in (0, 25, 26, 27, 701, 702)]
    ['a', 'z', 'aa', 'ab', 'zz', 'aaa']
    """
    k += 1
    s = ""
    while k:
        k, r = divmod(k - 1, 26)
        s = string.ascii_lowercase[r] + s
    return s


def letter_groups(order: Sequence[str], significant: dict[tuple[str, str], bool]) -> dict[str, str]:
    """Compact letter display (Piepho 2004, insert-and-absorb) for judges sorted best-first.

    Two judges share a letter if and only if their difference is *not* significant — for any
    pattern of decisions, not only the "lines" of the underlining display (which, for a
    non-transitive pattern such as A=D, A≠C, B≠D, would give A and D no common letter).

    Algorithm (Piepho 2004, J. Comput. Graph. Stat. 13:456-466, Section 2): start with one
    column holding every judge; for each significant pair (i, j), every column containing both
    is replaced by two copies, one without i and one without j (insert); after each step,
    columns contained in another column are removed (absorb). Letters are assigned to the
    columns in the order of their best member (:func:`letter_columns`).

    With at most 26 groups a judge's letters are written together (``"abc"``); with more, the
    groups are numbered from 1 and separated by commas (``"26,27"``), so that no group name
    can be read as two (``"aa"`` could be one group or two).

    Examples
    --------
    >>> sig = {("A", "C"): True, ("B", "D"): True}
    >>> letter_groups(["A", "B", "C", "D"], sig)
    {'A': 'ab', 'B': 'ac', 'C': 'cd', 'D': 'bd'}
    """
    cols = letter_columns(order, significant)
    n_groups = 1 + max((g for gs in cols.values() for g in gs), default=-1)
    if n_groups <= 26:
        return {name: "".join(letter_code(g) for g in gs) for name, gs in cols.items()}
    return {name: ",".join(str(g + 1) for g in gs) for name, gs in cols.items()}


def groups_from_pairs(
    board: pd.DataFrame,
    pairs: pd.DataFrame,
    alpha: float = 0.05,
    p_col: str = "p_holm",
    family: str | None = None,
) -> pd.DataFrame:
    """Letters and ``top_set`` of a leaderboard (best first) from a pairs table's decisions.

    The pairs table's ``p_col`` (adjusted over the family the table states) decides; the
    leaderboard's letters and its simultaneous rank sets (``rank_low``/``rank_high``: one plus
    the number of judges shown to be better, the number of judges minus those shown to be
    worse) therefore never contradict the pairs that a reader sees. Joint coverage of the rank
    sets is at least ``1 - alpha`` whenever the decisions control the familywise error.
    ``rank_set`` says so: the sets are *derived from the pairwise decisions* at ``alpha`` over
    ``family`` (the words of the family, e.g. "Holm over all 36 pairwise tests"), not the
    bootstrap max-t sets of :func:`~medjudge.stats.rank_sets.rank_confidence_sets`; with a
    family spanning several dimensions a dimension's sets depend on the other dimensions'
    tests, as the family says. When the pairs carry ``can_decide`` (:func:`all_pairs`), the
    board gets ``can_decide`` per judge (every comparison of the judge could reach
    significance) and a ``warning`` sentence where it could not.
    """
    sig = {
        (a, b): bool(p < alpha)
        for a, b, p in zip(pairs["judge_a"], pairs["judge_b"], pairs[p_col], strict=True)
        if p == p
    }
    everyone = list(board["judge"])
    acc_all = dict(zip(board["judge"], board["accuracy"].astype(float), strict=True))
    # judges without an estimate (no verdict in this dimension) get no letter, rank or set
    order = [j for j in everyone if np.isfinite(acc_all[j])]
    letters = letter_groups(order, sig)
    cols = letter_columns(order, sig)
    out = board.copy()
    out["group"] = [letters.get(j, "") for j in everyone]
    top = set(cols[order[0]]) if order else set()
    out["top_set"] = [bool(top & set(cols.get(j, []))) for j in everyone]
    # simultaneous rank sets from the same decisions: j is ranked below every judge shown to be
    # better and above every judge shown to be worse; if no decision is a false rejection
    # (probability >= 1 - alpha under Holm's familywise bound) every set holds its true rank
    acc = dict(zip(out["judge"], out["accuracy"], strict=True))
    k = len(order)
    better = {j: 0 for j in order}
    worse = {j: 0 for j in order}
    for (a, b), s in sig.items():
        if s and a in acc and b in acc and acc[a] != acc[b]:
            hi, lo = (a, b) if acc[a] > acc[b] else (b, a)
            better[lo] += 1
            worse[hi] += 1
    out["rank_low"] = [1 + better[j] if j in better else np.nan for j in everyone]
    out["rank_high"] = [k - worse[j] if j in worse else np.nan for j in everyone]
    if "can_decide" in pairs.columns:
        # a letter or rank set shared because no test could decide is no evidence of a tie
        stuck: dict[str, list[tuple[int, str]]] = {j: [] for j in order}
        units = pairs["n_units"] if "n_units" in pairs.columns else pd.Series(0, pairs.index)
        unit = pairs["unit"] if "unit" in pairs.columns else pd.Series("units", pairs.index)
        for a, b, cd, u, un in zip(
            pairs["judge_a"], pairs["judge_b"], pairs["can_decide"], units, unit, strict=True
        ):
            if not cd and a in stuck and b in stuck:
                for j in (a, b):
                    stuck[j].append((int(u), str(un)))
        out["can_decide"] = [j in stuck and not stuck[j] for j in everyone]
        out["warning"] = [
            "no usable verdict in this dimension: not ranked"
            if j not in stuck
            else ""
            if not stuck[j]
            else (
                f"{len(stuck[j])} of {k - 1} comparisons of this judge cannot reach {p_col} < "
                f"{alpha:g} whatever the verdicts (with {min(stuck[j])[0]} {min(stuck[j])[1]}): "
                "its letter and rank set are no evidence of a tie"
            )
            for j in everyone
        ]
    out["rank_set"] = (
        f"derived from the pairwise decisions ({p_col} < {alpha:g}"
        + (f"; family: {family}" if family else "")
        + f"; joint coverage >= {1 - alpha:g} when the family's error rate holds)"
    )
    return out


def leaderboard(
    outcome: np.ndarray,
    judges: Sequence[str] | None = None,
    *,
    policy: Policy = "wrong",
    clusters: np.ndarray | None = None,
    method: AccuracyMethod = "wilson",
    test: McNemarMethod = "midp",
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    weights: np.ndarray | None = None,
    **former: Any,
) -> pd.DataFrame:
    """Leaderboard of judges for one dimension, best first.

    Columns: ``rank`` (competition rank of the point estimate), ``judge``, ``accuracy``,
    ``ci_low``, ``ci_high``, ``ci_method``, ``rank_low``, ``rank_high`` (simultaneous rank
    confidence set at ``confidence_level``), ``rank_set``, ``share_ranked_first`` (not a probability of
    being best), ``group`` (Piepho letters; shared letter = not distinguishable by the
    Holm-adjusted McNemar tests at ``alpha``), ``top_set``, ``n``, ``n_invalid``, ``policy``.
    ``bootstrap`` (default :class:`~medjudge.stats.resampling.Bootstrap` ``()``) draws the
    rank sets (and the accuracy intervals when ``method`` resamples); the former
    ``n_resamples=``/``seed=`` still work with a DeprecationWarning.
    """
    boot = with_former("leaderboard", "bootstrap", bootstrap, former, Bootstrap(),
                       {"n_resamples": "n_resamples", "seed": "seed"})  # fmt: skip
    y = np.asarray(outcome, dtype=float)
    n, j = y.shape
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(j)]
    acc = judge_accuracy(
        y,
        judges,
        policy=policy,
        clusters=clusters,
        method=method,
        confidence_level=confidence_level,
        bootstrap=boot,
    )
    w = weights if weights is not None else boot.plan(n, clusters)
    boot = bootstrap_accuracy(y, policy=policy, weights=w)
    ranks = bootstrap_ranks(boot)
    share_first = (ranks == 1).mean(0)
    point0 = acc["accuracy"].to_numpy()
    if np.isfinite(point0).all() and j > 1:
        rs = rank_confidence_sets(
            point0, boot, confidence_level=confidence_level, simultaneous=True
        )
        r_lo, r_hi = rs["rank_low"], rs["rank_high"]
    else:  # a judge without any usable verdict has no rank
        r_lo, r_hi = rank_intervals(ranks, confidence_level)
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
    cols = letter_columns(order, sig)
    top = set(cols[order[0]])
    # a judge without an estimate (no verdict) is not ranked
    comp_rank = np.where(
        np.isnan(point), np.nan, 1 + (point[None, :] > point[:, None]).sum(1).astype(float)
    )
    df = pd.DataFrame(
        {
            "rank": comp_rank,
            "judge": judges,
            "accuracy": point,
            "ci_low": acc["ci_low"].to_numpy(),
            "ci_high": acc["ci_high"].to_numpy(),
            "ci_method": acc["ci_method"].to_numpy(),
            "level": confidence_level,
            "rank_low": r_lo,
            "rank_high": r_hi,
            "rank_set": "simultaneous",
            "share_ranked_first": share_first,
            "group": [letters[name] for name in judges],
            "top_set": [bool(top & set(cols[name])) for name in judges],
            "n": acc["n"].to_numpy(),
            "n_invalid": acc["n_invalid"].to_numpy(),
            "policy": policy,
        }
    )
    return df.iloc[order_idx].reset_index(drop=True)
