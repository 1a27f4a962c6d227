"""Paired tests and the all-pairs table: published values, cross-checks, small simulations."""

from __future__ import annotations

import numpy as np
import pytest
from medjudge import Bootstrap, Permutation
from medjudge.stats.mcnemar import clustered_mcnemar, mcnemar, mcnemar_pvalue, pairwise_counts
from medjudge.stats.multiplicity import add_multiplicity, adjust_pvalues
from medjudge.stats.omnibus import cochran_q, friedman_nemenyi
from medjudge.stats.paired_bootstrap import paired_bootstrap
from medjudge.stats.paired_intervals import tango_paired_interval
from medjudge.stats.pairwise import all_pairs
from medjudge.stats.score_tests import sign_flip_test, wilcoxon
from scipy import stats
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar


# ---------------------------------------------------------------- McNemar, published values
def test_mcnemar_agresti_presidential_approval():
    # Agresti (2013, 2007) presidential approval, same 1600 people in two surveys:
    # [[794, 150], [86, 570]]; z0 = (86 - 150)/sqrt(86 + 150) = -4.17, z0^2 = 17.36, P < 0.0001
    r = mcnemar(np.array([[794, 150], [86, 570]]), method="asymptotic")
    assert r.statistic == pytest.approx(17.36, abs=0.005)
    assert np.sqrt(r.statistic) == pytest.approx(4.17, abs=0.005)
    assert r.pvalue < 1e-4
    assert (r.counts["b"], r.counts["c"], r.counts["discordant"]) == (150, 86, 236)


def test_mcnemar_fagerland_2013_bentur_example():
    # Fagerland, Lydersen & Laake (2013) BMC Med Res Methodol 13:91, Table 1: airway
    # hyper-responsiveness before/after stem cell transplantation in 21 children (Bentur et al.
    # 2009), [[1, 1], [7, 12]]. Reported: asymptotic P = 0.034, with continuity correction
    # P = 0.077, exact conditional P = 0.070, mid-p P = 0.039 (= 10/256; exact = 18/256).
    t = np.array([[1, 1], [7, 12]])
    r = mcnemar(t, method="midp")
    assert round(r.pvalue, 3) == 0.039 and r.pvalue == pytest.approx(10 / 256)
    assert round(r.extra["p_exact"], 3) == 0.070 and r.extra["p_exact"] == pytest.approx(18 / 256)
    assert round(r.extra["p_asymptotic"], 3) == 0.034
    assert round(r.extra["p_asymptotic_cc"], 3) == 0.077
    assert (r.counts["b"], r.counts["c"]) == (1, 7)


def test_mcnemar_fagerland_2017_cavo_example():
    # Fagerland, Lydersen & Laake (2017) Statistical Analysis of Contingency Tables, ch. 8,
    # Cavo et al. (2012) [[59, 6], [16, 80]] as printed by their R package contingencytables
    # (tests/testthat/test-ch8.R): asymptotic P = 0.033006 (Z = -2.132), CC P = 0.055009,
    # exact conditional P = 0.052479, mid-P P = 0.034690.
    t = np.array([[59, 6], [16, 80]])
    r = mcnemar(t)
    assert r.extra["p_asymptotic"] == pytest.approx(0.033006, abs=5e-7)
    assert r.extra["p_asymptotic_cc"] == pytest.approx(0.055009, abs=5e-7)
    assert r.extra["p_exact"] == pytest.approx(0.052479, abs=5e-7)
    assert r.pvalue == pytest.approx(0.034690, abs=5e-7)
    assert -np.sqrt(mcnemar(t, method="asymptotic").statistic) == pytest.approx(-2.132, abs=5e-4)


@pytest.mark.parametrize("b,c", [(0, 0), (0, 5), (3, 3), (10, 25), (40, 31), (150, 86)])
def test_mcnemar_matches_statsmodels(b, c):
    t = np.array([[20, b], [c, 20]])
    for exact, corr, ours in (
        (True, False, "exact"),
        (False, False, "asymptotic"),
        (False, True, "asymptotic-cc"),
    ):
        if b + c == 0 and not exact:
            continue
        if corr and b == c:
            # statsmodels squares (|b - c| - 1) without flooring at 0, giving X^2 = 1/(b+c) for
            # b = c; Edwards' correction never moves |b - c| below 0, so ours gives p = 1
            assert mcnemar(t, method=ours).pvalue == 1.0
            continue
        ref = sm_mcnemar(t, exact=exact, correction=corr).pvalue
        assert mcnemar(t, method=ours).pvalue == pytest.approx(min(ref, 1.0), abs=1e-12)


def test_mcnemar_vectorised_and_from_vectors():
    b = np.array([1, 6, 150])
    c = np.array([7, 16, 86])
    _, p = mcnemar_pvalue(b, c, "midp")
    for k in range(3):
        assert p[k] == pytest.approx(mcnemar(np.array([[0, b[k]], [c[k], 0]])).pvalue)
    y1 = np.array([1, 1, 0, 0, 1, np.nan])
    y2 = np.array([1, 0, 1, 0, 0, 1])
    r = mcnemar(y1, y2)
    assert (r.counts["n11"], r.counts["b"], r.counts["c"], r.counts["n22"]) == (1, 2, 1, 1)


def test_clustered_mcnemar_reduces_to_mcnemar_for_singletons():
    rng = np.random.default_rng(1)
    y1 = (rng.random(300) < 0.7).astype(float)
    y2 = (rng.random(300) < 0.6).astype(float)
    r = clustered_mcnemar(y1, y2, np.arange(300))
    assert r.statistic == pytest.approx(mcnemar(y1, y2, method="asymptotic").statistic)


# ---------------------------------------------------------------- Cochran, Friedman, Nemenyi
CONOVER = np.array(
    [
        [1, 1, 1],
        [1, 1, 1],
        [0, 1, 0],
        [1, 1, 0],
        [0, 0, 0],
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 0],
        [0, 0, 1],
        [0, 1, 0],
        [1, 1, 1],
        [1, 1, 1],
    ]
)


def test_cochran_q_conover_textbook():
    # Conover (1999) Practical Nonparametric Statistics, 3rd ed., p. 253 (also the NIST
    # Dataplot COCHRAN TEST example): 12 people x 3 conditions, Q = 2.8, p = 0.246597
    r = cochran_q(CONOVER)
    assert r.statistic == pytest.approx(2.8)
    assert r.pvalue == pytest.approx(0.246597, abs=5e-7)
    assert r.df == 2


def test_cochran_q_matches_statsmodels_and_mcnemar():
    rng = np.random.default_rng(2)
    x = (rng.random((80, 5)) < [0.5, 0.55, 0.6, 0.7, 0.5]).astype(float)
    ref = sm_cochrans_q(x)
    r = cochran_q(x)
    assert r.statistic == pytest.approx(ref.statistic) and r.pvalue == pytest.approx(ref.pvalue)
    # with two judges Cochran's Q is the uncorrected McNemar chi-square
    assert cochran_q(x[:, :2]).statistic == pytest.approx(
        mcnemar(x[:, 0], x[:, 1], method="asymptotic").statistic
    )
    # exclude policy drops items listwise and counts them
    x2 = x.copy()
    x2[0, 1] = np.nan
    assert cochran_q(x2, policy="exclude").counts["n_excluded"] == 1


def test_friedman_matches_scipy_and_nemenyi_demsar_table():
    rng = np.random.default_rng(4)
    s = rng.normal(size=(13, 4)) + [0, 0.3, 0.6, 1.0]
    s[0, 1] = s[0, 2]  # a tie, exercises the tie correction
    res, tab = friedman_nemenyi(s)
    ref = stats.friedmanchisquare(*s.T)
    assert res.statistic == pytest.approx(ref.statistic) and res.pvalue == pytest.approx(ref.pvalue)
    assert len(tab) == 6
    # Demšar (2006) JMLR 7:1-30, Table 5(a): Nemenyi q_0.05 for k = 2..10
    table5 = {
        2: 1.960,
        3: 2.343,
        4: 2.569,
        5: 2.728,
        6: 2.850,
        7: 2.949,
        8: 3.031,
        9: 3.102,
        10: 3.164,
    }
    for k, q in table5.items():
        r, _ = friedman_nemenyi(rng.normal(size=(8, k)))
        assert r.extra["q_alpha"] == pytest.approx(q, abs=1e-3)


# ---------------------------------------------------------------- multiplicity
def test_adjust_pvalues_holm_bh_and_nan():
    p = np.array([0.01, 0.04, np.nan, 0.03, 0.2])
    holm = adjust_pvalues(p, "holm")
    # Holm by hand on the 4 non-missing p-values: sorted .01,.03,.04,.2 -> .04,.09,.09,.2
    np.testing.assert_allclose(holm[[0, 3, 1, 4]], [0.04, 0.09, 0.09, 0.2])
    assert np.isnan(holm[2])
    bh = adjust_pvalues(p, "fdr_bh")
    np.testing.assert_allclose(
        bh[[0, 3, 1, 4]], [0.04, 0.04 * 4 / 3 * 0 + 0.0533333, 0.0533333, 0.2], atol=1e-6
    )


def test_add_multiplicity_families():
    import pandas as pd

    t = pd.DataFrame({"dimension": ["a", "a", "b", "b"], "pvalue": [0.01, 0.02, 0.03, 0.5]})
    out = add_multiplicity(t)
    np.testing.assert_allclose(out["p_holm"], [0.02, 0.02, 0.06, 0.5])
    np.testing.assert_allclose(out["p_fdr_bh"], adjust_pvalues(t["pvalue"].to_numpy(), "fdr_bh"))


# ---------------------------------------------------------------- all pairs
@pytest.fixture(scope="module")
def outcomes():
    rng = np.random.default_rng(5)
    y = (rng.random((300, 6)) < np.linspace(0.55, 0.8, 6)).astype(float)
    y[rng.random(y.shape) < 0.04] = np.nan
    return y


@pytest.mark.parametrize("policy", ["wrong", "exclude", "half"])
def test_all_pairs_counts_agree_with_single_pair(outcomes, policy):
    tab = all_pairs(
        outcomes,
        policy=policy,
        ci="tango" if policy != "half" else "bootstrap-percentile",
        bootstrap=Bootstrap(200),
    )
    assert len(tab) == 15
    for _, row in tab.sample(5, random_state=0).iterrows():
        i, j = int(row.judge_a.split("_")[1]), int(row.judge_b.split("_")[1])
        a, b = outcomes[:, i].copy(), outcomes[:, j].copy()
        if policy == "wrong":
            a, b = np.nan_to_num(a), np.nan_to_num(b)
        if policy == "half":
            a, b = np.where(np.isnan(a), 0.5, a), np.where(np.isnan(b), 0.5, b)
        ok = ~(np.isnan(a) | np.isnan(b))
        assert row.b == np.sum(a[ok] > b[ok]) and row.c == np.sum(a[ok] < b[ok])
        assert row.pvalue == pytest.approx(mcnemar_pvalue(row.b, row.c, "midp")[1])
        if policy == "wrong":
            t = mcnemar(a, b).counts
            lo, hi = tango_paired_interval(t["n11"], t["b"], t["c"], t["n22"])
            assert (row.ci_low, row.ci_high) == pytest.approx((float(lo), float(hi)))
    assert tab["p_holm"].ge(tab["pvalue"] - 1e-15).all()


def test_pairwise_counts_symmetry(outcomes):
    c = pairwise_counts(outcomes, "exclude")
    np.testing.assert_array_equal(np.diag(c["better"]), 0)
    np.testing.assert_allclose(c["n_common"], c["n_common"].T)
    n_ok = (~np.isnan(outcomes)).sum(0)
    np.testing.assert_allclose(np.diag(c["n_common"]), n_ok)


def test_all_pairs_dimensions_and_families(outcomes):
    y3 = np.stack([np.nan_to_num(outcomes), 1 - np.nan_to_num(outcomes)])
    tab = all_pairs(y3, dimensions=["accuracy", "overall"], bootstrap=Bootstrap(300))
    assert set(tab["dimension"]) == {"accuracy", "overall"} and len(tab) == 30
    for _, g in tab.groupby("dimension"):
        np.testing.assert_allclose(g["p_holm"], adjust_pvalues(g["pvalue"].to_numpy(), "holm"))


def test_paired_bootstrap_agrees_with_scipy(outcomes):
    # scipy.stats.bootstrap(paired=True) on the same two outcome vectors; limits agree within
    # Monte Carlo error (percentile method, B = 4000 each)
    a, b = np.nan_to_num(outcomes[:, 5]), np.nan_to_num(outcomes[:, 0])
    ours = paired_bootstrap(a, b, bootstrap=Bootstrap(4000, 1, method="percentile"))
    ref = stats.bootstrap(
        (a, b),
        lambda x, y: x.mean() - y.mean(),
        paired=True,
        vectorized=False,
        n_resamples=4000,
        method="percentile",
        random_state=np.random.default_rng(2),
    )
    assert ours.estimate == pytest.approx(a.mean() - b.mean())
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=0.012)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=0.012)
    assert ours.se == pytest.approx(ref.standard_error, rel=0.1)


def test_paired_bootstrap_kappa_difference():
    rng = np.random.default_rng(7)
    gold = rng.integers(0, 2, 400).astype(float)
    good = np.where(rng.random(400) < 0.85, gold, 1 - gold)
    bad = np.where(rng.random(400) < 0.65, gold, 1 - gold)
    e = paired_bootstrap(
        good, bad, gold=gold, statistic="kappa", bootstrap=Bootstrap(1000, method="bca")
    )
    from statsmodels.stats.inter_rater import cohens_kappa

    table = np.histogram2d(good, gold, bins=2)[0]
    assert e.extra["estimate_a"] == pytest.approx(cohens_kappa(table).kappa)
    assert e.ci_low > 0


def test_sign_flip_exact_matches_scipy_permutation_test():
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=12) + 0.6, rng.normal(size=12)
    r = sign_flip_test(x, y)
    ref = stats.permutation_test(
        (x, y), lambda a, b: np.mean(a - b), permutation_type="samples", n_resamples=np.inf
    )
    assert "exact" in r.method and r.pvalue == pytest.approx(ref.pvalue)
    r2 = sign_flip_test(np.r_[x, x], np.r_[y, y], permutation=Permutation(4000))
    assert "monte-carlo" in r2.method and 0 < r2.pvalue <= 1


def test_wilcoxon_matches_scipy():
    rng = np.random.default_rng(9)
    x, y = rng.integers(1, 6, 40).astype(float), rng.integers(1, 6, 40).astype(float)
    r = wilcoxon(x, y)
    assert r.pvalue == pytest.approx(stats.wilcoxon(x - y).pvalue)
    assert -1 <= r.extra["rank_biserial"] <= 1


# ---------------------------------------------------------------- small type-I checks (< 3 s)
def test_type_one_error_mcnemar_midp_and_signflip_small_sim():
    rng = np.random.default_rng(10)
    reps, n = 2000, 120
    # two judges with equal accuracy 0.75 and correlated errors: the null of McNemar
    z = rng.random((reps, n))
    a = z < 0.75
    b = np.where(rng.random((reps, n)) < 0.5, a, rng.random((reps, n)) < 0.75)
    bb = np.sum(a & ~b, 1)
    cc = np.sum(~a & b, 1)
    for method, hi in (("midp", 0.065), ("exact", 0.06), ("asymptotic", 0.07)):
        rej = np.mean(mcnemar_pvalue(bb, cc, method)[1] < 0.05)
        assert 0.02 < rej < hi, (method, rej)


def test_closed_form_holm_bh_equal_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(13)
    p = np.r_[rng.uniform(size=400) ** 3, [0.01, 0.01, 0.5]]  # with ties
    for m in ("holm", "fdr_bh"):
        np.testing.assert_allclose(adjust_pvalues(p, m), multipletests(p, method=m)[1], atol=1e-14)
