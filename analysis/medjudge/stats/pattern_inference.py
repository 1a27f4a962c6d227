"""Judge accuracy and paired comparisons from per-cluster count patterns.

Arrays in, arrays out. A *pattern* ``p`` is a vector of per-cluster counts shared by ``k_p``
clusters (see :mod:`medjudge.engine.reduce`): ``a_pj`` items given to judge ``j``, ``v_pj``
usable verdicts, ``c_pj`` correct verdicts. Under an invalid-verdict policy the numerator and
denominator of judge ``j`` in a cluster are

* ``wrong`` (Med-RewardBench rule): ``c / a``;  ``exclude``: ``c / v``;
  ``half``: ``(c + (a - v) / 2) / a``.

Accuracy ``p_j = Σ_p k_p num_pj / Σ_p k_p den_pj`` (a ratio estimator over clusters). Its
cluster-robust standard error is the linearisation
``se² = G/(G-1) Σ_g (num_gj - p_j den_gj)² / (Σ_g den_gj)²`` (Cochran 1977, §6.10), and its
interval the expanded percentile interval (Hesterberg 2015, The American Statistician 69:371,
§5; :func:`expanded_alpha`) of the Poisson cluster bootstrap (weights from
:func:`medjudge.stats.poisson_bootstrap.poisson_weights`); when the estimate is 0 or 1 the
bootstrap distribution is degenerate and a Wilson (1927) interval on the number of clusters is
used instead (named in ``ci_method``).

Paired differences use the items both judges were given: exactly derivable from patterns when
every cluster is one item, or when every judge was given every item of every cluster (a
complete design). Tests: McNemar mid-p (Fagerland, Lydersen & Laake 2013) on single-item
clusters; the clustered McNemar statistic ``(Σ_g s_g)² / Σ_g s_g²`` of Durkalski, Palesch,
Lipsitz & Rust (2003) otherwise, with ``s_g`` the per-cluster difference of correct counts.

Examples
--------
>>> import numpy as np
>>> from medjudge.stats.pattern_inference import accuracy_from_patterns
>>> a = np.array([[1], [1]]); c = np.array([[1], [0]]); k = np.array([70, 30])
>>> r = accuracy_from_patterns(a, a, c, k, n_resamples=200, seed=1)
>>> float(r["estimate"][0])
0.7
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy import stats

from .intervals import wilson_interval
from .mcnemar import mcnemar_pvalue
from .poisson_bootstrap import pattern_keys, poisson_weights

Policy = Literal["wrong", "exclude", "half"]
POLICY_CHOICES: tuple[str, ...] = ("wrong", "exclude", "half")
BLOCK = 256  # replicates per block of weights (memory: P x BLOCK doubles) ...
BLOCK_ELEMENTS = 1 << 23  # ... but at most ~8 M weights (64 MB) per block when P is large

__all__ = [
    "accuracy_from_patterns",
    "evaluate_patterns",
    "expanded_alpha",
    "pairs_from_patterns",
    "policy_counts",
]


def policy_counts(
    assigned: np.ndarray, valid: np.ndarray, correct: np.ndarray, policy: Policy = "wrong"
) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator per pattern and judge under the invalid-verdict ``policy``."""
    a, v, c = (np.asarray(x, dtype=np.float64) for x in (assigned, valid, correct))
    if policy == "wrong":
        return c, a
    if policy == "exclude":
        return c, v
    if policy == "half":
        return c + 0.5 * (a - v), a
    raise ValueError(f"policy must be one of {', '.join(POLICY_CHOICES)}; got {policy!r}")


def _check(confidence_level: float, n_resamples: int) -> None:
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level}")
    if int(n_resamples) < 1:
        raise ValueError(f"n_resamples must be ≥ 1, got {n_resamples}")


def _replicates(
    num: np.ndarray, den: np.ndarray, k: np.ndarray, keys: np.ndarray, n_resamples: int, seed: int
) -> np.ndarray:
    """``(B, m)`` bootstrap ratios ``(W num) / (W den)`` in blocks of :data:`BLOCK` replicates
    (fewer when there are many patterns: memory stays bounded; the sums are exact integers,
    so the block size never changes a number)."""
    out = np.empty((n_resamples, num.shape[1]))
    block = max(8, min(BLOCK, BLOCK_ELEMENTS // max(len(keys), 1)))
    # One BLAS thread: these (block x P) @ (P x m) products are memory-bound, and a second
    # OpenBLAS thread spin-waits whenever the other core is busy — measured 3-10x more CPU on
    # the shared 2-core machine (benchmarks/bench_scale.py). The sums are exact integers, so
    # the thread count never changes a number.
    with _one_blas_thread():
        for b0 in range(0, n_resamples, block):
            nb = min(block, n_resamples - b0)
            w = poisson_weights(keys, k, nb, seed=seed, first_replicate=b0)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[b0 : b0 + nb] = (w @ num) / (w @ den)
    return out


def _one_blas_thread():  # noqa: ANN202
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency; without it, BLAS keeps its threads
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def expanded_alpha(confidence_level: float, n_clusters: np.ndarray) -> np.ndarray:
    """Tail probability of Hesterberg's (2015) expanded percentile interval.

    ``alpha' = 2 Phi(-sqrt(G / (G - 1)) t_{G-1, 1 - alpha/2})``: the percentile interval taken
    at ``alpha'/2`` and ``1 - alpha'/2`` is as wide, relative to the bootstrap SE, as a t
    interval with the ``G / (G - 1)`` variance correction — it repairs the percentile interval's
    narrowness with few clusters and tends to the plain percentile interval as ``G`` grows.
    """
    g = np.maximum(np.asarray(n_clusters, dtype=float), 2.0)
    q = np.sqrt(g / (g - 1.0)) * stats.t.ppf(0.5 + confidence_level / 2.0, g - 1.0)
    return 2.0 * stats.norm.sf(q)


def _percentile(
    boot: np.ndarray, level: float, n_clusters: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    alpha = expanded_alpha(level, n_clusters)
    lo = np.empty(boot.shape[1])
    hi = np.empty(boot.shape[1])
    for a in np.unique(alpha):
        cols = np.flatnonzero(alpha == a)
        lo[cols] = np.nanquantile(boot[:, cols], a / 2, axis=0)
        hi[cols] = np.nanquantile(boot[:, cols], 1 - a / 2, axis=0)
    return lo, hi


def _accuracy_parts(num: np.ndarray, den: np.ndarray, k: np.ndarray):
    tot_den = k @ den
    with np.errstate(invalid="ignore", divide="ignore"):
        p = (k @ num) / tot_den
        g = (k[:, None] * (den > 0)).sum(0)
        resid = num - p[None, :] * den
        se = np.sqrt(g / np.maximum(g - 1, 1) * (k @ resid**2)) / tot_den
    return p, se, g, tot_den


def _pair_parts(a, v, num, den, k, items, policy):
    """Per-pattern paired numerators ``d`` and common-item counts, or None if not derivable."""
    n_j = a.shape[1]
    ii, jj = np.triu_indices(n_j, 1)
    if np.all(items <= 1):
        given = v if policy == "exclude" else a
        common = given[:, ii] * given[:, jj]
        per = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        return ii, jj, common * (per[:, ii] - per[:, jj]), common, True
    if policy == "exclude" or not np.all(a == items[:, None]):
        return None
    return ii, jj, num[:, ii] - num[:, jj], a[:, ii], False


def evaluate_patterns(
    assigned: np.ndarray,
    valid: np.ndarray,
    correct: np.ndarray,
    multiplicity: np.ndarray,
    *,
    items: np.ndarray | None = None,
    policy: Policy = "wrong",
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    pairs: bool = True,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    """Accuracy of every judge and every pairwise comparison from one set of bootstrap weights.

    The accuracies and the paired differences are evaluated on the same Poisson weights (drawn
    once, in blocks), so the pairs are truly paired and the weights are generated only once.

    Returns
    -------
    accuracy : dict of ``(J,)`` arrays
        ``estimate, se, ci_low, ci_high, n_items, n_clusters, ci_method``.
    pairs : dict of ``(n_pairs,)`` arrays, or None
        ``i, j, difference, ci_low, ci_high, n_items, statistic, p_value, test``; None when the
        items both judges were given cannot be derived from the patterns (clusters of several
        items with an incomplete design, or ``policy="exclude"`` with several items per cluster).
    """
    _check(confidence_level, n_resamples)
    k = np.asarray(multiplicity, dtype=np.float64)
    a = np.asarray(assigned, dtype=np.float64)
    v = np.asarray(valid, dtype=np.float64)
    n = np.ones(len(k)) if items is None else np.asarray(items, dtype=np.float64)
    num, den = policy_counts(assigned, valid, correct, policy)
    keys = pattern_keys(np.concatenate([n[:, None], assigned, valid, correct], axis=1))
    p, se, g, tot_den = _accuracy_parts(num, den, k)
    pp = _pair_parts(a, v, num, den, k, n, policy) if pairs and a.shape[1] > 1 else None
    n_j = num.shape[1]
    if pp is None:
        boot = _replicates(num, den, k, keys, n_resamples, seed)
    else:
        boot = _replicates(
            np.hstack([num, pp[2]]), np.hstack([den, pp[3]]), k, keys, n_resamples, seed
        )
    g_cols = g if pp is None else np.concatenate([g, (k[:, None] * (pp[3] > 0)).sum(0)])
    lo, hi = _percentile(boot, confidence_level, g_cols)
    acc_lo, acc_hi = lo[:n_j].copy(), hi[:n_j].copy()
    method = np.array(["expanded percentile (Poisson cluster bootstrap)"] * n_j, dtype=object)
    edge = (p <= 0) | (p >= 1)
    if edge.any():
        wl, wh = wilson_interval(p[edge] * g[edge], g[edge], confidence_level)
        acc_lo[edge], acc_hi[edge] = wl, wh
        method[edge] = "Wilson on the number of clusters (estimate at 0 or 1)"
    accuracy = {
        "estimate": p,
        "se": se,
        "ci_low": acc_lo,
        "ci_high": acc_hi,
        "n_items": tot_den,
        "n_clusters": g,
        "ci_method": method,
    }
    if pp is None:
        return accuracy, None
    ii, jj, d, common, single = pp
    n_common = k @ common
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = (k @ d) / n_common
    if single:
        stat, pv = mcnemar_pvalue(k @ (d > 0), k @ (d < 0), "midp")
        test = "McNemar mid-p"
    else:
        num2, den2 = (k @ d) ** 2, k @ d**2
        with np.errstate(invalid="ignore", divide="ignore"):
            stat = np.where(den2 > 0, num2 / den2, 0.0)
        pv = np.where(den2 > 0, stats.chi2.sf(stat, 1), 1.0)
        test = "McNemar clustered (Durkalski 2003)"
    return accuracy, {
        "i": ii,
        "j": jj,
        "difference": diff,
        "ci_low": lo[n_j:],
        "ci_high": hi[n_j:],
        "n_items": n_common,
        "statistic": np.asarray(stat, dtype=float),
        "p_value": np.asarray(pv, dtype=float),
        "test": np.array([test] * ii.size, dtype=object),
    }


def accuracy_from_patterns(
    assigned: np.ndarray,
    valid: np.ndarray,
    correct: np.ndarray,
    multiplicity: np.ndarray,
    **kwargs,
) -> dict[str, np.ndarray]:
    """Accuracy of every judge (see :func:`evaluate_patterns`; keyword arguments as there)."""
    return evaluate_patterns(assigned, valid, correct, multiplicity, pairs=False, **kwargs)[0]


def pairs_from_patterns(
    assigned: np.ndarray,
    valid: np.ndarray,
    correct: np.ndarray,
    multiplicity: np.ndarray,
    **kwargs,
) -> dict[str, np.ndarray] | None:
    """Every pair ``i < j`` of judges (see :func:`evaluate_patterns`)."""
    return evaluate_patterns(assigned, valid, correct, multiplicity, **kwargs)[1]
