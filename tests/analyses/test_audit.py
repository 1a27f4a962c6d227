"""Annotation audit: PandaLM published pairwise kappas, independent re-computations
(statsmodels Cohen/Fleiss kappa, Wilson interval, brute-force loops) and the demo's planted drift."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap
from medjudge.analyses.audit import audit_study, subgroup_reliability
from medjudge.analyses.judge_vs_experts import judge_expert_agreement
from medjudge.commands._common import dump_json
from medjudge.stats.audit import (
    annotator_agreement,
    as_square,
    category_agreement,
    disputed_items,
    pairwise_matrix,
)
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss
from statsmodels.stats.proportion import proportion_confint


def _sm_kappa(a: np.ndarray, b: np.ndarray, q: int) -> float:
    ok = ~np.isnan(a) & ~np.isnan(b)
    table = np.zeros((q, q))
    np.add.at(table, (a[ok].astype(int), b[ok].astype(int)), 1)
    return float(cohens_kappa(table).kappa)


def test_pandalm_pairwise_kappas_reproduce_readme(pandalm_study):
    """PandaLM README (github.com/WeOpenML/PandaLM, commit 3871806): annotator pairs 1-2 0.85,
    1-3 0.88, 2-3 0.86; data/external/pandalm_testset/SOURCE.md recomputed 0.852/0.879/0.862."""
    m = pandalm_study.matrix("preference", role="expert")
    pw = pairwise_matrix(m.values, raters=m.raters, categories=[0, 1, 2])
    got = {(r.rater_a, r.rater_b): r.kappa for r in pw.itertuples()}
    published = {
        ("annotator1", "annotator2"): 0.85,
        ("annotator1", "annotator3"): 0.88,
        ("annotator2", "annotator3"): 0.86,
    }
    recomputed = {
        ("annotator1", "annotator2"): 0.852,
        ("annotator1", "annotator3"): 0.879,
        ("annotator2", "annotator3"): 0.862,
    }
    for pair, k in published.items():
        assert round(got[pair], 2) == k
        assert round(got[pair], 3) == recomputed[pair]
    for r in pw.itertuples():
        a, b = m.values[:, m.raters.index(r.rater_a)], m.values[:, m.raters.index(r.rater_b)]
        assert r.kappa == pytest.approx(_sm_kappa(a, b, 3), abs=1e-12)
        assert r.kappa_low < r.kappa < r.kappa_high
        assert r.n == 999 and r.agreement == pytest.approx(np.mean(a == b))
        lo, hi = proportion_confint(int(np.sum(a == b)), 999, method="wilson")
        assert (r.agreement_low, r.agreement_high) == pytest.approx((lo, hi), abs=1e-12)
    sq = as_square(pw)
    assert sq.loc["annotator2", "annotator1"] == sq.loc["annotator1", "annotator2"]


def test_pairwise_bootstrap_interval_is_seeded(pandalm_study):
    from medjudge.stats.resampling import ResamplePlan

    m = pandalm_study.matrix("preference", role="expert")
    plan = ResamplePlan(n_items=m.values.shape[0], n_resamples=300, seed=5)
    a = pairwise_matrix(m.values, raters=m.raters, ci="bootstrap", plan=plan)
    b = pairwise_matrix(m.values, raters=m.raters, ci="bootstrap", plan=plan)
    pd.testing.assert_frame_equal(a, b)
    assert a["kappa_ci_method"].str.startswith("bootstrap").all()


def test_loo_majority_agreement_matches_loop(demo_study):
    m = demo_study.matrix("creativity", role="expert")
    t = annotator_agreement(m.values, raters=m.raters, categories=[0, 1])
    for r, name in enumerate(m.raters):
        agree = n = split = 0
        ref = np.full(m.values.shape[0], np.nan)
        for i, row in enumerate(m.values):
            others = [v for k, v in enumerate(row) if k != r and not np.isnan(v)]
            c = {v: others.count(v) for v in set(others)}
            top = [v for v, cnt in c.items() if 2 * cnt > len(others)]
            if not top:
                split += 1
                continue
            ref[i] = top[0]
            n += 1
            agree += row[r] == top[0]
        got = t.set_index("rater").loc[name]
        assert got["n"] == n and got["others_split"] == split
        assert got["agreement"] == pytest.approx(agree / n)
        assert got["kappa"] == pytest.approx(_sm_kappa(m.values[:, r], ref, 2), abs=1e-12)
    # planted drift (data/demo/truth/params.json): physician_3 is 0.70 accurate on creativity
    assert t.loc[t["agreement"].idxmin(), "rater"] == "physician_3"
    assert (
        t.loc[t["rater"] == "physician_3", "agreement_high"].item()
        < t["agreement_low"].drop(t.index[t["rater"] == "physician_3"]).min()
    )


def test_category_kappas_binary_equal_fleiss(demo_study):
    """With two categories every category-vs-rest kappa equals Fleiss' kappa (statsmodels)."""
    m = demo_study.matrix("accuracy", role="expert")
    cat = category_agreement(m.values, categories=[0, 1], labels=["A", "B"])
    ref = sm_fleiss(aggregate_raters(m.values.astype(int))[0])
    assert list(cat["category"]) == ["A", "B"]
    np.testing.assert_allclose(cat["kappa"], ref, atol=1e-12)


def test_subgroup_reliability_matches_statsmodels(demo_study):
    sub = subgroup_reliability(demo_study, "overall", by=["organ_system", "department"])
    assert set(sub["attribute"]) == {"organ_system", "department"}
    # no domain default: every subgroup attribute of the items with two or more values
    default = subgroup_reliability(demo_study, "overall")
    assert set(default["attribute"]) == {"organ_system", "department", "modality_type"}
    items = demo_study.items.set_index("item").loc[demo_study.item_ids]
    m = demo_study.matrix("overall", role="expert")
    for attr in ("organ_system", "department"):
        part = sub[sub["attribute"] == attr]
        assert part["n_items"].sum() == len(items)
        for r in part.itertuples():
            X = m.values[(items[attr] == r.group).to_numpy()]
            assert r.fleiss_kappa == pytest.approx(
                sm_fleiss(aggregate_raters(X.astype(int))[0]), abs=1e-12
            )
            assert r.fleiss_low < r.fleiss_kappa < r.fleiss_high


def test_disputed_items(demo_study):
    m = demo_study.matrix("creativity", role="expert")
    d = disputed_items(
        m.values, items=m.items, raters=m.raters, labels=["A", "B"], categories=[0, 1], top=None
    )
    unanimous = (np.nanmax(m.values, axis=1) == np.nanmin(m.values, axis=1)).sum()
    assert len(d) == d.attrs["n_disputed"] == len(m.items) - unanimous
    assert d["pair_agreement"].is_monotonic_increasing
    # the raters' labels are the study's labels, decoded
    r = demo_study.ratings
    first = d.iloc[0]
    for rater in m.raters:
        v = r[
            (r["item"] == first["item"]) & (r["rater"] == rater) & (r["dimension"] == "creativity")
        ]["value"]
        assert first[rater] == v.item()


def test_judge_expert_agreement(demo_study):
    t = judge_expert_agreement(
        demo_study,
        "overall",
        judges=["sim-general-72b"],
        bootstrap=Bootstrap(200, method="percentile"),
    )
    ex = demo_study.matrix("overall", role="expert")
    jm = demo_study.matrix("overall", raters=["sim-general-72b"], order="AB")
    pw = pairwise_matrix(ex.values, raters=ex.raters, categories=[0, 1])
    sq = as_square(pw)
    for r in t.itertuples():
        e = ex.raters.index(r.expert)
        assert r.kappa_judge_expert == pytest.approx(
            _sm_kappa(jm.values[:, 0], ex.values[:, e], 2), abs=1e-12
        )
        others = [x for x in ex.raters if x != r.expert]
        assert r.kappa_expert_others == pytest.approx(
            np.mean([sq.loc[r.expert, o] for o in others])
        )
        assert r.judge_minus_expert == pytest.approx(r.kappa_judge_others - r.kappa_expert_others)
        assert r.diff_low < r.judge_minus_expert < r.diff_high


def test_audit_study_is_json_serialisable(pandalm_study):
    rep = audit_study(pandalm_study, top=5)
    d = json.loads(dump_json(rep.to_dict()))
    dim = d["dimensions"]["preference"]
    assert {"annotators", "pairwise", "categories", "subgroups", "dawid_skene", "disputed"} <= set(
        dim
    )
    assert len(dim["disputed"]) == 5 and dim["n_disputed"] == 999 - 879  # SOURCE.md: 879 unanimous
    assert dim["dawid_skene"]["converged"]
