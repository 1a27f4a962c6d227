"""Issue 40 item 2: errors that lead to the fix. Each case of the issue gives one line naming
what was wrong and a next step; each test then does what the line says and checks that it works
(a hint that leads to another error is a wrong hint)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from robust_support import ROOT, assert_one_line_error, cli

HANNA = ROOT / "data" / "external" / "hanna" / "hanna_long.csv"
HANNA_MAPPING = ROOT / "data" / "mappings" / "hanna_long.toml"


def _hint(err: str) -> str:
    """The last parenthesised part of the one error line: what to do."""
    line = err.strip().splitlines()[0]
    depth, start = 0, None
    for k in range(len(line) - 1, -1, -1):  # the outermost group that closes the line
        if line[k] == ")":
            depth += 1
        elif line[k] == "(":
            depth -= 1
            if depth == 0:
                start = k
                break
    assert start is not None and line.endswith(")"), line
    return line[start + 1 : -1]


def _study_with_junk(folder: Path) -> Path:
    rows = ["item,rater,role,value"]
    for q in range(6):
        rows += [f"q{q},dr_a,expert,A", f"q{q},dr_b,expert,{'AB'[q % 2]}"]
        rows += [f"q{q},gpt,judge,{'ERROR: rate limit' if q == 0 else 'A'}"]
    path = folder / "mystudy.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_invalid_hint_is_a_toml_line_that_loads(tmp_path):
    table = _study_with_junk(tmp_path)
    body = (
        'layout = "long"\nitem = "item"\nrater = "rater"\nvalue = "value"\nrole_column = "role"\n'
    )
    mapping = tmp_path / "m.toml"
    mapping.write_text(body + 'invalid = "ERROR: rate limit"\n', encoding="utf-8")
    rc, _, err = cli(["validate", table, "--mapping", mapping])
    assert_one_line_error(rc, err, "mapping key 'invalid'", "ERROR: rate limit")
    hint = _hint(err)
    assert hint.startswith("write "), hint
    mapping.write_text(body + hint.removeprefix("write ") + "\n", encoding="utf-8")
    rc, out, err = cli(["validate", table, "--mapping", mapping])
    assert rc == 0, err
    assert "status: ok 17, invalid 1" in out  # the junk output is counted, not lost


def test_a_table_without_a_mapping_names_no_option_the_user_did_not_give(tmp_path):
    table = _study_with_junk(tmp_path)
    for command in ("validate", "run", "compare"):
        rc, _, err = cli([command, table])
        assert_one_line_error(rc, err, "a table needs a column mapping", "item, rater, role")
        assert "--engine" not in err and "duckdb" not in err and "columnar" not in err, err
    assert "--mapping FILE.toml" in _hint(err)
    # following it: a mapping file naming the columns
    mapping = tmp_path / "m.toml"
    mapping.write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nvalue = "value"\n'
        'role_column = "role"\ninvalid = ["ERROR: rate limit"]\n',
        encoding="utf-8",
    )
    rc, out, err = cli(["validate", table, "--mapping", mapping])
    assert rc == 0, err
    assert "status: ok 17, invalid 1" in out


def test_rows_of_different_questions_lead_to_a_dimension_column(tmp_path):
    rows = ["item,rater,value,question"]
    for q in ("case01_q1", "case01_q2"):
        for r, v in (("dr_ahmed", "A"), ("gpt", "B")):
            rows += [f"{q},{r},{v},accuracy", f"{q},{r},{v},safety"]
    table = tmp_path / "t.csv"
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    argv = ["validate", table, "--layout", "long", "--item", "item", "--rater", "rater"]
    argv += ["--value", "value"]
    rc, _, err = cli(argv)
    assert_one_line_error(rc, err, "line 2", "'case01_q1'", "'dr_ahmed'", "no dimension column")
    assert "column 'question'" in err and "duplicate rating" not in err
    fix = re.search(r"add (--dimension-column \S+);", _hint(err))
    assert fix, err
    rc, out, err = cli([*argv, *shlex.split(fix.group(1))])
    assert rc == 0, err
    assert "dimensions: accuracy, safety" in out


def test_rows_that_repeat_a_verdict_keep_the_repeat_hint(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("item,rater,value\nq1,a,A\nq1,a,A\nq2,a,B\n", encoding="utf-8")
    argv = ["validate", table, "--layout", "long", "--item", "item", "--rater", "rater"]
    rc, _, err = cli([*argv, "--value", "value"])
    assert_one_line_error(rc, err, "more than one verdict", "remove the repeat")
    assert "--dimension-column" not in err


def test_a_relative_out_is_echoed_as_typed(tmp_path, monkeypatch):
    (tmp_path / "myout").mkdir()
    (tmp_path / "myout" / "notes.txt").write_text("mine", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    rc, _, err = cli(["run", ROOT / "data" / "demo", "--out", "../myout", "--report", "none"])
    assert_one_line_error(rc, err, "../myout: --out holds notes.txt")
    assert "./myout" not in err.replace("../myout", "")


def test_icc_on_exchangeable_experts_gives_the_one_way_forms():
    """HANNA's experts are declared exchangeable: the one-way ICC(1,1) and ICC(1,k) apply (the
    ICC(1) that compare reports); the two-way forms are named as not computed, with the
    reason. Expected ICC(1,1) from the one-way ANOVA mean squares, computed here."""
    import numpy as np
    import pandas as pd

    argv = ["agreement", HANNA, "--mapping", HANNA_MAPPING, "--coef", "icc", "--role", "expert"]
    argv += ["--dimensions", "Coherence", "--ci", "none"]
    rc, out, err = cli(argv)
    assert rc == 0, err
    assert "ICC(1,1)" in out and "ICC(1,k)" in out and "ICC(2,1)" not in out
    assert "not computed: ICC(2,·), ICC(3,·): two-way forms model each rater" in err
    df = pd.read_csv(HANNA)
    m = df[(df["role"] == "expert") & (df["criterion"] == "Coherence")]
    m = m.assign(score=pd.to_numeric(m["score"], errors="coerce"))
    X = m.pivot_table(index="story_id", columns="rater", values="score").to_numpy(float)
    assert not np.isnan(X).any()
    n, k = X.shape
    msb = k * ((X.mean(1) - X.mean()) ** 2).sum() / (n - 1)
    msw = ((X - X.mean(1, keepdims=True)) ** 2).sum() / (n * (k - 1))
    expected = (msb - msw) / (msb + (k - 1) * msw)
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("ICC(1,1)"))
    assert (
        float(line.split()[1]) == round(expected, 4)
        or abs(float(line.split()[1]) - expected) < 5e-5
    )
    assert np.isfinite(expected)
