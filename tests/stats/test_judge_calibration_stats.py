"""ECE, Brier score and the calibration test (medjudge.stats.calibration) against independent
computations: a hand loop over bins, scikit-learn's ``calibration_curve``, and the closed-form
truth of simulated judges."""

from __future__ import annotations

import numpy as np
import pytest
from medjudge.stats.calibration import calibration_statistics
from medjudge.stats.resampling import Bootstrap


def _brute_ece(p: np.ndarray, y: np.ndarray, k: int) -> float:
    """ECE by a plain loop: for each bin [b/k, (b+1)/k) (last bin closed), |acc - conf| * n_b/n."""
    total = 0.0
    for b in range(k):
        lo, hi = b / k, (b + 1) / k
        inb = [(pi, yi) for pi, yi in zip(p, y, strict=True)
               if lo <= pi < hi or (b == k - 1 and pi == 1.0)]  # fmt: skip
        if inb:
            conf = sum(pi for pi, _ in inb) / len(inb)
            acc = sum(yi for _, yi in inb) / len(inb)
            total += abs(acc - conf) * len(inb) / len(p)
    return total


def _data(n: int = 300, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.3, 1.0, n)
    y = (rng.random(n) < p**1.5).astype(float)
    return p, y


@pytest.mark.parametrize("k", [5, 10, 15])
def test_ece_and_brier_match_a_hand_loop(k: int) -> None:
    p, y = _data()
    r = calibration_statistics(p, y, n_bins=k, bootstrap=Bootstrap(50))
    assert r["ece"] == pytest.approx(_brute_ece(p, y, k), abs=1e-12)
    assert r["brier"] == pytest.approx(
        sum((a - b) ** 2 for a, b in zip(p, y, strict=True)) / len(p)
    )
    assert r["gap"] == pytest.approx(p.mean() - y.mean())


def test_reliability_bins_match_sklearn_calibration_curve() -> None:
    sk = pytest.importorskip("sklearn.calibration")
    p, y = _data(500, 7)
    r = calibration_statistics(p, y, n_bins=10, bootstrap=Bootstrap(50))
    prob_true, prob_pred = sk.calibration_curve(y, p, n_bins=10, strategy="uniform")
    np.testing.assert_allclose(r["bins"]["observed"], prob_true, atol=1e-12)
    np.testing.assert_allclose(r["bins"]["confidence"], prob_pred, atol=1e-12)
    # ECE from sklearn's bins and the counts per bin
    counts = np.histogram(p, bins=np.linspace(0, 1, 11))[0]
    counts = counts[counts > 0]
    ece = float(np.sum(counts / counts.sum() * np.abs(prob_true - prob_pred)))
    assert r["ece"] == pytest.approx(ece, abs=1e-12)


def test_missing_pairs_left_out_and_bad_input_refused() -> None:
    p, y = _data(50)
    p2, y2 = p.copy(), y.copy()
    p2[0], y2[1] = np.nan, np.nan
    r = calibration_statistics(p2, y2, bootstrap=Bootstrap(20))
    assert r["n"] == 48 and r["excluded"] == 2
    assert r["ece"] == pytest.approx(_brute_ece(p[2:], y[2:], 10), abs=1e-12)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        calibration_statistics(np.array([0.5, 1.2]), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="no item"):
        calibration_statistics(np.array([np.nan]), np.array([1.0]))


def test_calibrated_not_flagged_overconfident_flagged() -> None:
    rng = np.random.default_rng(11)
    c = rng.uniform(0.5, 1.0, 400)
    y = (rng.random(400) < c).astype(float)
    cal = calibration_statistics(c, y, bootstrap=Bootstrap(400))
    c2 = rng.uniform(0.5, 0.85, 400)
    y2 = (rng.random(400) < c2).astype(float)
    over = calibration_statistics(c2 + 0.15, y2, bootstrap=Bootstrap(400))
    assert cal["p_value"] > 0.05 and over["p_value"] < 0.01
    assert over["gap_low"] > 0 and over["ece_low"] < 0.15 < over["ece_high"]
    # the null ECE is the plug-in bias of a calibrated judge: close to its observed ECE
    assert abs(cal["ece"] - cal["ece_null"]) < 0.03


def test_clusters_widen_the_interval_not_the_estimate() -> None:
    p, y = _data(400, 5)
    cl = np.repeat(np.arange(100), 4)
    a = calibration_statistics(p, y, bootstrap=Bootstrap(200))
    b = calibration_statistics(p, y, clusters=cl, bootstrap=Bootstrap(200))
    assert a["ece"] == b["ece"] and b["n_clusters"] == 100
    assert "cluster bootstrap" in b["ci_method"] and "cluster" not in a["ci_method"]
