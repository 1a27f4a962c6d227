"""Bias diagnostics: planted-bias recovery on the demo, independent cross-checks.

Planted values: data/demo/truth/params.json (position_bias pi_j, length_bias lambda_j; judges
sim-general-8b, sim-med-7b, sim-control also answered in order BA). Independent
implementations: statsmodels (mcnemar, proportion_confint), scipy (spearmanr, kendalltau),
sklearn (cohen_kappa_score), plain loops for pairwise accuracy / ECE / flip rate.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import DEMO, EXTERNAL, MAPPINGS
from medjudge.analyses.bias import (
    constant_answer_scores,
    dimension_structure,
    label_balance,
    length_bias,
)
from medjudge.analyses.consistency import run_consistency
from medjudge.analyses.position import a_rate_table, swap_table
from medjudge.cli import main
from medjudge.data.hanna import load_hanna
from medjudge.data.model import Study
from medjudge.data.scale import Scale
from medjudge.stats.resampling import ResamplePlan
from medjudge.stats.scores import (
    calibration,
    pairwise_accuracy_from_scores,
    rank_correlations,
    table_rank_correlations,
)
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint

TRUTH = json.loads((DEMO / "truth" / "params.json").read_text())["judges"]


@pytest.fixture(scope="module")
def swap(demo_study):
    return swap_table(demo_study, cluster="image_id")


@pytest.fixture(scope="module")
def single(demo_study):
    return a_rate_table(demo_study)


def test_swap_detects_planted_position_bias(swap):
    assert set(swap["judge"]) == {"sim-general-8b", "sim-med-7b", "sim-control"}
    for j in ("sim-general-8b", "sim-med-7b"):
        s = swap[swap["judge"] == j]
        # the demo's pairs cluster by image: the cluster sign-flip test (issue 37) cannot go
        # below 1 / (9,999 + 1) before Holm; the item-level exact binomial stays far smaller
        assert (s["p_first_holm"] < 0.01).all() and (s["p_first_inconsistent"] > 0.6).all()
        assert (s["p_first_binom"] < 1e-6).all()
    ctrl = swap[swap["judge"] == "sim-control"]
    assert (ctrl["p_first_holm"] >= 0.05).all()
    assert (ctrl["p_first_binom"] < 0.05).sum() <= 1  # 6 correlated dimensions at the nominal 5%
    # a position-biased judge is less swap-consistent than the unbiased control
    by = swap.groupby("judge")["consistency"].mean()
    assert by["sim-med-7b"] < by["sim-general-8b"] < by["sim-control"]


def test_swap_counts_against_direct_computation(demo_study, swap):
    m_ab = demo_study.matrix("overall", raters=["sim-med-7b"], order="AB").values[:, 0]
    m_ba = demo_study.matrix("overall", raters=["sim-med-7b"], order="BA").values[:, 0]
    r = swap[(swap["judge"] == "sim-med-7b") & (swap["dimension"] == "overall")].iloc[0]
    ok = ~np.isnan(m_ab) & ~np.isnan(m_ba)
    assert r["consistent"] == int((m_ab[ok] == m_ba[ok]).sum())
    ff, ss = int(((m_ab == 0) & (m_ba == 1)).sum()), int(((m_ab == 1) & (m_ba == 0)).sum())
    assert (r["first_first"], r["second_second"]) == (ff, ss)
    assert r["p_first_binom"] == pytest.approx(
        sm_mcnemar([[0, ff], [ss, 0]], exact=True).pvalue, rel=1e-9
    )
    assert r["consistency_ci_low"] < r["consistency"] < r["consistency_ci_high"]


def test_single_order_a_rate(single):
    pi = single["judge"].map(lambda j: TRUTH[j]["position_bias"])
    strong = single[pi >= 0.25]
    assert (strong["p_holm"] < 0.05).all() and (strong["difference"] > 0).all()
    none = single[pi == 0]
    assert not (none["p_holm"] < 0.05).any()
    assert (none["p_mcnemar_midp"] < 0.05).mean() <= 0.2
    r = single.iloc[3]
    t = [[0, r["judge_a_gold_b"]], [r["judge_b_gold_a"], 0]]
    assert r["p_mcnemar_exact"] == pytest.approx(sm_mcnemar(t, exact=True).pvalue, rel=1e-9)
    assert r["difference"] == pytest.approx(r["judge_a_rate"] - r["gold_a_rate"], abs=1e-12)
    assert "cannot be separated" in r["note"]


def test_label_balance_and_constant_answers(demo_study):
    lb = label_balance(demo_study)
    g = demo_study.gold_table
    for dim in ("overall", "creativity"):
        vals = g.loc[g["dimension"] == dim, "value"]
        row = lb[(lb["dimension"] == dim) & (lb["category"] == "A")].iloc[0]
        assert row["count"] == int((vals == "A").sum()) and row["n"] == int(vals.notna().sum())
        lo, hi = proportion_confint(row["count"], row["n"], method="wilson")
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), abs=1e-12)
        ca = constant_answer_scores(demo_study)
        a = ca[(ca["dimension"] == dim) & (ca["judge"] == "always-A")].iloc[0]
        assert a["accuracy"] == pytest.approx(row["prevalence"], abs=1e-12)
    by = label_balance(demo_study, by=["organ_system"])
    assert by.groupby("dimension")["count"].sum().eq(len(demo_study.items)).all()


def test_dimension_structure_against_sklearn(demo_study):
    from sklearn.metrics import cohen_kappa_score

    ds = dimension_structure(demo_study)
    pairs, summary = ds["pairs"], ds["summary"]
    r = pairs[
        (pairs["rater"] == "physician_3")
        & (pairs["dimension_a"] == "accuracy")
        & (pairs["dimension_b"] == "overall")
    ].iloc[0]
    a = demo_study.matrix("accuracy", raters=["physician_3"]).values[:, 0]
    b = demo_study.matrix("overall", raters=["physician_3"]).values[:, 0]
    assert r["kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    mats = np.column_stack(
        [
            demo_study.matrix(d, raters=["sim-control"], order="AB").values[:, 0]
            for d in demo_study.dimensions
        ]
    )
    full = ~np.isnan(mats).any(1)
    s = summary.set_index("rater").loc["sim-control"]
    assert s["all_identical"] == pytest.approx(np.mean([len(set(r)) == 1 for r in mats[full]]))
    assert set(summary["role"]) == {"expert", "judge"}


def test_length_bias_recovers_planted_lambda(demo_study):
    lb = length_bias(demo_study)
    rw = lb[lb["rater"] == "sim-reward-7b"]  # lambda = 0.20
    assert (rw["gap_p_holm"] < 0.05).all()
    assert ((rw["gap_ci_low"] < 0.2) & (0.2 < rw["gap_ci_high"])).mean() >= 5 / 6
    for j in ("sim-control", "sim-general-72b", "sim-small-3b"):  # lambda = 0
        assert not (lb.loc[lb["rater"] == j, "gap_p_holm"] < 0.05).any()
    # b/c against a direct count
    r = lb[(lb["rater"] == "sim-reward-7b") & (lb["dimension"] == "overall")].iloc[0]
    it = demo_study.items
    longer = np.where(
        it["answer1_len"] > it["answer2_len"],
        0.0,
        np.where(it["answer2_len"] > it["answer1_len"], 1.0, np.nan),
    )
    v = demo_study.matrix("overall", raters=["sim-reward-7b"], order="AB").values[:, 0]
    g = demo_study.gold("overall").codes
    ok = ~np.isnan(v) & ~np.isnan(longer) & ~np.isnan(g)
    assert r["b"] == int(((v == longer) & (g != longer) & ok).sum())
    assert r["c"] == int(((v != longer) & (g == longer) & ok).sum())


def _runs_study() -> Study:
    rng = np.random.default_rng(3)
    rows = []
    for i in range(40):
        for run in ("1", "2", "3"):
            v = "A" if rng.random() < (0.9 if i < 20 else 0.5) else "B"
            rows.append(
                {
                    "item": f"i{i}",
                    "rater": "j",
                    "role": "judge",
                    "dimension": "pref",
                    "value": v,
                    "run": run,
                }
            )
    items = pd.DataFrame({"item": [f"i{i}" for i in range(40)]})
    return Study(pd.DataFrame(rows), items, {"pref": Scale("nominal", ("A", "B"))})


def test_run_consistency_against_loop():
    st = _runs_study()
    rc = run_consistency(st).iloc[0]
    wide = st.ratings.pivot(index="item", columns="run", values="value")
    flips = (wide.nunique(axis=1) > 1).sum()
    assert rc["flips"] == flips and rc["n_items"] == 40 and rc["runs"] == 3
    dis = np.mean([1 - sum(c * (c - 1) for c in r.value_counts()) / 6 for _, r in wide.iterrows()])
    assert rc["pairwise_disagreement"] == pytest.approx(dis)
    assert rc["ci_low"] < rc["flip_rate"] < rc["ci_high"] and rc["level"] == 0.95


def test_table_rank_correlations_with_ties_equal_scipy():
    rng = np.random.default_rng(0)
    x = rng.integers(1, 6, 200).astype(float)
    y = np.clip(x + rng.integers(-2, 3, 200), 1, 5).astype(float)
    xs, xc = np.unique(x, return_inverse=True)
    ys, yc = np.unique(y, return_inverse=True)
    t = np.zeros((1, xs.size, ys.size))
    np.add.at(t[0], (xc, yc), 1)
    rho, tau = table_rank_correlations(t)
    assert rho[0] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert tau[0] == pytest.approx(stats.kendalltau(x, y, variant="b").statistic, abs=1e-12)


def test_hanna_rank_correlations_and_bootstrap_replicates():
    h = load_hanna(EXTERNAL / "hanna")
    assert h["invalid"] == 1051  # SOURCE.md: 1,051 LLM values below the 1-5 scale
    ref, llm = h["reference"], h["llm"]
    wide = llm[llm["criterion"] == "Coherence"].pivot(
        index="story_id", columns="judge", values="score"
    )
    wide = wide.reindex(ref.index)
    x, y = ref["Coherence"].to_numpy(), wide["Mistral-7B/p1"].to_numpy()
    rc = rank_correlations(x, y, ["Mistral-7B/p1"], n_resamples=200, seed=1).set_index(
        "coefficient"
    )
    ok = ~np.isnan(y)
    assert rc.loc["spearman", "estimate"] == pytest.approx(
        stats.spearmanr(x[ok], y[ok]).statistic, abs=1e-12
    )
    assert rc.loc["kendall_tau_b", "estimate"] == pytest.approx(
        stats.kendalltau(x[ok], y[ok]).statistic, abs=1e-12
    )
    assert rc.loc["spearman", "n_missing"] == int((~ok).sum())
    # one bootstrap replicate recomputed on the expanded resample (independent path)
    from medjudge.stats.scores import _rank_stat

    w = ResamplePlan(x.size, 3, seed=5).apply(lambda w: w)
    boot = _rank_stat(x, y, 40_000)(w)
    idx = np.flatnonzero(ok)
    for b in range(3):
        rep = np.repeat(idx, w[b, idx].astype(int))
        assert boot[b, 0] == pytest.approx(stats.spearmanr(x[rep], y[rep]).statistic, abs=1e-10)
        assert boot[b, 1] == pytest.approx(stats.kendalltau(x[rep], y[rep]).statistic, abs=1e-10)
    assert (
        rc.loc["spearman", "ci_low"]
        < rc.loc["spearman", "estimate"]
        < rc.loc["spearman", "ci_high"]
    )


def test_pairwise_accuracy_from_scores_against_loop():
    rng = np.random.default_rng(2)
    g = np.repeat(np.arange(15), 5)
    x = rng.integers(1, 4, g.size).astype(float)
    y = np.round(x + rng.normal(0, 1, g.size))
    y[3] = np.nan
    pa = pairwise_accuracy_from_scores(x, y, g, ["j"], n_resamples=100).iloc[0]
    s = n = ties = miss = 0
    for grp in range(15):
        ii = np.flatnonzero(g == grp)
        for a in range(ii.size):
            for b in range(a + 1, ii.size):
                i, k = ii[a], ii[b]
                if x[i] == x[k]:
                    ties += 1
                    continue
                if np.isnan(y[i]) or np.isnan(y[k]):
                    miss += 1
                    continue
                n += 1
                s += 0.5 if y[i] == y[k] else float((y[i] > y[k]) == (x[i] > x[k]))
    assert pa["pairwise_accuracy"] == pytest.approx(s / n)
    assert (pa["n_pairs"], pa["excluded_reference_ties"], pa["excluded_missing_score"]) == (
        n,
        ties,
        miss,
    )


def test_calibration_ece_against_loop():
    rng = np.random.default_rng(4)
    p = rng.random(300)
    y = (rng.random(300) < p**1.5).astype(float)  # overconfident
    c = calibration(p, y, n_bins=10, n_resamples=300)
    ece = sum(
        abs((y[b] - p[b]).sum())
        for b in [(np.minimum((p * 10).astype(int), 9) == k) for k in range(10)]
    )
    assert c["ece"] == pytest.approx(ece / 300)
    rel = c["reliability"]
    assert rel["n"].sum() == 300 and c["ci_low"] <= c["ece"] <= c["ci_high"]
    with pytest.raises(ValueError):
        calibration(np.array([1.2]), np.array([1.0]))


def test_cli_bias(capsys):
    assert main(["bias", str(DEMO), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"position_swap", "position_single_order", "label_balance", "length_bias"} <= set(out)
    path = EXTERNAL / "llmbar" / "verdicts_long.csv"
    assert main(["bias", str(path), "--mapping", str(MAPPINGS / "llmbar_long.toml")]) == 0
    assert "swap" in capsys.readouterr().out
