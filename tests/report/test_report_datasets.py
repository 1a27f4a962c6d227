"""The judges and audit reports of the demo and of three real public datasets (PandaLM, LLMBar,
HANNA) render, open with key findings, contain a Methods section, and show the sections each
study supports (answer-model rankings for PandaLM, prompt stability for LLMBar, scores for
HANNA) — or one sentence why not. Each dataset is rendered once per module (the demo once per session, shared)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO, EXTERNAL, MAPPINGS

pypdf = pytest.importorskip("pypdf")
pytest.importorskip("nbclient")
pytest.importorskip("typst")

RESAMPLES = 100  # the sections' content, not the precision, is under test here

DATASETS = {
    "pandalm": (EXTERNAL / "pandalm_testset" / "verdicts_wide.csv", MAPPINGS / "pandalm_wide.toml"),
    "llmbar": (EXTERNAL / "llmbar" / "verdicts_long.csv", MAPPINGS / "llmbar_long.toml"),
    # 1-5 scores (interval scale): HANNA's two long files joined (data/mappings/hanna_long.toml)
    "hanna": (EXTERNAL / "hanna" / "hanna_long.csv", MAPPINGS / "hanna_long.toml"),
}


def pdf_text(path: Path) -> str:
    reader = pypdf.PdfReader(str(path))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ").replace("\u2212", "-"))


@pytest.fixture(scope="module", params=list(DATASETS))
def dataset_reports(request, tmp_path_factory):
    from medjudge.commands.report import render_reports

    data, mapping = DATASETS[request.param]
    out = tmp_path_factory.mktemp(request.param)
    if data is None:
        from medjudge.data.hanna import hanna_long_table

        data = out.parent / "hanna_long.csv"
        hanna_long_table(EXTERNAL / "hanna").to_csv(data, index=False)
    files = render_reports(data, mapping=mapping, out=out, resamples=RESAMPLES)
    return request.param, files


def _opens_with_findings_and_has_methods(text: str) -> None:
    body = text.split("Key findings", 1)
    assert len(body) == 2, "no Key findings section"
    head = body[1][:3000]
    assert re.search(r"\b1\. ", head), "no numbered findings"
    # the findings come before every other section
    assert text.index("Key findings") < text.index("Methods")
    if "References" in text:  # left out when no method with a literature reference ran
        assert text.index("Methods") < text.index("References")


def test_reports_open_with_findings_and_contain_methods(dataset_reports):
    name, files = dataset_reports
    for kind in ("judges", "audit"):
        assert files[kind]["html"].stat().st_size > 0
        _opens_with_findings_and_has_methods(pdf_text(files[kind]["pdf"]))
    judges = pdf_text(files["judges"]["pdf"])
    if name == "pandalm":
        # the mapping names the answer models: rankings and the judge-vs-expert tau are shown
        assert "Answer-model rankings" in judges and "Kendall" in judges
        assert "Judge ranking against the experts" in judges
        assert "gpt-3.5-turbo" in judges and "pandalm-7b" in judges
    elif name == "hanna":
        # scores against the experts' mean, and 4 prompt variants per LLM judge
        assert "Scores against the reference" in judges
        findings = judges.split("Key findings", 1)[1][:1500]
        assert "closest to the reference (mean score of the experts" in findings
        assert "Stability across prompts and runs" in judges
        audit = pdf_text(files["audit"]["pdf"])
        assert "α (interval metric)" in audit.split("Reliability per dimension")[0]
    else:
        # 15 prompting strategies per evaluator: the stability section applies
        assert "Stability across prompts and runs" in judges
        assert "Variance shares and flip rates per evaluator" in judges
        assert "GPT-4/Metrics_Reference" in judges
        # 57 judges were not run on the Processed subsets: said first, as a caveat
        findings = judges.split("Key findings", 1)[1][:600]
        assert "57 of 65 judges were not run on every item" in findings
    # every section that does not apply says why in one sentence, never crashes
    assert "Traceback" not in judges


def test_demo_reports_open_with_findings_and_contain_methods(demo_reports):
    files, _ = demo_reports
    for kind in ("judges", "audit"):
        text = pdf_text(files[kind]["pdf"])
        _opens_with_findings_and_has_methods(text)
    judges = pdf_text(files["judges"]["pdf"])
    # every demo item has gold: the judge-assisted estimate is not shown, and Methods says once
    # why (Not run), not an empty section in the table of contents
    methods = judges.split("Methods", 1)[1]
    assert (
        "Not run" in methods
        and "judge-assisted estimate — every item of “overall” has gold" in methods
    )
    assert "Judge-assisted estimate Not shown" not in judges
    assert "Bias suite" in judges and "Judges against gold" in judges
    # readable values in the findings (no snake_case attribute values)
    findings = judges.split("Key findings", 1)[1].split("Data and parse accounting", 1)[0]
    assert not re.search(r"= [a-z]+_[a-z]+", findings), findings


def test_dataset_reports_in_a_real_browser(dataset_reports):
    """No horizontal page overflow at 390 and 1280 px and no console errors; no cut caption,
    figure text readable, every table fits at 1280 px, no 'not shown' section."""
    from test_reports import _chromium, browser_check, check_screens

    if _chromium() is None:
        pytest.skip("chromium not found (Debian: apt-get install -y chromium)")
    pytest.importorskip("playwright", reason="pip install playwright (dev extra)")
    name, files = dataset_reports
    for kind in ("judges", "audit"):
        check_screens(files[kind]["html"], f"{name} {kind}")
        for w, r in browser_check(files[kind]["html"]).items():
            assert r["overflow"] <= 0, f"{kind} @ {w}px: page {r['overflow']} px wider than screen"
            assert r["errors"] == [], f"{kind} @ {w}px: console errors {r['errors']}"
            assert r["broken"] == [], f"{kind} @ {w}px: {r}"
            if w >= 1280:  # on a phone a figure keeps its size and scrolls in its own box
                assert r["wide_images"] == 0, f"{kind} @ {w}px: {r}"


def test_bad_by_exits_2_with_one_line_before_rendering(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "medjudge.cli", "report", str(DEMO), "--by", "organ",
         "--out", str(out)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--by 'organ'" in lines[0] and "organ_system" in lines[0]
    assert not out.exists()  # nothing was rendered
    assert "Traceback" not in r.stderr


def test_headline_option_reaches_both_reports(tmp_path):
    """--headline DIM: both reports' findings and single-dimension tables are on DIM."""
    from medjudge.commands.report import render_reports

    files = render_reports(
        DEMO, out=tmp_path / "out", to="html", resamples=50, headline="creativity", workers=2
    )
    for kind in ("judges", "audit"):
        html = files[kind]["html"].read_text(encoding="utf-8")
        assert "Headline dimension: <em>creativity</em>" in html or "on <em>creativity</em>" in html
