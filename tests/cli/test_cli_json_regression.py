"""Every number the CLI writes as JSON stays the same: a regression net under reshaping.

Each case runs one ``medjudge`` command with ``--json`` (or, for ``run`` and ``simulate``, reads
the JSON/CSV files they write) on the bundled demo and on the real public tables in
``data/external`` (LLMBar, PandaLM, HANNA), with a fixed seed and few resamples, and compares the
whole output — keys, strings and every number (relative tolerance 1e-9) — with the snapshot
committed in ``tests/cli/snapshots/<case>.json``. The snapshots were captured from ``main`` before
issue 11's reshaping (commit 43f35b7).

A deliberate change of output — a renamed key, a corrected statistic — updates the snapshot in the
same issue's own commit, which says which keys or numbers changed and why::

    MEDJUDGE_UPDATE_SNAPSHOTS=1 python -m pytest tests/cli/test_cli_json_regression.py

A failure lists the first differing paths (``compare_demo: leaderboard[3].ci_low: 0.71 != 0.72``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("MEDJUDGE_UPDATE_SNAPSHOTS") == "1"
RTOL, ATOL = 1e-9, 1e-12

DEMO = "data/demo"
LLMBAR = ["data/external/llmbar/verdicts_long.csv", "--mapping", "data/mappings/llmbar_long.toml"]
PANDALM = [
    "data/external/pandalm_testset/verdicts_wide.csv",
    "--mapping",
    "data/mappings/pandalm_wide.toml",
]
FAST = ["--resamples", "50", "--seed", "1"]

#: case name -> medjudge arguments (paths relative to the repository root)
JSON_CASES: dict[str, list[str]] = {
    "validate_demo": ["validate", DEMO, "--json"],
    "compare_demo": ["compare", DEMO, "--json", *FAST],
    "compare_demo_exclude": [
        "compare", DEMO, "--json", *FAST, "--policy", "exclude", "--dimensions", "overall",
        "--cluster", "none", "--alpha", "0.1",
    ],
    "audit_demo": ["audit", DEMO, "--json", *FAST],
    "audit_demo_bootstrap": [
        "audit", DEMO, "--json", *FAST, "--ci", "bootstrap", "--dimensions", "overall",
        "--no-judges",
    ],
    "bias_demo": ["bias", DEMO, "--json"],
    "subgroups_demo": ["subgroups", DEMO, "--json"],
    "validate_llmbar": ["validate", *LLMBAR, "--json"],
    "compare_llmbar": ["compare", *LLMBAR, "--json", *FAST],
    "validate_pandalm": ["validate", *PANDALM, "--json"],
    "compare_pandalm": ["compare", *PANDALM, "--json", *FAST],
    "agreement_pandalm": ["agreement", *PANDALM, "--role", "expert", "--json"],
    "agreement_pandalm_bootstrap": [
        "agreement", *PANDALM, "--role", "expert", "--json", "--ci", "bootstrap", *FAST,
        "--method", "percentile", "--confidence-level", "0.9",
    ],
}  # fmt: skip


def _medjudge(argv: list[str]) -> str:
    """Run the CLI in this process (imports once) and return its standard output."""
    from medjudge.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(argv)
    assert rc == 0, f"medjudge {' '.join(argv)} exited {rc}"
    return buf.getvalue()


def _csv_records(path: Path) -> list[dict[str, Any]]:
    def cell(v: str) -> Any:
        try:
            return float(v) if v != "" else None
        except ValueError:
            return v

    with path.open(newline="", encoding="utf-8") as f:
        return [{k: cell(v) for k, v in row.items()} for row in csv.DictReader(f)]


def _diff(got: Any, want: Any, path: str, out: list[str]) -> None:
    if len(out) >= 20:
        return
    if isinstance(want, dict) and isinstance(got, dict):
        if list(got) != list(want):
            out.append(f"{path}: keys {list(got)} != {list(want)}")
            return
        for k in want:
            _diff(got[k], want[k], f"{path}.{k}", out)
    elif isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            out.append(f"{path}: length {len(got)} != {len(want)}")
            return
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _diff(g, w, f"{path}[{i}]", out)
    elif (
        isinstance(want, (int, float))
        and isinstance(got, (int, float))
        and not isinstance(want, bool)
        and not isinstance(got, bool)
    ):
        if not math.isclose(got, want, rel_tol=RTOL, abs_tol=ATOL):
            out.append(f"{path}: {got!r} != {want!r}")
    elif got != want:
        out.append(f"{path}: {got!r} != {want!r}")


def _check(case: str, got: Any) -> None:
    snap = SNAPSHOTS / f"{case}.json"
    got = json.loads(json.dumps(got))  # the same types a snapshot reads back as
    if UPDATE or not snap.exists():
        if not UPDATE:
            pytest.fail(f"no snapshot {snap.name}; create it with MEDJUDGE_UPDATE_SNAPSHOTS=1")
        SNAPSHOTS.mkdir(exist_ok=True)
        snap.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    want = json.loads(snap.read_text(encoding="utf-8"))
    problems: list[str] = []
    _diff(got, want, case, problems)
    assert not problems, "CLI output differs from its snapshot:\n" + "\n".join(problems)


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # the outputs echo the (relative) input paths


@pytest.mark.parametrize("case", sorted(JSON_CASES))
def test_cli_json_matches_snapshot(case):
    _check(case, json.loads(_medjudge(JSON_CASES[case])))


def test_agreement_ordinal_table_matches_snapshot(tmp_path):
    """Ordinal/interval coefficients (weighted kappas, ICC, Kendall's W, interval alpha) on a wide
    table of HANNA's three human Coherence ratings per story-system pair."""
    ratings: dict[tuple[str, str], dict[str, str]] = {}
    with (ROOT / "data/external/hanna/human_ratings_long.csv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["criterion"] == "Coherence":
                key = (row["story_id"], row["system"])
                ratings.setdefault(key, {})[f"r{row['rater_slot']}"] = row["score"]
    table = tmp_path / "hanna_coherence_wide.csv"
    with table.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["item", "r1", "r2", "r3"])
        for (story, system), r in sorted(ratings.items()):
            w.writerow([f"{story}-{system}", r.get("r1", ""), r.get("r2", ""), r.get("r3", "")])
    out = json.loads(
        _medjudge(["agreement", str(table), "--item", "item", "--level", "ordinal", "--json"])
    )
    out["file"] = table.name
    _check("agreement_hanna_ordinal", out)


def test_run_outputs_match_snapshot(tmp_path):
    """``medjudge run`` writes validation.json and accuracy.csv (policy sensitivity, Wilson)."""
    _medjudge(["run", DEMO, "--out", str(tmp_path), "--report", "none", *FAST])
    got = {
        "validation": json.loads((tmp_path / "validation.json").read_text(encoding="utf-8")),
        "parse_status": _csv_records(tmp_path / "parse_status.csv"),
        "accuracy": _csv_records(tmp_path / "accuracy.csv"),
    }
    _check("run_demo", got)


def test_simulate_matches_snapshot(tmp_path):
    """``medjudge simulate`` writes the true parameters; the bundle it writes validates the same."""
    out = tmp_path / "sim"
    _medjudge(["simulate", "--out", str(out), "--seed", "7", "--items", "60"])
    got = {
        "params": json.loads((out / "truth" / "params.json").read_text(encoding="utf-8")),
        "validate": json.loads(_medjudge(["validate", str(out), "--json"])),
    }
    got["validate"].pop("path", None)
    _check("simulate_small", got)
