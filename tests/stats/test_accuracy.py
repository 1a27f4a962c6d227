"""Judge metrics: policies, aggregation, intervals, baselines, and recovery of the demo truth."""

from __future__ import annotations

import json

import numpy as np
import pytest
from medjudge import Bootstrap
from medjudge.stats.accuracy import (
    accuracy_arrays,
    apply_policy,
    bootstrap_accuracy,
    classification_metrics,
    judge_accuracy,
    policy_sensitivity,
    trivial_baselines,
)
from medjudge.stats.resampling import ResamplePlan
from statsmodels.stats.proportion import proportion_confint

Y = np.array(
    [[1, 1, np.nan], [0, 1, 1], [1, np.nan, 0], [1, 0, np.nan], [0, 1, 1], [1, 1, 1]], dtype=float
)


def test_policies_by_hand():
    assert judge_accuracy(Y, policy="wrong")["accuracy"].tolist() == pytest.approx(
        [4 / 6, 4 / 6, 3 / 6]
    )
    assert judge_accuracy(Y, policy="exclude")["accuracy"].tolist() == pytest.approx(
        [4 / 6, 4 / 5, 3 / 4]
    )
    assert judge_accuracy(Y, policy="half")["accuracy"].tolist() == pytest.approx(
        [4 / 6, 4.5 / 6, 4 / 6]
    )
    df = judge_accuracy(Y, policy="exclude")
    assert df["n"].tolist() == [6, 5, 4] and df["n_invalid"].tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="policy"):
        apply_policy(Y, "drop")


def test_sensitivity_table_has_all_three():
    s = policy_sensitivity(Y, ["a", "b", "c"])
    assert s.loc[2, "accuracy_wrong"] == pytest.approx(0.5) and s.loc[
        2, "accuracy_exclude"
    ] == pytest.approx(0.75)
    assert s.loc[2, "max_shift"] == pytest.approx(0.25)
    assert {"ci_low_half", "ci_high_exclude"} <= set(s.columns)


def test_wilson_default_is_textbook_wilson():
    rng = np.random.default_rng(0)
    y = (rng.random((137, 4)) < [0.2, 0.5, 0.8, 0.97]).astype(float)
    df = judge_accuracy(y)
    lo, hi = proportion_confint(y.sum(0), 137, method="wilson")
    np.testing.assert_allclose(df["ci_low"], lo, atol=1e-12)
    np.testing.assert_allclose(df["ci_high"], hi, atol=1e-12)
    assert (df["ci_method"] == "wilson").all()
    cp = judge_accuracy(y, method="clopper-pearson")
    lo, hi = proportion_confint(y.sum(0), 137, method="beta")
    np.testing.assert_allclose(cp["ci_low"], lo, atol=1e-10)


def test_macro_aggregation_and_se():
    rng = np.random.default_rng(1)
    groups = np.repeat(["a", "b", "c"], [20, 50, 130])
    y = (rng.random((200, 2)) < 0.7).astype(float)
    a = accuracy_arrays(y, groups=groups, aggregation="macro")
    pg = np.array([[y[groups == g, j].mean() for j in range(2)] for g in "abc"])
    np.testing.assert_allclose(a["estimate"], pg.mean(0))
    var = (pg * (1 - pg) / np.array([20, 50, 130])[:, None]).sum(0) / 9
    np.testing.assert_allclose(a["se"], np.sqrt(var))
    df = judge_accuracy(y, groups=groups, aggregation="macro")
    assert (df["aggregation"] == "macro").all()


def test_bootstrap_matches_engine_and_scipy():
    from scipy import stats

    rng = np.random.default_rng(2)
    y = (rng.random((150, 3)) < [0.6, 0.75, 0.9]).astype(float)
    plan = ResamplePlan(150, 3000, seed=4)
    boot = bootstrap_accuracy(y, weights=plan)
    assert boot.shape == (3000, 3)
    df = judge_accuracy(y, method="bootstrap-bca", bootstrap=Bootstrap(3000, 4))
    for j in range(3):
        ref = stats.bootstrap(
            (y[:, j],),
            np.mean,
            n_resamples=3000,
            method="BCa",
            random_state=np.random.default_rng(j),
        )
        assert df["ci_low"][j] == pytest.approx(ref.confidence_interval.low, abs=0.015)
        assert df["ci_high"][j] == pytest.approx(ref.confidence_interval.high, abs=0.015)


def test_exclude_bootstrap_uses_own_denominators():
    w = np.ones((1, 6))
    np.testing.assert_allclose(
        bootstrap_accuracy(Y, policy="exclude", weights=w)[0], [4 / 6, 4 / 5, 3 / 4]
    )


def test_classification_metrics_and_baselines():
    gold = np.array([0, 0, 0, 1, 1, 1, 1, 1], dtype=float)
    pred = np.array(
        [[0, 0], [0, 1], [1, np.nan], [1, 1], [1, 1], [0, 1], [1, np.nan], [1, 1]], dtype=float
    )
    m = classification_metrics(pred, gold, ["j0", "j1"], labels=["A", "B"])
    # j0: class A recall 2/3, precision 2/3; class B recall 4/5, precision 4/5
    assert m.loc[0, "recall_A"] == pytest.approx(2 / 3) and m.loc[0, "recall_B"] == pytest.approx(
        0.8
    )
    assert m.loc[0, "macro_f1"] == pytest.approx((2 / 3 + 0.8) / 2)
    # j1: one invalid verdict on a gold-A item and one on a gold-B item count as misses:
    # recall_A = 1/3, recall_B = 4/5
    assert m.loc[1, "recall_A"] == pytest.approx(1 / 3) and m.loc[1, "recall_B"] == pytest.approx(
        4 / 5
    )
    assert m.loc[1, "n_invalid"] == 2
    me = classification_metrics(pred, gold, labels=["A", "B"], policy="exclude")
    assert me.loc[1, "recall_B"] == pytest.approx(1.0)
    b = trivial_baselines(gold, labels=["A", "B"])
    assert b["judge"].tolist() == ["always-A", "always-B", "prevalence-guess"]
    assert b["accuracy"].tolist() == pytest.approx([3 / 8, 5 / 8, (3 / 8) ** 2 + (5 / 8) ** 2])


# ------------------------------------------------------------------ small coverage checks
def test_coverage_wilson_small_sim():
    rng = np.random.default_rng(11)
    reps, n, p = 4000, 60, 0.8
    y = (rng.random((n, reps)) < p).astype(float)
    df = judge_accuracy(y)
    cov = np.mean((df["ci_low"] <= p) & (p <= df["ci_high"]))
    assert 0.93 <= cov <= 0.97, cov


def test_coverage_clustered_small_sim():
    # clusters of 6 items sharing a random effect (ICC about 0.2): the naive Wilson interval
    # under-covers, the cluster-robust effective-n Wilson interval covers
    rng = np.random.default_rng(12)
    reps, c, m = 2000, 60, 6
    cl = np.repeat(np.arange(c), m)
    u = rng.normal(0, 1.0, (c, reps))[cl]
    p_item = 1 / (1 + np.exp(-(1.2 + u)))
    y = (rng.random((c * m, reps)) < p_item).astype(float)
    truth = np.mean(1 / (1 + np.exp(-(1.2 + rng.normal(0, 1.0, 2_000_000)))))
    naive = judge_accuracy(y)
    clus = judge_accuracy(y, clusters=cl)
    cov_naive = np.mean((naive["ci_low"] <= truth) & (truth <= naive["ci_high"]))
    cov_clus = np.mean((clus["ci_low"] <= truth) & (truth <= clus["ci_high"]))
    assert cov_naive < 0.92, cov_naive
    assert 0.93 <= cov_clus <= 0.97, cov_clus


def test_demo_bundle_truth_recovered(demo_study):
    # the simulator records each judge's population accuracy (truth/params.json); the 95%
    # cluster-robust (image_id) Wilson intervals should contain it about 95% of the time
    from conftest import DEMO

    truth = json.loads((DEMO / "truth" / "params.json").read_text())["judges"]
    hits = total = 0
    items = demo_study.items.set_index("item")
    for d in demo_study.dimensions:
        o = demo_study.outcomes(d)
        cl = items.loc[o.items, "image_id"].to_numpy()
        for policy, key in (
            ("exclude", "true_accuracy_usable"),
            ("wrong", "true_accuracy_wrong_policy"),
        ):
            df = judge_accuracy(o.outcome, o.judges, policy=policy, clusters=cl)
            tr = np.array([truth[j][key][d] for j in o.judges])
            hits += int(np.sum((df["ci_low"] <= tr) & (tr <= df["ci_high"])))
            total += len(tr)
    # expected 0.95 * total; allow 3 binomial SDs below
    assert hits >= 0.95 * total - 3 * np.sqrt(total * 0.95 * 0.05), (hits, total)
