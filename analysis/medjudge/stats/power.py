"""Planning: detectable differences between judges and items needed for a target precision.

- Two judges on the same items (McNemar): with discordance ``psi = p10 + p01`` (share of items
  on which exactly one judge is right) and accuracy difference ``delta = p10 - p01``, the
  number of items for power ``1 - beta`` at two-sided level ``alpha`` is (Connor 1987,
  "Sample size for testing differences in proportions for the paired-sample design",
  Biometrics 43:207-211)::

      n = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2

  :func:`minimum_detectable_difference` inverts it for ``delta`` given ``n`` and ``psi`` (the
  observed discordance of two judges, :func:`mde_for_pair`).
- Accuracy: items for a target CI half-width ``h``: Wald ``n = z^2 p(1-p) deff / h^2`` or the
  smallest ``n`` whose Wilson interval has half-width <= ``h``; ``deff`` is the design effect
  of clustering (``1 + (m-1) ICC`` for clusters of size ``m``; Kish 1965).
- Kappa: with two raters, common prevalence ``pi`` and kappa ``k``, the large-sample variance
  is (Bloch & Kraemer 1989, Biometrics 45:269-287, eq. for the intraclass kappa)::

      Var(k_hat) = (1-k)/n [ (1-k)(1-2k) + k(2-k) / (2 pi (1-pi)) ]

  so ``n = z^2 n Var / h^2``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.special import ndtr, ndtri

from medjudge.stats.intervals import wilson_interval, z_value

__all__ = [
    "mcnemar_sample_size",
    "mcnemar_power",
    "minimum_detectable_difference",
    "mde_for_pair",
    "items_for_accuracy_halfwidth",
    "kappa_variance",
    "items_for_kappa_halfwidth",
]


def _za(alpha: float) -> float:
    return float(ndtri(1 - alpha / 2))


#: the test and formula of :func:`mcnemar_sample_size`
MCNEMAR_SAMPLE_SIZE_METHOD = "McNemar, Connor 1987"


def mcnemar_sample_size(delta, discordance, alpha: float = 0.05, power: float = 0.8) -> np.ndarray:
    """Items needed to detect an accuracy difference ``delta`` with McNemar's test (Connor 1987).

    ``discordance`` = ``psi = p10 + p01`` must be ``>= |delta|``. Rounded up to an integer.
    """
    d = np.abs(np.asarray(delta, dtype=float))
    psi = np.asarray(discordance, dtype=float)
    if np.any(psi < d):
        raise ValueError("discordance (p10 + p01) cannot be smaller than |delta| = |p10 - p01|")
    zb = float(ndtri(power))
    with np.errstate(divide="ignore", invalid="ignore"):
        n = (_za(alpha) * np.sqrt(psi) + zb * np.sqrt(psi - d**2)) ** 2 / d**2
    return np.ceil(n)


def mcnemar_power(n, delta, discordance, alpha: float = 0.05) -> np.ndarray:
    """Approximate power of McNemar's test (Connor 1987 normal approximation)::

    power = Phi((|delta| sqrt(n) - z_{1-alpha/2} sqrt(psi)) / sqrt(psi - delta^2))
    """
    n = np.asarray(n, dtype=float)
    d = np.abs(np.asarray(delta, dtype=float))
    psi = np.asarray(discordance, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (d * np.sqrt(n) - _za(alpha) * np.sqrt(psi)) / np.sqrt(np.maximum(psi - d**2, 1e-300))
    return ndtr(z)


def minimum_detectable_difference(
    n, discordance, alpha: float = 0.05, power: float = 0.8
) -> np.ndarray:
    """Smallest accuracy difference detectable with ``n`` items and discordance ``psi``.

    Solves Connor's (1987) equation ``n delta^2 = (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2``
    for ``delta`` in ``(0, psi]`` by vectorised bisection; NaN when even ``delta = psi`` (every
    discordant item favouring one judge) is not detectable.
    """
    n = np.asarray(n, dtype=float)
    psi = np.asarray(discordance, dtype=float)
    n, psi = np.broadcast_arrays(n, psi)
    za, zb = _za(alpha), float(ndtri(power))

    def f(d: np.ndarray) -> np.ndarray:
        return np.sqrt(n) * d - (za * np.sqrt(psi) + zb * np.sqrt(np.maximum(psi - d**2, 0.0)))

    lo = np.zeros(n.shape)
    hi = psi.astype(float).copy()
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        up = f(mid) < 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    out = 0.5 * (lo + hi)
    return np.where(f(psi) >= 0, out, np.nan)


def mde_for_pair(
    y1: np.ndarray, y2: np.ndarray, alpha: float = 0.05, power: float = 0.8
) -> dict[str, float]:
    """Minimum detectable difference for two judges from their observed discordance.

    ``y1``, ``y2``: 0/1 outcomes on the same items (NaN pairs dropped). Returns ``n``,
    ``discordance``, ``observed_difference`` and ``mde``.
    """
    y1 = np.asarray(y1, dtype=float)
    y2 = np.asarray(y2, dtype=float)
    ok = ~(np.isnan(y1) | np.isnan(y2))
    a, b = y1[ok] > 0.5, y2[ok] > 0.5
    n = int(ok.sum())
    psi = float(np.mean(a != b)) if n else np.nan
    return {
        "n": n,
        "discordance": psi,
        "observed_difference": float(np.mean(a) - np.mean(b)) if n else np.nan,
        "mde": float(minimum_detectable_difference(n, psi, alpha, power)),
    }


def items_for_accuracy_halfwidth(
    accuracy,
    halfwidth,
    confidence_level: float = 0.95,
    design_effect: float = 1.0,
    method: Literal["wilson", "wald"] = "wilson",
) -> np.ndarray:
    """Items needed so that the accuracy interval has half-width ``<= halfwidth``.

    ``wald``: ``ceil(z^2 p (1-p) deff / h^2)``. ``wilson``: the smallest ``n`` (times ``deff``)
    with ``(high - low)/2 <= h`` for the Wilson interval at ``count = p n`` (found by
    vectorised bisection on ``n``; the Wilson width decreases in ``n``).
    """
    p = np.asarray(accuracy, dtype=float)
    h = np.asarray(halfwidth, dtype=float)
    p, h = np.broadcast_arrays(p, h)
    z = z_value(confidence_level)
    wald = np.ceil(z * z * p * (1 - p) / h**2)
    if method == "wald":
        return np.ceil(wald * design_effect)
    lo = np.ones(p.shape)
    hi = np.maximum(wald, 1.0) * 4 + 100
    for _ in range(64):
        mid = np.floor(0.5 * (lo + hi))
        lw, up = wilson_interval(p * mid, mid, confidence_level)
        ok = (up - lw) / 2 <= h
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid + 1)
        if np.all(lo >= hi):
            break
    return np.ceil(hi * design_effect)


def kappa_variance(kappa, prevalence, n=1.0) -> np.ndarray:
    """Large-sample variance of the two-rater kappa (Bloch & Kraemer 1989)."""
    k = np.asarray(kappa, dtype=float)
    pi = np.asarray(prevalence, dtype=float)
    return (
        (1 - k)
        / np.asarray(n, dtype=float)
        * ((1 - k) * (1 - 2 * k) + k * (2 - k) / (2 * pi * (1 - pi)))
    )


def items_for_kappa_halfwidth(
    kappa, prevalence, halfwidth, confidence_level: float = 0.95, design_effect: float = 1.0
) -> np.ndarray:
    """Items needed for a kappa interval of half-width ``<= halfwidth``:
    ``n = z^2 Var_1(kappa) deff / h^2`` with the unit-``n`` variance of :func:`kappa_variance`."""
    z = z_value(confidence_level)
    v1 = kappa_variance(kappa, prevalence, 1.0)
    return np.ceil(z * z * v1 * design_effect / np.asarray(halfwidth, dtype=float) ** 2)
