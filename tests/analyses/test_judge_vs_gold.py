"""Judges against gold (issue 13, deliverable 4): every number against scikit-learn / pandas /
statsmodels computed here, intervals by a quick clustered simulation."""

from __future__ import annotations

import doctest

import medjudge.analyses.judge_vs_gold as jvg_mod
import medjudge.stats.confusion as conf_mod
import numpy as np
import pandas as pd
import pytest
from _crowd import DIMS, LABELS, RISK, crowd_study  # noqa: E402,F401
from medjudge import Bootstrap
from medjudge.analyses.judge_vs_gold import judge_vs_gold
from medjudge.data.model import Study
from medjudge.data.scale import Scale
from medjudge.stats.confusion import class_rates, gold_kappa_core, ordinal_error_rates
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_recall_fscore_support
from statsmodels.stats.proportion import proportion_confint


@pytest.fixture(scope="module")
def study() -> Study:
    return crowd_study()


@pytest.fixture(scope="module")
def result(study: Study):
    return judge_vs_gold(study, bootstrap=Bootstrap(300, 1))


def _long(study: Study) -> pd.DataFrame:
    """The judges' verdicts joined to gold with pandas only (independent of the data model)."""
    r = study.ratings[study.ratings["role"] == "judge"][["item", "rater", "dimension", "value"]]
    g = study.gold_table.rename(columns={"value": "gold"})
    return r.merge(g, on=["item", "dimension"], how="inner")


def test_doctests():
    for mod in (conf_mod, jvg_mod):
        assert doctest.testmod(mod).failed == 0


def test_confusion_accuracy_and_kappa_equal_sklearn(study, result):
    long = _long(study)
    for d in DIMS:
        cats = RISK if d == "risk" else LABELS
        for judge in ("judge-a", "judge-b"):
            sub = long[(long["dimension"] == d) & (long["rater"] == judge)]
            y_true = sub["gold"].to_numpy()
            y_pred = sub["value"].fillna("NA").to_numpy()
            cm = confusion_matrix(y_true, y_pred, labels=[*cats, "NA"])[: len(cats)]
            ours = result.confusion_matrix(d, judge)
            np.testing.assert_array_equal(ours.to_numpy(), cm)
            m = result.wide("metrics", d).query("judge == @judge").set_index("metric")
            assert m.loc["accuracy", "estimate"] == pytest.approx((y_true == y_pred).mean())
            if d == "risk":
                # linear weights; wrong policy: "no verdict" is maximal disagreement. Checked with
                # the disagreement-weight form 1 - sum(v O)/sum(v E) on sklearn's table.
                q = len(cats)
                full = confusion_matrix(y_true, y_pred, labels=[*cats, "NA"]).astype(float)
                v = np.ones((q + 1, q + 1))
                idx = np.arange(q)
                v[:q, :q] = np.abs(idx[:, None] - idx[None, :]) / (q - 1)
                v[q, q] = 0.0
                obs = full / full.sum()
                E = np.outer(obs.sum(1), obs.sum(0))
                expected = 1 - (v * obs).sum() / (v * E).sum()
                assert m.loc["kappa", "weights"] == "linear"
                ok = sub["value"].notna().to_numpy()
                if ok.all():
                    sk = cohen_kappa_score(y_true, y_pred, weights="linear", labels=cats)
                    assert expected == pytest.approx(sk)
            else:
                expected = cohen_kappa_score(y_true, y_pred, labels=[*cats, "NA"])
                assert m.loc["kappa", "weights"] == "identity"
            assert m.loc["kappa", "estimate"] == pytest.approx(expected, abs=1e-12)
            assert m.loc["kappa", "ci_low"] < m.loc["kappa", "estimate"] < m.loc["kappa", "ci_high"]


def test_exclude_policy_kappa_equals_sklearn_on_usable_verdicts(study):
    res = judge_vs_gold(study, policy="exclude", bootstrap=Bootstrap(50), dimensions=["risk"])
    long = _long(study)
    sub = long[(long["dimension"] == "risk") & (long["rater"] == "judge-b")].dropna()
    for w in ("linear",):
        sk = cohen_kappa_score(sub["gold"], sub["value"], weights=w, labels=RISK)
        got = res.wide("metrics", "risk").query("judge == 'judge-b' and metric == 'kappa'")
        assert got["estimate"].iloc[0] == pytest.approx(sk, abs=1e-12)
        assert got["n"].iloc[0] == len(sub)
    res_q = judge_vs_gold(
        study,
        policy="exclude",
        bootstrap=Bootstrap(50),
        dimensions=["risk"],
        kappa_weights="quadratic",
    )
    got = res_q.wide("metrics").query("judge == 'judge-b' and metric == 'kappa'")
    sk = cohen_kappa_score(sub["gold"], sub["value"], weights="quadratic", labels=RISK)
    assert got["estimate"].iloc[0] == pytest.approx(sk, abs=1e-12)


def test_per_class_recall_precision_equal_sklearn_and_wilson(study):
    res = judge_vs_gold(study, bootstrap=Bootstrap(50), cluster="none")
    long = _long(study)
    for d in ("risk", "tone"):
        cats = RISK if d == "risk" else LABELS
        sub = long[(long["dimension"] == d) & (long["rater"] == "judge-b")]
        y_true, y_pred = sub["gold"].to_numpy(), sub["value"].fillna("NA").to_numpy()
        p, r, _, support = precision_recall_fscore_support(
            y_true, y_pred, labels=cats, zero_division=np.nan
        )
        t = res.wide("classes", d).query("judge == 'judge-b'")
        rec = t[t["metric"] == "recall"].set_index("class").loc[cats]
        prec = t[t["metric"] == "precision"].set_index("class").loc[cats]
        np.testing.assert_allclose(rec["estimate"], r, equal_nan=True)
        np.testing.assert_allclose(prec["estimate"], p, equal_nan=True)
        np.testing.assert_array_equal(rec["n"], support)
        # without clusters the interval is the textbook Wilson interval (statsmodels)
        lo, hi = proportion_confint(rec["count"], rec["n"], method="wilson")
        ok = rec["n"].to_numpy() > 0
        np.testing.assert_allclose(rec["ci_low"][ok], lo[ok], atol=1e-10)
        np.testing.assert_allclose(rec["ci_high"][ok], hi[ok], atol=1e-10)


def test_ordinal_too_low_too_high_equal_pandas(study, result):
    long = _long(study)
    sub = long[(long["dimension"] == "risk")].copy()
    rank = {c: i for i, c in enumerate(RISK)}
    sub["g"] = sub["gold"].map(rank)
    sub["p"] = sub["value"].map(rank)
    m = result.wide("metrics", "risk")
    for judge, s in sub.groupby("rater"):
        low = float((s["p"] < s["g"]).mean())  # NaN compares False: a missing verdict is neither
        high = float((s["p"] > s["g"]).mean())
        got = m[m["judge"] == judge].set_index("metric")
        assert got.loc["too_low", "estimate"] == pytest.approx(low)
        assert got.loc["too_high", "estimate"] == pytest.approx(high)
        assert got.loc["too_low", "n"] == len(s)
    assert {"too_low", "too_high"}.isdisjoint(set(result.wide("metrics", "tone")["metric"]))


def test_baselines_beside_every_judge_and_paired_test(study, result):
    for d in DIMS:
        g = study.gold_table.query("dimension == @d")["value"]
        counts = g.value_counts()
        top = [c for c in (RISK if d == "risk" else LABELS) if counts.get(c, 0) == counts.max()][0]
        m = result.wide("metrics", d)
        base = m[m["role"] == "baseline"]
        assert list(base["judge"].unique()) == [f"always-{top} (majority)"]
        acc = base[base["metric"] == "accuracy"]["estimate"].iloc[0]
        assert acc == pytest.approx(counts.max() / len(g))
        assert base[base["metric"] == "kappa"]["estimate"].iloc[0] == pytest.approx(0.0)
        t = result.wide("baseline_tests", d)
        assert set(t["judge"]) == {"judge-a", "judge-b"}
        long = _long(study).query("dimension == @d")
        for _, row in t.iterrows():
            s = long[long["rater"] == row["judge"]]
            right = (s["value"] == s["gold"]).to_numpy()
            base_right = (s["gold"] == top).to_numpy()
            assert row["b"] == int((right & ~base_right).sum())
            assert row["c"] == int((~right & base_right).sum())
            assert row["difference"] == pytest.approx(right.mean() - base_right.mean())
            assert "clustered" in row["test"]  # three questions per image
        assert d in result.headline[d]


def test_headline_says_when_no_judge_beats_the_baseline():
    # judges that copy the majority class never beat it
    rng = np.random.default_rng(0)
    n = 40
    gold = np.where(rng.random(n) < 0.7, "A", "B")
    rows = []
    for i in range(n):
        rows.append((f"i{i}", "m1", "judge", "d", "A"))
        rows.append((f"i{i}", "m2", "judge", "d", "A" if rng.random() < 0.9 else "B"))
    st = Study(
        pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"]),
        pd.DataFrame({"item": [f"i{i}" for i in range(n)]}),
        {"d": Scale("nominal", ("A", "B", "tie"), tie="tie")},
        gold_table=pd.DataFrame(
            {"item": [f"i{i}" for i in range(n)], "dimension": "d", "value": gold}
        ),
    )
    res = judge_vs_gold(st, bootstrap=Bootstrap(100))
    assert "no judge beats it" in res.headline["d"]
    assert "always-tie (tie)" in set(res.metrics["judge"])  # the tie baseline where relevant
    assert not res.baseline_tests["beats_baseline"].any()


def test_result_object_and_argument_validation(study, result):
    assert "JudgeGoldResult(2 judges × 4 dimensions" in repr(result)
    d = result.to_dict()
    assert {"metrics", "classes", "confusion", "baseline_tests", "headline"} <= set(d)
    assert {"ci_low", "ci_high", "level"} <= set(result.wide().columns)
    assert {"ci_low", "ci_high", "confidence_level", "estimand"} <= set(result.table().columns)
    with pytest.raises(ValueError, match="policy must be one of"):
        judge_vs_gold(study, policy="drop")
    with pytest.raises(ValueError, match="kappa_weights must be one of"):
        judge_vs_gold(study, kappa_weights="cubic")
    with pytest.raises(ValueError, match="table must be one of"):
        result.wide("leaderboard")
    with pytest.raises(ValueError, match="name: 'leaderboard' is not allowed"):
        result.table("leaderboard")
    with pytest.raises(ValueError, match="pred must hold category codes"):
        gold_kappa_core([0, 1], [[0], [5]], 2)


def test_row_order_does_not_change_numbers(study, result):
    shuffled = Study(
        study.ratings.sample(frac=1, random_state=3).reset_index(drop=True),
        study.items,
        study.scales,
        gold_table=study.gold_table.sample(frac=1, random_state=4),
    )
    again = judge_vs_gold(shuffled, bootstrap=Bootstrap(300, 1))
    pd.testing.assert_frame_equal(again.metrics, result.metrics)


def _clustered_draw(rng, n_clusters, size, q, prevalence, p_right):
    """Gold with cluster-shared difficulty: items of one cluster are hard or easy together."""
    n = n_clusters * size
    cl = np.repeat(np.arange(n_clusters), size)
    g = rng.choice(q, size=n, p=prevalence)
    ease = np.clip(p_right + rng.normal(0, 0.2, n_clusters)[cl], 0.05, 0.98)
    right = rng.random(n) < ease
    off = np.clip(g + rng.choice([-1, 1], size=n), 0, q - 1)
    pred = np.where(right, g, off).astype(float)
    return g.astype(float), pred, cl


def test_quick_coverage_clustered_recall_too_low_and_kappa():
    """Coverage of the per-class recall, too-low and kappa intervals on clustered ordinal data
    (40 clusters of 4 items, unbalanced classes, shared difficulty). True values from one large
    population draw; tolerance 3 Monte Carlo SE (benchmarks/calibration/judge_vs_gold.py runs
    the full version)."""
    rng = np.random.default_rng(2024)
    q, prev = 4, [0.45, 0.3, 0.15, 0.1]
    G, P, _ = _clustered_draw(rng, 50_000, 4, q, prev, 0.7)
    true_rec = float((P[G == 2] == 2).mean())
    true_low = float((P < G).mean())
    true_kappa = float(gold_kappa_core(G, P[:, None], q, kind="linear")[0])
    reps, hits = 150, np.zeros(3)
    from medjudge.stats.resampling import ResamplePlan, bootstrap_interval

    for _ in range(reps):
        g, p, cl = _clustered_draw(rng, 40, 4, q, prev, 0.7)
        r = class_rates(g, p[:, None], q, clusters=cl)["recall"]
        hits[0] += r["ci_low"][0, 2] <= true_rec <= r["ci_high"][0, 2]
        e = ordinal_error_rates(g, p[:, None], q, clusters=cl)["too_low"]
        hits[1] += e["ci_low"][0] <= true_low <= e["ci_high"][0]
        plan = ResamplePlan(g.size, 300, int(rng.integers(1 << 30)), clusters=cl)
        k = gold_kappa_core(g, p[:, None], q, kind="linear")
        kb = gold_kappa_core(g, p[:, None], q, plan, kind="linear")
        kj = gold_kappa_core(g, p[:, None], q, plan.cluster_jackknife(), kind="linear")
        lo, hi = bootstrap_interval(k, kb, method="bca", jack=kj)
        hits[2] += lo[0] <= true_kappa <= hi[0]
    cover = hits / reps
    mc_se = np.sqrt(0.95 * 0.05 / reps)
    assert (cover > 0.95 - 3 * mc_se - 0.02).all(), cover  # 0.02: known small-sample BCa slack
    assert (cover < 0.995).all(), cover
