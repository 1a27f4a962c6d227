"""Analytic intervals: published values first, independent implementations second, properties third."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from medjudge.stats.intervals import (
    clopper_pearson_interval,
    clustered_mean_se,
    jeffreys_interval,
    mean_ci,
    wilson_interval,
)
from medjudge.stats.paired_intervals import (
    newcombe_paired_interval,
    paired_difference_ci,
    paired_table,
    tango_paired_interval,
    wald_paired_interval,
)
from statsmodels.stats.proportion import proportion_confint

# Fagerland, Lydersen & Laake (2017) "Statistical Analysis of Contingency Tables", ch. 8:
# complete response before/after consolidation therapy (Cavo et al. 2012), the paired table
# [[59, 6], [16, 80]]; delta = (6 - 16)/161 = -0.0621. The 95% intervals printed by the
# authors' R package `contingencytables` (tests/testthat/test-ch8.R):
CAVO = (59, 6, 16, 80)


def test_newcombe_published_cavo():
    lo, hi = newcombe_paired_interval(*CAVO)
    assert round(float(lo), 4) == -0.1186 and round(float(hi), 4) == -0.0046


def test_tango_published_cavo():
    lo, hi = tango_paired_interval(*CAVO)
    assert round(float(lo), 4) == -0.1240 and round(float(hi), 4) == -0.0054


def test_wald_paired_published_cavo():
    lo, hi = wald_paired_interval(*CAVO)
    assert round(float(lo), 4) == -0.1184 and round(float(hi), 4) == -0.0058


def test_agresti_presidential_approval_wald():
    # Agresti (2013) Categorical Data Analysis 3rd ed., sec. 11.1: approval of the President
    # in two surveys of the same 1600 people, [[794, 150], [86, 570]]: difference of
    # proportions 0.59 - 0.55 = 0.04, SE 0.0095, 95% CI (0.02, 0.06).
    e = paired_difference_ci(np.array([[794, 150], [86, 570]]), method="wald")
    assert e.estimate == pytest.approx(0.04)
    assert e.se == pytest.approx(0.0095, abs=5e-5)
    assert (round(e.ci_low, 2), round(e.ci_high, 2)) == (0.02, 0.06)
    # the score intervals nearly coincide with Wald at n = 1600
    for m in ("tango", "newcombe"):
        e2 = paired_difference_ci(np.array([[794, 150], [86, 570]]), method=m)
        assert e2.ci_low == pytest.approx(e.ci_low, abs=0.002)
        assert e2.ci_high == pytest.approx(e.ci_high, abs=0.002)


@pytest.mark.parametrize("n", [1, 7, 30, 1026])
def test_wilson_and_cp_match_statsmodels(n):
    x = np.arange(n + 1)
    for ours, name in (
        (wilson_interval, "wilson"),
        (clopper_pearson_interval, "beta"),
        (jeffreys_interval, "jeffreys"),
    ):
        if name == "jeffreys":
            # Brown, Cai & DasGupta (2001) set the Jeffreys limit to 0 (1) at x = 0 (n);
            # statsmodels does not, so compare the interior only
            x = np.arange(1, n)
        lo, hi = ours(x, n)
        slo, shi = proportion_confint(x, n, alpha=0.05, method=name)
        np.testing.assert_allclose(lo, slo, atol=1e-10)
        np.testing.assert_allclose(hi, shi, atol=1e-10)


def test_clopper_pearson_published():
    # contingencytables test-ch8.R: Clopper-Pearson for 13/16 (Ligarden 2010): 0.5435 to 0.9595;
    # 10/10: 0.6915 to 1; 0/10: 0 to 0.3085
    lo, hi = clopper_pearson_interval(np.array([13, 10, 0]), np.array([16, 10, 10]))
    np.testing.assert_allclose(lo, [0.5435, 0.6915, 0.0], atol=5e-5)
    np.testing.assert_allclose(hi, [0.9595, 1.0, 0.3085], atol=5e-5)


def test_clustered_se_reduces_to_iid_and_matches_ols_cluster():
    rng = np.random.default_rng(3)
    x = rng.normal(size=200)
    mean, se, n, c = clustered_mean_se(x)
    assert se == pytest.approx(x.std(ddof=1) / np.sqrt(200))
    # against statsmodels OLS on a constant with cluster-robust covariance (same CR1-type
    # C/(C-1) factor when the (n-1)/(n-k) factor is switched off)
    import statsmodels.api as sm

    cl = rng.integers(0, 25, 200)
    fit = sm.OLS(x, np.ones(200)).fit(
        cov_type="cluster", cov_kwds={"groups": cl, "use_correction": False}
    )
    _, se_c, _, c = clustered_mean_se(x, clusters=cl)
    g = len(np.unique(cl))
    assert c == g
    assert se_c == pytest.approx(float(fit.bse[0]) * np.sqrt(g / (g - 1)), rel=1e-10)


def test_clustered_se_is_larger_for_correlated_clusters():
    rng = np.random.default_rng(0)
    cl = np.repeat(np.arange(50), 10)
    x = (rng.random(50)[cl] + 0.3 * rng.random(500) > 0.7).astype(float)
    _, se0, _, _ = clustered_mean_se(x)
    _, se1, _, _ = clustered_mean_se(x, clusters=cl)
    assert se1 > 2 * se0


def test_mean_ci_mask_and_nan():
    x = np.array([[1, 0], [0, np.nan], [1, 1], [1, 1]], dtype=float)
    r = mean_ci(x)
    np.testing.assert_allclose(r["estimate"], [0.75, 2 / 3])
    np.testing.assert_allclose(r["n"], [4, 3])


def test_paired_table_counts():
    t = paired_table([1, 1, 0, 0, 1, np.nan], [1, 0, 1, 0, 0, 1])
    np.testing.assert_array_equal(t, [[1, 2], [1, 1]])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40), st.integers(0, 40))
def test_paired_intervals_contain_estimate_and_flip(n11, n12, n21, n22):
    n = n11 + n12 + n21 + n22
    if n == 0:
        return
    d = (n12 - n21) / n
    for fn in (tango_paired_interval, newcombe_paired_interval):
        lo, hi = fn(n11, n12, n21, n22)
        assert -1 - 1e-9 <= lo <= d + 1e-7 and d - 1e-7 <= hi <= 1 + 1e-9
        # swapping the two judges mirrors the interval
        lo2, hi2 = fn(n11, n21, n12, n22)
        assert lo2 == pytest.approx(-hi, abs=1e-6) and hi2 == pytest.approx(-lo, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 500), st.data())
def test_wilson_within_unit_interval_and_contains_p(n, data):
    x = data.draw(st.integers(0, n))
    lo, hi = wilson_interval(x, n)
    assert 0.0 <= lo <= x / n + 1e-12
    assert x / n - 1e-12 <= hi <= 1.0


def test_pooled_icc_one_cell_is_shrout_fleiss_icc1_of_pingouin():
    import pandas as pd
    import pingouin as pg
    from medjudge.stats.intervals import pooled_icc

    rng = np.random.default_rng(7)
    y = (rng.random((40, 3)) < 0.3 + 0.5 * rng.random((40, 1))).astype(float)
    rho, df = pooled_icc(y.ravel(), np.zeros(120), np.repeat(np.arange(40), 3))
    d = pd.DataFrame(
        {"t": np.repeat(np.arange(40), 3), "r": np.tile([0, 1, 2], 40), "y": y.ravel()}
    )
    icc1 = pg.intraclass_corr(d, "t", "r", "y").set_index("Type").loc["ICC(1,1)", "ICC"]
    assert float(rho) == pytest.approx(max(icc1, 0.0), abs=1e-12)
    assert float(df) == 39
    # constant values: not estimable
    assert np.isnan(pooled_icc(np.ones(6), np.zeros(6), np.repeat([0, 1, 2], 2))[0])
