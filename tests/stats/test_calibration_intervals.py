"""Quick versions of the interval calibrations (benchmarks/calibration/, docs/calibration.md).

Tolerances come from the Monte Carlo error of the quick run: a coverage estimated from R
replicates has SE sqrt(.95 * .05 / R); a method passes if it is no more than 3 SE below 95%.
Each test also checks that the old behaviour is caught, so none of them can pass vacuously.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap

CAL = Path(__file__).resolve().parents[2] / "benchmarks" / "calibration"


@pytest.fixture(scope="module")
def cal():
    sys.path.insert(0, str(CAL))
    try:
        yield lambda name: importlib.import_module(name)
    finally:
        sys.path.remove(str(CAL))


def test_accuracy_intervals_quick(cal):
    mod = cal("accuracy_ci")
    reps = 600
    rows = pd.DataFrame(mod.run(seed=11, reps=reps, boot=300, scenarios=mod.QUICK))
    tol = 3 * np.sqrt(0.95 * 0.05 / reps)  # 2.7 points
    cov = rows.set_index(["scenario", "method"])["coverage"]
    ten, edge = mod.QUICK[0][0], mod.QUICK[1][0]
    # Korn-Graubard df correction with 10 clusters (before: ~93%, measured 93.2% at 4000 reps)
    assert cov[(ten, "wilson (effective n, KG df)")] >= 0.95 - tol
    # the bootstrap at the boundary: the fallback covers, the old interval did not (~64%)
    assert cov[(edge, "bootstrap-percentile (+ boundary fallback)")] >= 0.95 - tol
    assert cov[(edge, "bootstrap-bca (+ boundary fallback)")] >= 0.95 - tol
    assert cov[(edge, "bootstrap-percentile (before)")] < 0.80


def test_bootstrap_fallback_is_named_per_row():
    from medjudge.stats.accuracy import judge_accuracy

    y = np.ones((20, 2))
    y[3, 1] = 0.0
    t = judge_accuracy(y, method="bootstrap-percentile", bootstrap=Bootstrap(200))
    assert t["ci_method"][0].startswith("clopper-pearson fallback")
    assert t["ci_method"][1].startswith("bootstrap percentile")
    # the exact Clopper-Pearson limit for 20/20 (Fagerland et al. 2017: (alpha/2)^(1/n))
    assert t["ci_low"][0] == pytest.approx(0.025 ** (1 / 20), abs=1e-9)
    assert t["ci_high"][0] == 1.0


def test_evaluate_judges_with_different_gold_item_sets(cal):
    sim = cal("study_sim")
    from medjudge.analyses.evaluation import evaluate_judges

    rng = np.random.default_rng(3)
    design = sim.make_design(rng, 40, 3.0)
    st = sim.make_study(
        rng, design, judge_accuracies=[0.8, 0.8, 0.8], missing_expert_share={"safety": 0.25}
    )
    n_items = {d: len(st.outcomes(d).items) for d in st.dimensions}
    assert n_items["safety"] < n_items["overall"]  # the case that used to crash
    ev = evaluate_judges(st, bootstrap=Bootstrap(200))
    assert ev.settings["item_sets"].startswith("each dimension on its own items")
    for d, sub in ev.pairs.groupby("dimension"):
        assert (sub["n_common"] == n_items[d]).all()
        assert sub["test"].str.contains("clustered").all()  # clusters kept
        # clustered interval (issue 28: the inverted clustered McNemar, not the cluster bootstrap)
        assert sub["ci_method"].str.contains("clustered").all()
    # Holm within each dimension, BH over the whole table (as for a common item set)
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(
        ev.pairs["p_fdr_bh"], multipletests(ev.pairs["pvalue"], method="fdr_bh")[1]
    )


def test_expert_ceiling_like_for_like_quick(cal):
    mod = cal("expert_ceiling")
    rows = pd.DataFrame(mod.run(seed=5, reps=10, scenarios=mod.SCENARIOS[:1]))
    before, now = rows.iloc[0], rows.iloc[1]
    # true gap 0: the like-for-like gap is within 3 MC SE of 0; the old one is biased upwards
    assert abs(now["mean_gap"]) <= 3 * now["mc_se"] + 1e-9
    assert before["mean_gap"] - now["mean_gap"] > 2 * np.hypot(before["mc_se"], now["mc_se"])


def test_agreement_default_interval_quick(cal):
    # the default for small n (ci="auto" -> BCa) holds its level within 3 MC SE in the
    # skewed n = 50 scenario of benchmarks/calibration/agreement_ci.py
    mod = cal("agreement_ci")
    reps = 80
    rows = pd.DataFrame(mod.run(seed=21, reps=reps, boot=300, scenarios=mod.QUICK))
    cov = rows.set_index("method")["coverage"]
    assert cov["bca"] >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps)
