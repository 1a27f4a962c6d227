"""Prediction-powered inference: cross-checks against ppi-python, hand computations, a quick
calibration, and the study-level analysis.

ppi-python (Angelopoulos et al., ``ppi_py`` 0.2.3, PyPI) is an independent implementation of the
same estimators; where the methods coincide (no clusters) point estimates, tuned ``lam`` and
intervals must agree to rounding. Clustered variances have no anchor there and are checked by
hand and by simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import ROOT
from medjudge.stats.ppi.crossfit import ppi_mean_crossfit
from medjudge.stats.ppi.mean import (
    classical_mean,
    ppi_mean,
    ppi_paired_difference,
    ppi_proportion,
    tuned_lambda,
)
from medjudge.stats.ppi.rogan_gladen import rogan_gladen
from medjudge.stats.ppi.stratified import ppi_mean_stratified

ppi_py = pytest.importorskip("ppi_py")


def _data(seed: int, n: int = 80, N: int = 400):
    rng = np.random.default_rng(seed)
    y = (rng.random(n + N) < 0.35).astype(float)
    flip = rng.random(n + N) < np.where(y == 1, 0.2, 0.1)
    f = np.where(flip, 1 - y, y)
    return y[:n], f[:n], f[n:]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [0.0, 0.4, 1.0, None])
def test_equals_ppi_python(seed, lam):
    y, f, fu = _data(seed)
    ours = ppi_mean(y, f, fu, lam=lam, confidence_level=0.9, interval="normal")
    lo, hi = ppi_py.ppi_mean_ci(y, f, fu, alpha=0.1, lam=lam)
    assert ours.ci_low == pytest.approx(float(lo[0]), abs=1e-12)
    assert ours.ci_high == pytest.approx(float(hi[0]), abs=1e-12)
    if lam is not None:
        pe = ppi_py.ppi_mean_pointestimate(y, f, fu, lam=lam)
        assert ours.estimate == pytest.approx(float(np.ravel(pe)[0]), abs=1e-12)


def test_classical_equals_ppi_python():
    y, _, _ = _data(3)
    lo, hi = ppi_py.classical_mean_ci(y, alpha=0.05)
    e = classical_mean(y, interval="normal")
    assert (e.ci_low, e.ci_high) == pytest.approx(
        (float(np.ravel(lo)[0]), float(np.ravel(hi)[0])), abs=1e-12
    )


def test_tuned_lambda_equals_ppi_python_formula():
    # ppi-python's _calc_lam_glm for a mean: cov(Y, f) / ((1 + n/N) var(f_all)), clipped
    from ppi_py.ppi import _calc_lam_glm

    y, f, fu = _data(4)
    theta = ppi_py.ppi_mean_pointestimate(y, f, fu, lam=1)
    lam = _calc_lam_glm(
        (y - theta).reshape(-1, 1),
        (f - theta).reshape(-1, 1),
        (fu - theta).reshape(-1, 1),
        np.eye(1),
        clip=True,
    )
    assert tuned_lambda(y, f, fu) == pytest.approx(float(lam), abs=1e-12)


def test_by_hand_small_example():
    # Y = (1,0,1,1), f = (1,0,1,0), f_U = (1,1,0,0,1,0), lam = 1:
    # theta = mean(f_U) + mean(Y - f) = 0.5 + 0.25 = 0.75
    # Var = var0(Y - f)/4 + var0(f_U)/6 = 0.1875/4 + 0.25/6 = 0.088542 -> se 0.297560
    e = ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 0, 1, 0], lam=1.0, interval="normal")
    assert e.estimate == pytest.approx(0.75)
    assert e.se == pytest.approx(math.sqrt(0.1875 / 4 + 0.25 / 6))
    # effective n = n * var_classical / var = 4 * (0.1875/4) / 0.088542
    assert e.extra["effective_n"] == pytest.approx(0.1875 / 0.0885416667, rel=1e-6)


# ------------------------------------------------------------------ small-sample t intervals
def test_classical_t_equals_scipy_t_interval():
    # independent implementation: scipy's one-sample t interval, mean -/+ t_{n-1} s/sqrt(n)
    from scipy import stats

    y, _, _ = _data(13, n=40)
    e = classical_mean(y, confidence_level=0.9)
    lo, hi = stats.t.interval(0.9, y.size - 1, loc=y.mean(), scale=stats.sem(y))
    assert (e.ci_low, e.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert e.extra["df"] == pytest.approx(y.size - 1)


def test_classical_clustered_t_equals_statsmodels_cluster_robust_ols():
    # independent implementation: intercept-only OLS with CR1 cluster-robust covariance and
    # t(G - 1) quantiles (statsmodels cov_type="cluster", use_t=True; Cameron & Miller 2015)
    import statsmodels.api as sm

    y, _, _ = _data(14, n=90)
    cl = np.repeat(np.arange(30), 3)
    e = classical_mean(y, clusters=cl)
    fit = sm.OLS(y, np.ones((y.size, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": cl}, use_t=True
    )
    lo, hi = fit.conf_int(0.05)[0]
    assert (e.ci_low, e.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert e.se == pytest.approx(float(fit.bse[0]), abs=1e-14)


def test_ppi_fixed_lambda_t_equals_scipy_welch():
    # PPI (lam = 1) is mean_L(Y - f) + mean_U(f): a sum of two independent sample means, so its
    # small-sample interval is Welch's: scipy's ttest_ind(Y - f, -f_U, equal_var=False)
    from scipy import stats

    y, f, fu = _data(15, n=60, N=150)
    e = ppi_mean(y, f, fu, lam=1.0)
    ci = stats.ttest_ind(y - f, -fu, equal_var=False).confidence_interval(0.95)
    assert (e.ci_low, e.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_ppi_tuned_t_by_hand():
    # tuned lam: labelled residuals get the regression-estimator divisor n - 2 (Cochran 1977,
    # Sec. 7.3); unlabelled n - 1; Satterthwaite df from the two parts
    from scipy import stats

    y, f, fu = _data(16, n=50, N=300)
    lam = tuned_lambda(y, f, fu)
    e = ppi_mean(y, f, fu)
    n, N = y.size, fu.size
    r = y - lam * f
    v_l = np.sum((r - r.mean()) ** 2) / (n - 2) / n
    v_u = lam**2 * np.var(fu, ddof=1) / N
    df = (v_l + v_u) ** 2 / (v_l**2 / (n - 2) + v_u**2 / (N - 1))
    q = stats.t.ppf(0.975, df)
    assert e.se == pytest.approx(math.sqrt(v_l + v_u), rel=1e-12)
    assert e.extra["df"] == pytest.approx(df, rel=1e-12)
    assert e.ci_high - e.estimate == pytest.approx(q * math.sqrt(v_l + v_u), rel=1e-12)
    assert "small-sample t" in e.ci_method and e.extra["interval"] == "t"


def test_t_interval_approaches_normal_for_large_n():
    y, f, fu = _data(17, n=4000, N=8000)
    a, b = ppi_mean(y, f, fu), ppi_mean(y, f, fu, interval="normal")
    assert a.ci_high - a.ci_low == pytest.approx(b.ci_high - b.ci_low, rel=2e-3)
    assert a.ci_high - a.ci_low > b.ci_high - b.ci_low


def test_clustered_variance_by_hand():
    # clusters: labelled items in a, a, b, c; unlabelled in a, b, b, c (lam = 1)
    y = np.array([1.0, 0, 1, 1])
    f = np.array([1.0, 1, 1, 0])
    fu = np.array([1.0, 0, 0, 1])
    cl, clu = list("aabc"), list("abbc")
    r = y - f  # (0, -1, 0, 1), mean 0
    pl = (r - r.mean()) / 4  # (0, -.25, 0, .25)
    pu = (fu - fu.mean()) / 4  # (.125, -.125, -.125, .125)
    sa = pl[0] + pl[1] + pu[0]
    sb = pl[2] + pu[1] + pu[2]
    sc = pl[3] + pu[3]
    var = 3 / 2 * (sa**2 + sb**2 + sc**2)
    e = ppi_mean(y, f, fu, lam=1.0, clusters=cl, clusters_unlabeled=clu, interval="normal")
    assert e.se == pytest.approx(math.sqrt(var))
    assert e.extra["n_clusters"] == 3


def test_singleton_clusters_match_unclustered_up_to_small_sample_factor():
    y, f, fu = _data(5)
    n, N = y.size, fu.size
    a = ppi_mean(y, f, fu, lam=1.0, interval="normal")
    b = ppi_mean(
        y,
        f,
        fu,
        lam=1.0,
        clusters=np.arange(n),
        clusters_unlabeled=np.arange(n, n + N),
        interval="normal",
    )
    assert b.se**2 == pytest.approx(a.se**2 * (n + N) / (n + N - 1))
    # the small-sample t interval treats singleton clusters exactly like independent items
    a_t = ppi_mean(y, f, fu, lam=1.0)
    b_t = ppi_mean(y, f, fu, lam=1.0, clusters=np.arange(n), clusters_unlabeled=np.arange(n, N + n))
    assert (b_t.ci_low, b_t.ci_high) == pytest.approx((a_t.ci_low, a_t.ci_high), abs=1e-12)
    assert b_t.extra["df"] == pytest.approx(a_t.extra["df"])
    # the clustered tuned lambda is the same plug-in optimum with separate variances
    lam_c = tuned_lambda(y, f, fu, clusters=np.arange(n), clusters_unlabeled=np.arange(n, n + N))
    assert lam_c == pytest.approx(tuned_lambda(y, f, fu), abs=0.05)


def test_invariant_to_row_order():
    y, f, fu = _data(6)
    rng = np.random.default_rng(0)
    p, q = rng.permutation(y.size), rng.permutation(fu.size)
    cl = np.arange(y.size) // 3
    clu = np.arange(fu.size) // 5
    a = ppi_mean(y, f, fu, clusters=cl, clusters_unlabeled=clu)
    b = ppi_mean(y[p], f[p], fu[q], clusters=cl[p], clusters_unlabeled=clu[q])
    assert a.estimate == pytest.approx(b.estimate, abs=1e-14)
    assert a.se == pytest.approx(b.se, abs=1e-14)


def test_paired_difference_is_ppi_of_differences():
    y, f, fu = _data(7)
    y2, f2, fu2 = _data(8)
    d = ppi_paired_difference(y, y2, f, f2, fu, fu2, lam=None, interval="normal")
    lo, hi = ppi_py.ppi_mean_ci(y - y2, f - f2, fu - fu2, alpha=0.05)
    assert (d.ci_low, d.ci_high) == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-12)


def test_stratified_single_stratum_equals_plain():
    y, f, fu = _data(9)
    overall, per = ppi_mean_stratified(y, f, fu, ["s"] * y.size, ["s"] * fu.size)
    plain = ppi_mean(y, f, fu)
    assert overall.estimate == pytest.approx(plain.estimate)
    assert overall.se == pytest.approx(plain.se)


def test_stratified_by_hand_two_strata():
    y, f, fu = _data(10)
    s = np.where(np.arange(y.size) % 3 == 0, "a", "b")
    su = np.where(np.arange(fu.size) % 4 == 0, "a", "b")
    overall, per = ppi_mean_stratified(y, f, fu, s, su, lam=1.0, interval="normal")
    w = {h: ((s == h).sum() + (su == h).sum()) / (y.size + fu.size) for h in "ab"}
    # independent strata: Var = sum w_h^2 Var_h with each Var_h from ppi-python's interval
    est = sum(
        w[h] * ppi_py.ppi_mean_pointestimate(y[s == h], f[s == h], fu[su == h], lam=1)[0]
        for h in "ab"
    )
    var = 0.0
    theta = {}
    for h in "ab":
        lo, hi = ppi_py.ppi_mean_ci(y[s == h], f[s == h], fu[su == h], alpha=0.05, lam=1)
        var += w[h] ** 2 * ((hi[0] - lo[0]) / (2 * 1.959963984540054)) ** 2
        theta[h] = ppi_py.ppi_mean_pointestimate(y[s == h], f[s == h], fu[su == h], lam=1)[0]
    # plus the sampling variance of the strata's shares (multinomial over the n + N items):
    # Var(sum_h theta_h w_h) = sum_h w_h (theta_h - theta)^2 / (n + N)
    var += sum(w[h] * (theta[h] - est) ** 2 for h in "ab") / (y.size + fu.size)
    assert overall.estimate == pytest.approx(est, abs=1e-12)
    assert overall.se == pytest.approx(math.sqrt(var), rel=1e-9)


def test_crossfit_variance_equals_ppi_python_crossppi():
    rng = np.random.default_rng(11)
    y, f1, fu1 = _data(11)
    f2 = rng.integers(0, 2, y.size).astype(float)
    fu2 = rng.integers(0, 2, fu1.size).astype(float)
    F, Fu = np.column_stack([f1, f2]), np.column_stack([fu1, fu2])
    e = ppi_mean_crossfit(y, F, Fu, combine="combine", n_folds=5, seed=3, interval="normal")
    W = np.asarray(e.extra["weights"])
    from medjudge.stats.ppi.crossfit import _fold_ids

    folds = _fold_ids(y.size, 5, None, 3)
    g_oof = np.einsum("ik,ik->i", F, W[folds])
    lo, hi = ppi_py.crossppi_mean_ci(y, g_oof, Fu @ W.T, alpha=0.05)
    assert (e.ci_low, e.ci_high) == pytest.approx(
        (float(np.ravel(lo)[0]), float(np.ravel(hi)[0])), abs=1e-12
    )


def test_crossfit_select_picks_the_informative_judge():
    rng = np.random.default_rng(12)
    y, f1, fu1 = _data(12, n=200, N=1000)
    F = np.column_stack([rng.integers(0, 2, 200), f1]).astype(float)
    Fu = np.column_stack([rng.integers(0, 2, 1000), fu1]).astype(float)
    e = ppi_mean_crossfit(y, F, Fu, combine="select", n_folds=10)
    assert e.extra["selected"] == [0, 10]


def test_rogan_gladen_by_hand():
    # p = 0.3, Se = 0.9, Sp = 0.9: pi = (0.3 + 0.9 - 1) / 0.8 = 0.25
    e = rogan_gladen(300, 1000, 90, 100, 180, 200)
    assert e.estimate == pytest.approx(0.25)
    z = 1.959963984540054
    adj = lambda x, m: (x + z * z / 2) / (m + z * z)  # noqa: E731
    pa, sea, spa = adj(300, 1000), adj(90, 100), adj(180, 200)
    var = (
        pa * (1 - pa) / 1000 + 0.25**2 * sea * (1 - sea) / 100 + 0.75**2 * spa * (1 - spa) / 200
    ) / 0.8**2
    assert e.se == pytest.approx(math.sqrt(var))
    assert e.ci_low == pytest.approx(0.25 - z * math.sqrt(var))
    with pytest.raises(ValueError, match="no better than chance"):
        rogan_gladen(300, 1000, 50, 100, 100, 200)


def test_argument_checks():
    with pytest.raises(ValueError, match="confidence_level"):
        ppi_mean([1, 0], [1, 0], [1], confidence_level=95)
    with pytest.raises(ValueError, match="yhat_unlabeled has 1 missing"):
        ppi_mean([1, 0], [1, 0], [np.nan])
    with pytest.raises(ValueError, match="0/1"):
        ppi_proportion([2, 0], [1, 0], [1])
    with pytest.raises(ValueError, match="lam"):
        ppi_mean([1, 0], [1, 0], [1], lam=float("nan"))
    with pytest.raises(ValueError, match="n_folds"):
        ppi_mean_crossfit([1, 0, 1], [[1], [0], [1]], [[1]], n_folds=1)
    with pytest.raises(ValueError, match="both"):
        ppi_mean([1, 0], [1, 0], [1], clusters=[1, 2])
    for fn in (
        lambda: ppi_mean([1, 0], [1, 0], [1], interval="wald"),
        lambda: classical_mean([1, 0], interval="z"),
        lambda: ppi_mean_stratified([1, 0], [1, 0], [1], ["a", "a"], ["a"], interval="x"),
        lambda: ppi_mean_crossfit([1, 0, 1], [[1], [0], [1]], [[1]], n_folds=2, interval="x"),
    ):
        with pytest.raises(ValueError, match="interval must be 't'"):
            fn()


# ------------------------------------------------------------------ quick calibration
def _clustered_world(rng, n_clusters: int, m: int = 4):
    """Items in clusters sharing difficulty; the judge errs more on hard items, asymmetrically."""
    u = rng.normal(0, 1.0, n_clusters).repeat(m)
    d = u + rng.normal(0, 0.7, u.size)
    y = (rng.random(u.size) < 1 / (1 + np.exp(-(-0.8 + 0.8 * d)))).astype(float)
    p_err = 1 / (1 + np.exp(-(-2.0 + 0.9 * np.abs(d)))) * np.where(y == 1, 1.3, 0.8)
    f = np.where(rng.random(u.size) < p_err, 1 - y, y)
    return y, f, np.arange(n_clusters).repeat(m), np.where(u > 0, "hard", "easy")


def test_quick_calibration_clustered():
    # The default (small-sample t) intervals at the smallest size the brief asks for, n = 50
    # labelled items out of 1,000 in clusters of 4. 300 replications: if the true coverage is
    # the nominal 0.95, the observed one has MC SE sqrt(.95 * .05 / 300) = 0.0126; fail below
    # 0.95 - 3 SE = 0.912 (a false alarm in ~1 of 700 runs per method). The full calibration,
    # with ~1,400 replications per cell, is benchmarks/calibration/ppi.py.
    rng = np.random.default_rng(20260611)
    big = _clustered_world(np.random.default_rng(1), 250_000)[0]
    truth = big.mean()  # MC error of the truth ~ 0.0005, negligible against se ~ 0.07
    cover = {"classical": 0, "ppi": 0, "ppi++": 0, "ppi++ stratified": 0}
    R, n = 300, 50
    for _ in range(R):
        y, f, c, s = _clustered_world(rng, 250)
        L = np.zeros(y.size, bool)
        L[rng.choice(y.size, n, replace=False)] = True
        kw = {"clusters": c[L], "clusters_unlabeled": c[~L]}
        res = {
            "classical": classical_mean(y[L], clusters=c[L]),
            "ppi": ppi_mean(y[L], f[L], f[~L], lam=1.0, **kw),
            "ppi++": ppi_mean(y[L], f[L], f[~L], **kw),
            "ppi++ stratified": ppi_mean_stratified(y[L], f[L], f[~L], s[L], s[~L], **kw)[0],
        }
        for name, e in res.items():
            assert "small-sample t" in e.ci_method
            cover[name] += e.ci_low <= truth <= e.ci_high
    for name, k in cover.items():
        assert k / R >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / R), (name, k / R)


# ------------------------------------------------------------------ study level
@pytest.fixture(scope="module")
def pandalm():
    from medjudge.data.tables import load_any

    return load_any(
        ROOT / "data/external/pandalm_testset/verdicts_wide.csv",
        ROOT / "data/mappings/pandalm_wide.toml",
    )


def test_study_level_matches_kernel(pandalm):
    from medjudge.analyses.judge_assisted import judge_assisted_estimate

    res = judge_assisted_estimate(
        pandalm,
        judges=["pandalm-7b"],
        categories=["tie"],
        keep_labels=120,
        seed=2,
        interval="normal",
    )
    row = res.estimates("ppi++").iloc[0]
    # rebuild the arrays independently from the raw wide file
    import pandas as pd

    raw = pd.read_csv(ROOT / "data/external/pandalm_testset/verdicts_wide.csv")
    ann = raw[["annotator1", "annotator2", "annotator3"]].to_numpy()
    gold_tie = (np.sum(ann == 0, axis=1) >= 2).astype(float)
    ids = np.sort(raw["idx"].astype(str).to_numpy())
    order = {k: i for i, k in enumerate(ids)}
    keep = np.random.default_rng(2).choice(len(ids), size=120, replace=False)
    lab_ids = set(ids[keep])
    lab = raw["idx"].astype(str).isin(lab_ids).to_numpy()
    f = (raw["pandalm-7b"] == 0).astype(float).to_numpy()
    lo, hi = ppi_py.ppi_mean_ci(gold_tie[lab], f[lab], f[~lab], alpha=0.05)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-12)
    assert len(order) == 999
    assert res.counts["preference"]["labelled"] == 120
    assert res.counts["preference"]["unlabelled"] == 879


def test_study_level_rate_rows_take_the_proportion_interval(pandalm):
    """The default study-level PPI++ row of a category rate is ``ppi_proportion``'s interval
    (Wilson with continuity correction at the effective n, checked against Newcombe's published
    limits in test_ppi_rare.py) on the arrays rebuilt from the raw file, not ``ppi_mean``'s
    symmetric t interval (93.0-93.8% coverage of common rates with 50 labels). Fails on the
    code that built the study-level rows with ``ppi_mean``."""
    import pandas as pd
    from medjudge.analyses.judge_assisted import judge_assisted_estimate
    from medjudge.stats.ppi.mean import ppi_mean, ppi_proportion

    res = judge_assisted_estimate(
        pandalm, judges=["pandalm-7b"], categories=["tie"], keep_labels=50, seed=2
    )
    row = res.estimates("ppi++").iloc[0]
    raw = pd.read_csv(ROOT / "data/external/pandalm_testset/verdicts_wide.csv")
    ann = raw[["annotator1", "annotator2", "annotator3"]].to_numpy()
    gold_tie = (np.sum(ann == 0, axis=1) >= 2).astype(float)
    ids = np.sort(raw["idx"].astype(str).to_numpy())
    keep = np.random.default_rng(2).choice(len(ids), size=50, replace=False)
    lab = raw["idx"].astype(str).isin(set(ids[keep])).to_numpy()
    f = (raw["pandalm-7b"] == 0).astype(float).to_numpy()
    want = ppi_proportion(gold_tie[lab], f[lab], f[~lab])
    sym = ppi_mean(gold_tie[lab], f[lab], f[~lab])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-12)
    assert row["ci_method"] == want.ci_method
    assert "continuity correction" in row["ci_method"]
    assert abs(row["ci_high"] - sym.ci_high) > 1e-6


def test_study_level_result_api(pandalm):
    from medjudge.analyses.judge_assisted import judge_assisted_estimate

    res = judge_assisted_estimate(
        pandalm, keep_labels=200, seed=1, combine="select", by="cmp_key", cluster="motivation_app"
    )
    t = res.to_frame()
    assert {"ci_low", "ci_high", "level"} <= set(t.columns)
    assert {
        "classical",
        "naive",
        "ppi",
        "ppi++",
        "rogan-gladen",
        "ppi++ stratified",
        "cross-fit select",
    } <= set(t["method"])
    d = res.to_dict()
    assert d["counts"]["preference"]["judge_verdicts_missing_or_invalid"]["gpt-3.5-turbo"] == 25
    assert "PPIResult(" in repr(res) and len(repr(res).splitlines()) <= 10
    # every classical row per subgroup appears once
    cls = t[(t["method"] == "classical")]
    assert not cls.duplicated(["dimension", "target", "subgroup"]).any()


def test_study_level_no_unlabelled_items(pandalm):
    from medjudge.analyses.judge_assisted import judge_assisted_estimate

    res = judge_assisted_estimate(pandalm)
    assert set(res.rows["method"]) == {"classical"}
    assert any("every item has gold" in n for n in res.notes)


def test_cli_ppi_and_errors(tmp_path):
    import json
    import subprocess
    import sys

    base = [sys.executable, "-m", "medjudge.cli"]
    data = [
        str(ROOT / "data/external/pandalm_testset/verdicts_wide.csv"),
        "--mapping",
        str(ROOT / "data/mappings/pandalm_wide.toml"),
    ]
    out = subprocess.run(
        base + ["ppi", *data, "--keep-labels", "100", "--json"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert {r["method"] for r in d["estimates"]} >= {"classical", "ppi", "ppi++"}
    for bad, opt in (
        (["--confidence-level", "95"], "--confidence-level"),
        (["--keep-labels", "1"], "--keep-labels"),
        (["--contrast", "1"], "--contrast"),
        (["--cluster", "nope"], "cluster"),
    ):
        r = subprocess.run(base + ["ppi", *data, *bad], capture_output=True, text=True)
        assert r.returncode == 2, (bad, r.stderr)
        assert opt in r.stderr and "Traceback" not in r.stderr


def _without_expert_labels(study, n, seed=0):
    """The study with every expert rating removed on ``n`` random items (unlabelled by design)."""
    import dataclasses

    rng = np.random.default_rng(seed)
    drop = set(rng.choice(study.item_ids, size=n, replace=False))
    r = study.ratings
    keep = ~((r["role"] == "expert") & r["item"].isin(drop))
    return dataclasses.replace(study, ratings=r[keep].reset_index(drop=True))


def test_report_section(pandalm):
    import matplotlib

    matplotlib.use("Agg")
    from medjudge.analyses.judge_assisted import judge_assisted_estimate
    from medjudge.report.context import ReportContext
    from medjudge.report.sections import ppi as sec_ppi

    study = _without_expert_labels(pandalm, 700)
    ctx = ReportContext(study, n_resamples=100)
    s = sec_ppi.build(ctx)
    assert s.applies and "fig-ppi" in s.figures and s.findings
    est = s.tables["tbl-ppi"]
    pp = judge_assisted_estimate(study, "preference").estimates("ppi++")
    # the section presents the library's numbers unchanged (rounded for display)
    shown = est.loc[est["method"].str.startswith("PPI++"), "estimate"].astype(float)
    assert sorted(shown) == sorted(round(v, 3) for v in pp["estimate"])
    # fully labelled: one sentence why
    none = sec_ppi.build(ReportContext(pandalm, n_resamples=100))
    assert not none.applies and "every item" in none.reason
    # items without gold because the experts split are a selected set: no PPI
    r = pandalm.ratings.copy()
    split = pandalm.item_ids[:40]
    for ann, v in (("annotator1", "1"), ("annotator2", "2"), ("annotator3", "tie")):
        r.loc[r["item"].isin(split) & (r["rater"] == ann), "value"] = v
    import dataclasses

    disputed = dataclasses.replace(pandalm, ratings=r)
    assert disputed.gold("preference").counts["no_majority"] == 40
    sel = sec_ppi.build(ReportContext(disputed, n_resamples=100))
    assert not sel.applies and "not a random sample" in sel.reason
