"""Paired comparisons of score judges against the same gold score (issue 37, item 6).

Every pair of judges on one interval/ratio dimension: the difference of their MAE, bias, RMSE
or CCC against gold on the items both scored, with the interval and test of
:func:`medjudge.stats.score_tests.paired_score_difference` (MAE and bias: the cluster
sign-flip test and the interval that inverts it; RMSE and CCC: the cluster jackknife t), and
Holm's adjustment over the rows of a dimension.

The sign-flip rows of all pairs are computed together: the flip sums ``A_k = sum_c e_kc S_c``
and ``B_k = sum_c e_kc n_c`` of every pair come from one matrix product with the sign patterns,
and the interval is solved in closed form — flip ``k`` is as extreme as the data at
``theta0`` exactly when ``|A_k - theta0 B_k| >= |T - theta0 N|``, which holds between the roots
``(A_k - T) / (B_k - N)`` and ``(A_k + T) / (B_k + N)``, so the set of ``theta0`` not rejected
at level ``alpha`` runs from the ``m``-th smallest lower root to the ``m``-th largest upper
root, ``m = floor(alpha K) + 1`` of the ``K`` patterns. :func:`invert_sign_flip` finds the same
limits by bisection (equal to its tolerance); the p-values are the same patterns' counts.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..data.model import Study
from ..stats.resampling import Permutation
from .evaluation import cluster_ids

#: the columns of a pairs table (one row per dimension, judge pair and metric)
PAIR_COLUMNS = ["dimension", "judge_a", "judge_b", "metric", "estimate_a", "estimate_b",
                "difference", "ci_low", "ci_high", "confidence_level", "p_value", "p_holm", "n",
                "n_clusters", "method"]  # fmt: skip


@lru_cache(maxsize=2)
def _patterns(g: int, n_resamples: int, seed: int) -> np.ndarray:
    """The sign patterns of :func:`~medjudge.stats.score_tests.invert_sign_flip` for ``g``
    clusters, transposed (``(g, K)``, read-only; the dimensions of a study share them): all
    ``2^g`` up to 14 clusters, else the identity and ``n_resamples`` random ones from
    ``seed`` (the same patterns, so the same p-values)."""
    from ..stats.score_tests import EXACT_FLIPS_UP_TO

    if g <= EXACT_FLIPS_UP_TO:
        out = np.ascontiguousarray((1.0 - 2.0 * ((np.arange(2**g)[:, None] >> np.arange(g)) & 1)).T)
    else:  # the identity, then the draws written transposed (one pass, no temporaries)
        out = np.empty((g, n_resamples + 1))
        out[:, 0] = 1.0
        out[:, 1:] = np.random.default_rng(seed).integers(0, 2, (n_resamples, g)).T
        out[:, 1:] *= -2.0
        out[:, 1:] += 1.0
    out.flags.writeable = False
    return out


#: pairs whose ``K`` flip sums are tested together (a block's arrays stay in the CPU cache)
_PAIR_BLOCK = 8


def _flip_columns(
    S: np.ndarray, N: np.ndarray, A: np.ndarray, Bn: np.ndarray, level: float, kind: str
) -> list[dict[str, Any]]:
    """Test of mean 0 and inverted interval for each column of cluster sums ``S`` with cluster
    sizes ``N`` (``(G, P)``; a cluster of size 0 adds nothing), given their flip sums ``A`` and
    ``Bn`` (``(P, K)``: row ``p`` is ``signs @ S[:, p]``, every pass along the patterns):
    the closed form in the module docstring."""
    g, K = S.shape[0], A.shape[1]
    T, Ntot = S.sum(0), N.sum(0)
    tol = 1e-9 * (1 + np.abs(S).sum(0))
    alpha = 1 - level
    m = int(np.floor(alpha * K)) + 1
    p, lo, hi = np.empty(T.size), np.full(T.size, -np.inf), np.full(T.size, np.inf)
    for a in range(0, T.size, _PAIR_BLOCK):  # a block of pairs at a time stays in cache
        b = slice(a, a + _PAIR_BLOCK)
        Ab, Bb, T_, N_ = A[b], Bn[b], T[b, None], Ntot[b, None]
        p[b] = np.mean(np.abs(Ab) >= (np.abs(T[b]) - tol[b])[:, None], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            r1, r2 = (Ab - T_) / (Bb - N_), (Ab + T_) / (Bb + N_)
        always = np.abs(np.abs(Bb) - N_) <= 1e-12 * N_  # every sign the same: always extreme
        low = np.fmin(r1, r2)
        low[always] = -np.inf
        high = np.fmax(r1, r2, out=r1)
        high[always] = np.inf
        if m <= K:
            lo[b] = np.partition(low, m - 1, axis=1)[:, m - 1]
            hi[b] = np.partition(high, K - m, axis=1)[:, K - m]
    est = T / Ntot
    out = []
    for c in range(S.shape[1]):
        a, b = float(lo[c]), float(hi[c])
        if p[c] > alpha and not a <= 0 <= b:  # the interval and the test agree (as inverted)
            a, b = min(a, 0.0), max(b, 0.0)
        elif p[c] <= alpha and a <= 0 <= b:
            a, b = (float(np.nextafter(0, 1)), b) if est[c] > 0 else (a, float(np.nextafter(0, -1)))
        out.append({
            "difference": float(est[c]), "ci_low": a, "ci_high": b, "p_value": float(p[c]),
            "n_clusters": g,
            "method": f"cluster sign-flip test ({kind}; {g} clusters), interval by inverting it",
        })  # fmt: skip
    return out


def _kind(g: int, perm: Permutation) -> str:
    if g <= 14:
        return "exact, all 2^G patterns"
    return f"{perm.n_resamples} random patterns, seed {perm.seed}"


def _sign_flip_pairs(
    E: np.ndarray, codes: np.ndarray, pairs: list[tuple[int, int]], level: float,
    perm: Permutation,
) -> list[dict[str, Any]]:  # fmt: skip
    """MAE or bias rows (per-item errors ``E``, ``(n, judges)``, NaN = no score or no gold)
    of every pair, every pair on the same sign patterns over all ``G`` clusters (a cluster
    where the pair has no item adds 0 to every flip sum, so the test is that of the clusters
    with items). A pair's flip sums are its judges' (one product with the patterns for all
    judges) corrected on the few clusters where one of the two has no score: all pairs at
    once, one row of patterns per pair."""
    G = int(codes.max()) + 1 if codes.size else 0
    if not pairs:
        return []
    if G == 0:
        return [{"estimate_a": np.nan, "estimate_b": np.nan, "n": 0, "difference": np.nan,
                 "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan, "n_clusters": 0,
                 "method": "not defined: no cluster"} for _ in pairs]  # fmt: skip
    from scipy.sparse import csr_matrix

    miss = np.isnan(E)
    Z = np.where(miss, 0.0, E)

    def csum(v: np.ndarray) -> np.ndarray:  # per-cluster sums of the columns of v
        return np.stack([np.bincount(codes, weights=c, minlength=G) for c in v.T], axis=1)

    P = _patterns(G, perm.n_resamples, perm.seed)  # (G, K)
    K = P.shape[1]
    Sz, Sm, full = csum(Z), csum(miss.astype(float)), np.bincount(codes, minlength=G) * 1.0
    AzT = np.ascontiguousarray((P.T @ Sz).T)
    # the missing scores' flip sums: whole numbers, exact in any order, from the few clusters
    # with a missing score (a sparse product)
    AmT, Bfull = csr_matrix(Sm.T) @ P, full @ P
    ia, ja = (np.array(v) for v in zip(*pairs, strict=True))
    # the corrections: (per-cluster sums, their flip sums) on the items of one judge only, or
    # of neither; zero for the (many) pairs without such items
    C = {k: np.zeros((G, len(pairs))) for k in ("i", "j", "m")}
    F = {k: np.zeros((len(pairs), K)) for k in ("i", "j", "m")}
    ones = np.ones(len(codes))
    rows = []
    for p, (i, j) in enumerate(pairs):
        ok = ~(miss[:, i] | miss[:, j])
        for k, mask, values in (
            ("i", miss[:, j] & ~miss[:, i], Z[:, i]),  # i's errors where j has none
            ("j", miss[:, i] & ~miss[:, j], Z[:, j]),
            ("m", miss[:, i] & miss[:, j], ones),
        ):
            if mask.any():
                c = np.bincount(codes[mask], weights=values[mask], minlength=G)
                u = np.flatnonzero(c)
                C[k][:, p], F[k][p] = c, c[u] @ P[u]
        rows.append({
            "estimate_a": float(E[ok, i].mean()) if ok.any() else np.nan,
            "estimate_b": float(E[ok, j].mean()) if ok.any() else np.nan, "n": int(ok.sum()),
        })  # fmt: skip
    S = Sz[:, ia] - Sz[:, ja] - C["i"] + C["j"]
    N = full[:, None] - Sm[:, ia] - Sm[:, ja] + C["m"]
    A = AzT[ia] - AzT[ja]
    A -= F["i"]
    A += F["j"]
    Bn = Bfull[None, :] - AmT[ia]
    Bn -= AmT[ja]
    Bn += F["m"]
    # C order: the column sums in _flip_columns add the clusters one after another
    S, N = np.ascontiguousarray(S), np.ascontiguousarray(N)
    res = _flip_columns(S, N, A, Bn, level, "")
    for r, x, nc in zip(rows, res, N.T, strict=True):
        g = int((nc > 0).sum())
        kind = _kind(G, perm)
        x.update(n_clusters=g, method=f"cluster sign-flip test ({kind}; {g} clusters), "
                                      "interval by inverting it")  # fmt: skip
        if g == 0:
            x.update(difference=np.nan, ci_low=np.nan, ci_high=np.nan, p_value=np.nan,
                     method="not defined: no cluster")  # fmt: skip
        r.update(x)
    return rows


def judge_pairs_table(
    dimension: str,
    judges: list[str],
    X: np.ndarray,
    gold: np.ndarray,
    clusters: np.ndarray | None,
    *,
    metrics: tuple[str, ...] = ("mae", "bias"),
    confidence_level: float = 0.95,
    permutation: Permutation | None = None,
) -> pd.DataFrame:
    """The pairs table of one dimension from the judges' scores ``X`` (``(n, judges)``) and
    the gold scores (NaN = none): columns :data:`PAIR_COLUMNS`, Holm over its rows."""
    from ..stats.groups import group_codes
    from ..stats.multiplicity import adjust_pvalues
    from ..stats.score_tests import paired_score_difference

    perm = Permutation(9999, seed=0) if permutation is None else permutation
    pairs = list(combinations(range(len(judges)), 2))
    cl = np.arange(gold.size) if clusters is None else np.asarray(clusters)
    codes = group_codes(cl)[0] if gold.size else np.zeros(0, int)
    out = []
    for m in metrics:
        if m in ("mae", "bias"):
            with np.errstate(invalid="ignore"):
                E = X - gold[:, None]
            rows = _sign_flip_pairs(np.abs(E) if m == "mae" else E, codes, pairs,
                                    confidence_level, perm)  # fmt: skip
            rows = [{**r, "metric": m, "confidence_level": confidence_level} for r in rows]
        else:
            rows = [paired_score_difference(X[:, i], X[:, j], gold, metric=m, clusters=clusters,
                                            confidence_level=confidence_level, permutation=perm)
                    for i, j in pairs]  # fmt: skip
        out += [{"dimension": dimension, "judge_a": judges[i], "judge_b": judges[j], **r}
                for (i, j), r in zip(pairs, rows, strict=True)]  # fmt: skip
    t = pd.DataFrame(out, columns=[c for c in PAIR_COLUMNS if c != "p_holm"])
    if len(t):
        t["p_holm"] = adjust_pvalues(t["p_value"].to_numpy(float), "holm")
    else:
        t["p_holm"] = pd.Series(dtype=float)
    return t[PAIR_COLUMNS]


def score_judge_pairs(
    study: Study,
    dimension: str,
    *,
    judges: list[str] | None = None,
    metrics: tuple[str, ...] = ("mae", "bias"),
    gold: str = "auto",
    cluster: str | None = "auto",
    confidence_level: float = 0.95,
    permutation: Permutation | None = None,
) -> pd.DataFrame:
    """Every pair of score judges compared on the same items against the gold score.

    One row per judge pair and metric: the metric of each judge, their difference (first
    minus second) with the interval and test of
    :func:`medjudge.stats.score_tests.paired_score_difference` (MAE and bias: the cluster
    sign-flip test and the interval inverting it; RMSE and CCC: the cluster jackknife t), and
    ``p_holm`` over every row of the table. Items are those with both judges' scores and a
    gold score; clusters as :func:`score_study` resolves them.

    Parameters
    ----------
    study : Study
    dimension : str
        An interval or ratio dimension.
    judges : list of str, optional
        Default: every judge.
    metrics : tuple of str, default ("mae", "bias")
        Any of ``"mae"``, ``"rmse"``, ``"bias"``, ``"ccc"``.
    gold, cluster : str
        As in :func:`score_study`.
    confidence_level : float, default 0.95
    permutation : Permutation, optional
        Random sign patterns (more than 14 clusters) and their seed, as in
        :func:`~medjudge.stats.score_tests.paired_score_difference`.

    Returns
    -------
    DataFrame
        ``dimension, judge_a, judge_b, metric, estimate_a, estimate_b, difference, ci_low,
        ci_high, confidence_level, p_value, p_holm, n, n_clusters, method``.

    References
    ----------
    Fisher (1935) The Design of Experiments; Holm (1979) Scand J Stat 6:65-70.

    Examples
    --------
    >>> from medjudge.data.model import Study
    >>> from medjudge.data.scale import Scale
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(1, 6, 40).astype(float)
    >>> rows = [(f"i{i}", r, "judge", "q", float(np.clip(t + rng.integers(-k, k + 1), 1, 5)))
    ...         for i, t in enumerate(truth) for r, k in (("a", 1), ("b", 2))]
    >>> st = Study(pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"]),
    ...            pd.DataFrame({"item": [f"i{i}" for i in range(40)]}),
    ...            {"q": Scale("interval", low=1, high=5)},
    ...            gold_table=pd.DataFrame({"item": [f"i{i}" for i in range(40)], "dimension": "q",
    ...                                     "value": truth}))
    >>> t = score_judge_pairs(st, "q")
    >>> list(t["metric"]), bool((t["ci_low"] <= t["difference"]).all())
    (['mae', 'bias'], True)
    """
    from ..stats.score_tests import SCORE_METRICS
    from ._arguments import check_dimensions

    check_dimensions(study, [dimension], "dimension")
    if study.scales[dimension].is_categorical:
        raise ValueError(f"{dimension!r} is categorical; paired score comparisons need scores")
    for m in metrics:
        if m not in SCORE_METRICS:
            raise ValueError(f"metrics: {m!r} is not allowed (any of {', '.join(SCORE_METRICS)})")
    judges = list(study.judges) if judges is None else list(judges)
    g = study.gold(dimension, gold)  # type: ignore[arg-type]
    clusters, _ = cluster_ids(study, cluster)
    X = study.matrix(dimension, raters=judges, items=list(g.items)).values
    cl = None
    if clusters is not None:
        cl = pd.Series(clusters, index=study.item_ids).loc[list(g.items)].to_numpy()
    return judge_pairs_table(
        dimension, judges, X, np.asarray(g.codes, dtype=float), cl, metrics=metrics,
        confidence_level=confidence_level, permutation=permutation,
    )  # fmt: skip


#: the metric of a pairs row, in words
PAIR_WORDS = {"mae": "MAE", "bias": "bias", "rmse": "RMSE", "ccc": "Lin's CCC"}


def pair_sentence(pairs: pd.DataFrame, settings: dict[str, Any], dimension: str) -> list[str]:
    """The judge pairs of ``dimension`` in one sentence (``[]`` without pairs): how many pairs
    differ in each metric at the Holm-adjusted level ``settings["alpha"]``, with the family
    (``settings["pairs_family"]``) and the test named from the table's ``method`` column."""
    p = pairs[pairs["dimension"] == dimension] if len(pairs) else pairs
    if p.empty:
        return []
    alpha = float(settings.get("alpha", 0.05))
    n_pairs = len(p.drop_duplicates(["judge_a", "judge_b"]))
    parts = []
    for m, rows in p.groupby("metric", sort=False):
        k = int((rows["p_holm"] <= alpha).sum())
        parts.append(f"{PAIR_WORDS.get(str(m), m)} in {k} of {len(rows)}")
    # one phrase per method, the cluster counts (pairs differ in missing scores) as a range
    methods = "; ".join(dict.fromkeys(re.sub(r"; \d+ clusters\)", ")", str(t))
                                      for t in p["method"]))  # fmt: skip
    lo, hi = int(p["n_clusters"].min()), int(p["n_clusters"].max())
    unit = "items" if str(settings.get("cluster", "")).startswith("none") else "clusters"
    methods += f"; {lo}{'' if lo == hi else f'-{hi}'} {unit}"
    return [
        f"{dimension}: {n_pairs} judge pair(s) compared on the same items against gold — "
        f"they differ ({settings.get('pairs_family', '')}, adjusted p <= {alpha:g}) "
        f"in {', '.join(parts)} pairs ({methods})."
    ]
