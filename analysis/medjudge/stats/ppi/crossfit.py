"""Cross-fitted PPI for several judges: pick the best judge or combine them.

:func:`ppi_mean_crossfit` (Zrnic & Candès 2024): the weights of the judges are learnt on the
other folds of the labelled items, so no labelled item is used twice and the selection is
accounted for.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from medjudge.stats.ppi.linearisation import (
    Interval,
    _check_interval,
    _design,
    _estimate,
    _level,
    _spread,
    _vec,
)
from medjudge.stats.results import Estimate

Combine = Literal["select", "combine"]

__all__ = ["ppi_mean_crossfit"]


def _fold_ids(n: int, n_folds: int, groups: np.ndarray | None, seed: int) -> np.ndarray:
    """Fold of each labelled item; all items of a cluster share a fold (seeded permutation)."""
    keys = np.arange(n).astype(str) if groups is None else groups
    uniq, inv = np.unique(keys, return_inverse=True)
    if uniq.size < n_folds:
        raise ValueError(
            f"n_folds={n_folds} exceeds the {uniq.size} labelled cluster(s)/item(s); use fewer folds"
        )
    perm = np.random.default_rng(seed).permutation(uniq.size)
    fold_of_key = np.empty(uniq.size, dtype=int)
    fold_of_key[perm] = np.arange(uniq.size) % n_folds
    return fold_of_key[inv]


def _fit_weights(y: np.ndarray, F: np.ndarray, ratio: float, combine: Combine) -> np.ndarray:
    """Linear weights ``w`` for the prediction ``F @ w`` learnt on training items only.

    ``combine``: the multivariate PPI++ weights ``Sigma_FF^{-1} Sigma_Fy / (1 + ratio)`` (the
    control-variate optimum; pseudo-inverse when judges are collinear). ``select``: the single
    judge whose tuned ``lam_k`` gives the smallest PPI++ variance factor
    ``Var(Y - lam_k f_k) + ratio lam_k^2 Var(f_k)``.
    """
    K = F.shape[1]
    Fc = F - F.mean(axis=0)
    yc = y - y.mean()
    sff = Fc.T @ Fc / y.size
    sfy = Fc.T @ yc / y.size
    if combine == "combine":
        return np.linalg.pinv(sff) @ sfy / (1 + ratio)
    best, best_v, best_lam = 0, math.inf, 0.0
    for k in range(K):
        vk = sff[k, k]
        lam = float(np.clip(sfy[k] / ((1 + ratio) * vk), 0, 1)) if vk > 0 else 0.0
        v = float(np.var(yc - lam * Fc[:, k]) + ratio * lam * lam * vk)
        if v < best_v - 1e-15:
            best, best_v, best_lam = k, v, lam
    w = np.zeros(K)
    w[best] = best_lam
    return w


def ppi_mean_crossfit(
    y: Any,
    yhat: Any,
    yhat_unlabeled: Any,
    *,
    combine: Combine = "select",
    n_folds: int = 10,
    clusters: Any = None,
    clusters_unlabeled: Any = None,
    seed: int = 0,
    confidence_level: float = 0.95,
    interval: Interval = "t",
) -> Estimate:
    """Cross-fitted PPI with several judges: pick or combine them without double-dipping.

    The labelled items are split into ``n_folds`` folds (whole clusters per fold). For fold
    ``j``, linear weights ``w_j`` over the judges are learnt on the *other* folds (``select``:
    the best single judge with its tuned ``lam``; ``combine``: the multivariate PPI++ weights),
    and (Zrnic & Candès 2024, eq. 3)::

        theta_hat = mean_U( (1/J) sum_j F w_j ) + mean_L( Y_i - F_i w_{j(i)} )

    Every labelled item is thus corrected by a rule that never saw it, so the selection is
    accounted for. Variance: contributions of ``Y - F w_{j(i)}`` (labelled) and of the averaged
    prediction (unlabelled), cluster-summed as in :func:`ppi_mean` — ppi-python's
    ``crossppi_mean_ci`` without clusters when ``interval="normal"``; the default ``"t"`` applies
    the small-sample rules of :func:`ppi_mean` (the weights are learnt out of fold, so each
    sample loses one degree of freedom for its mean only).

    Parameters
    ----------
    yhat, yhat_unlabeled : ``(n, K)`` and ``(N, K)`` predictions of ``K`` judges.
    combine : ``"select"`` or ``"combine"``.
    n_folds : number of folds (>= 2).
    seed : seeds the fold assignment (a permutation of the sorted cluster/item keys).

    Returns
    -------
    Estimate
        ``extra['weights']`` is the ``(n_folds, K)`` weight matrix; ``extra['selected']`` counts,
        per judge, in how many folds it was chosen (``select``).

    References
    ----------
    Zrnic & Candès (2024), PNAS 121:e2322083121, eq. 3-4.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 60).astype(float)
    >>> F = np.column_stack([np.where(rng.random(60) < .9, y, 1 - y), rng.integers(0, 2, 60)])
    >>> Fu = rng.integers(0, 2, (200, 2)).astype(float)
    >>> est = ppi_mean_crossfit(y, F, Fu, n_folds=5)
    >>> est.extra["selected"]
    [5, 0]
    """
    if combine not in ("select", "combine"):
        raise ValueError(f"combine must be 'select' or 'combine', got {combine!r}")
    if not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}")
    y = _vec(y, "y")
    F = np.asarray(yhat, dtype=float)
    Fu = np.asarray(yhat_unlabeled, dtype=float)
    if F.ndim == 1:
        F = F[:, None]
    if Fu.ndim == 1:
        Fu = Fu[:, None]
    if F.shape[0] != y.size or Fu.ndim != 2 or Fu.shape[1] != F.shape[1]:
        raise ValueError(
            f"yhat must be (n, K) = ({y.size}, K) and yhat_unlabeled (N, K); got {F.shape}, {Fu.shape}"
        )
    if not (np.all(np.isfinite(F)) and np.all(np.isfinite(Fu))):
        raise ValueError("yhat/yhat_unlabeled have missing values; code invalid verdicts first")
    if Fu.shape[0] < 1:
        raise ValueError("need at least 1 unlabelled item")
    _check_interval(interval)
    _level(confidence_level)
    n, N = y.size, Fu.shape[0]
    d = _design(n, N, clusters, clusters_unlabeled, confidence_level, interval)
    cl, clu = d.cl, d.clu
    folds = _fold_ids(n, n_folds, cl, seed)
    W = np.zeros((n_folds, F.shape[1]))
    g_oof = np.empty(n)
    for j in range(n_folds):
        tr = folds != j
        W[j] = _fit_weights(y[tr], F[tr], n / N, combine)
        g_oof[~tr] = F[~tr] @ W[j]
    g_u = Fu @ W.mean(axis=0)  # average of the fold rules (linear, so average the weights)
    r = y - g_oof
    est = float(g_u.mean() + r.mean())
    psi = np.concatenate([(r - r.mean()) / n, (g_u - g_u.mean()) / N])
    parts = np.r_[np.zeros(n, int), np.ones(N, int)]
    spread = _spread(psi, parts, {0: 1, 1: 1}, cl, clu, interval)
    psi0 = np.concatenate([(y - y.mean()) / n, np.zeros(N)])
    var0, _, _ = _spread(psi0, parts, {0: 1, 1: 1}, cl, clu, interval)
    return _estimate(
        "ppi_mean_crossfit",
        f"cross-fitted PPI ({combine}, {n_folds} folds)",
        est,
        spread,
        d,
        var0,
        weights=W.tolist(),
        selected=[int(v) for v in (W != 0).sum(axis=0)] if combine == "select" else None,
        seed=seed,
    )
