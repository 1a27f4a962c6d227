"""Issue 40 item 6: judge calibration end to end — the mapping key ``confidence``, the analysis,
``compare`` and the judges report, on a simulated study whose judges' calibration is known
(medjudge.data.synthetic_calibration: one calibrated judge, one over-confident by 0.15)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from medjudge.analyses.calibration import judge_calibration, why_no_calibration
from medjudge.data.synthetic_calibration import MAPPING, TRUTH, calibration_study, calibration_table
from medjudge.data.tables import load_any
from medjudge.stats.resampling import Bootstrap
from robust_support import assert_one_line_error, cli  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("calibration")
    calibration_table(400, seed=1).to_csv(d / "cal.csv", index=False)
    (d / "cal.toml").write_text(MAPPING, encoding="utf-8")
    return d / "cal.csv", d / "cal.toml"


def test_mapping_key_confidence_reaches_the_ratings(files) -> None:
    study = load_any(*files)
    t = calibration_table(400, seed=1)
    got = study.ratings.set_index(["item", "rater"])["confidence"]
    want = t.set_index(["item", "rater"])["confidence"]
    np.testing.assert_allclose(got.loc[want.index].to_numpy(), want.to_numpy())


def test_wide_layout_confidence_per_rater(tmp_path) -> None:
    (tmp_path / "w.csv").write_text("id,doc,gpt,gpt_p\nq1,A,A,0.9\nq2,B,A,\n", encoding="utf-8")
    (tmp_path / "w.toml").write_text(
        'layout = "wide"\nitem = "id"\n[raters.doc]\nrole = "expert"\n'
        '[raters.gpt]\nrole = "judge"\nconfidence = "gpt_p"\n',
        encoding="utf-8",
    )
    r = load_any(tmp_path / "w.csv", tmp_path / "w.toml").ratings
    got = r[r["rater"] == "gpt"].set_index("item")["confidence"]
    assert got["q1"] == 0.9 and np.isnan(got["q2"])


def test_a_percentage_is_refused_with_a_hint_that_works(files, tmp_path) -> None:
    t = calibration_table(20, seed=2)
    t.loc[t["rater"] == "calibrated", "confidence"] *= 100
    t.to_csv(tmp_path / "pct.csv", index=False)
    rc, _, err = cli(["compare", tmp_path / "pct.csv", "--mapping", files[1], "--resamples", 20])
    assert_one_line_error(rc, err, "is not a probability in [0, 1]", "divided by 100")
    t.loc[t["rater"] == "calibrated", "confidence"] /= 100  # what the hint says
    t.to_csv(tmp_path / "pct.csv", index=False)
    rc, _, err = cli(["compare", tmp_path / "pct.csv", "--mapping", files[1], "--resamples", 20])
    assert rc == 0, err


def test_analysis_flags_the_overconfident_judge_only() -> None:
    res = judge_calibration(calibration_study(400, seed=1), bootstrap=Bootstrap(400))
    c = res.calibration.set_index("judge")
    assert c.loc["calibrated", "flag"] == "no evidence of miscalibration"
    assert c.loc["overconfident", "flag"] == "over-confident"
    # the over-confident judge's intervals cover its true ECE and Brier score
    for k in ("ece", "brier"):
        assert c.loc["overconfident", f"{k}_low"] < TRUTH["overconfident"][k]
        assert TRUTH["overconfident"][k] < c.loc["overconfident", f"{k}_high"]
    t = res.table()
    assert set(t["estimand"]) == {"ECE", "Brier score", "confidence gap"}
    assert t.loc[t["estimand"] == "ECE", "family_size"].tolist() == [2, 2]
    ax = res.plot("reliability")
    assert len(ax.collections) >= 2


def test_a_judge_without_usable_pairs_is_named(files, tmp_path) -> None:
    t = calibration_table(40, seed=4)
    t.loc[t["rater"] == "calibrated", "value"] = "junk"  # every verdict unusable
    t.to_csv(tmp_path / "junk.csv", index=False)
    (tmp_path / "junk.toml").write_text(MAPPING + 'invalid = ["junk"]\n', encoding="utf-8")
    res = judge_calibration(load_any(tmp_path / "junk.csv", tmp_path / "junk.toml"),
                            bootstrap=Bootstrap(50))  # fmt: skip
    assert res.calibration["judge"].tolist() == ["overconfident"]
    assert res.settings["no_usable_pair"] == ["calibrated on overall"]
    assert "calibrated on overall" in res.summary()


def test_not_applicable_without_confidences(demo_study) -> None:
    assert "no judge states a confidence" in why_no_calibration(demo_study)
    with pytest.raises(ValueError, match="does not apply"):
        judge_calibration(demo_study)


def test_compare_prints_the_calibration_result(files) -> None:
    rc, out, err = cli(["compare", *files[:1], "--mapping", files[1], "--resamples", 400])
    assert rc == 0, err
    block = out.split("calibration of the judges' stated confidence", 1)[1]
    rows = {ln.split()[1]: ln for ln in block.splitlines() if ln.startswith("  overall")}
    assert "no evidence of miscalibration" in rows["calibrated"]
    assert "over-confident" in rows["overconfident"]
    rc, out, _ = cli(["compare", files[0], "--mapping", files[1], "--resamples", 100, "--json"])
    flags = {r["judge"]: r["flag"] for r in json.loads(out)["calibration"]["calibration"]}
    assert flags == {"calibrated": "no evidence of miscalibration",
                     "overconfident": "over-confident"}  # fmt: skip


def test_judges_report_section(files, demo_study) -> None:
    from medjudge.report.judges import judges_report

    rep = judges_report(load_any(*files), n_resamples=400)
    sec = rep["calibration"]
    assert sec.applies
    tab = sec.tables["tbl-calibration"].set_index("judge")
    assert tab.loc["calibrated", "calibration"] == "no evidence of miscalibration"
    assert tab.loc["overconfident", "calibration"] == "over-confident"
    assert "fig-calibration-reliability" in sec.figures
    assert any("1 of 2" in f.text and "over\\-confident" in f.text for f in sec.findings)
    from medjudge.report.context import ReportContext
    from medjudge.report.sections import calibration

    demo = calibration.build(ReportContext(demo_study, n_resamples=20))
    assert not demo.applies and "no judge states a confidence" in demo.reason
