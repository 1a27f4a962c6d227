"""What the annotation audit *says* is what it computed.

Each test is a case found on the demo or on real public data (MedPAIR physician-trainee labels,
``data/external/medpair``, mappings ``data/mappings/medpair_*.toml``; PandaLM) where a finding,
header or caption of the audit named another method, level, weighting or dimension than the
result it describes, or an interval ignored the settings it was given:

1. "could stand in for an expert" while every leave-one-expert-out κ interval lies below 0;
2. annotator κ intervals labelled FCE but a fixed bootstrap (B = 2,000, seed 0);
3. ``audit_study`` without ``confidence_level`` ("80% CI" over 95% intervals);
4. subgroup intervals ignoring ``--ci/--seed/--resamples``, declared clusters ignored, CLI and
   report printing different intervals for the same coefficient;
5. ordinal-weighted coefficients shown as plain ones, subgroup rows unweighted;
6. findings covering only one dimension, and no way to choose the headline dimension;
7. false sentences (Dawid–Skene "needs categorical labels", κ on 1 item without n, the
   invalid-verdict policy in a study without judges, "no subgroup attribute").
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap
from medjudge.analyses.audit import audit_study, subgroup_reliability
from medjudge.data.tables import load_any
from medjudge.report.audit import audit_report
from medjudge.stats.audit import loo_majority
from statsmodels.stats.inter_rater import cohens_kappa

ROOT = Path(__file__).resolve().parents[2]
MEDPAIR = ROOT / "data" / "external" / "medpair"
MAPPINGS = ROOT / "data" / "mappings"
B = 100


def _findings(rep) -> list[str]:
    return [f.text for s in rep for f in s.findings]


@pytest.fixture(scope="module")
def medpair_answers():
    """2,000 questions x 43 physician trainees (about 3 per item), nominal A-J; no judges."""
    return load_any(MEDPAIR / "physician_answers_long.csv", MAPPINGS / "medpair_answers.toml")


@pytest.fixture(scope="module")
def medpair_answers_report(medpair_answers):
    return audit_report(medpair_answers, n_resamples=B, seed=1)


@pytest.fixture(scope="module")
def medpair_relevance(tmp_path_factory):
    """The ordinal sentence-relevance labels of the first 40 cases (343 sentences), clustered
    by case as the mapping declares."""
    df = pd.read_csv(MEDPAIR / "physician_relevance_long.csv", dtype=str)
    cases = sorted(df["item_id"].unique())[:40]
    path = tmp_path_factory.mktemp("medpair") / "relevance40.csv"
    df[df["item_id"].isin(cases)].to_csv(path, index=False)
    return path, load_any(path, MAPPINGS / "medpair_relevance.toml")


@pytest.fixture(scope="module")
def demo_audit_report(demo_study):
    # epsilon 0.2: the authors' margin for experts and the `medjudge report` default
    return audit_report(demo_study, n_resamples=B, epsilon=0.2)


def _cli_json(argv: list[str]) -> dict:
    from medjudge.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return json.loads(buf.getvalue())


# ------------------------------------------------------------------ 1. stand in for an expert
def test_demo_stand_in_finding_agrees_with_the_leave_one_out_table(demo_audit_report):
    """Demo: 4 of 12 judges pass the alt-test, but all 36 leave-one-expert-out κ differences
    have intervals below 0. The finding may not say a judge could stand in, must name both
    tests (alt-test with ε, leave-one-out κ difference) and count the contrary intervals."""
    from medjudge.report.sections._results import judge_agreement

    sec = demo_audit_report["judge-vs-experts"]
    (finding,) = sec.findings
    text = finding.text
    ja = judge_agreement(demo_audit_report.context)
    below = int((ja["diff_high"] < 0).sum())
    assert below == len(ja) == 36  # every judge below every left-out expert
    assert "could stand in" not in text and "candidate stand-in" not in text
    assert "alternative annotator test" in text and "ε = 0.2" in text
    assert "leave-one-expert-out" in text
    assert f"{below} of {len(ja)} 95% intervals" in text
    assert text.startswith("4 of 12 judges pass the alternative annotator test")
    assert "12 of 12 judges" in text
    # issue 37: the decision is non-inferiority with its margin, stated where it is used
    from medjudge.report.sections._results import alt_results
    from medjudge.report.sections.judge_vs_experts import stand_in_table

    ctx = demo_audit_report.context
    si = stand_in_table(ctx, alt_results(ctx), ja)
    assert not si["candidate"].any()
    assert "clinical margin of 5 accuracy points" in text
    assert (
        f"{int(si['non_inferior'].sum())} of 12 judges are non-inferior within 5 accuracy" in text
    )
    assert "4 of the 4 that pass the alt-test are not non-inferior within 5 accuracy points" in text
    acc = si["alt_epsilon_accuracy"].iloc[0]
    assert f"which here lets a judge of accuracy {acc:.2f} pass" in text
    lo, hi = ja["judge_minus_expert"].min(), ja["judge_minus_expert"].max()
    assert f"from {lo:.3f} to {hi:.3f}".replace("-", "-") in text


def test_stand_in_sentence_follows_the_decision():
    """A judge is named as a candidate stand-in only when the stand-in decision says so
    (non-inferiority within the margin against every expert and no leave-one-out κ interval
    below 0); the margin is printed where it is used."""
    from medjudge.analyses._findings import Markup
    from medjudge.analyses.expert_findings import stand_in_finding

    alt = pd.DataFrame({"judge": ["a", "b", "c"], "passed": [True, True, False]})
    ja = pd.DataFrame(
        {
            "judge": ["a", "a", "b", "b", "c", "c"],
            "judge_minus_expert": [-0.01, 0.02, -0.2, -0.01, -0.3, -0.3],
            "diff_low": [-0.05, -0.03, -0.3, -0.06, -0.4, -0.4],
            "diff_high": [0.03, 0.07, -0.1, 0.04, -0.2, -0.2],
            "level": 0.9,
            "ci_method": "bootstrap-bca (items, B=100, seed=0), paired",
            "n_items": 120,
        }
    )
    si = pd.DataFrame(
        {
            "judge": ["a", "b", "c"],
            "candidate": [True, False, False],
            "non_inferior": [True, True, False],
            "margin": 0.05,
            "ci_low": [-0.03, -0.04, -0.3],
            "level": 0.9,
            "ci_method": "cluster-robust (CR1) t interval, G-1 df",
            "alt_epsilon_accuracy": 0.61,
        }
    )
    emphasis = Markup(strong="**{}**", em="*{}*")  # the report's emphasis, no escaping needed
    text = stand_in_finding(
        alt, ja, si, head="overall", epsilon=0.2, q=0.05, n_exp=3, markup=emphasis
    )
    assert "Only **a** is non-inferior within 5 accuracy points" in text
    assert "**b**" not in text  # non-inferior, but its κ interval lies below 0
    assert "2 of 3 judges are non-inferior within 5 accuracy points" in text
    assert "which here lets a judge of accuracy 0.61 pass" in text
    assert "3 of 6 90% intervals" in text and "2 of 3 judges" in text
    assert "including 1 of the 2 that pass the alt-test" in text
    assert "n = 120 items" in text


# ------------------------------------------------------------------ 2. annotator κ intervals
def test_annotator_kappa_intervals_follow_ci_and_name_their_method(medpair_answers):
    """MedPAIR: with ci="analytic" every annotator κ interval is the FCE interval (checked
    against statsmodels' ``cohens_kappa``, whose ``std_kappa`` is the FCE SE); with a bootstrap
    the seed and resamples given are used and recorded."""
    X = medpair_answers.matrix("answer", role="expert")
    cats = np.arange(10, dtype=float)
    an = audit_study(
        medpair_answers, ci="analytic", bootstrap=Bootstrap(B, 1), with_dawid_skene=False, top=1
    ).dimensions["answer"]["annotators"]
    assert set(an["kappa_ci_method"].dropna()) <= {
        "analytic (Fleiss, Cohen & Everitt 1969, normal)",
        "",
    }
    # an annotator with fewer than 100 items (where the old code silently bootstrapped)
    r = int(np.flatnonzero((an["n"] > 30) & (an["n"] < 100))[0])
    own, ref = X.values[:, r], loo_majority(X.values, r, cats)
    both = ~np.isnan(own) & ~np.isnan(ref)
    table = pd.crosstab(own[both], ref[both]).reindex(index=cats, columns=cats, fill_value=0)
    sm = cohens_kappa(table.to_numpy(), return_results=True)
    assert an.loc[r, "kappa"] == pytest.approx(sm.kappa, abs=1e-12)
    half = 1.959963984540054 * sm.std_kappa
    assert an.loc[r, "kappa_low"] == pytest.approx(sm.kappa - half, abs=1e-9)
    assert an.loc[r, "kappa_high"] == pytest.approx(min(1.0, sm.kappa + half), abs=1e-9)

    runs = [
        audit_study(
            medpair_answers, ci="bootstrap", bootstrap=Bootstrap(B, s), with_dawid_skene=False,
            top=1,
        ).dimensions["answer"]["annotators"]
        for s in (1, 2)
    ]  # fmt: skip
    assert set(runs[0]["kappa_ci_method"]) == {"bootstrap-bca (items, B=100, seed=1)"}
    assert not np.allclose(runs[0]["kappa_low"], runs[1]["kappa_low"], equal_nan=True)


def test_annotator_table_caption_names_the_methods_used(medpair_answers_report):
    from medjudge.report.sections._results import audit

    au = audit(medpair_answers_report.context)
    used = set(au.dimensions["answer"]["annotators"]["kappa_ci_method"].dropna()) - {""}
    caption = [
        b.caption
        for b in medpair_answers_report["annotators"].blocks
        if getattr(b, "label", "") == "tbl-annotators"
    ][0]
    from medjudge.report.sections import md

    assert used and all(md(m) in caption for m in used)
    assert "FCE" not in caption


# ------------------------------------------------------------------ 3. confidence level
def test_confidence_level_reaches_every_audit_interval_and_header(demo_study):
    rep = audit_study(
        demo_study, dimensions=["overall"], confidence_level=0.8, bootstrap=Bootstrap(B),
        with_dawid_skene=False,
    )  # fmt: skip
    d = rep.dimensions["overall"]
    assert set(rep.reliability["level"]) == {0.8}
    for key in ("annotators", "pairwise", "categories"):
        assert set(d[key]["level"]) == {0.8}, key
    assert set(d["subgroups"]["level"].dropna()) == {0.8}
    wide = audit_study(
        demo_study, dimensions=["overall"], bootstrap=Bootstrap(B), with_dawid_skene=False
    )
    w80 = rep.reliability["ci_high"] - rep.reliability["ci_low"]
    w95 = wide.reliability["ci_high"] - wide.reliability["ci_low"]
    assert (w80 < w95).all()

    report = audit_report(demo_study, n_resamples=B, confidence_level=0.8)
    headers = [c for s in report for t in s.tables.values() for c in t.columns if "CI]" in c]
    assert headers and all("80% CI" in c for c in headers), headers
    from medjudge.report.sections._results import judge_agreement

    assert set(judge_agreement(report.context)["level"]) == {0.8}


# ------------------------------------------------------------------ 4. one set of settings
def test_subgroup_intervals_follow_seed_resamples_and_clusters(demo_study):
    from medjudge.analyses.audit import audit_settings

    runs = [
        subgroup_reliability(
            demo_study, "overall",
            settings=audit_settings(demo_study, ci="bootstrap", bootstrap=Bootstrap(B, seed)),
        )
        for seed in (5, 6)
    ]  # fmt: skip
    ok = ~runs[0]["too_small"].astype(bool)
    # the demo's items share images (image_id): whole images are resampled
    assert set(runs[0].loc[ok, "ci_method"]) == {"bootstrap-bca (clusters, B=100, seed=5)"}
    assert not np.allclose(runs[0].loc[ok, "alpha_low"], runs[1].loc[ok, "alpha_low"])


def test_cli_audit_and_report_print_the_same_interval(demo_study, monkeypatch):
    """``medjudge audit`` and the audit report resolve the same settings (audit_settings): the
    same reliability rows and the same leave-one-expert-out intervals (the CLI used percentile
    intervals and the report BCa)."""
    from medjudge.report.context import ReportContext
    from medjudge.report.sections._results import audit, judge_agreement

    monkeypatch.chdir(ROOT)
    cli = _cli_json(
        ["audit", "data/demo", "--json", "--resamples", str(B), "--dimensions", "overall"]
    )  # fmt: skip
    ctx = ReportContext(demo_study, n_resamples=B)
    got = pd.DataFrame(cli["audit"]["reliability"]).set_index("coefficient")
    want = audit(ctx).reliability
    want = want[want["dimension"] == "overall"].set_index("coefficient")
    for col in ("estimate", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[col], want.loc[got.index, col], rtol=1e-12)
    assert list(got["ci_method"]) == list(want.loc[got.index, "ci_method"])
    got_j = pd.DataFrame(cli["judge_vs_experts"])
    want_j = judge_agreement(ctx)
    np.testing.assert_allclose(got_j["diff_low"], want_j["diff_low"], rtol=1e-12)
    assert list(got_j["ci_method"]) == list(want_j["ci_method"])


def test_declared_cluster_is_resampled_by_agreement_and_audit(medpair_relevance, monkeypatch):
    """MedPAIR relevance: the mapping declares cluster = "item_id" (sentences of one case)."""
    path, study = medpair_relevance
    cli = _cli_json(
        ["agreement", str(path), "--mapping", str(MAPPINGS / "medpair_relevance.toml"),
         "--coef", "fleiss,alpha", "--resamples", str(B), "--json"]
    )  # fmt: skip
    assert cli["cluster"] == "item_id" and cli["n_clusters"] == 40
    # issue 37: with clusters, ci="auto" is the cluster jackknife (it calibrated; the cluster
    # BCa under-covered), never an item-level interval
    assert {r["ci_method"] for r in cli["coefficients"]} == {
        "cluster jackknife (40 clusters, t df=39)"
    }
    rel = audit_study(study, bootstrap=Bootstrap(B), with_dawid_skene=False, top=1).reliability
    assert set(rel["ci_method"]) == {"cluster jackknife (40 clusters, t df=39)"}
    same = {r["coefficient"]: r for r in cli["coefficients"]}
    for _, r in rel[rel["coefficient"].isin(list(same))].iterrows():
        assert r["ci_low"] == pytest.approx(same[r["coefficient"]]["ci_low"], rel=1e-12)


# ------------------------------------------------------------------ 5. ordinal weights
def test_ordinal_weights_are_labelled_and_used_in_subgroups(medpair_relevance):
    from medjudge.analyses.audit import audit_settings

    _, study = medpair_relevance
    X = study.matrix("relevance", role="expert").values
    rel = audit_study(study, bootstrap=Bootstrap(B), with_dawid_skene=False, top=1).reliability
    pa = rel[rel["coefficient"] == "percent_agreement"].iloc[0]
    assert pa["weights"] == "ordinal"
    # share of agreeing rater pairs with the *same* label (Fleiss 1971 P-bar), by hand
    r = np.stack([(X == k).sum(axis=1) for k in range(3)], axis=1).astype(float)
    m = r.sum(axis=1)
    two = m >= 2
    exact = float(np.mean((r[two] * (r[two] - 1)).sum(axis=1) / (m[two] * (m[two] - 1))))
    assert pa["estimate"] > exact + 0.05  # partial credit for near misses

    from medjudge.report.sections.reliability import reliability_table

    cols = list(reliability_table(rel).columns)
    assert "percent agreement (ordinal weights)" in cols
    assert "Fleiss' κ (ordinal weights)" in cols

    # one subgroup holding every item reproduces the overall (weighted) row
    study.items["everything"] = "all"
    try:
        sg = subgroup_reliability(
            study, "relevance", by=("everything",),
            settings=audit_settings(study, bootstrap=Bootstrap(B)),
        )  # fmt: skip
    finally:
        study.items.drop(columns="everything", inplace=True)
    fk = rel[rel["coefficient"] == "fleiss_kappa"].iloc[0]
    assert sg.loc[0, "weights"] == "ordinal"
    assert sg.loc[0, "fleiss_kappa"] == pytest.approx(fk["estimate"], abs=1e-12)
    assert sg.loc[0, "fleiss_low"] == pytest.approx(fk["ci_low"], abs=1e-12)


# ------------------------------------------------------------------ 6. which dimension
def test_findings_name_the_worst_and_best_dimension(demo_audit_report):
    from medjudge.report.sections._results import audit

    rel = audit(demo_audit_report.context).reliability
    fk = rel[rel["coefficient"] == "fleiss_kappa"].sort_values("estimate")
    worst, best = fk.iloc[0], fk.iloc[-1]
    assert (worst["dimension"], best["dimension"]) == ("creativity", "relevance")
    text = " ".join(_findings(demo_audit_report))
    assert f"least with Fleiss' κ = {worst['estimate']:.3f}" in text and "*creativity*" in text
    assert f"most with Fleiss' κ = {best['estimate']:.3f}" in text and "*relevance*" in text


def test_headline_dimension_can_be_chosen(demo_study):
    rep = audit_report(demo_study, n_resamples=B, dimension="creativity")
    assert rep.context.headline == "creativity"
    sec = rep["annotators"]
    captions = [b.caption for b in sec.blocks if getattr(b, "label", "").startswith("tbl-")]
    assert any("*creativity*" in c for c in captions[1:])
    assert "*creativity*" in rep["judge-vs-experts"].findings[0].text
    with pytest.raises(ValueError, match="dimension"):
        audit_report(demo_study, n_resamples=B, dimension="nodim")


# ------------------------------------------------------------------ 7. false sentences
def test_dawid_skene_not_fitted_says_the_real_reason():
    """PandaLM's labels are categorical; declared exchangeable, the reason is the slots."""
    study = load_any(
        ROOT / "data/external/pandalm_testset/verdicts_wide.csv", MAPPINGS / "pandalm_wide.toml"
    )
    study.exchangeable = ("expert",)
    rep = audit_report(study, n_resamples=B)
    text = " ".join(b.markdown for b in rep["dawid-skene"].blocks if hasattr(b, "markdown"))
    assert "needs categorical labels" not in text
    assert "exchangeable annotation slots" in text


def test_annotator_finding_shows_n_and_skips_tiny_n(medpair_answers_report):
    """MedPAIR: four trainees rated one item each; the old finding reported one of them
    ("κ 0.000 [0.000, 0.000]") without its n."""
    from medjudge.report.sections._results import audit

    (f,) = medpair_answers_report["annotators"].findings
    an = audit(medpair_answers_report.context).dimensions["answer"]["annotators"]
    named = f.text.split("**")[1]
    assert int(an.loc[an["rater"] == named, "n"].iloc[0]) >= 10
    assert " items" in f.text and "n = " in f.text
    assert "rest on fewer than 10 items and were not ranked" in f.text
    for text in _findings(medpair_answers_report):
        if "CI [" in text:
            assert "n = " in text, text


def test_no_invalid_verdict_policy_without_judges(medpair_answers_report):
    rep = medpair_answers_report
    words = _findings(rep)
    for key in ("summary", "data", "methods"):
        words += [b.markdown for b in rep[key].blocks if hasattr(b, "markdown")]
    text = " ".join(words)
    assert "Med-RewardBench" not in text and "invalid verdicts:" not in text
    assert "missing labels" in text  # the 6 blank answers, said for what they are


def test_subgroup_reliability_follows_the_one_default_rule(medpair_answers, medpair_answers_report):
    """Without ``by`` the audit breaks down by the attribute the judges report would use (issue
    40: the same default breakdown in both reports; it was left out unless ``by`` was given):
    here ``data_source``, the items' only attribute, as with ``by=["data_source"]``."""
    from medjudge.analyses.subgroups import default_subgroup_attributes

    assert default_subgroup_attributes(medpair_answers) == ["data_source"]
    sec = medpair_answers_report["subgroup-reliability"]
    assert sec.applies
    rep = audit_report(medpair_answers, n_resamples=B, seed=1, by=["data_source"])
    by = rep["subgroup-reliability"]
    assert [b.frame.to_dict() for b in by.blocks if hasattr(b, "frame")] == [
        b.frame.to_dict() for b in sec.blocks if hasattr(b, "frame")
    ]
