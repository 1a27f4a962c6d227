"""Report sections built from results (no rendering): the contradictions found earlier stay
fixed, and sections that do not apply say why in one sentence instead of failing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from medjudge.data.tables import load_any
from medjudge.report.audit import audit_report
from medjudge.report.context import ReportContext
from medjudge.report.document import section_markdown
from medjudge.report.judges import judges_report
from medjudge.report.sections import leaderboard as L
from medjudge.report.sections._results import alt_results, evaluation, headline_board

B = 60  # resamples: the sentences, not the intervals, are under test


def make_table(
    tmp: Path,
    *,
    n_items: int = 60,
    experts: int = 3,
    judges: dict[str, float] | None = None,
    p_invalid: float = 0.05,
    constant_gold: bool = False,
    seed: int = 1,
    level: str = "nominal",
) -> tuple[Path, Path]:
    """Long CSV + mapping: binary A/B labels, experts agree 90%, judges at given accuracies."""
    rng = np.random.default_rng(seed)
    judges = {"j-good": 0.8, "j-mid": 0.65} if judges is None else judges
    rows = []
    for i in range(n_items):
        truth = 0 if constant_gold else int(rng.random() < 0.4)
        for e in range(experts):
            v = truth if (constant_gold or rng.random() < 0.9) else 1 - truth
            rows.append((f"item-{i:03d}", f"expert-{e + 1}", "expert", "AB"[v]))
        for name, acc in judges.items():
            v = truth if rng.random() < acc else 1 - truth
            rows.append(
                (f"item-{i:03d}", name, "judge", "???" if rng.random() < p_invalid else "AB"[v])
            )
    table = tmp / "study.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "verdict"]).to_csv(table, index=False)
    mapping = tmp / "study.toml"
    mapping.write_text(
        'layout = "long"\nitem = ["item"]\nrater = ["rater"]\nrole_column = "role"\n'
        'value = "verdict"\ndimension = "preference"\ninvalid = ["???"]\n\n'
        f'[scale]\nlevel = "{level}"\ncategories = ["A", "B"]\n',
        encoding="utf-8",
    )
    return table, mapping


def study_of(tmp: Path, **kw):
    table, mapping = make_table(tmp, **kw)
    return load_any(table, mapping), table, mapping


# ---------------------------------------------------------------------------- contradictions
def test_best_judge_is_not_counted_among_those_indistinguishable_from_it(demo_study):
    """'k other judges cannot be distinguished' with k = |top set| - 1 (the best is not one)."""
    ctx = ReportContext(demo_study, n_resamples=B)
    lb = headline_board(ctx)
    k = int(lb["top_set"].sum())
    assert lb["top_set"].iloc[0]  # the best judge is in its own top set
    text = L.headline_findings(ctx)[0].text
    if k - 1:
        assert f"{k - 1} other" in text, text
    else:
        assert "every other" in text, text
    assert f"{k} other" not in text


def test_unusable_reasons_add_up_to_rows_without_a_value(demo_study):
    """Partial rows that kept a value are not 'unusable'; each unusable row counted once."""
    rep = judges_report(demo_study, n_resamples=B)
    tab = rep["data"].tables["tbl-data-reasons"]
    total = int(tab.loc[tab["reason"] == "total", "rows"].iloc[0].replace(",", ""))
    body = sum(int(v.replace(",", "")) for v in tab.loc[tab["reason"] != "total", "rows"])
    expected = int(demo_study.ratings["value"].isna().sum())
    assert total == body == expected == demo_study.summary()["verdicts_without_value"]


def test_captions_name_the_multiplicity_family_and_its_size(demo_study):
    rep = judges_report(demo_study, n_resamples=B)
    n = len(demo_study.judges)
    pairs = n * (n - 1) // 2
    caps = {b.label: b.caption for s in rep for b in s.blocks if hasattr(b, "caption")}
    # the family is every pair of every dimension shown together (family="table")
    family = pairs * len(demo_study.dimensions)
    # the family's words come from the result (settings["multiplicity"]), with its size
    from medjudge.report.sections import md

    words = evaluation(rep.context).settings["multiplicity"]["description"]
    assert f"Holm over all {family:,} pairwise tests" in words
    assert md(words) in caps["fig-pairwise-matrix"]
    assert md(words) in caps["tbl-pairwise"]
    text = " ".join(f.text for s in rep for f in s.findings)
    assert md(words) in text  # the finding names the same family
    single = rep.context.get("position", lambda: None)["single_order"]
    m = int(single["p_mcnemar_midp"].notna().sum())
    assert m > n  # the family is judges x dimensions, not the judges of one dimension
    assert f"Holm over {m} tests" in caps["tbl-position-arate"]
    assert "Holm over judges" not in " ".join(caps.values())


def test_no_hard_coded_confidence_level(demo_study):
    rep = judges_report(demo_study, n_resamples=B, confidence_level=0.9)
    text = "\n".join(section_markdown(s) for s in rep)
    assert "95%" not in text
    assert "90% CI" in rep["leaderboard"].tables["tbl-leaderboard"].columns


def test_headline_says_when_no_judge_beats_the_trivial_baseline(tmp_path):
    # gold is 'A' on ~60% of items; judges at 55% and 50% accuracy cannot beat "always A"
    study, _, _ = study_of(tmp_path, judges={"j-1": 0.55, "j-2": 0.5}, n_items=80)
    rep = judges_report(study, n_resamples=B)
    lb = headline_board(rep.context)
    base = evaluation(rep.context).baseline_by_dimension()["preference"]
    assert (lb["ci_low"] <= base).all()
    summary = section_markdown(rep["summary"])
    assert "No judge is shown to beat the best constant answer" in summary
    assert "ranks noise" in summary  # and it is listed as a caveat


def test_cli_audit_and_report_agree_on_the_alt_test(tmp_path, capsys):
    """Both count items without a usable judge verdict the same way (losses under 'wrong')."""
    from medjudge.cli import main

    study, table, mapping = study_of(tmp_path, p_invalid=0.2, n_items=80)
    assert main(["audit", str(table), "--mapping", str(mapping), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    cli_rows = {r["judge"]: r for r in cli["alt_test_table"]}
    ctx = ReportContext(study, n_resamples=B)  # default policy: wrong
    for r in alt_results(ctx):
        assert r.invalid == "wrong"
        assert cli_rows[r.judge]["winning_rate"] == pytest.approx(r.winning_rate)
        assert cli_rows[r.judge]["passed"] == r.passed
        assert cli_rows[r.judge]["n_items"] == r.n_items


def test_run_accuracy_csv_uses_the_report_interval(demo_study, tmp_path):
    """run's accuracy.csv and the report's leaderboard give the same (clustered) interval."""
    from medjudge.analyses.policies import accuracy_table

    acc = accuracy_table(demo_study)
    lb = evaluation(ReportContext(demo_study, n_resamples=B)).leaderboard
    mine = acc[acc["policy"] == "wrong"].merge(lb, on=["judge", "dimension"], suffixes=("", "_r"))
    assert len(mine) == len(lb)
    np.testing.assert_allclose(mine["ci_low"], mine["ci_low_r"], rtol=1e-12)
    np.testing.assert_allclose(mine["ci_high"], mine["ci_high_r"], rtol=1e-12)


# ---------------------------------------------------------------------------- any study
CASES = {
    "one judge": dict(judges={"only": 0.8}),
    "one expert": dict(experts=1),
    "no experts": dict(experts=0),
    "one item": dict(n_items=1),
    "all labels identical": dict(constant_gold=True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_sections_that_do_not_apply_say_why(case, tmp_path):
    try:
        study, _, _ = study_of(tmp_path, **CASES[case])
    except Exception as exc:  # the loader may refuse a degenerate study: then with one line
        pytest.skip(f"loader refuses {case}: {exc}")
    for build in (judges_report, audit_report):
        rep = build(study, n_resamples=B)
        for s in rep:
            md = section_markdown(s)
            if not s.applies:
                assert s.reason and "\n" not in s.reason and md.count("Not shown") == 1
        assert rep["summary"].applies and rep["provenance"].applies


def test_interval_scale_study_gets_sentences_not_crashes(tmp_path):
    rng = np.random.default_rng(0)
    rows = [
        (f"i{i}", r, role, float(np.clip(rng.normal(3, 1), 1, 5)))
        for i in range(30)
        for r, role in (("e1", "expert"), ("e2", "expert"), ("j1", "judge"))
    ]
    table = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "score"]).to_csv(table, index=False)
    mapping = tmp_path / "scores.toml"
    mapping.write_text(
        'layout = "long"\nitem = ["item"]\nrater = ["rater"]\nrole_column = "role"\n'
        'value = "score"\ndimension = "quality"\n\n[scale]\nlevel = "interval"\n',
        encoding="utf-8",
    )
    study = load_any(table, mapping)
    rep = judges_report(study, n_resamples=B)
    assert not rep["leaderboard"].applies
    assert "interval scale" in rep["leaderboard"].reason
    audit_report(study, n_resamples=B)


def test_study_names_for_roles_and_by(demo_study):
    rep = judges_report(
        demo_study, n_resamples=B, names={"judge": "reward model", "expert": "physician"},
        by=["department"],
    )  # fmt: skip
    text = "\n".join(section_markdown(s) for s in rep)
    assert "12 reward models, 3 physicians" in text
    assert "fig-subgroups-department" in text
    with pytest.raises(ValueError, match="by: no item attribute 'nope'"):
        judges_report(demo_study, by=["nope"])


def test_demo_is_labelled_simulated(demo_study):
    from conftest import DEMO

    rep = judges_report(demo_study, data=DEMO, n_resamples=B)
    assert "Simulated data" in section_markdown(rep["summary"])
    assert re.search(r"simulated", section_markdown(rep["summary"]))


def test_judges_not_run_on_every_item_are_a_top_caveat(llmbar_study):
    """LLMBar (data/external/llmbar/SOURCE.md): the 3 Processed subsets were judged only by
    {ChatGPT, GPT-4, LLaMA2, PaLM2} x {Vanilla_NoRules, Metrics_Reference} = 8 of the 65
    evaluator/strategy judges, so 57 judges have no verdict on those items."""
    from medjudge.report.context import ReportContext
    from medjudge.report.sections import data as D
    from medjudge.report.sections.summary import select

    ctx = ReportContext(llmbar_study, n_resamples=50)
    lacking = D.not_run(llmbar_study, "preference")
    assert len(lacking) == 57
    assert not any(
        j.endswith(("/Vanilla_NoRules", "/Metrics_Reference"))
        and j.split("/")[0] in {"ChatGPT", "GPT-4", "LLaMA2", "PaLM2"}
        for j in lacking
    )
    sec = D.build(ctx)
    assert select([sec], 1)[0].text.startswith("**57 of 65 judges were not run on every item**")


def test_one_judge_order_in_every_table(demo_study):
    """Every table that lists judges lists them in the leaderboard's order (the headline
    metric), in both reports."""
    from medjudge.report.audit import audit_report
    from medjudge.report.judges import judges_report
    from medjudge.report.sections._results import judge_order

    rep = judges_report(demo_study, n_resamples=50)
    order = judge_order(rep.context)
    judges = set(demo_study.judges)
    checked = 0
    for build in (lambda: rep, lambda: audit_report(demo_study, n_resamples=50)):
        for sec in build():
            for label, frame in sec.tables.items():
                for col in ("judge", "rater"):
                    if col not in frame.columns:
                        continue
                    seen = list(dict.fromkeys(j for j in frame[col] if j in judges))
                    if len(seen) > 1 and label not in ("tbl-pairwise", "tbl-bias-suite"):
                        assert seen == [j for j in order if j in seen], label
                        checked += 1
    assert checked >= 8
