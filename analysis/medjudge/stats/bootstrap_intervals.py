"""Bootstrap confidence limits from replicates: percentile, basic and BCa (Efron 1987), and
:func:`weighted_bootstrap`, which evaluates a statistic on the replicates of a
:class:`~medjudge.stats.resampling.ResamplePlan` (re-exported by :mod:`medjudge.stats.resampling`).

Examples
--------
>>> import numpy as np
>>> lo, hi = bootstrap_interval(0.5, np.linspace(0, 1, 101), method="percentile")
>>> round(float(lo), 3), round(float(hi), 3)
(0.025, 0.975)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from scipy.special import ndtr, ndtri


def _quantile_rows(
    sorted_boot: np.ndarray, probs: np.ndarray, n: np.ndarray | None = None
) -> np.ndarray:
    """Linear-interpolated quantiles of each column of sorted ``boot`` at per-column probabilities,
    within the first ``n`` rows of each column (the non-NaN prefix; default: all rows)."""
    b = sorted_boot.shape[0] if n is None else np.maximum(n, 1)
    pos = np.clip(probs, 0.0, 1.0) * (b - 1)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, b - 1)
    frac = pos - lo
    take_lo = np.take_along_axis(sorted_boot, lo[None, ...], axis=0)[0]
    take_hi = np.take_along_axis(sorted_boot, hi[None, ...], axis=0)[0]
    return take_lo + frac * (take_hi - take_lo)


def bootstrap_interval(
    theta_hat: np.ndarray | float,
    boot: np.ndarray,
    *,
    confidence_level: float = 0.95,
    method: Literal["percentile", "basic", "bca"] = "bca",
    jack: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap confidence limits for every statistic in the trailing shape of ``boot``.

    Parameters
    ----------
    theta_hat : the statistic on the full data, shape ``S`` (any shape, or scalar).
    boot : bootstrap replicates, shape ``(B, *S)``. NaN replicates (e.g. a coefficient that is
        undefined in a degenerate resample) are ignored per statistic.
    method : ``percentile`` (quantiles of ``boot``), ``basic`` (``2 theta - quantiles``) or
        ``bca``: bias-corrected and accelerated (Efron 1987), with
        ``z0 = Phi^-1(#{boot < theta} + #{boot == theta}/2) / B)`` and
        ``a = sum(d^3) / (6 (sum d^2)^1.5)``, ``d = mean(jack) - jack``; the limits are the
        ``Phi(z0 + (z0 + z_q) / (1 - a (z0 + z_q)))`` quantiles of ``boot``.
    jack : jackknife (leave-one-cluster-out) values of the statistic, shape ``(G, *S)``;
        required for BCa.

    Returns
    -------
    (low, high), each of shape ``S``.
    """
    boot = np.asarray(boot)
    if boot.dtype not in (np.float32, np.float64):
        boot = boot.astype(np.float64)  # float32 replicates are kept: half the memory, faster sort
    theta = np.asarray(theta_hat, dtype=float)
    alpha = (1.0 - confidence_level) / 2.0
    with np.errstate(invalid="ignore"):
        nan_mask = np.isnan(boot)
    has_nan = bool(nan_mask.any())
    sorted_boot = np.sort(boot, axis=0)  # NaN sort to the end
    n_valid = (~nan_mask).sum(axis=0)

    def quant(p: np.ndarray) -> np.ndarray:
        p = np.broadcast_to(np.asarray(p, dtype=float), theta.shape)
        if not has_nan:
            return _quantile_rows(sorted_boot, p)
        # interpolate within the valid prefix of each column
        return np.where(n_valid > 0, _quantile_rows(sorted_boot, p, n_valid), np.nan)

    if method == "percentile":
        return quant(np.full(theta.shape, alpha)), quant(np.full(theta.shape, 1 - alpha))
    if method == "basic":
        lo_q, hi_q = quant(np.full(theta.shape, alpha)), quant(np.full(theta.shape, 1 - alpha))
        return 2 * theta - hi_q, 2 * theta - lo_q
    if method != "bca":
        raise ValueError(f"unknown interval method {method!r}")
    if jack is None:
        raise ValueError("BCa needs jackknife values (jack=)")
    jack = np.asarray(jack, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        below = np.nansum(boot < theta, axis=0) + 0.5 * np.nansum(boot == theta, axis=0)
        prop = below / np.maximum(n_valid, 1)
        z0 = ndtri(prop)
        d = np.nanmean(jack, axis=0) - jack
        num = np.nansum(d**3, axis=0)
        den = 6.0 * np.nansum(d**2, axis=0) ** 1.5
        acc = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        z = ndtri(np.array([alpha, 1 - alpha]))
        out = []
        for zq in z:
            p = ndtr(z0 + (z0 + zq) / (1 - acc * (z0 + zq)))
            # degenerate bootstrap distribution (all replicates equal theta): fall back to percentile
            p = np.where(np.isfinite(p), p, alpha if zq < 0 else 1 - alpha)
            out.append(quant(p))
    return out[0], out[1]


def bootstrap_se(boot: np.ndarray) -> np.ndarray:
    """Bootstrap standard error (ddof=1), ignoring NaN replicates."""
    return np.nanstd(np.asarray(boot, dtype=float), axis=0, ddof=1)


def weighted_bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    plan: Any,  # a medjudge.stats.resampling.ResamplePlan (not imported: no circle)
    *,
    confidence_level: float = 0.95,
    method: Literal["percentile", "basic", "bca"] = "bca",
) -> dict[str, np.ndarray]:
    """Run ``statistic(weights)`` on the full data, every resample and every jackknife.

    ``statistic`` takes a weight array of shape ``(k, n_items)`` and returns shape ``(k, *S)``;
    it is called on the full data (``k=1``), then on blocks of rows of the bootstrap and
    jackknife weights (:meth:`ResamplePlan.apply`, :meth:`ResamplePlan.jackknife_apply`). Returns a dict with
    ``estimate``, ``boot``, ``jack``, ``se``, ``low``, ``high``.
    """
    full = np.asarray(statistic(np.ones((1, plan.n_items))))[0]
    boot = plan.apply(statistic)
    jack = plan.jackknife_apply(statistic) if method == "bca" else None
    low, high = bootstrap_interval(
        full, boot, confidence_level=confidence_level, method=method, jack=jack
    )
    return {
        "estimate": full,
        "boot": boot,
        "jack": jack,
        "se": bootstrap_se(boot),
        "low": low,
        "high": high,
    }
