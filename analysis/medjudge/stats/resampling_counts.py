"""Resample counts: the random stream of every bootstrap in medjudge (see
:mod:`medjudge.stats.resampling`, which multiplies them block by block).

:func:`resample_weights` is the definition — a ``(B, n_items)`` weight matrix drawn from one
seeded ``numpy.random.Generator`` — and :func:`_draw_counts` the ``(B, n_clusters)`` counts it
expands; :class:`~medjudge.stats.resampling.ResamplePlan` draws the same numbers block by block
and never forms the matrix.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .groups import group_codes, refuse_missing_labels

Method = Literal["multinomial", "poisson"]


def _codes(labels: np.ndarray | None, n: int, name: str = "clusters") -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 for labels (identity when labels is None); a missing label or a
    wrong length is refused naming the argument ``name``."""
    if labels is None:
        return np.arange(n), n
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(
            f"{name}: {labels.shape[0] if labels.ndim else 'one'} labels is not allowed "
            f"(one label per item: {n})"
        )
    refuse_missing_labels(labels, name)
    return group_codes(labels.astype(str) if labels.dtype == object else labels)


def resample_weights(
    n_items: int,
    n_resamples: int,
    *,
    seed: int | np.random.Generator = 0,
    clusters: np.ndarray | None = None,
    strata: np.ndarray | None = None,
    method: Method = "multinomial",
) -> np.ndarray:
    """Return a ``(n_resamples, n_items)`` float matrix of bootstrap weights.

    Each row gives how many times each item appears in one resample. With ``clusters`` whole
    clusters are drawn (an item's weight is its cluster's count); with ``strata`` the
    ``n_h`` clusters of stratum ``h`` are drawn with replacement from that stratum only, so
    stratum sizes are fixed. ``method="poisson"`` draws independent Poisson(1) counts per
    cluster instead of a multinomial.

    The same ``seed`` gives the same matrix on every machine (numpy's PCG64 stream). This is
    the definition the library's resampling follows; the library itself never forms the
    matrix (:meth:`ResamplePlan.sums` computes ``W @ X`` block by block from the same stream).
    """
    if n_items <= 0:
        raise ValueError("cannot resample an empty set of items")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    ccode, n_clusters = _codes(clusters, n_items)
    counts = _draw_counts(rng, n_resamples, n_clusters, ccode, strata, method)
    return counts if clusters is None else counts[:, ccode]


def _draw_counts(
    rng: np.random.Generator,
    n_resamples: int,
    n_clusters: int,
    ccode: np.ndarray,
    strata: np.ndarray | None,
    method: Method,
) -> np.ndarray:
    """``(n_resamples, n_clusters)`` float resample counts (see :func:`resample_weights`)."""
    if method == "poisson":
        return rng.poisson(1.0, size=(n_resamples, n_clusters)).astype(np.float64)
    if method != "multinomial":
        raise ValueError(f"unknown resampling method {method!r}")
    if strata is None:
        return _multinomial_counts(rng, n_clusters, n_resamples)
    item_strata, _ = _codes(strata, ccode.size, "strata")
    scode = np.full(n_clusters, -1)
    scode[ccode] = item_strata
    if np.any(scode[ccode] != item_strata):
        raise ValueError("each cluster must lie inside one stratum")
    counts = np.zeros((n_resamples, n_clusters), dtype=np.float64)
    for s in np.unique(scode):
        members = np.flatnonzero(scode == s)
        counts[:, members] = _multinomial_counts(rng, members.size, n_resamples)
    return counts


def _multinomial_counts(rng: np.random.Generator, m: int, n_resamples: int) -> np.ndarray:
    """Multinomial(m; 1/m, …, 1/m) counts, one row per resample.

    Drawn as ``m`` uniform indices per row and counted — the definition of resampling with
    replacement, and about 4× faster than ``Generator.multinomial`` (which draws a chain of
    binomials per row).
    """
    if m >= 4096:  # row by row (the same stream): each row's counts stay in cache, 2-3x faster
        out = np.empty((n_resamples, m))
        for r in range(n_resamples):
            out[r] = np.bincount(rng.integers(0, m, size=m), minlength=m)
        return out
    idx = rng.integers(0, m, size=(n_resamples, m))
    idx += (np.arange(n_resamples) * m)[:, None]
    return (
        np.bincount(idx.ravel(), minlength=n_resamples * m)
        .reshape(n_resamples, m)
        .astype(np.float64)
    )


def jackknife_weights(n_items: int, *, clusters: np.ndarray | None = None) -> np.ndarray:
    """Leave-one-cluster-out weights, shape ``(n_clusters, n_items)`` (0 for the left-out cluster)."""
    ccode, n_clusters = _codes(clusters, n_items)
    w = np.ones((n_clusters, n_items))
    w[ccode, np.arange(n_items)] = 0.0
    return w
