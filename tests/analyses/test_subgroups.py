"""Subgroup breakdowns and heterogeneity: independent cross-checks and planted-effect recovery.

Independent implementations: statsmodels (proportion_confint Wilson, proportions_chisquare,
combine_effects for Cochran's Q / I², OLS cluster-robust SE, GLM wald_test, multipletests),
scipy (fisher_exact) and plain pandas group counts. Planted effects: data/demo/truth/params.json
(organ effects of sim-med-*, sim-general-8b, sim-proprietary-b; none for sim-control).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import DEMO, EXTERNAL, MAPPINGS
from medjudge.analyses.heterogeneity import cell_grid, heterogeneity_table, organ_effect_tests
from medjudge.analyses.subgroups import (
    best_judge_by_subgroup,
    small_cells,
    stack_outcomes,
    subgroup_accuracy,
    subgroup_agreement,
)
from medjudge.cli import main
from medjudge.stats.heterogeneity import cochran_q_subgroups, homogeneity_chi2, i2_interval
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint, proportions_chisquare

TRUTH = json.loads((DEMO / "truth" / "params.json").read_text())["judges"]
PLANTED = sorted(j for j, t in TRUTH.items() if any(v != 0 for v in t["organ_effect"].values()))


@pytest.fixture(scope="module")
def so(demo_study):
    return stack_outcomes(demo_study)


def _long(so):
    df = so.rows[["item", "dimension", "organ_system", "image_id"]].copy()
    frames = []
    for j, judge in enumerate(so.judges):
        f = df.copy()
        f["judge"], f["y"] = judge, so.outcome[:, j]
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("policy", ["wrong", "exclude"])
def test_cells_match_pandas_counts_and_statsmodels_wilson(demo_study, so, policy):
    # items as independent (cluster=None): the textbook Wilson interval of every cell
    t = subgroup_accuracy(
        demo_study, ["organ_system", "dimension"], policy=policy, _stacked=so, cluster=None
    )
    lg = _long(so)
    if policy == "wrong":
        lg["k"], lg["n"] = lg["y"].fillna(0), 1
    else:
        lg["k"], lg["n"] = lg["y"], lg["y"].notna().astype(int)
    ref = (
        lg.groupby(["judge", "organ_system", "dimension"])
        .agg(k=("k", "sum"), n=("n", "sum"))
        .reset_index()
    )
    m = t.merge(ref, on=["judge", "organ_system", "dimension"])
    assert len(m) == len(t) == 12 * 13 * 6
    assert (m["n_x"] == m["n_y"]).all()
    np.testing.assert_allclose(m["accuracy"], m["k"] / m["n_y"], atol=1e-12)
    lo, hi = proportion_confint(m["k"], m["n_y"], method="wilson")
    np.testing.assert_allclose(m["ci_low"], lo, atol=1e-10)
    np.testing.assert_allclose(m["ci_high"], hi, atol=1e-10)


def test_default_clusters_are_the_studys_like_everywhere_else(demo_study, so):
    """cluster="auto" is the default of every study-level function: the demo's images."""
    t = subgroup_accuracy(demo_study, ["organ_system", "dimension"], _stacked=so)
    assert t["ci_method"].str.contains("effective n").all()
    assert (t["n_clusters"] < t["n"]).any()  # several questions per image in a cell
    none = subgroup_accuracy(demo_study, ["organ_system", "dimension"], _stacked=so, cluster=None)
    assert (none["ci_method"] == "wilson").all()


def test_pooled_over_dimensions_uses_item_clustered_se(demo_study, so):
    t = subgroup_accuracy(demo_study, ["organ_system"], _stacked=so, cluster=None)
    row = t[(t["judge"] == "sim-med-7b") & (t["organ_system"] == "heart")].iloc[0]
    lg = _long(so)
    sub = lg[(lg["judge"] == "sim-med-7b") & (lg["organ_system"] == "heart")]
    y = sub["y"].fillna(0).to_numpy()
    fit = sm.OLS(y, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(sub["item"])[0]}
    )
    assert row["accuracy"] == pytest.approx(fit.params[0], abs=1e-12)
    assert row["se"] == pytest.approx(fit.bse[0], rel=1e-9)
    assert row["n_clusters"] == sub["item"].nunique()


def test_small_cell_rule():
    flag = small_cells(
        np.array([29, 30, 200, 40]), np.array([0.4, 0.4, 0.5, 0.2]), np.array([0.6, 0.6, 0.6, 0.55])
    )
    assert flag.tolist() == [True, False, False, True]


def test_chi2_and_cochran_q_against_statsmodels():
    k = np.array([30, 45, 12, 50, 20])
    n = np.array([50, 60, 30, 70, 22])
    chi = homogeneity_chi2(k, n)
    ref_chi, ref_p, _ = proportions_chisquare(k, n)
    assert chi.statistic == pytest.approx(ref_chi, rel=1e-10)
    assert chi.pvalue == pytest.approx(ref_p, rel=1e-8)
    q = cochran_q_subgroups(k, n)
    pt = (k + 0.5) / (n + 1)
    ce = combine_effects(k / n, pt * (1 - pt) / n, method_re="chi2")
    assert q.statistic == pytest.approx(ce.q, rel=1e-10)
    assert q.extra["I2"] == pytest.approx(ce.i2, rel=1e-10)
    lo, hi = q.extra["I2_ci_low"], q.extra["I2_ci_high"]
    assert 0 <= lo <= q.extra["I2"] <= hi <= 1


def test_i2_interval_bounds():
    assert i2_interval(4.0, 10)[0] == 0.0  # Q < df: I² = 0 lies inside
    lo, hi = i2_interval(40.0, 12)
    assert 0 < lo < (40 - 12) / 40 < hi < 1


def test_heterogeneity_table_multiplicity(demo_study, so):
    h = heterogeneity_table(demo_study, _stacked=so)
    assert len(h) == 12 * 6
    sub = h[h["judge"] == "sim-med-8b"]
    np.testing.assert_allclose(sub["p_holm"], multipletests(sub["pvalue"], method="holm")[1])
    np.testing.assert_allclose(h["p_fdr_bh"], multipletests(h["pvalue"], method="fdr_bh")[1])
    # issue 37: "some judge is heterogeneous" needs the family over judges x dimensions
    np.testing.assert_allclose(h["p_holm_all"], multipletests(h["pvalue"], method="holm")[1])
    assert set(h["holm_family"]) == {"within judge (6 dimensions)"}
    assert set(h["holm_all_family"]) == {"all judges x dimensions (72 tests)"}


def test_organ_effects_detect_planted_and_spare_control(demo_study, so):
    o = organ_effect_tests(demo_study, _stacked=so).set_index("judge")
    # strongly planted organ effects are flagged after Holm over the 12 judges
    for j in ("sim-med-8b", "sim-proprietary-b", "sim-med-7b"):
        assert o.loc[j, "flag"], o.loc[j]
    assert o.loc["sim-general-8b", "pvalue"] < 0.05  # planted, weaker (diluted by position bias)
    assert not o.loc["sim-control", "flag"]
    assert o.loc["sim-control", "pvalue"] > 0.05
    unplanted = o.drop(index=PLANTED)
    assert not unplanted["flag"].any()
    assert (unplanted["pvalue"] < 0.05).mean() <= 0.25  # 8 judges: nominal 5%, allow 2 by chance


def test_wald_matches_statsmodels_wald_test(demo_study, so):
    j = so.judges.index("sim-proprietary-b")
    o = organ_effect_tests(demo_study, judges=None, _stacked=so).set_index("judge")
    df = so.rows.assign(y=np.nan_to_num(so.outcome[:, j]))
    x = pd.get_dummies(df[["organ_system", "dimension"]], drop_first=True, dtype=float)
    x.insert(0, "const", 1.0)
    res = sm.GLM(df["y"], x, family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(df["item"])[0]}
    )
    organ_cols = [c for c in x.columns if c.startswith("organ_system_")]
    r = np.zeros((len(organ_cols), x.shape[1]))
    for i, c in enumerate(organ_cols):
        r[i, list(x.columns).index(c)] = 1.0
    wt = res.wald_test(r, scalar=True)
    assert o.loc["sim-proprietary-b", "wald_chi2"] == pytest.approx(float(wt.statistic), rel=1e-6)


def test_gee_agrees_with_cluster_glm(demo_study, so):
    sub = ["sim-proprietary-b"]
    a = organ_effect_tests(demo_study, judges=sub, method="gee")
    b = organ_effect_tests(demo_study, judges=sub, method="glm-cluster")
    assert a["wald_chi2"].iloc[0] == pytest.approx(b["wald_chi2"].iloc[0], rel=0.1)


def test_cell_grid_fisher_and_holm(demo_study, so):
    g = cell_grid(demo_study, _stacked=so)
    assert len(g) == 12 * 6 * 13
    r = g.iloc[5]
    lg = _long(so)
    sub = lg[(lg["judge"] == r["judge"]) & (lg["dimension"] == r["dimension"])]
    inside = sub["organ_system"] == r["organ_system"]
    k1, n1 = sub.loc[inside, "y"].fillna(0).sum(), inside.sum()
    k2, n2 = sub.loc[~inside, "y"].fillna(0).sum(), (~inside).sum()
    assert r["pvalue"] == pytest.approx(
        stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]])[1], rel=1e-10
    )
    one = g[g["judge"] == "sim-control"]
    np.testing.assert_allclose(one["p_holm"], multipletests(one["pvalue"], method="holm")[1])
    assert not g.loc[g["judge"] == "sim-control", "flag"].any()


def test_best_judge_uses_mcnemar(demo_study, so):
    from medjudge.stats.mcnemar import mcnemar

    b = best_judge_by_subgroup(demo_study, ["organ_system"], _stacked=so)
    assert len(b) == 6 * 13
    r = b.iloc[0]
    idx = np.flatnonzero(
        (so.rows["dimension"] == r["dimension"]) & (so.rows["organ_system"] == r["organ_system"])
    )
    y = np.nan_to_num(so.outcome[idx])
    acc = dict(zip(so.judges, y.mean(0), strict=True))
    assert r["best"] == max(acc, key=acc.get)
    ref = mcnemar(
        y[:, so.judges.index(r["best"])], y[:, so.judges.index(r["runner_up"])], method="midp"
    )
    assert r["pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
    assert r["ci_low"] <= r["difference"] <= r["ci_high"]


def test_expert_agreement_by_organ(demo_study):
    a = subgroup_agreement(demo_study, ["organ_system"])
    assert len(a) == 6 * 13
    assert set(a["n"]) <= set(demo_study.items["organ_system"].value_counts())


def test_llmbar_breakdown_respects_design_and_matches_upstream(llmbar_study):
    import re

    t = subgroup_accuracy(llmbar_study, ["subset"])
    assert len(t) == 349  # judges are only counted on the subsets they were given
    rep = pd.read_csv(EXTERNAL / "llmbar" / "reported_statistics.csv")
    rep["judge"] = rep["evaluator"] + "/" + rep["strategy"]
    rep["k"] = rep["correct_False"].map(lambda s: int(re.match(r"(\d+) /", s).group(1)))
    m = t.merge(rep, on=["judge", "subset"])
    assert len(m) == 349
    assert (np.rint(m["accuracy"] * m["n"]).astype(int) == m["k"]).all()


def test_cli_subgroups(capsys):
    assert main(["subgroups", str(DEMO), "--by", "organ_system", "--json", "--model", "none"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"breakdown", "heterogeneity", "best"} <= set(out)
    assert len(out["breakdown"]) == 12 * 13
    assert main(["subgroups", str(DEMO), "--by", "no_such_attribute"]) == 2
    path = EXTERNAL / "llmbar" / "verdicts_long.csv"
    assert (
        main(
            [
                "subgroups",
                str(path),
                "--mapping",
                str(MAPPINGS / "llmbar_long.toml"),
                "--by",
                "subset",
                "--model",
                "none",
            ]
        )
        == 0
    )


def _small_cell_study(seed: int = 3):
    """13 organs of 3-6 images with 1-4 questions each, 2 judges, image-level difficulty."""
    from medjudge import Scale, Study

    rng = np.random.default_rng(seed)
    n_img = rng.integers(3, 7, 13)
    organ_of = np.repeat(np.arange(13), n_img)
    img = np.repeat(np.arange(organ_of.size), rng.integers(1, 5, organ_of.size))
    n = img.size
    d = rng.normal(0, 1.2, organ_of.size)[img]
    y = rng.random((n, 2)) < 1 / (1 + np.exp(-(1.5 + d)))[:, None]
    items = [f"i{i:03d}" for i in range(n)]
    truth = np.where(np.arange(n) % 2 == 0, "A", "B")
    other = np.where(truth == "A", "B", "A")
    rows = [pd.DataFrame({"item": items, "rater": "x", "role": "expert", "value": truth})]
    for j in range(2):
        v = np.where(y[:, j], truth, other)
        rows.append(pd.DataFrame({"item": items, "rater": f"j{j}", "role": "judge", "value": v}))
    v = pd.concat(rows, ignore_index=True).assign(dimension="overall")
    it = pd.DataFrame(
        {"item": items, "image_id": [f"g{c:03d}" for c in img], "organ": organ_of[img].astype(str)}
    )
    return Study(v, it, {"overall": Scale("nominal", ("A", "B"))}, cluster="image_id"), it, y


def test_small_cells_borrow_the_pooled_intra_image_correlation():
    """A cell with < 20 images takes Wilson at n / deff, deff = 1 + rho (sum n_c^2/n - 1), rho
    the judge's nested one-way ANOVA correlation over all cells (statsmodels' OLS sums of squares);
    before, its own Korn-Graubard n* with Bell-McCaffrey df gave 98-99.5% coverage."""
    from statsmodels.formula.api import ols

    study, it, y = _small_cell_study()
    t = subgroup_accuracy(study, ["organ"])
    assert t["ci_method"].str.contains("pooled over 13 cells").all()
    for j in range(2):
        d = it.assign(y=y[:, j].astype(float))
        g, k, n = d["image_id"].nunique(), 13, len(d)
        # images are nested in organs: between-image SS = RSS(organ) - RSS(image)
        rss_o, rss_i = ols("y ~ C(organ)", d).fit().ssr, ols("y ~ C(image_id)", d).fit().ssr
        msb, msw = (rss_o - rss_i) / (g - k), rss_i / (n - g)
        sizes = d.groupby(["organ", "image_id"]).size()
        n0 = (n - (sizes**2 / sizes.groupby(level=0).transform("sum")).sum()) / (g - k)
        sb = (msb - msw) / n0
        rho = max(sb / (sb + msw), 0.0)
        for organ, cell in d.groupby("organ"):
            row = t[(t["judge"] == f"j{j}") & (t["organ"] == organ)].iloc[0]
            nc = cell.groupby("image_id").size().to_numpy()
            deff = 1 + rho * ((nc**2).sum() / nc.sum() - 1)
            ne = nc.sum() / deff
            lo, hi = proportion_confint(cell["y"].mean() * ne, ne, method="wilson")
            assert row["icc_pooled"] == pytest.approx(rho, abs=1e-12)
            assert row["design_effect"] == pytest.approx(deff, rel=1e-12)
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), abs=1e-10)
