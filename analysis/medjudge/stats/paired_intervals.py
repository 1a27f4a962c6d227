"""Confidence intervals for the difference of two paired proportions (a paired 2x2 table).

Two judges scored on the same items give a table ``[[n11, n12], [n21, n22]]`` (rows: first
judge right/wrong; columns: second). The difference ``(n12 - n21) / N`` gets a Wald, Newcombe
(hybrid score) or Tango (score) interval, vectorised over any number of tables.

References
----------
- Newcombe R.G. (1998) Improved confidence intervals for the difference between binomial
  proportions based on paired data. Stat Med 17:2635-2650 (method 10).
- Tango T. (1998) Equivalence test and confidence interval for the difference in proportions
  for the paired-sample design. Stat Med 17:891-908.
- Fagerland M.W., Lydersen S., Laake P. (2017) Statistical Analysis of Contingency Tables,
  chapter 8 (the paired 2x2 table; reference values used in the tests).
- Durkalski V.L., Palesch Y.Y., Lipsitz S.R., Rust P.F. (2003) Analysis of clustered
  matched-pair data. Stat Med 22:2417-2428 (the clustered McNemar statistic inverted by
  :func:`clustered_score_interval`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from medjudge.stats.intervals import by_name, wilson_interval, z_value
from medjudge.stats.results import Estimate

from .._validation import CONFIDENCE_LEVEL, check_choice

PairedMethod = Literal["tango", "newcombe", "wald"]

__all__ = [
    "PairedMethod",
    "paired_table",
    "newcombe_paired_interval",
    "tango_paired_interval",
    "wald_paired_interval",
    "paired_difference_interval",
    "paired_difference_ci",
    "clustered_score_interval",
]


# ----------------------------------------------------------------------------------------------
# paired difference of proportions
# ----------------------------------------------------------------------------------------------
def paired_table(y1: np.ndarray, y2: np.ndarray) -> np.ndarray:
    """2x2 paired table ``[[n11, n12], [n21, n22]]`` of two binary vectors (1 = success).

    ``n12`` counts items where the first is a success and the second not (McNemar's *b*).
    Rows with NaN in either vector are dropped.
    """
    y1 = np.asarray(y1, dtype=float)
    y2 = np.asarray(y2, dtype=float)
    ok = ~(np.isnan(y1) | np.isnan(y2))
    a, b = y1[ok] > 0.5, y2[ok] > 0.5
    return np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]])


def _unpack(n11, n12, n21, n22):
    return tuple(np.asarray(v, dtype=float) for v in (n11, n12, n21, n22))


def wald_paired_interval(
    n11, n12, n21, n22, confidence_level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wald interval for ``delta = p1+ - p+1 = (n12 - n21)/N``:
    ``SE = sqrt((n12 + n21) - (n12 - n21)^2/N) / N`` (Agresti 2013, sec. 11.1)."""
    n11, n12, n21, n22 = _unpack(n11, n12, n21, n22)
    n = n11 + n12 + n21 + n22
    z = z_value(confidence_level)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = (n12 - n21) / n
        se = np.sqrt(np.maximum((n12 + n21) - (n12 - n21) ** 2 / n, 0.0)) / n
    return d - z * se, d + z * se


def newcombe_paired_interval(
    n11, n12, n21, n22, confidence_level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe (1998, method 10) hybrid-score ('square-and-add') interval for a paired difference.

    With Wilson limits ``(l1, u1)`` for ``p1 = (n11+n12)/N`` and ``(l2, u2)`` for
    ``p2 = (n11+n21)/N``, and the continuity-corrected correlation ``phi`` of the table
    (``A = n11 n22 - n12 n21``; ``phi = (A - N/2)/sqrt(r1 r2 c1 c2)`` if ``A > N/2``, 0 if
    ``0 <= A <= N/2``, ``A/sqrt(r1 r2 c1 c2)`` if ``A < 0``; 0 when a margin is empty)::

        L = d - sqrt((p1-l1)^2 - 2 phi (p1-l1)(u2-p2) + (u2-p2)^2)
        U = d + sqrt((u1-p1)^2 - 2 phi (u1-p1)(p2-l2) + (p2-l2)^2)
    """
    n11, n12, n21, n22 = _unpack(n11, n12, n21, n22)
    n = n11 + n12 + n21 + n22
    r1, r2, c1, c2 = n11 + n12, n21 + n22, n11 + n21, n12 + n22
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = r1 / n, c1 / n
        l1, u1 = wilson_interval(r1, n, confidence_level)
        l2, u2 = wilson_interval(c1, n, confidence_level)
        prod = r1 * r2 * c1 * c2
        a = n11 * n22 - n12 * n21
        root = np.sqrt(np.where(prod > 0, prod, 1.0))
        phi = np.where(a > n / 2, (a - n / 2) / root, np.where(a >= 0, 0.0, a / root))
        phi = np.where(prod > 0, phi, 0.0)
        d = p1 - p2
        lo = d - np.sqrt(
            np.maximum((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0)
        )
        hi = d + np.sqrt(
            np.maximum((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0)
        )
    return np.clip(lo, -1, 1), np.clip(hi, -1, 1)


def _tango_statistic(
    delta: np.ndarray, n12: np.ndarray, n21: np.ndarray, n: np.ndarray
) -> np.ndarray:
    """Tango's score statistic ``T(delta)`` with the restricted MLE of ``p21``."""
    a = 2 * n
    b = -n12 - n21 + (2 * n - n12 + n21) * delta
    c = -n21 * delta * (1 - delta)
    with np.errstate(
        invalid="ignore", divide="ignore"
    ):  # empty tables (n = 0) give NaN, masked later
        p21 = (np.sqrt(np.maximum(b * b - 4 * a * c, 0.0)) - b) / (2 * a)
        var = n * (2 * p21 + delta * (1 - delta))
        return (n12 - n21 - n * delta) / np.sqrt(np.maximum(var, 1e-300))


def tango_paired_interval(
    n11, n12, n21, n22, confidence_level: float = 0.95, tol: float = 1e-10
) -> tuple[np.ndarray, np.ndarray]:
    """Tango (1998) asymptotic score interval for ``delta = (n12 - n21)/N``.

    The limits are the roots in ``delta`` of ``T(delta) = +-z`` where::

        T(delta) = (n12 - n21 - N delta) / sqrt(N (2 p21~ + delta (1 - delta)))

    and ``p21~`` is the MLE of ``p21`` under ``p12 - p21 = delta``:
    ``p21~ = (sqrt(B^2 - 4AC) - B) / 2A``, ``A = 2N``, ``B = -n12 - n21 + (2N - n12 + n21) delta``,
    ``C = -n21 delta (1 - delta)``. ``T`` decreases in ``delta``; roots are found by vectorised
    bisection (all tables at once). Fagerland et al. (2014, Stat Methods Med Res) recommend it
    with Newcombe's hybrid score interval for paired differences.
    """
    n11, n12, n21, n22 = _unpack(n11, n12, n21, n22)
    n12, n21, n11, n22 = np.broadcast_arrays(n12, n21, n11, n22)
    n = n11 + n12 + n21 + n22
    z = z_value(confidence_level)
    est = np.where(n > 0, (n12 - n21) / np.where(n > 0, n, 1), np.nan)

    def root(target: float) -> np.ndarray:
        lo = np.full(n.shape, -1.0 + 1e-12)
        hi = np.full(n.shape, 1.0 - 1e-12)
        for _ in range(int(np.ceil(np.log2(2.0 / tol)))):
            mid = 0.5 * (lo + hi)
            f = _tango_statistic(mid, n12, n21, n) - target
            # T decreasing: f > 0 means the root lies above mid
            lo = np.where(f > 0, mid, lo)
            hi = np.where(f > 0, hi, mid)
        return 0.5 * (lo + hi)

    low = np.where(est <= -1, -1.0, root(z))
    high = np.where(est >= 1, 1.0, root(-z))
    bad = ~(n > 0)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


_PAIRED = {
    "tango": tango_paired_interval,
    "newcombe": newcombe_paired_interval,
    "wald": wald_paired_interval,
}


def paired_difference_interval(
    n11, n12, n21, n22, confidence_level: float = 0.95, method: PairedMethod = "tango"
) -> tuple[np.ndarray, np.ndarray]:
    """Interval for a paired difference of proportions by name (default Tango's score interval)."""
    return by_name(_PAIRED, method, "paired interval")(n11, n12, n21, n22, confidence_level)


def paired_difference_ci(
    table: np.ndarray,
    confidence_level: float = 0.95,
    method: PairedMethod = "tango",
    name: str = "accuracy_difference",
) -> Estimate:
    """Paired difference ``p1 - p2 = (n12 - n21)/N`` of a 2x2 paired table as an :class:`Estimate`.

    ``table = [[n11, n12], [n21, n22]]``, rows = first rater/judge (success, failure), columns =
    second. SE is the Wald SE; the interval is the chosen (score) method.

    Parameters
    ----------
    table : array_like, shape (2, 2)
        Paired counts (non-negative).
    confidence_level : float, default 0.95
    method : str, default "tango"
        ``"tango"`` (score interval, Tango 1998), ``"newcombe"`` (hybrid score, Newcombe 1998)
        or ``"wald"``.
    name : str

    Returns
    -------
    Estimate
        ``extra`` holds the four cell counts.

    References
    ----------
    Tango, T. (1998). Equivalence test and confidence interval for the difference in proportions
    for the paired-sample design. Statistics in Medicine 17:891-908.
    Newcombe, R. G. (1998). Improved confidence intervals for the difference between binomial
    proportions based on paired data. Statistics in Medicine 17:2635-2650.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> e = mj.paired_difference_ci(np.array([[40, 12], [5, 43]]))
    >>> round(e.estimate, 2), round(e.ci_low, 3), round(e.ci_high, 3)
    (0.07, -0.012, 0.157)
    """

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    check_choice("method", method, tuple(sorted(_PAIRED)))
    try:
        t = np.asarray(table, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"table: {table!r} is not allowed (a 2x2 table of counts)") from None
    if t.shape != (2, 2) or not np.isfinite(t).all() or (t < 0).any():
        raise ValueError(
            f"table: a {'x'.join(map(str, t.shape)) or 'scalar'} array is not allowed "
            "(a 2x2 table of non-negative counts)"
        )
    (n11, n12), (n21, n22) = t
    n = t.sum()
    lo, hi = paired_difference_interval(n11, n12, n21, n22, level, method)
    d = (n12 - n21) / n
    se = np.sqrt(max((n12 + n21) - (n12 - n21) ** 2 / n, 0.0)) / n
    return Estimate(
        name,
        float(d),
        float(se),
        float(lo),
        float(hi),
        method,
        level,
        int(n),
        extra={"n11": int(n11), "n12": int(n12), "n21": int(n21), "n22": int(n22)},
    )


# ----------------------------------------------------------------------------------------------
# clustered paired difference: the inverted clustered McNemar (Durkalski) score test
# ----------------------------------------------------------------------------------------------
def clustered_score_interval(
    s: np.ndarray, n: np.ndarray, confidence_level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Interval for a clustered paired difference that inverts the clustered McNemar test.

    With ``s_c`` the sum of paired differences (first minus second, over the items both
    judges answered) in cluster ``c`` and ``n_c`` the number of those items, the difference
    is ``d = S/N`` (``S = sum s_c``, ``N = sum n_c``). The hypothesis ``delta`` is tested with
    Durkalski et al.'s (2003) statistic applied to the shifted differences::

        X²(delta) = (S - N delta)^2 / sum_c (s_c - n_c delta)^2   ~ chi²_1

    (at ``delta = 0`` this *is* the clustered McNemar statistic), and the interval is
    ``{delta : X²(delta) <= q}``, ``q = chi²_{1, level}``: the ``delta`` with
    ``a delta² + b delta + c <= 0``, ``a = N² - q sum n_c²``, ``b = -2 (S N - q sum s_c n_c)``,
    ``c = S² - q sum s_c²``. So the interval excludes 0 exactly when the clustered McNemar
    p-value is below ``1 - level``: test and interval come from one reference distribution.
    The estimate ``d`` is always inside (``X²(d) = 0``). When ``a <= 0`` (so few or so
    unequal clusters that ``N² / sum n_c² <= q``) the set is unbounded: the connected part
    holding ``d`` is returned, clipped to ``[-1, 1]`` (``[-1, 1]`` itself when it also
    holds 0).

    Parameters
    ----------
    s, n : ndarray, shape (G, ...)
        Per-cluster sums of differences and counts of common items (any trailing shape: one
        column per pair).
    confidence_level : float

    Returns
    -------
    low, high : ndarrays with the trailing shape (NaN where ``N = 0``).

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([2.0, 1, 0, 3, -1, 2, 1, 0])
    >>> n = np.array([5.0, 4, 3, 6, 4, 5, 3, 2])
    >>> lo, hi = clustered_score_interval(s, n)
    >>> round(float(lo), 4), round(float(hi), 4)
    (-0.0571, 0.4623)
    """
    from scipy.special import chdtri

    s = np.asarray(s, dtype=float)
    n = np.asarray(n, dtype=float)
    q = float(chdtri(1, 1.0 - confidence_level))  # chi2(1) upper quantile
    big_s, big_n = s.sum(0), n.sum(0)
    a = big_n**2 - q * (n**2).sum(0)
    b = -2.0 * (big_s * big_n - q * (s * n).sum(0))
    c = big_s**2 - q * (s**2).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = big_s / big_n
        disc = np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))
        r1 = (-b - disc) / (2 * a)
        r2 = (-b + disc) / (2 * a)
        r_lo, r_hi = np.minimum(r1, r2), np.maximum(r1, r2)
        bounded = a > 0
        # a <= 0: the set is the outside of [r_lo, r_hi] (or everything); keep d's part
        zero_in = c <= 0
        lo = np.where(bounded, r_lo, np.where(zero_in | (d <= r_lo), -1.0, r_hi))
        hi = np.where(bounded, r_hi, np.where(zero_in | (d >= r_hi), 1.0, r_lo))
        lin = np.abs(a) < 1e-12 * np.maximum(big_n**2, 1.0)  # a = 0: b delta + c <= 0
        root = -c / b
        lo = np.where(lin & ~zero_in, np.where(d >= root, root, -1.0), lo)
        hi = np.where(lin & ~zero_in, np.where(d >= root, 1.0, root), hi)
    lo = np.clip(np.minimum(lo, d), -1.0, 1.0)
    hi = np.clip(np.maximum(hi, d), -1.0, 1.0)
    bad = ~(big_n > 0)
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)
