"""Score studies (issue 13, deliverable 5): error, correlations, CCC, ICC and Bland–Altman
against scipy / pingouin / the papers' formulas and a published worked example."""

from __future__ import annotations

import doctest
import math

import medjudge.analyses.score_study as score_mod
import medjudge.stats.score_agreement as sa_mod
import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from medjudge import Bootstrap
from medjudge.analyses.score_study import score_study
from medjudge.data.model import Study
from medjudge.data.scale import Scale
from medjudge.stats.score_agreement import bland_altman, lin_ccc, score_agreement_core
from scipy import stats

# Bland & Altman (1986) Lancet i:307-310, Table 1: PEFR (l/min), first reading with the Wright
# peak flow meter and with the mini Wright meter, 17 subjects.
WRIGHT = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478, 178, 423, 427]
MINI = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477, 259, 350, 451]


def test_doctests():
    for mod in (sa_mod, score_mod):
        assert doctest.testmod(mod).failed == 0


def test_bland_altman_published_pefr_example():
    # p. 308: mean difference -2.1 l/min, SD 38.8, limits (d -/+ 2 s) -79.7 and 75.5 l/min.
    r = bland_altman(WRIGHT, MINI, z=2.0, se_method="1986")
    assert round(r["bias"].estimate, 1) == -2.1
    assert round(r["bias"].extra["sd_difference"], 1) == 38.8
    # the paper rounds d and s before forming the limits (-2.1 -/+ 2 x 38.8)
    assert r["loa_low"].estimate == pytest.approx(-79.7, abs=0.1)
    assert r["loa_high"].estimate == pytest.approx(75.5, abs=0.1)
    # p. 310: SE of the bias s/sqrt(n) = 9.4, of each limit sqrt(3 s^2/n) = 16.3, t_16 = 2.12
    assert round(r["bias"].se, 1) == 9.4
    assert round(r["loa_low"].se, 1) == 16.3
    assert r["loa_low"].ci_low == pytest.approx(-79.7 - 2.12 * 16.3, abs=0.15)
    assert r["loa_high"].ci_high == pytest.approx(75.5 + 2.12 * 16.3, abs=0.15)
    # the 1999 SE: s sqrt(1/n + z^2/(2(n-1))) (Bland & Altman 1999, sec. 2.3), written out
    r99 = bland_altman(WRIGHT, MINI)
    d = np.subtract(WRIGHT, MINI)
    s, n = d.std(ddof=1), d.size
    se = s * math.sqrt(1 / n + 1.959963984540054**2 / (2 * (n - 1)))
    assert r99["loa_high"].se == pytest.approx(se)
    lim = d.mean() + 1.959963984540054 * s
    t = stats.t.ppf(0.975, n - 1)
    assert (r99["loa_high"].ci_low, r99["loa_high"].ci_high) == pytest.approx(
        (lim - t * se, lim + t * se)
    )


def test_core_equals_scipy_numpy_and_definitions():
    rng = np.random.default_rng(5)
    y = rng.normal(5, 2, 80)
    x = 0.8 * y + 1.5 + rng.normal(0, 1, 80)
    x[3] = np.nan
    ok = ~np.isnan(x)
    mae, rmse, bias, sd, lo, hi, r, ccc = score_agreement_core(x, y)
    d = x[ok] - y[ok]
    assert mae == pytest.approx(np.abs(d).mean())
    assert rmse == pytest.approx(np.sqrt((d**2).mean()))
    assert bias == pytest.approx(d.mean())
    assert sd == pytest.approx(d.std(ddof=1))
    assert r == pytest.approx(stats.pearsonr(x[ok], y[ok])[0])
    # Lin (1989): rho_c = 1 - E(x - y)^2 / E[(x - y)^2 | independent], sample moments (1/n)
    xs, ys = x[ok], y[ok]
    expected = 1 - np.mean((xs - ys) ** 2) / (xs.var() + ys.var() + (xs.mean() - ys.mean()) ** 2)
    assert ccc == pytest.approx(expected)
    assert lin_ccc(x, y).estimate == pytest.approx(expected)
    # integer weights = repeating items
    w = rng.integers(0, 3, 80).astype(float)
    rep = np.repeat(np.arange(80), w.astype(int))
    np.testing.assert_allclose(score_agreement_core(x, y, w), score_agreement_core(x[rep], y[rep]))


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(3)
    n = 45
    truth = rng.uniform(2, 9, n)
    rows = []
    for i, t in enumerate(truth):
        for r, role, sd, shift in (
            ("e1", "expert", 0.8, 0), ("e2", "expert", 1.0, 0), ("e3", "expert", 0.9, 0),
            ("j1", "judge", 1.2, 0.5), ("j2", "judge", 2.0, -1.0),
        ):  # fmt: skip
            rows.append(
                (
                    f"s{i}",
                    r,
                    role,
                    "quality",
                    float(np.clip(round(t + shift + rng.normal(0, sd)), 1, 10)),
                )
            )
    ratings = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    wide = ratings.pivot(index="item", columns="rater", values="value")
    gold = wide[["e1", "e2", "e3"]].mean(axis=1)
    st = Study(
        ratings,
        pd.DataFrame(
            {"item": [f"s{i}" for i in range(n)], "image_id": [f"g{i // 3}" for i in range(n)]}
        ),
        {"quality": Scale("interval", low=1, high=10)},
        gold_table=pd.DataFrame(
            {"item": gold.index, "dimension": "quality", "value": gold.to_numpy()}
        ),
    )
    return st, wide, gold


def test_score_study_against_scipy_and_pingouin(scores):
    st, wide, gold = scores
    res = score_study(st, bootstrap=Bootstrap(300), interval="analytic", cluster="none")
    m = res.table("metrics").query("role == 'judge'")
    for j in ("j1", "j2"):
        got = m[m["rater"] == j].set_index("metric")
        x, y = wide.loc[gold.index, j].to_numpy(), gold.to_numpy()
        assert got.loc["spearman", "estimate"] == pytest.approx(stats.spearmanr(x, y)[0])
        assert got.loc["kendall_tau_b", "estimate"] == pytest.approx(stats.kendalltau(x, y)[0])
        pr = stats.pearsonr(x, y)
        ci = pr.confidence_interval()
        assert got.loc["pearson", ["estimate", "ci_low", "ci_high"]].tolist() == pytest.approx(
            [pr[0], ci.low, ci.high]
        )
        long = pd.DataFrame({"t": np.r_[np.arange(len(x)), np.arange(len(x))],
                             "r": ["j"] * len(x) + ["g"] * len(x), "s": np.r_[x, y]})  # fmt: skip
        icc = pg.intraclass_corr(long, targets="t", raters="r", ratings="s")
        icc = icc.replace({"Type": {"ICC2": "ICC(A,1)"}}).set_index("Type")  # older pingouin
        icc = icc.rename(columns={"CI95%": "CI95"})
        assert got.loc["icc_a1", "estimate"] == pytest.approx(icc.loc["ICC(A,1)", "ICC"])
        assert [got.loc["icc_a1", "ci_low"], got.loc["icc_a1", "ci_high"]] == pytest.approx(
            list(icc.loc["ICC(A,1)", "CI95"]),
            abs=0.006,  # pingouin rounds its CI to 2 decimals
        )
        assert got.loc["bias", "estimate"] == pytest.approx(np.mean(x - y))
        assert got.loc["mae", "estimate"] == pytest.approx(np.mean(np.abs(x - y)))
    assert m.query("rater == 'j1' and metric == 'bias'")["ci_low"].iloc[0] > 0  # planted +0.5
    assert m.query("rater == 'j2' and metric == 'bias'")["ci_high"].iloc[0] < 0  # planted -1
    # experts against the mean of the others, and reliability within roles
    ex = res.table("metrics").query("role == 'expert' and metric == 'mae'")
    assert set(ex["rater"]) == {"e1", "e2", "e3"}
    e1 = wide["e1"] - wide[["e2", "e3"]].mean(axis=1)
    assert ex.set_index("rater").loc["e1", "estimate"] == pytest.approx(np.abs(e1).mean())
    rel = res.table("reliability")
    assert set(rel["role"]) == {"expert", "judge"}


def test_bootstrap_mode_clustered_and_headline(scores):
    st, _, _ = scores
    res = score_study(st, bootstrap=Bootstrap(300, 2))
    m = res.table("metrics")
    assert m["ci_method"].str.contains("clusters").all() or m["metric"].eq("icc_a1").any()
    assert (m["ci_low"] <= m["estimate"] + 1e-12).all() and (
        m["estimate"] <= m["ci_high"] + 1e-12
    ).all()
    assert "closest to gold" in res.headline["quality"]
    assert "ScoreStudyResult(1 score dimensions" in repr(res)
    with pytest.raises(ValueError, match="interval must be one of"):
        score_study(st, interval="exact")


def test_judge_only_and_expert_only_score_studies(scores):
    st, _, _ = scores
    judges_only = Study(st.ratings[st.ratings["role"] == "judge"], st.items, st.scales)
    res = score_study(judges_only, bootstrap=Bootstrap(50))
    assert res.metrics.empty
    assert "no gold score" in " ".join(res.not_applicable.values()) or res.not_applicable
    assert set(res.reliability["role"]) == {"judge"}
    experts_only = Study(st.ratings[st.ratings["role"] == "expert"], st.items, st.scales)
    res = score_study(experts_only, bootstrap=Bootstrap(50))
    assert set(res.metrics["role"]) == {"expert"}
    assert "the study has no judges" in res.not_applicable["quality: judges against gold"]


def test_quick_coverage_clustered_bias_and_loa():
    """Cluster-bootstrap BCa intervals of the bias and the upper limit of agreement on clustered
    scores (30 clusters of 3 items sharing an item effect); 120 replications, tolerance 3 MC SE
    plus 0.03 for the known small-sample bootstrap shortfall (full run: benchmarks/calibration/
    judge_vs_gold.py)."""
    from medjudge.stats.resampling import ResamplePlan, bootstrap_interval, jackknife_weights

    rng = np.random.default_rng(99)
    true_bias, sd_c, sd_e = 0.4, 0.6, 0.8
    sd_d = math.hypot(sd_c, sd_e)
    true_hi = true_bias + 1.959963984540054 * sd_d
    reps, hits = 120, np.zeros(2)
    for _ in range(reps):
        cl = np.repeat(np.arange(30), 3)
        y = rng.normal(5, 2, 90)
        x = y + true_bias + rng.normal(0, sd_c, 30)[cl] + rng.normal(0, sd_e, 90)
        plan = ResamplePlan(90, 400, int(rng.integers(1 << 30)), clusters=cl)
        th = score_agreement_core(x, y)
        lo, hi = bootstrap_interval(
            th, score_agreement_core(x, y, plan.apply(lambda w: w)), method="bca",
            jack=score_agreement_core(x, y, jackknife_weights(90, clusters=cl)),
        )  # fmt: skip
        hits[0] += lo[2] <= true_bias <= hi[2]
        hits[1] += lo[5] <= true_hi <= hi[5]
    cover = hits / reps
    mc = math.sqrt(0.95 * 0.05 / reps)
    assert (cover > 0.95 - 3 * mc - 0.03).all(), cover


def test_score_study_icc_intervals_keep_the_clusters(scores):
    # issue 37: the reliability table and ICC(A,1) of judge and gold used the F intervals
    # (independent items) whatever the clusters
    import medjudge as mj

    st, wide, gold = scores
    res = score_study(st, bootstrap=Bootstrap(100), interval="analytic", cluster="image_id")
    rel = res.table("reliability")
    assert len(rel) and rel["ci_method"].str.startswith("cluster jackknife").all()
    m = st.matrix("quality", role="expert")
    img = st.items.set_index("item").loc[list(m.items), "image_id"].to_numpy()
    ref = {e.name: e for e in mj.icc(m.values, clusters=img)}
    row = rel[(rel["role"] == "expert") & rel["form"].str.startswith("ICC2 ")].iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (ref["ICC2"].ci_low, ref["ICC2"].ci_high), rel=1e-12
    )
    icc_rows = res.table("metrics").query("metric == 'icc_a1'")
    assert icc_rows["ci_method"].str.startswith("cluster jackknife").all()
    plain = score_study(st, bootstrap=Bootstrap(100), interval="analytic", cluster="none")
    assert plain.table("reliability")["ci_method"].str.startswith("F-based").all()


def test_score_judge_pairs_match_paired_score_difference_with_clusters(scores):
    # issue 37, item 6: paired MAE/bias/RMSE/CCC differences of score judges, clustered
    from medjudge.analyses.score_study import score_judge_pairs
    from medjudge.stats.multiplicity import adjust_pvalues
    from medjudge.stats.score_tests import paired_score_difference

    st, wide, gold = scores
    t = score_judge_pairs(st, "quality", metrics=("mae", "rmse", "bias", "ccc"), cluster="image_id")
    assert len(t) == 4 and set(t["metric"]) == {"mae", "rmse", "bias", "ccc"}
    img = st.items.set_index("item").loc[gold.index, "image_id"].to_numpy()
    for r in t.itertuples():
        want = paired_score_difference(
            wide.loc[gold.index, r.judge_a].to_numpy(), wide.loc[gold.index, r.judge_b].to_numpy(),
            gold.to_numpy(), metric=r.metric, clusters=img,
        )  # fmt: skip
        assert r.difference == pytest.approx(want["difference"], rel=1e-12)
        assert (r.ci_low, r.ci_high) == pytest.approx((want["ci_low"], want["ci_high"]), rel=1e-9)
        assert r.n_clusters == len(set(img))
    np.testing.assert_allclose(t["p_holm"], adjust_pvalues(t["p_value"].to_numpy(), "holm"))
