"""Calibration of a judge's stated confidence: ECE, Brier score, confidence gap and a test.

For items ``i = 1..n`` with stated confidence ``p_i`` in [0, 1] (the judge's probability that
its verdict is right) and correctness ``y_i`` in {0, 1} (verdict equals gold):

* **ECE** (expected calibration error, equal-width bins ``[0, 1/K), …, [(K-1)/K, 1]``;
  Naeini et al. 2015, Guo et al. 2017): ``ECE = Σ_b |Σ_{i in b} (y_i - p_i)| / n``, the
  count-weighted mean of ``|observed accuracy - mean confidence|`` over bins.
* **Brier score** (Brier 1950): ``mean (p_i - y_i)²``.
* **Confidence gap**: ``mean p_i - mean y_i`` (over-confident when positive).
* **Calibration test** (consistency resampling, Bröcker & Smith 2007): under perfect
  calibration ``y_i ~ Bernoulli(p_i)`` independently given ``p_i``; the outcomes are drawn that
  way ``B`` times, the ECE of each draw gives the ECE expected of a calibrated judge with these
  very confidences (``ece_null``, its mean) and the p-value ``(1 + #{ECE* >= ECE}) / (B + 1)``.
  The plug-in ECE is biased upward (a calibrated judge's is above 0 in finite samples), so the
  test, not "the interval covers 0", decides whether the judge is miscalibrated.

ECE, Brier score and gap get cluster-bootstrap percentile intervals (items of one case or image
resampled together) from the project's :class:`~medjudge.stats.resampling.Bootstrap`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .resampling import Bootstrap, as_bootstrap, weighted_bootstrap

__all__ = ["calibration_statistics", "bin_codes"]


def bin_codes(confidence: np.ndarray, n_bins: int) -> np.ndarray:
    """Equal-width bin of each confidence: ``min(floor(p K), K - 1)`` (1.0 in the last bin).

    >>> bin_codes(np.array([0.0, 0.05, 0.1, 0.95, 1.0]), 10).tolist()
    [0, 0, 1, 9, 9]
    """
    return np.minimum((np.asarray(confidence, dtype=float) * n_bins).astype(int), n_bins - 1)


def _ece_rows(resid: np.ndarray, onehot: np.ndarray, w: np.ndarray) -> np.ndarray:
    """ECE under each row of weights ``w`` (k × n): ``Σ_b |Σ_i w_i r_i 1[i in b]| / Σ_i w_i``."""
    return np.abs((w * resid) @ onehot).sum(1) / w.sum(1)


def calibration_statistics(
    confidence: np.ndarray,
    correct: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    n_bins: int = 10,
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
) -> dict[str, object]:
    """ECE, Brier score and confidence gap with intervals, the calibration test, the bins.

    Parameters
    ----------
    confidence : array of float
        Stated confidence per item, in [0, 1]; NaN = none stated (the item is left out).
    correct : array of float
        1 when the verdict is right, 0 when wrong, NaN = no usable verdict (left out).
    clusters : array, optional
        Cluster label per item (items of one case resampled together); None: independent.
    n_bins : int, default 10
        Equal-width confidence bins of the ECE and the reliability table.
    bootstrap : Bootstrap, optional
        Replicates and seed of the cluster bootstrap (percentile intervals) and of the
        consistency resampling of the test (same ``B``, seed ``seed + 1``).
    confidence_level : float, default 0.95

    Returns
    -------
    dict
        ``ece, ece_low, ece_high, brier, brier_low, brier_high, gap, gap_low, gap_high,
        mean_confidence, accuracy, ece_null, p_value, n, n_clusters, excluded, ci_method,
        test`` and ``bins`` (a DataFrame ``bin, bin_low, bin_high, n, confidence, observed``;
        bins without items are left out).

    Raises
    ------
    ValueError
        A confidence outside [0, 1], arrays of different lengths, or no item with both.

    References
    ----------
    Brier, G. W. (1950). Verification of forecasts expressed in terms of probability. Monthly
    Weather Review 78:1-3.
    Naeini, M. P., Cooper, G. & Hauskrecht, M. (2015). Obtaining well calibrated probabilities
    using Bayesian binning. AAAI 2015.
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of modern neural
    networks. ICML 2017.
    Bröcker, J. & Smith, L. A. (2007). Increasing the reliability of reliability diagrams.
    Weather and Forecasting 22:651-661.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.5, 1, 400)
    >>> y = (rng.uniform(size=400) < p).astype(float)
    >>> r = calibration_statistics(p, y, bootstrap=Bootstrap(200))
    >>> r["p_value"] > 0.05, round(r["brier"], 3) == round(float(np.mean((p - y) ** 2)), 3)
    (True, True)
    """
    p = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=float)
    if p.shape != y.shape:
        raise ValueError(f"confidence and correct differ in length ({p.size} vs {y.size})")
    ok = np.isfinite(p) & np.isfinite(y)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise ValueError("confidences must lie in [0, 1]")
    if not ok.any():
        raise ValueError("no item has both a stated confidence and a usable verdict")
    boot = as_bootstrap(bootstrap)
    p, y = p[ok], y[ok]
    cl = None if clusters is None else np.asarray(clusters)[ok]
    n = p.size
    b = bin_codes(p, n_bins)
    onehot = np.zeros((n, n_bins))
    onehot[np.arange(n), b] = 1.0
    resid = y - p
    sq = (p - y) ** 2

    def stats(w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        tot = w.sum(1)
        return np.column_stack([_ece_rows(resid, onehot, w), (w @ sq) / tot, -(w @ resid) / tot])

    plan = boot.plan(n, clusters=cl)
    res = weighted_bootstrap(stats, plan, confidence_level=confidence_level, method="percentile")
    # consistency resampling: outcomes drawn from the stated confidences (the null)
    rng = np.random.default_rng(boot.seed + 1)
    null = np.empty(boot.n_resamples)
    chunk = max(1, 2_000_000 // n)
    for s in range(0, boot.n_resamples, chunk):
        k = min(chunk, boot.n_resamples - s)
        ystar = (rng.random((k, n)) < p).astype(float)
        null[s : s + k] = np.abs((ystar - p) @ onehot).sum(1) / n
    est, low, high = res["estimate"], res["low"], res["high"]
    nb = onehot.sum(0)
    has = nb > 0
    bins = pd.DataFrame(
        {
            "bin": np.arange(n_bins)[has],
            "bin_low": (np.arange(n_bins) / n_bins)[has],
            "bin_high": (np.arange(1, n_bins + 1) / n_bins)[has],
            "n": nb[has].astype(int),
            "confidence": (p @ onehot)[has] / nb[has],
            "observed": (y @ onehot)[has] / nb[has],
        }
    )
    n_cl = n if cl is None else int(pd.unique(cl).size)
    return {
        "ece": float(est[0]), "ece_low": float(low[0]), "ece_high": float(high[0]),
        "brier": float(est[1]), "brier_low": float(low[1]), "brier_high": float(high[1]),
        "gap": float(est[2]), "gap_low": float(low[2]), "gap_high": float(high[2]),
        "mean_confidence": float(p.mean()), "accuracy": float(y.mean()),
        "ece_null": float(null.mean()),
        "p_value": float((1 + (null >= est[0] - 1e-12).sum()) / (boot.n_resamples + 1)),
        "n": int(n), "n_clusters": n_cl, "excluded": int((~ok).sum()),
        "ci_method": (
            f"{'cluster ' if cl is not None else ''}bootstrap percentile "
            f"(B={boot.n_resamples}, seed={boot.seed})"
        ),
        "test": f"consistency resampling of the ECE (Bröcker & Smith 2007; B={boot.n_resamples})",
        "bins": bins,
    }  # fmt: skip
