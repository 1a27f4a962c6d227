"""The stability section and ``medjudge stability``: they present the analysis' numbers, and
say in one sentence why when a study has no prompt variants."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import EXTERNAL, MAPPINGS, ROOT
from medjudge import Bootstrap


def test_section_presents_the_analysis(llmbar_study, demo_study):
    from medjudge.analyses.stability import stability
    from medjudge.report.context import ReportContext
    from medjudge.report.sections import stability as sec_stab

    sec = sec_stab.build(ReportContext(llmbar_study, n_resamples=60))
    assert sec.applies and sec.findings
    t = sec.tables["tbl-stability"]
    res = stability(llmbar_study, dimension="preference", bootstrap=Bootstrap(60))
    # the LLMBar file's six evaluators (GPT-4, ChatGPT, ChatGPT-0301, PaLM2, LLaMA2, Falcon; see
    # data/external/llmbar/SOURCE.md), each under 8-15 prompting strategies
    assert sorted(t["evaluator"]) == sorted(res.flips["evaluator"]) and len(t) == 6
    gpt4 = res.flips.set_index("evaluator").loc["GPT-4", "share"]
    assert t.set_index("evaluator").loc["GPT-4", "flip across prompts"].startswith(f"{gpt4:.3f}")
    n_a = sec_stab.build(ReportContext(demo_study, n_resamples=60))
    assert not n_a.applies and "prompt variants" in n_a.reason


def test_cli_stability_json_and_errors():
    base = [sys.executable, "-m", "medjudge.cli", "stability"]
    data = [str(EXTERNAL / "llmbar" / "verdicts_long.csv"), "--mapping",
            str(MAPPINGS / "llmbar_long.toml")]  # fmt: skip
    r = subprocess.run(
        base + data + ["--resamples", "60", "--json"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"evaluator", "component", "share", "ci_low", "ci_high"} <= set(out["components"][0])
    assert {row["kind"] for row in out["flips"]} == {"across_prompts"}
    for bad in (["--resamples", "5"], ["--confidence-level", "1"], ["--seed", "-1"]):
        r = subprocess.run(
            base + [str(ROOT / "data" / "demo"), *bad], capture_output=True, text=True
        )
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
