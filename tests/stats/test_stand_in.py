"""The stand-in decision (issue 37, item 4): non-inferiority of accuracy within a margin.

Expected values: statsmodels' cluster-robust OLS of the paired differences on a constant
(CR1, t with G-1 df) and a brute-force majority; the alt-test's epsilon in accuracy points
against a simulated judge of that accuracy run through the alt-test itself.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import DEMO
from medjudge.stats.judge_vs_experts import alt_epsilon_in_accuracy, alt_test, non_inferiority


def _study(n=240, g=60, a_e=0.85, a_j=0.8, seed=0):
    rng = np.random.default_rng(seed)
    cl = np.sort(rng.integers(0, g, n))
    truth = rng.integers(0, 2, n)
    E = np.column_stack([np.where(rng.random(n) < a_e, truth, 1 - truth) for _ in range(3)])
    J = np.where(rng.random(n) < a_j, truth, 1 - truth).astype(float)
    return J, E.astype(float), cl


def test_non_inferiority_matches_statsmodels_cluster_ols():
    J, E, cl = _study()
    J[:5] = np.nan  # no usable verdict: counts as wrong
    t = non_inferiority(J, E, expert_names=["x", "y", "z"], clusters=cl, margin=0.05)
    for e, row in t.set_index("expert").iterrows():
        k = ["x", "y", "z"].index(e)
        others = np.delete(E, k, axis=1)
        ref = np.where(others[:, 0] == others[:, 1], others[:, 0], np.nan)  # majority of two
        ok = ~np.isnan(ref)
        d = (np.nan_to_num(J, nan=-1)[ok] == ref[ok]).astype(float) - (E[ok, k] == ref[ok])
        fit = sm.OLS(d, np.ones(d.size)).fit(
            cov_type="cluster", cov_kwds={"groups": pd.factorize(cl[ok])[0]}, use_t=True
        )
        lo, hi = fit.conf_int(alpha=0.05)[0]
        assert row["difference"] == pytest.approx(d.mean(), rel=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), rel=1e-9)
        assert row["non_inferior"] == (lo > -0.05)
    assert t.attrs["non_inferior"] == bool(t["non_inferior"].all())


def test_a_judge_far_below_is_not_non_inferior_and_an_equal_one_on_many_items_is():
    J, E, cl = _study(n=3000, g=1000, a_j=0.65)
    assert not non_inferiority(J, E, clusters=cl).attrs["non_inferior"]
    J, E, cl = _study(n=3000, g=1000, a_j=0.85, seed=1)
    assert non_inferiority(J, E, clusters=cl).attrs["non_inferior"]


def test_alt_epsilon_in_accuracy_is_where_a_simulated_judge_starts_to_pass():
    rng = np.random.default_rng(5)
    n = 4000
    truth = rng.integers(0, 2, n)
    E = np.column_stack([np.where(rng.random(n) < 0.83, truth, 1 - truth) for _ in range(3)])
    a = alt_epsilon_in_accuracy(E.astype(float), 0.2)
    maj = (E.sum(1) >= 2).astype(float)

    def pass_rate(acc):
        out = []
        for s in range(20):
            r = np.random.default_rng(100 + s)
            J = np.where(r.random(n) < acc, maj, 1 - maj)
            out.append(alt_test(J, E.astype(float), epsilon=0.2).passed)
        return np.mean(out)

    assert 0.35 < a < 0.7
    assert pass_rate(a + 0.04) >= 0.9 and pass_rate(a - 0.04) <= 0.1


def test_audit_json_carries_the_decision_per_judge_and_dimension():
    from medjudge.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["audit", str(DEMO), "--json", "--resamples", "50", "--seed", "1",
                   "--dimensions", "overall,accuracy", "--margin", "0.1"])  # fmt: skip
    assert rc == 0
    doc = json.loads(buf.getvalue())
    si = pd.DataFrame(doc["stand_in"])
    assert set(si["dimension"]) == {"overall", "accuracy"}
    assert len(si) == 2 * len(doc["judges"])
    assert (si["margin"] == 0.1).all()
    for r in si.itertuples():
        assert r.decision in ("candidate stand-in", "not a stand-in")
        assert r.candidate == (r.decision == "candidate stand-in")
        assert r.ci_low <= r.difference <= r.ci_high
        assert isinstance(r.disagreeing_views, list) and len(r.per_expert) == 3
        if r.alt_passed and not r.candidate:
            assert any(v.startswith("alt-test passes") for v in r.disagreeing_views)


def test_judge_expert_kappa_keeps_the_clusters():
    # issue 37, item 1: κ(judge, expert) in the leave-one-out table ignored the clusters
    import medjudge as mj
    from medjudge.analyses.judge_vs_experts import judge_and_expert_matrices, judge_expert_agreement

    st = mj.datasets.example()
    ex, jm = judge_and_expert_matrices(st, "overall", st.judges[:1])
    cl = np.arange(ex.values.shape[0]) // 3
    t = judge_expert_agreement(st, "overall", judges=st.judges[:1], clusters=cl,
                               bootstrap=mj.Bootstrap(50))  # fmt: skip
    row = t.iloc[0]
    ref = mj.cohen_kappa(np.c_[jm.values[:, 0], ex.values[:, 0]], clusters=cl,
                         categories=np.arange(len(st.scales["overall"].categories), dtype=float))  # fmt: skip
    assert ref.ci_method.startswith("cluster jackknife")
    assert (row["kappa_judge_expert_low"], row["kappa_judge_expert_high"]) == pytest.approx(
        (ref.ci_low, ref.ci_high), rel=1e-12
    )
