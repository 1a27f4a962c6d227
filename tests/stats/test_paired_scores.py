"""Paired score comparisons of two judges (issue 37, item 6), checked by brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from medjudge.stats.score_tests import invert_sign_flip, paired_score_difference, wilcoxon
from scipy import stats


def _data(g=10, seed=1):
    rng = np.random.default_rng(seed)
    cl = np.repeat(np.arange(g), rng.integers(2, 5, g))
    gold = rng.integers(1, 6, cl.size).astype(float)
    a = gold + rng.choice([-1.0, 0.0, 1.0], cl.size)
    b = gold + rng.choice([-2.0, 0.0, 0.0, 2.0], cl.size)
    return a, b, gold, cl


def _enumerated_p(d, cl, theta0=0.0):
    labels = np.unique(cl)
    s = np.array([(d[cl == c] - theta0).sum() for c in labels])
    t = abs(s.sum())
    return np.mean(
        [abs(np.dot(e, s)) >= t - 1e-9 for e in itertools.product((1, -1), repeat=s.size)]
    )


@pytest.mark.parametrize("metric", ["mae", "bias"])
def test_mean_metrics_are_the_exact_cluster_sign_flip_and_its_inversion(metric):
    a, b, gold, cl = _data()
    r = paired_score_difference(a, b, gold, metric=metric, clusters=cl)
    ea, eb = (np.abs(a - gold), np.abs(b - gold)) if metric == "mae" else (a - gold, b - gold)
    d = ea - eb
    assert r["difference"] == pytest.approx(d.mean(), rel=1e-12)
    assert (r["estimate_a"], r["estimate_b"]) == pytest.approx((ea.mean(), eb.mean()))
    assert r["p_value"] == pytest.approx(_enumerated_p(d, cl), abs=1e-12)
    assert r["n_clusters"] == 10 and "exact" in r["method"]
    for lim, inward in ((r["ci_low"], 1), (r["ci_high"], -1)):
        if np.isfinite(lim):
            assert _enumerated_p(d, cl, lim + inward * 1e-6) > 0.05
            assert _enumerated_p(d, cl, lim - inward * 1e-3) <= 0.05
    assert (r["p_value"] <= 0.05) == (not r["ci_low"] <= 0 <= r["ci_high"])


@pytest.mark.parametrize("metric", ["rmse", "ccc"])
def test_rmse_and_ccc_use_the_cluster_jackknife(metric):
    a, b, gold, cl = _data(g=25, seed=3)

    def value(x, y):
        if metric == "rmse":
            return math.sqrt(np.mean((x - y) ** 2))
        sxy = np.mean((x - x.mean()) * (y - y.mean()))
        return 2 * sxy / (x.var() + y.var() + (x.mean() - y.mean()) ** 2)

    r = paired_score_difference(a, b, gold, metric=metric, clusters=cl)
    full = value(a, gold) - value(b, gold)
    loo = np.array([value(a[cl != c], gold[cl != c]) - value(b[cl != c], gold[cl != c])
                    for c in np.unique(cl)])  # fmt: skip
    g = loo.size
    se = math.sqrt((g - 1) / g * ((loo - loo.mean()) ** 2).sum())
    q = stats.t.ppf(0.975, g - 1)
    assert r["difference"] == pytest.approx(full, rel=1e-10)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((full - q * se, full + q * se), rel=1e-9)
    assert r["p_value"] == pytest.approx(2 * stats.t.sf(abs(full) / se, g - 1), rel=1e-9)


def test_missing_scores_are_left_out_and_bad_metric_is_one_line():
    a, b, gold, cl = _data()
    a[0] = np.nan
    r = paired_score_difference(a, b, gold, clusters=cl)
    assert r["n"] == cl.size - 1
    with pytest.raises(ValueError, match="metric"):
        paired_score_difference(a, b, gold, metric="mse")


def test_invert_sign_flip_without_rejectable_values_is_the_whole_range():
    r = invert_sign_flip(np.array([1.0, 2.0, -0.5]), np.ones(3))
    assert (r["ci_low"], r["ci_high"]) == (-np.inf, np.inf) and r["p_value"] == 0.5


def test_wilcoxon_docstring_says_what_it_tests():
    assert "symmetric about 0" in wilcoxon.__doc__ and "not a test of equal MAE" in wilcoxon.__doc__
