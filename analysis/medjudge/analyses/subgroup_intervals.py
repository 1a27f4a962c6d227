"""Subgroup accuracy intervals in small clustered cells: the judge's intra-cluster correlation
pooled over the cells (used by :func:`medjudge.analyses.subgroups.subgroup_accuracy`).

A cell of a few clusters estimates its own design effect from a handful of cluster sums; the
Korn-Graubard interval built on that covered 98-99.5% with 3-8 images per cell and was 35%
wider than needed. Under one intra-cluster correlation per judge the cell's variance is
``p(1-p)/n * (1 + rho (sum_c n_c^2 / n - 1))`` (Kish 1965, sec. 5.4), with ``rho`` estimated
once from every cell (docs/calibration.md, "Subgroup intervals in small clustered cells").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from medjudge.stats.intervals import clopper_pearson_interval, pooled_icc, wilson_interval

__all__ = ["POOL_BELOW", "pooled_correlation", "borrow_correlation"]

#: A cell with fewer clusters borrows its judge's intra-cluster correlation pooled over all
#: cells when that rests on at least this many error degrees of freedom (clusters beyond the
#: cells); from 20 clusters a cell's own interval is in band (docs/calibration.md).
POOL_BELOW = 20


def pooled_correlation(
    y: np.ndarray,
    cells: list[tuple[tuple, np.ndarray]],
    clusters: np.ndarray | None,
    method: str,
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(rho, df)`` per judge from :func:`medjudge.stats.intervals.pooled_icc` over the cells
    (``(key, row indices)`` pairs), or None when the intervals do not use an effective n
    (no clusters, one cell, or a method other than Wilson / Clopper-Pearson)."""
    if clusters is None or method not in ("wilson", "clopper-pearson") or len(cells) < 2:
        return None
    codes = np.zeros(y.shape[0], dtype=np.intp)
    for c, (_, idx) in enumerate(cells):
        codes[idx] = c
    return pooled_icc(y, codes, clusters)


def borrow_correlation(
    t: pd.DataFrame,
    y: np.ndarray,
    clusters: np.ndarray,
    pool: tuple[np.ndarray, np.ndarray],
    n_cells: int,
    method: str,
    confidence_level: float,
) -> None:
    """Re-take a small cell's interval at ``n / deff`` with the judge's pooled correlation.

    ``deff = 1 + rho (sum_c n_c^2 / n - 1)`` (``n_c`` the judge's counted units in cluster
    ``c`` of the cell, ``rho`` from :func:`medjudge.stats.intervals.pooled_icc`); only where
    the cell has fewer than :data:`POOL_BELOW` clusters and ``rho`` rests on at least that many
    error degrees of freedom. Updates ``t`` in place (``se``, ``ci_low``, ``ci_high``,
    ``ci_method``) and adds ``icc_pooled`` and ``design_effect`` (NaN where not used).
    """
    rho, df = pool
    m = ~np.isnan(y)
    codes = pd.factorize(clusters)[0]
    nc = np.zeros((codes.max() + 1, y.shape[1]))
    np.add.at(nc, codes, m.astype(float))
    n = m.sum(0).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = 1.0 + rho * ((nc**2).sum(0) / n - 1.0)
        ne = n / deff
    use = (t["n_clusters"].to_numpy() < POOL_BELOW) & (df >= POOL_BELOW) & np.isfinite(ne)
    use &= ne > 0
    t["icc_pooled"] = np.where(use, rho, np.nan)
    t["design_effect"] = np.where(use, deff, np.nan)
    if not use.any():
        return
    p = t["accuracy"].to_numpy()
    fn = wilson_interval if method == "wilson" else clopper_pearson_interval
    lo, hi = fn(p * ne, ne, confidence_level)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(p * (1 - p) / ne)
    for col, v in (("ci_low", lo), ("ci_high", hi), ("se", se)):
        t[col] = np.where(use, v, t[col].to_numpy())
    label = f"{method} (effective n, intra-cluster correlation pooled over {n_cells} cells)"
    t["ci_method"] = np.where(use, label, t["ci_method"].to_numpy())
