"""Issue 30: input read silently differently. Composite ids that collided, ids equal under
natural sort ordered by the input's rows, a repeated CSV header, empty ids, and options that
do not apply (``--broadcast`` on a table, ``--kind``/``--policy``/``--by`` beside
``--template``) — now distinct, totally ordered, or refused with one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from medjudge.data.model import natural_order
from medjudge.data.tables import TableMapping, load_any
from robust_support import ROOT, assert_one_line_error, cli, small_rows, write_wide

LONG = {"layout": "long", "rater": ["rater"], "value": "value", "role": "expert"}


def _long(tmp_path, rows, name="t.csv", **mapping):
    f = tmp_path / name
    pd.DataFrame(rows).to_csv(f, index=False)
    return f, TableMapping.from_dict({**LONG, **mapping}, source="test")


def test_composite_ids_do_not_collide(tmp_path):
    rows = [
        {"set": "a:1", "idx": "2", "rater": "r1", "value": "A"},
        {"set": "a", "idx": "1:2", "rater": "r2", "value": "B"},
    ]
    f, m = _long(tmp_path, rows, item=["set", "idx"])
    study = load_any(f, m)
    assert len(study.items) == 2  # were joined to one item "a:1:2" rated by both
    assert sorted(study.items["item"]) == ["a:1\\:2", "a\\:1:2"]


def test_composite_ids_without_separator_are_unchanged(tmp_path):
    rows = [{"set": "s", "idx": str(i), "rater": "r1", "value": "A"} for i in range(3)]
    f, m = _long(tmp_path, rows, item=["set", "idx"])
    assert sorted(load_any(f, m).items["item"]) == ["s:0", "s:1", "s:2"]


def test_natural_sort_twins_are_totally_ordered():
    ids = ["q01", "q1", "q2", "q10", "q001"]
    order = [ids[i] for i in natural_order(ids)]
    assert order == ["q001", "q01", "q1", "q2", "q10"]
    rng = np.random.default_rng(0)
    for _ in range(5):
        shuffled = list(rng.permutation(ids))
        assert [shuffled[i] for i in natural_order(shuffled)] == order


def test_natural_sort_fast_path_equals_the_token_key():
    """Ids of one text prefix and a number are sorted by Arrow; the order is the one of the
    general key (digit runs as numbers, then the text, then the position), checked against a
    direct sorted() with that key on mixed and random ids."""
    import re

    def by_key(ids):
        tok = [(tuple((0, int(t), "") if t.isdigit() else (1, 0, t)
                      for t in re.split(r"(\d+)", str(x))), str(x)) for x in ids]  # fmt: skip
        return sorted(range(len(ids)), key=tok.__getitem__)

    rng = np.random.default_rng(1)
    cases = [
        ["b2", "a10", "a9", "7", "07", "a007", "a7", "A7", "é3", "ä1", "z1", "q1", "q1"],
        [3, 1, 2, 10],
        ["a1", "a1", "a01", "a1"],
        ["a5", "\u06631", "7"],  # an Arabic-Indic digit: a number to Python, text to Arrow
        ["99999999999999999999", "1", "x"],  # too long a number, a bare prefix: general path
        [
            f"{p}{n}"
            for p, n in zip(
                rng.choice(["q", "Q", "case-", ""], 3000), rng.integers(0, 500, 3000), strict=True
            )
        ],  # fmt: skip
    ]
    for ids in cases:
        assert natural_order(ids).tolist() == by_key(ids), ids[:5]


def test_shuffled_rows_with_twins_give_identical_agreement_intervals(tmp_path):
    """The issue's case: q1 and q01 kept input order, so bootstrap intervals depended on it."""
    rng = np.random.default_rng(3)
    n = 30
    ids = [f"q{i}" for i in range(n)] + [f"q0{i}" for i in range(n)]
    truth = rng.integers(0, 3, 2 * n)
    df = pd.DataFrame(
        {
            "item": ids,
            **{r: np.where(rng.random(2 * n) < 0.7, truth, rng.integers(0, 3, 2 * n))
               for r in ("a", "b", "c")},
        }
    )  # fmt: skip
    outs = []
    for seed in (0, 1):
        f = tmp_path / f"s{seed}.csv"
        df.sample(frac=1.0, random_state=seed).to_csv(f, index=False)
        rc, out, err = cli(
            ["agreement", f, "--item", "item", "--ci", "bootstrap", "--resamples", "200",
             "--json", "--quiet"]
        )  # fmt: skip
        assert rc == 0, err
        doc = json.loads(out)
        doc.pop("file")
        outs.append(doc)
    assert outs[0] == outs[1]


def test_duplicate_csv_header_is_refused(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("item,rater,value,value\nq1,r1,A,B\n")
    rc, _, err = cli(["validate", f, "--item", "item", "--rater", "rater", "--value", "value"])
    assert_one_line_error(rc, err, f"{f}, line 1, column value", "appears twice")


@pytest.mark.parametrize(
    ("rows", "column", "line"),
    [
        ([["q1", "r1", "A"], ["", "r1", "B"]], "item", 3),
        ([["q1", "r1", "A"], ["q2", "  ", "B"]], "rater", 3),
    ],
)
def test_empty_ids_are_refused(tmp_path, rows, column, line):
    f = tmp_path / "t.csv"
    pd.DataFrame(rows, columns=["item", "rater", "value"]).to_csv(f, index=False)
    rc, _, err = cli(["validate", f, "--item", "item", "--rater", "rater", "--value", "value"])
    assert_one_line_error(rc, err, f"{f}, line {line}, column {column}", f"empty {column} id")


def test_empty_dimension_id_is_refused(tmp_path):
    f = tmp_path / "t.csv"
    pd.DataFrame(
        [["q1", "r1", "d1", "A"], ["q1", "r1", "", "B"]], columns=["item", "rater", "dim", "value"]
    ).to_csv(f, index=False)
    m = tmp_path / "t.toml"
    m.write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nvalue = "value"\n'
        'role = "expert"\ndimension_column = "dim"\n'
    )
    rc, _, err = cli(["validate", f, "--mapping", m])
    assert_one_line_error(rc, err, f"{f}, line 3, column dim", "empty dimension id")


def test_empty_item_in_a_wide_table_is_refused(tmp_path):
    rows = small_rows(4)
    rows[2][0] = ""
    path, mapping = write_wide(tmp_path, rows)
    rc, _, err = cli(["validate", path, "--mapping", mapping])
    assert_one_line_error(rc, err, f"{path}, line 4, column item", "empty item id")


def test_broadcast_on_a_table_is_refused(tmp_path):
    path, mapping = write_wide(tmp_path, small_rows())
    for cmd in ("validate", "compare"):
        rc, _, err = cli([cmd, path, "--mapping", mapping, "--broadcast"])
        assert_one_line_error(rc, err, "--broadcast", str(path))
    rc, _, err = cli(["validate", ROOT / "data" / "demo", "--broadcast"])
    assert rc == 0, err  # a bundle takes it


def _needs_report_extra():
    from medjudge.commands.report import report_dependencies_missing

    if report_dependencies_missing():
        pytest.skip("report extra not installed")


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--kind", "judges"], "--kind"),
        (["--policy", "exclude"], "--policy"),
        (["--by", "grp"], "--by"),
        (["--seed", "3"], "--seed"),
        (["--confidence-level", "0.9"], "--confidence-level"),
        (["--alpha", "0.1"], "--alpha"),
        (["--names", "judge=evaluator"], "--names"),
    ],
)
def test_options_a_template_would_ignore_are_refused(tmp_path, extra, needle):
    _needs_report_extra()
    path, mapping = write_wide(tmp_path, small_rows())
    tpl = ROOT / "reports" / "custom.qmd"  # declares data, mapping, resamples only
    out = tmp_path / "o"
    rc, _, err = cli(
        ["report", path, "--mapping", mapping, "--template", tpl, "--out", out, *extra]
    )
    assert_one_line_error(rc, err, needle)
    assert not out.exists()


def test_declared_template_parameter_is_accepted(tmp_path, monkeypatch):
    """--policy beside a template that declares ``policy`` is passed on, not refused."""
    _needs_report_extra()
    from medjudge.commands import report as report_cmd

    tpl = tmp_path / "t.qmd"
    tpl.write_text(
        "---\ntitle: t\n---\n\n```{python}\n#| tags: [parameters]\npolicy = 'wrong'\n```\n"
    )
    seen = {}

    def fake(path, **kw):
        seen.update(kw)
        return {"t": {}}

    monkeypatch.setattr(report_cmd, "render_reports", fake)
    path, mapping = write_wide(tmp_path, small_rows())
    rc, _, err = cli(
        ["report", path, "--mapping", mapping, "--template", tpl, "--out", tmp_path / "o",
         "--policy", "exclude"]
    )  # fmt: skip
    assert rc == 0, err
    assert seen["policy"] == "exclude"


@pytest.fixture()
def long_verdicts(tmp_path):
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(5)
    rows = []
    for i in range(40):
        gold = "AB"[i % 2]
        rows += [
            (f"q{i}", "e1", "expert", "overall", gold),
            (f"q{i}", "e2", "expert", "overall", gold),
        ]
        for j in ("j1", "j2", "j3"):
            rows.append(
                (f"q{i}", j, "judge", "overall", gold if rng.random() < 0.75 else "BA"[i % 2])
            )
    f = tmp_path / "v.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"]).to_csv(
        f, index=False
    )
    return f


@pytest.mark.parametrize(
    "extra", [["--alpha", "0.1"], ["--kappa-weights", "quadratic"]], ids=["alpha", "kappa-weights"]
)
def test_engine_honours_options_as_memory_does(long_verdicts, extra):
    """The columnar path runs the in-memory statistics, so an option it used to refuse (it
    would have been ignored) now gives the memory path's output exactly."""
    mapping = long_verdicts.parent / "m.toml"
    mapping.write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\n'
        'value = "value"\ndimension_column = "dimension"\n'
    )
    outs = {}
    for engine in ("memory", "duckdb"):
        rc, out, err = cli(["compare", long_verdicts, "--mapping", mapping, "--engine", engine,
                            "--resamples", "50", "--json", *extra])  # fmt: skip
        assert rc == 0, err
        outs[engine] = out
    assert outs["memory"] == outs["duckdb"]


@pytest.mark.parametrize(
    "extra",
    [["--dimensions", "overall"], ["--gold-method", "majority"]],
    ids=["dimensions", "gold-method"],
)
def test_engine_honours_dimensions_and_gold_method(long_verdicts, extra):
    """The columnar path reads the option (it used to be ignored; it is now honoured)."""
    rc, out, err = cli(["compare", long_verdicts, "--engine", "duckdb", "--resamples", "50",
                        "--json", *extra])  # fmt: skip
    assert rc == 0, err


def test_engine_eval_order_is_checked_against_the_data(long_verdicts):
    rc, _, err = cli(
        ["compare", long_verdicts, "--engine", "duckdb", "--resamples", "50", "--eval-order", "AB"]
    )
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "--eval-order" in err


def test_engine_honours_family(long_verdicts):
    outs = {}
    for family in ("table", "dimension"):
        rc, out, err = cli(
            ["compare", long_verdicts, "--engine", "duckdb", "--resamples", "50", "--json",
             "--family", family]
        )  # fmt: skip
        assert rc == 0, err
        outs[family] = out
    assert '"family": "dimension"' in outs["dimension"]
    assert "Holm within each dimension" in outs["dimension"]
    assert '"family": "table"' in outs["table"] and "Holm over all" in outs["table"]


def test_options_a_template_declares_are_passed_and_defaults_kept(tmp_path, monkeypatch):
    """reports/custom.qmd declares resamples: --resamples is passed on; options not given keep
    their documented defaults."""
    _needs_report_extra()
    from medjudge.commands import report as report_cmd

    seen = {}

    def fake(path, **kw):
        seen.update(kw)
        return {"custom": {}}

    monkeypatch.setattr(report_cmd, "render_reports", fake)
    path, mapping = write_wide(tmp_path, small_rows())
    rc, _, err = cli(
        ["report", path, "--mapping", mapping, "--template", ROOT / "reports" / "custom.qmd",
         "--out", tmp_path / "o", "--resamples", "150"]
    )  # fmt: skip
    assert rc == 0, err
    assert seen["resamples"] == 150 and seen["seed"] == 0 and seen["policy"] == "wrong"
    assert seen["confidence_level"] == 0.95 and seen["alpha"] == 0.05 and seen["epsilon"] == 0.2


def test_composite_ids_are_injective_with_separators_anywhere():
    """Issue 38: every tuple of parts made of ``a``, the separator and a backslash, in up to
    three columns, gives its own id (exhaustive over parts of up to 3 characters)."""
    import itertools

    from medjudge.data.tables import _joined

    alphabet = ["a", ":", "\\"]
    parts = ["".join(p) for n in range(1, 4) for p in itertools.product(alphabet, repeat=n)]
    for width in (2, 3):
        tuples = list(itertools.product(parts, repeat=width))
        if width == 3:
            tuples = tuples[:: max(1, len(tuples) // 20000)]
        frame = pd.DataFrame(tuples, columns=[f"c{i}" for i in range(width)])
        ids = _joined(frame, list(frame.columns), ":")
        assert ids.nunique() == len(tuples), width


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_three_items_with_the_separator_in_different_places_stay_three(tmp_path, engine):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    rows = []
    for s, i in (("a:1", "2"), ("a", "1:2"), ("a:1:2", "\\")):
        for r, v in (("e1", "A"), ("e2", "A"), ("j1", "B")):
            rows.append({"s": s, "i": i, "rater": r, "value": v})
    f = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(f, index=False)
    rc, out, err = cli(["validate", f, "--item", "s,i", "--rater", "rater", "--value", "value",
                        "--role", "expert", "--engine", engine, "--json"])  # fmt: skip
    assert rc == 0, err
    assert json.loads(out)["n_items"] == 3
