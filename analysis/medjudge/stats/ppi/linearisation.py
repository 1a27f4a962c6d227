"""The machinery shared by every PPI estimator: argument checks and the linearisation.

Each estimator is a sum of per-item influence contributions (:func:`_contributions`); this
module sums them within clusters (:func:`_cluster_sums`), turns them into a variance — the
plain (cluster-)summed one of ppi-python, or the small-sample one with per-sample divisors and
Satterthwaite degrees of freedom (:func:`_spread`) — and picks the normal or Student t quantile.
See the package docstring (:mod:`medjudge.stats.ppi`) for the formulas and references.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Literal, NamedTuple

import numpy as np
from scipy.special import ndtri, stdtrit

from medjudge.stats.results import Estimate

Interval = Literal["t", "normal"]


def _vec(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(
            f"{name} has {int((~np.isfinite(a)).sum())} missing/non-finite value(s); "
            "decide how to treat them before calling (e.g. an invalid verdict as its own value)"
        )
    return a


def _level(confidence_level: float) -> float:
    c = float(confidence_level)
    if not 0 < c < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    return c


def _z(confidence_level: float) -> float:
    return float(ndtri(0.5 + _level(confidence_level) / 2))


def _clusters(c: Any, n: int, name: str) -> np.ndarray | None:
    if c is None:
        return None
    a = np.asarray(c).astype(str)
    if a.shape != (n,):
        raise ValueError(f"{name} must have one cluster id per item ({n}), got shape {a.shape}")
    return a


def _cluster_pair(
    clusters: Any, clusters_unlabeled: Any, n: int, n_unlabelled: int
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Checked cluster ids of the labelled and the unlabelled items (both given, or neither)."""
    cl = _clusters(clusters, n, "clusters")
    clu = _clusters(clusters_unlabeled, n_unlabelled, "clusters_unlabeled")
    if (cl is None) != (clu is None):
        raise ValueError("give clusters for both the labelled and the unlabelled items, or neither")
    return cl, clu


def _check_lam(lam: float | None) -> None:
    if lam is not None and not (isinstance(lam, (int, float)) and math.isfinite(lam)):
        raise ValueError(f"lam must be a finite number or None (power-tuned), got {lam!r}")


def _cluster_sums(
    contrib: np.ndarray, cl: np.ndarray | None, clu: np.ndarray | None
) -> tuple[np.ndarray, int]:
    """Sum item contributions (labelled then unlabelled, possibly a (m, k) matrix) by cluster."""
    if cl is None:
        return contrib, contrib.shape[0]
    ids = np.concatenate([cl, clu])
    _, inv = np.unique(ids, return_inverse=True)
    G = int(inv.max()) + 1
    if contrib.ndim == 1:
        return np.bincount(inv, weights=contrib, minlength=G), G
    return np.stack(
        [np.bincount(inv, weights=contrib[:, k], minlength=G) for k in range(contrib.shape[1])],
        axis=1,
    ), G


def _variance(psi: np.ndarray, cl: np.ndarray | None, clu: np.ndarray | None) -> tuple[float, int]:
    s, G = _cluster_sums(psi, cl, clu)
    v = float(np.sum(s**2))
    if cl is not None:
        if G < 2:
            return math.nan, G
        v *= G / (G - 1)
    return v, G


def _check_interval(interval: str) -> None:
    if interval not in ("t", "normal"):
        raise ValueError(
            f"interval must be 't' (small-sample, default) or 'normal' (ppi-python's), "
            f"got {interval!r}"
        )


def _quantile(confidence_level: float, df: float) -> float:
    """Two-sided quantile: normal when ``df`` is infinite, else Student t with ``df``."""
    p = 0.5 + _level(confidence_level) / 2
    return float(ndtri(p)) if not math.isfinite(df) else float(stdtrit(df, p))


def _spread(
    psi: np.ndarray,
    parts: np.ndarray,
    losses: dict[int, int],
    cl: np.ndarray | None,
    clu: np.ndarray | None,
    interval: str,
) -> tuple[float, float, int]:
    """Variance, degrees of freedom and number of clusters of a sum of item contributions.

    ``interval="normal"``: the plain (cluster-)summed variance of :func:`_variance` (ppi-python's
    convention, ddof 0) with infinite degrees of freedom.

    ``interval="t"``: the contributions fall into independent *samples* ``k`` (labelled,
    unlabelled; per stratum for stratified PPI), sample ``k`` with ``G_k`` clusters (items when
    unclustered) and ``d_k`` estimated parameters (1 for a mean; 2 when ``lam`` is tuned on the
    same labels, as for a regression estimator — Cochran 1977, Sec. 7.3). Each sample's
    contributions are scaled by ``sqrt(G_k/(G_k - d_k))`` (the unbiased ``n - 1`` divisor for a
    mean; CR1 for clusters, Cameron & Miller 2015, Sec. VI) before cluster-summing, and the
    degrees of freedom are Satterthwaite's (1946)::

        df = (sum_k V_k)^2 / sum_k V_k^2 / (G_k - d_k)

    with ``V_k`` sample ``k``'s corrected variance. For the classical mean this is the textbook
    ``t_{n-1}`` interval with ``s^2/n``.
    """
    if interval == "normal":
        var, G = _variance(psi, cl, clu)
        return var, math.inf, G
    if cl is None:
        inv = np.arange(psi.size)
    else:
        _, inv = np.unique(np.concatenate([cl, clu]), return_inverse=True)
    G = int(inv.max()) + 1 if inv.size else 0
    scaled = psi.astype(float).copy()
    comps: list[tuple[float, int]] = []
    for k, loss in losses.items():
        m = parts == k
        if not m.any():
            continue
        Gk = int(np.count_nonzero(np.bincount(inv[m])))
        d = min(loss, Gk - 1)
        if d > 0:
            scaled[m] *= math.sqrt(Gk / (Gk - d))
        vk = float(np.sum(np.bincount(inv[m], weights=scaled[m]) ** 2))
        comps.append((vk, max(Gk - d, 1)))
    var = float(np.sum(np.bincount(inv, weights=scaled, minlength=G) ** 2))
    if cl is not None and G < 2:
        return math.nan, math.nan, G
    den = sum(v * v / dfk for v, dfk in comps if v > 0)
    df = sum(v for v, _ in comps) ** 2 / den if den > 0 else math.inf
    return var, df, G


def _method_suffix(interval: str, df: float) -> str:
    if interval == "normal":
        return ", normal"
    return ", small-sample t" + (f" (df {df:.1f})" if math.isfinite(df) else " (df inf)")


class _Design(NamedTuple):
    """What a PPI interval is built from besides the contributions (see :func:`_design`)."""

    n: int
    n_unlabelled: int | None
    cl: np.ndarray | None
    clu: np.ndarray | None
    confidence_level: float
    interval: str


def _design(
    n: int,
    n_unlabelled: int,
    clusters: Any,
    clusters_unlabeled: Any,
    confidence_level: float,
    interval: str,
) -> _Design:
    """The sizes, checked cluster ids (:func:`_cluster_pair`) and interval settings."""
    cl, clu = _cluster_pair(clusters, clusters_unlabeled, n, n_unlabelled)
    return _Design(n, n_unlabelled, cl, clu, confidence_level, interval)


def _estimate(
    name: str,
    method: str,
    est: float,
    spread: tuple[float, float, int],
    d: _Design,
    var_classical: float | None = None,
    **extra: Any,
) -> Estimate:
    """The :class:`Estimate` ``est -/+ q sqrt(Var)`` of a PPI estimator.

    ``spread`` is ``(Var, df, G)`` of :func:`_spread`; ``q`` is :func:`_quantile` at ``df`` and
    ``d.confidence_level``; the method reads ``method[, cluster-robust]`` and
    :func:`_method_suffix`. ``extra`` holds ``df``, ``interval``, the given ``extra``,
    ``n_labelled`` and ``n_unlabelled`` (when ``d.n_unlabelled`` is not None), ``n_clusters``
    (None unclustered) and, when ``var_classical`` is given, it and
    ``effective_n = n Var_classical / Var``.
    """
    n, interval, clustered = d.n, d.interval, d.cl is not None
    var, df, G = spread
    se = math.sqrt(var) if np.isfinite(var) else math.nan
    z = _quantile(d.confidence_level, df) if np.isfinite(var) else math.nan
    info: dict[str, Any] = {"df": df, "interval": interval, **extra}
    if d.n_unlabelled is not None:
        info.update(n_labelled=n, n_unlabelled=d.n_unlabelled)
    info["n_clusters"] = G if clustered else None
    if var_classical is not None:
        info["var_classical"] = var_classical
        info["effective_n"] = n * var_classical / var if var > 0 else math.nan
    return Estimate(
        name=name,
        estimate=float(est),
        se=se,
        ci_low=est - z * se,
        ci_high=est + z * se,
        ci_method=method + (", cluster-robust" if clustered else "") + _method_suffix(interval, df),
        level=_level(d.confidence_level),
        n=n,
        extra=info,
    )


def _contributions(
    y: np.ndarray, f: np.ndarray, fu: np.ndarray, lam: float, wl: float = 1.0, wu: float = 1.0
) -> np.ndarray:
    """Per-item influence contributions of ``theta_hat(lam)`` (labelled first, then unlabelled)."""
    n, N = y.size, fu.size
    r = y - lam * f
    return np.concatenate([wl * (r - r.mean()) / n, wu * lam * (fu - fu.mean()) / N])


def _check_sets(y: Any, yhat: Any, yhat_unlabeled: Any) -> tuple[np.ndarray, ...]:
    y, f, fu = _vec(y, "y"), _vec(yhat, "yhat"), _vec(yhat_unlabeled, "yhat_unlabeled")
    if f.size != y.size:
        raise ValueError(
            f"yhat must have one prediction per labelled item ({y.size}), got {f.size}"
        )
    if y.size < 2:
        raise ValueError(f"need at least 2 labelled items, got {y.size}")
    if fu.size < 1:
        raise ValueError("need at least 1 unlabelled item (yhat_unlabeled is empty)")
    return y, f, fu


def _renamed(e: Estimate, name: str, **extra: Any) -> Estimate:
    """``e`` under another name, with ``extra`` added (own copies of the dicts)."""
    return replace(e, name=name, excluded=dict(e.excluded), extra={**e.extra, **extra})
