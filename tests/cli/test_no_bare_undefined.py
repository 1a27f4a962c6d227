"""What the CLI prints never shows an undefined estimate as a bare ``NaN``/``nan``/``inf``: the
text of every analysis command on the bundled studies (demo, PandaLM, LLMBar, HANNA's first
stories) and on degenerate studies (every expert uses one category; a judge whose every verdict
is invalid; a judge giving one score to every item) says "not defined" (or "—") and why; in
``--json`` an undefined number is ``null``, never the non-standard ``NaN``/``Infinity`` tokens."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from conftest import DEMO, EXTERNAL, MAPPINGS
from robust_support import cli

#: a bare undefined value as a reader sees it (not inside a word or a name such as "nan_rater")
BARE = re.compile(r"(?<![\w.\-])(?:nan|NaN|-?inf|-?Infinity|<NA>|NaT)(?![\w])")
COMMANDS = [["compare"], ["audit"], ["agreement"], ["subgroups"], ["validate"]]


def _study_args(name: str, tmp_path) -> list:
    if name == "demo":
        return [DEMO]
    if name == "pandalm":
        return [EXTERNAL / "pandalm_testset" / "verdicts_wide.csv", "--mapping",
                MAPPINGS / "pandalm_wide.toml"]  # fmt: skip
    if name == "llmbar":
        return [EXTERNAL / "llmbar" / "verdicts_long.csv", "--mapping",
                MAPPINGS / "llmbar_long.toml"]  # fmt: skip
    t = pd.read_csv(EXTERNAL / "hanna" / "hanna_long.csv")
    keep = sorted(t["story_id"].unique())[:40]
    path = tmp_path / "hanna.csv"
    t[t["story_id"].isin(keep)].to_csv(path, index=False)
    return [path, "--mapping", MAPPINGS / "hanna_long.toml"]


def _degenerate(tmp_path, kind: str) -> list:
    rows = []
    for i in range(30):
        gold = "AB"[i % 2]
        for e in ("e1", "e2", "e3"):
            value = "A" if kind == "one category" else gold
            rows.append((f"q{i}", e, "expert", value))
        rows.append((f"q{i}", "j1", "judge", gold if i % 3 else "BA"[i % 2]))
        rows.append((f"q{i}", "j2", "judge", "ERROR" if kind == "all invalid" else gold))
    path = tmp_path / f"{kind.replace(' ', '_')}.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "value"]).to_csv(path, index=False)
    mapping = tmp_path / "m.toml"
    mapping.write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\n'
        'value = "value"\ndimension = "overall"\ninvalid = ["ERROR"]\n'
        '[scale]\nlevel = "nominal"\ncategories = ["A", "B"]\n'
    )
    return [path, "--mapping", mapping]


def _check(args: list, command: list[str], extra: list[str]) -> None:
    argv = [*command, *args, *extra]
    for json_flag in ([], ["--json"]):
        rc, out, err = cli([*argv, *json_flag])
        if rc == 2:  # the command does not apply to this study: said in one line
            assert len(err.strip().splitlines()) == 1, err
            return
        assert rc == 0, (argv, err)
        if json_flag:
            json.loads(out, parse_constant=lambda c: pytest.fail(f"{argv}: JSON token {c}"))
        else:
            found = [out[max(0, m.start() - 60) : m.end() + 20] for m in BARE.finditer(out)]
            assert not found, f"{' '.join(map(str, argv))}: " + " | ".join(found[:5])


@pytest.mark.parametrize("name", ["demo", "pandalm", "llmbar", "hanna"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_bundled_studies_print_no_bare_undefined_value(tmp_path, name, command):
    extra = [] if command[0] == "validate" else ["--resamples", "50"]
    _check(_study_args(name, tmp_path), command, extra)


@pytest.mark.parametrize("kind", ["one category", "all invalid"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_degenerate_studies_print_no_bare_undefined_value(tmp_path, kind, command):
    extra = [] if command[0] == "validate" else ["--resamples", "50"]
    if kind == "all invalid" and command[0] != "validate":
        extra += ["--policy", "exclude"]
    _check(_degenerate(tmp_path, kind), command, extra)


def test_the_pattern_finds_a_bare_value_and_spares_names():
    assert BARE.search("kappa NaN [nan, nan]") and BARE.search("r -inf")
    assert not BARE.search("judge nan_rater and financial info")
