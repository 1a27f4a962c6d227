"""Issue 14, mapping-file and loader cases: a mistyped mapping value, an internal column name
used by the user, a byte-order mark, a bad encoding, predictions split over files — each either
gives the correct result or exit 2 with one line naming the file (and key, line or column)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import DEMO
from medjudge.data.errors import InputError
from medjudge.data.tables import TableMapping, load_any
from robust_support import assert_one_line_error, cli


def _long_table(
    path: Path, item_col: str = "item", n_items: int = 60, suffix: str = ".csv"
) -> Path:
    """60 items x (2 experts + 1 judge), labels A/B, written as CSV or JSONL."""
    rows = []
    for i in range(n_items):
        truth = "A" if i % 3 else "B"
        for r, v in (("e1", truth), ("e2", truth), ("j", "A")):
            rows.append({item_col: f"q{i}", "rater": r, "value": v,
                         "role": "judge" if r == "j" else "expert"})  # fmt: skip
    df = pd.DataFrame(rows)
    out = path / f"t{suffix}"
    if suffix == ".csv":
        df.to_csv(out, index=False)
    else:
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return out


def _mapping(path: Path, text: str) -> Path:
    m = path / "m.toml"
    m.write_text(text, encoding="utf-8")
    return m


BASE = 'item = "item"\nrater = "rater"\nvalue = "value"\nrole_column = "role"\n'


# --- a string where a list is expected is never split into characters -------------------------


@pytest.mark.parametrize(
    "line, key",
    [
        ('invalid = "NA"', "invalid"),
        ('[scale]\nlevel = "nominal"\ncategories = "AB"', "scale.categories"),
        ("item = 5", "item"),
        ('scale = "nominal"', "scale"),
        ('role = "jduge"', "role"),
        ("colour = 1", "colour"),
        ('models = ["model_1"]', "models"),
    ],
)
def test_mistyped_mapping_values_are_refused_naming_file_and_key(tmp_path, line, key):
    table = _long_table(tmp_path)
    text = line + "\n" + BASE if not line.startswith("[") else BASE + line + "\n"
    if line.startswith("item"):
        text = line + '\nrater = "rater"\nvalue = "value"\nrole_column = "role"\n'
    m = _mapping(tmp_path, text)
    rc, _, err = cli(["validate", table, "--mapping", m])
    assert_one_line_error(rc, err, str(m), repr(key))


def test_invalid_as_list_marks_only_that_token(tmp_path):
    """The correct spelling ``invalid = ["NA"]`` leaves every A verdict valid (the bug made the
    string "NA" into the tokens N and A, so all A verdicts, experts' too, became invalid)."""
    table = _long_table(tmp_path)
    m = _mapping(tmp_path, 'invalid = ["NA"]\n' + BASE)
    study = load_any(table, m)
    assert (study.ratings["status"] == "ok").all()
    n_a = (pd.read_csv(table)["value"] == "A").sum()
    assert (study.ratings["value"] == "A").sum() == n_a


def test_attributes_as_one_column_name_is_that_column(tmp_path):
    table = _long_table(tmp_path)
    df = pd.read_csv(table)
    df["grp"] = df["item"].str[-1]
    df.to_csv(table, index=False)
    study = load_any(table, _mapping(tmp_path, 'attributes = "grp"\n' + BASE))
    assert "grp" in study.items.columns
    assert study.items.set_index("item")["grp"]["q17"] == "7"


def test_mapping_directory_is_one_line(tmp_path):
    table = _long_table(tmp_path)
    (tmp_path / "mapdir").mkdir()
    rc, _, err = cli(["validate", table, "--mapping", tmp_path / "mapdir"])
    assert_one_line_error(rc, err, "mapdir", "directory")


def test_table_options_with_mapping_are_refused_not_ignored(tmp_path):
    table = _long_table(tmp_path)
    m = _mapping(tmp_path, BASE)
    rc, _, err = cli(["validate", table, "--mapping", m, "--invalid", "NA"])
    assert_one_line_error(rc, err, "--invalid", "--mapping")


def test_command_line_mapping_errors_name_the_option():
    with pytest.raises(InputError, match="option --role"):
        TableMapping.from_dict({"role": "doctor"}, source="command line")


# --- internal column names cannot collide with the user's ------------------------------------


@pytest.mark.parametrize(
    "col, suffix", [("_line", ".jsonl"), ("_srcline", ".csv"), ("_line", ".csv")]
)
def test_user_column_named_like_an_internal_one_keeps_its_values(tmp_path, col, suffix):
    """A JSONL field ``_line`` or CSV column ``_srcline`` used as the item id: 60 items, the
    user's ids (the bug replaced them by line numbers: 180 items)."""
    table = _long_table(tmp_path, item_col=col, suffix=suffix)
    m = _mapping(tmp_path, BASE.replace('item = "item"', f'item = "{col}"'))
    study = load_any(table, m)
    assert len(study.items) == 60
    assert set(study.items["item"]) == {f"q{i}" for i in range(60)}


def _small_bundle(tmp_path: Path, n_gt: int = 40) -> Path:
    """A Med-RewardBench bundle cut from the demo: one organ file, experts, two judge files."""
    root = tmp_path / "bundle"
    (root / "pair_gt_all").mkdir(parents=True)
    gt = (DEMO / "pair_gt_all" / "abdomen.jsonl").read_text(encoding="utf-8").splitlines()[:n_gt]
    (root / "pair_gt_all" / "abdomen.jsonl").write_text("\n".join(gt) + "\n", encoding="utf-8")
    ids = {json.loads(x)["question_id"] for x in gt}
    ex = [x for x in (DEMO / "expert_labels.jsonl").read_text(encoding="utf-8").splitlines()
          if json.loads(x)["question_id"] in ids]  # fmt: skip
    (root / "expert_labels.jsonl").write_text("\n".join(ex) + "\n", encoding="utf-8")
    pred_src = sorted((DEMO / "predictions").rglob("*.jsonl"))[0]
    preds = [x for x in pred_src.read_text(encoding="utf-8").splitlines()
             if json.loads(x)["question_id"] in ids]  # fmt: skip
    (root / "predictions").mkdir()
    (root / "predictions" / pred_src.name).write_text("\n".join(preds) + "\n", encoding="utf-8")
    return root


def test_ground_truth_field_named_item_does_not_replace_question_id(tmp_path):
    root = _small_bundle(tmp_path)
    f = root / "pair_gt_all" / "abdomen.jsonl"
    recs = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines()]
    for k, r in enumerate(recs):
        r["item"] = f"other_{k}"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    study = load_any(root)
    assert set(study.items["item"]) == {r["question_id"] for r in recs}
    assert "item (field)" in study.items.columns


def test_predictions_split_over_two_files_load_as_one_judge(tmp_path):
    root = _small_bundle(tmp_path)
    whole = load_any(root)
    (pf,) = (root / "predictions").glob("*.jsonl")
    lines = pf.read_text(encoding="utf-8").splitlines()
    sub = root / "predictions" / "part2"
    sub.mkdir()
    pf.write_text("\n".join(lines[:15]) + "\n", encoding="utf-8")
    (sub / pf.name).write_text("\n".join(lines[15:]) + "\n", encoding="utf-8")
    split = load_any(root)
    cols = ["item", "rater", "dimension", "value", "status"]
    key = ["item", "rater", "dimension"]
    a = whole.ratings[cols].sort_values(key).reset_index(drop=True)
    b = split.ratings[cols].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a.astype(str), b.astype(str))


def test_genuine_duplicate_prediction_still_named(tmp_path):
    root = _small_bundle(tmp_path)
    (pf,) = (root / "predictions").glob("*.jsonl")
    first = pf.read_text(encoding="utf-8").splitlines()[0]
    sub = root / "predictions" / "again"
    sub.mkdir()
    (sub / pf.name).write_text(first + "\n", encoding="utf-8")
    rc, _, err = cli(["validate", root])
    assert rc == 2 and "line" in err and len(err.strip().splitlines()) == 1, err


def test_directory_named_like_a_jsonl_file_is_one_line(tmp_path):
    root = _small_bundle(tmp_path)
    (root / "predictions" / "x.jsonl").mkdir()
    rc, _, err = cli(["validate", root])
    assert_one_line_error(rc, err, "x.jsonl", "directory")


# --- encodings ------------------------------------------------------------------------------


def test_jsonl_with_byte_order_mark_is_accepted(tmp_path):
    table = _long_table(tmp_path, suffix=".jsonl")
    plain = load_any(table, _mapping(tmp_path, BASE))
    table.write_bytes(b"\xef\xbb\xbf" + table.read_bytes())
    bom = load_any(table, _mapping(tmp_path, BASE))
    assert len(bom.items) == len(plain.items) == 60


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_encoding_error_names_the_file(tmp_path, suffix):
    table = _long_table(tmp_path, suffix=suffix)
    data = table.read_bytes().replace(b"q17", b"q\xfc7", 1)
    table.write_bytes(data)
    rc, _, err = cli(["validate", table, "--mapping", _mapping(tmp_path, BASE)])
    assert_one_line_error(rc, err, str(table), "UTF-8")
    if suffix == ".jsonl":
        assert "line " in err


def test_bundle_encoding_error_names_file_and_line(tmp_path):
    root = _small_bundle(tmp_path)
    f = root / "expert_labels.jsonl"
    lines = f.read_bytes().splitlines()
    lines[4] = lines[4].replace(b"abdomen", b"abd\xfcmen", 1)
    f.write_bytes(b"\n".join(lines) + b"\n")
    rc, _, err = cli(["validate", root])
    assert_one_line_error(rc, err, "expert_labels.jsonl", "line 5", "UTF-8")


def test_user_files_unchanged(tmp_path):
    root = _small_bundle(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    load_any(root)
    assert before == {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    shutil.rmtree(root)


# --- fuzz: any value under any mapping key gives exit 0 or one line with exit 2 ---------------
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from medjudge.data.mapping import MappingSpec  # noqa: E402

_KEYS = sorted(set(MappingSpec.model_fields) - {"scale", "scales", "raters", "recode", "order_map",
                                                "judge_families", "model_families", "role_map",
                                                "role_names"}) + ["colour"]  # fmt: skip
_VALUES = st.one_of(
    st.text(alphabet="abcNA_-1 ", max_size=6),
    st.integers(-3, 3),
    st.booleans(),
    st.lists(st.text(alphabet="abcAB1", max_size=3), max_size=3),
    st.lists(st.integers(0, 3), max_size=2),
)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(v)


@given(key=st.sampled_from(_KEYS), value=_VALUES)
def test_fuzzed_mapping_values_exit_0_or_one_line(tmp_path_factory, key, value):
    folder = tmp_path_factory.mktemp("fz")
    table = _long_table(folder, n_items=12)
    lines = [ln for ln in BASE.splitlines() if not ln.startswith(key + " ")]
    m = _mapping(folder, "\n".join([f"{key} = {_toml_value(value)}", *lines]) + "\n")
    rc, out, err = cli(["validate", table, "--mapping", m, "--json"])
    if rc == 0:
        doc = json.loads(out)
        assert doc["n_ratings"] > 0
    else:  # the line names a file: the mapping, the table, or a file the mapping joins
        assert_one_line_error(rc, err, str(folder))


def test_the_mapping_keys_are_declared_once():
    """MappingSpec (the schema) is built from TableMapping's fields: the same keys and defaults."""
    from dataclasses import MISSING, fields

    from medjudge.data.mapping import TYPES, MappingSpec
    from medjudge.data.tables import TableMapping

    keys = {f.name: f for f in fields(TableMapping) if f.name != "source"}
    assert set(MappingSpec.model_fields) == set(keys) == set(TYPES)
    for name, f in keys.items():
        spec = MappingSpec.model_fields[name]
        if f.default_factory is not MISSING:
            assert spec.default_factory() == f.default_factory(), name
        else:
            assert spec.default == f.default, name


# --- the measurement level is kind = (issue 35, item 4); level = is its former name -----------


def test_scale_kind_and_its_former_name_level(tmp_path):
    data = _long_table(tmp_path)
    studies = {}
    for key in ("kind", "level"):
        m = _mapping(tmp_path, BASE + f'[scale]\n{key} = "ordinal"\ncategories = ["B", "A"]\n')
        studies[key] = load_any(data, m)
    a, b = (next(iter(studies[k].scales.values())) for k in ("kind", "level"))
    assert a == b and a.kind == "ordinal" and a.level == "ordinal"
    m = _mapping(
        tmp_path, BASE + '[scale]\nkind = "ordinal"\nlevel = "nominal"\ncategories = ["A"]\n'
    )
    with pytest.raises(InputError, match="kind = 'ordinal' and level = 'nominal' disagree"):
        load_any(data, m)


def test_scale_level_keyword_is_deprecated():
    import medjudge as mj

    with pytest.warns(DeprecationWarning, match="kind"):
        s = mj.Scale(level="ordinal", categories=("a", "b"))
    assert s == mj.Scale("ordinal", ("a", "b")) == mj.Scale(kind="ordinal", categories=("a", "b"))
    assert "kind='ordinal'" in repr(s)
