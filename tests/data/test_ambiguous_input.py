"""Issue 38, item 2: what a file leaves ambiguous is an error naming the file, the line and the
key — a key twice in one JSON object, a nested and a dotted key that flatten to one column,
the bare words NaN/Infinity (not JSON numbers), a column twice in a Parquet schema — and the
conflicting-gold error names the line of the gold that conflicts."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import MAPPINGS
from medjudge.data import io as mio
from robust_support import assert_one_line_error, cli

LONG = 'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\nvalue = "value"\n'


def _records(n: int = 6) -> list[dict]:
    rows = []
    for i in range(n):
        for r, role in (("e1", "expert"), ("e2", "expert"), ("j1", "judge")):
            rows.append({"item": f"i{i}", "rater": r, "role": role, "value": "AB"[i % 2]})
    return rows


def _write(tmp_path: Path, name: str, lines: list[str]) -> tuple[Path, Path]:
    mapping = tmp_path / "m.toml"
    mapping.write_text(LONG)
    f = tmp_path / name
    if name.endswith(".json"):
        f.write_text("[\n" + ",\n".join(lines) + "\n]\n")
    else:
        f.write_text("\n".join(lines) + "\n")
    return f, mapping


def test_the_columnar_path_refuses_a_key_twice_in_the_same_words(tmp_path):
    """DuckDB reads JSON lazily and used to end with exit 3 and its own SQL message."""
    pytest.importorskip("duckdb")
    lines = [json.dumps(r) for r in _records()]
    lines[4] = lines[4][:-1] + ', "value": "B"}'
    f, m = _write(tmp_path, "t.jsonl", lines)
    for command in (["compare", "--resamples", "50"], ["validate"]):
        rc, _, err = cli([command[0], f, "--mapping", m, "--engine", "duckdb", *command[1:]])
        assert_one_line_error(rc, err, f"{f}, line 5, column value", "appears twice")


@pytest.mark.parametrize("name", ["t.jsonl", "t.json"])
def test_a_key_twice_in_one_object_is_refused_naming_line_and_key(tmp_path, name):
    lines = [json.dumps(r) for r in _records()]
    lines[4] = lines[4][:-1] + ', "value": "B"}'  # line 5 (JSONL) / line 6 (JSON array)
    f, m = _write(tmp_path, name, lines)
    rc, _, err = cli(["validate", f, "--mapping", m])
    line = 5 if name.endswith("l") else 6
    assert_one_line_error(rc, err, f"{f}, line {line}, column value", "appears twice")


def test_a_key_twice_in_a_nested_object_is_refused(tmp_path):
    lines = [json.dumps(r) for r in _records()]
    lines[1] = lines[1][:-1] + ', "meta": {"x": 1, "x": 2}}'
    f, m = _write(tmp_path, "t.jsonl", lines)
    rc, _, err = cli(["validate", f, "--mapping", m])
    assert_one_line_error(rc, err, f"{f}, line 2, column x", "appears twice")


def test_a_key_twice_with_spaces_before_the_colon_is_refused(tmp_path):
    lines = [json.dumps(r) for r in _records()]
    lines[0] = '{"item" : "i0", "rater" : "e1", "role" : "expert", "value" : "A", "value" : "B"}'
    f, m = _write(tmp_path, "t.jsonl", lines)
    rc, _, err = cli(["validate", f, "--mapping", m])
    assert_one_line_error(rc, err, f"{f}, line 1, column value", "appears twice")


def test_a_value_ending_in_a_colon_is_not_a_duplicate(tmp_path):
    """A string value that contains '":' (counted as a key marker) is read as it is."""
    recs = _records()
    for r in recs:
        r["note"] = 'says "x": and "y" :'
    f, m = _write(tmp_path, "t.jsonl", [json.dumps(r) for r in recs])
    rc, out, err = cli(["validate", f, "--mapping", m])
    assert rc == 0, err
    assert [r for _, r in mio.read_jsonl(f)] == recs


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("name", ["t.jsonl", "t.json"])
def test_bare_nan_and_infinity_are_refused_like_1e309(tmp_path, name, word):
    lines = [json.dumps({**r, "value": 1}) for r in _records()]
    lines[2] = lines[2].replace('"value": 1', f'"value": {word}')
    f, m = _write(tmp_path, name, lines)
    rc, _, err = cli(["validate", f, "--mapping", m])
    line = 3 if name.endswith("l") else 4
    assert_one_line_error(rc, err, f"{f}, line {line}, column value", f"bare {word} is not a JSON")


def test_nan_inside_a_string_is_text(tmp_path):
    recs = [{**r, "value": "NaN" if r["rater"] == "j1" else r["value"]} for r in _records()]
    f, _ = _write(tmp_path, "t.jsonl", [json.dumps(r) for r in recs])
    assert [r for _, r in mio.read_jsonl(f)] == recs


def test_duplicated_parquet_column_is_named(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    t = pa.table(
        [
            pa.array(["i1", "i2"]),
            pa.array(["e1", "e1"]),
            pa.array(["A", "B"]),
            pa.array(["A", "B"]),
        ],
        names=["item", "rater", "value", "value"],
    )
    f = tmp_path / "t.parquet"
    pq.write_table(t, f)
    rc, _, err = cli(["validate", f, "--item", "item", "--rater", "rater", "--value", "value"])
    assert_one_line_error(rc, err, f"{f}, column value", "appears twice", "columns 3 and 4")
    assert "FieldRef" not in err and "__fragment_index" not in err


def _lm_eval_line(i: int, doc: dict, **extra) -> str:
    rec = {"doc_id": i, "doc": doc, "target": "A", "filtered_resps": ["A"], "filter": "none",
           "metrics": ["acc"], "acc": 1.0, **extra}  # fmt: skip
    return json.dumps(rec)


def test_nested_and_dotted_keys_that_flatten_to_one_column_are_refused(tmp_path):
    folder = tmp_path / "judge"
    folder.mkdir()
    f = folder / "samples_task_2026-11-24T10-00-00.jsonl"
    lines = [_lm_eval_line(i, {"label": "A"}) for i in range(3)]
    lines.append(_lm_eval_line(3, {"meta": {"label": "A"}, "meta.label": "B"}))
    f.write_text("\n".join(lines) + "\n")
    rc, _, err = cli(["validate", f, "--mapping", MAPPINGS / "lm_eval.toml"])
    assert_one_line_error(rc, err, f"{f}, line 4, column doc.meta.label", "flatten")


def test_a_metric_named_like_a_field_is_refused(tmp_path):
    folder = tmp_path / "judge"
    folder.mkdir()
    f = folder / "samples_task_2026-11-24T10-00-00.jsonl"
    lines = [_lm_eval_line(i, {"label": "A"}) for i in range(2)]
    lines.append(_lm_eval_line(2, {"label": "A"}, metrics=["target"]))
    f.write_text("\n".join(lines) + "\n")
    rc, _, err = cli(["validate", f, "--mapping", MAPPINGS / "lm_eval.toml"])
    assert_one_line_error(rc, err, f"{f}, line 3, column target", "flatten")


def test_conflicting_gold_names_the_line_of_the_conflicting_gold(tmp_path):
    rows = []
    for i in range(4):
        for r in ("e1", "e2", "j1"):
            rows.append({"item": f"i{i}", "rater": r, "role": "judge" if r == "j1" else "expert",
                         "value": "A", "gold": "A"})  # fmt: skip
    rows[5]["gold"] = "B"  # item i1: lines 5 (A), 6 (A), 7 (B) -> line 7 conflicts
    f = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(f, index=False)
    m = tmp_path / "m.toml"
    m.write_text(LONG + 'gold = "gold"\n')
    rc, _, err = cli(["validate", f, "--mapping", m])
    assert_one_line_error(rc, err, f"{f}, line 7, column gold", "conflicting gold")
