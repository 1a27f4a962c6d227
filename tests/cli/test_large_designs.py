"""Issue 38, item 5 and the wide tables of item 6: designs beyond what the in-memory path
takes are refused up front with one line naming the size and what helps (100,000 judges ran
for minutes without a result; 400 categories took 5.1 GB; 10⁶ columns were killed for memory
after 180 s). Each limit is tested at the limit (accepted) and one above (refused)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from medjudge.data import io as mio
from medjudge.data.errors import InputError
from medjudge.data.limits import (
    MAX_CATEGORIES,
    MAX_COLUMNS,
    MAX_JUDGES,
    check_design_size,
)
from medjudge.data.scale import Scale
from robust_support import assert_one_line_error, cli

LONG = 'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\nvalue = "value"\n'


def _fake(n_judges: int, n_categories: int = 2) -> SimpleNamespace:
    cats = tuple(f"c{k}" for k in range(n_categories))
    return SimpleNamespace(
        judges=[f"j{k}" for k in range(n_judges)],
        scales={"overall": Scale("nominal", cats)},
    )


def test_the_judge_limit_is_inclusive():
    check_design_size(_fake(MAX_JUDGES))
    with pytest.raises(InputError, match=f"{MAX_JUDGES + 1:,} judges"):
        check_design_size(_fake(MAX_JUDGES + 1))


def test_the_category_limit_is_inclusive():
    check_design_size(_fake(2, MAX_CATEGORIES))
    with pytest.raises(InputError, match=f"{MAX_CATEGORIES + 1} categories"):
        check_design_size(_fake(2, MAX_CATEGORIES + 1))


@pytest.mark.parametrize("command", ["run", "compare"])
def test_too_many_judges_are_refused_up_front(tmp_path, command):
    rng = np.random.default_rng(0)
    n_judges = MAX_JUDGES + 1
    items = [f"i{i}" for i in range(5)]
    rows = [(i, e, "expert", "A") for i in items for e in ("e1", "e2")]
    rows += [(rng.choice(items), f"j{k}", "judge", "AB"[k % 2]) for k in range(n_judges)]
    f = tmp_path / "t.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "value"]).to_csv(f, index=False)
    (tmp_path / "m.toml").write_text(LONG)
    argv = [command, f, "--mapping", tmp_path / "m.toml"]
    if command == "run":
        argv += ["--out", tmp_path / "O", "--report", "none"]
    start = time.perf_counter()
    rc, _, err = cli(argv)
    assert_one_line_error(rc, err, f"{n_judges:,} judges", f"at most {MAX_JUDGES:,} judges")
    assert time.perf_counter() - start < 60
    assert not (tmp_path / "O").exists()


def test_too_many_categories_are_refused_naming_the_dimension(tmp_path):
    k = MAX_CATEGORIES + 1
    rows = [(f"i{i}", r, "expert", f"c{i % k}") for i in range(2 * k) for r in ("e1", "e2")]
    f = tmp_path / "t.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "value"]).to_csv(f, index=False)
    (tmp_path / "m.toml").write_text(LONG)
    rc, _, err = cli(["audit", f, "--mapping", tmp_path / "m.toml"])
    assert_one_line_error(rc, err, f"'overall' has {k} categories", 'level = "interval"')


def _wide_header(path, n_columns: int) -> None:
    names = ["item", *(f"r{k}" for k in range(n_columns - 1))]
    path.write_text(",".join(names) + "\n" + ",".join(["i0", *["A"] * (n_columns - 1)]) + "\n")


def test_a_very_wide_csv_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    f = tmp_path / "wide.csv"
    _wide_header(f, MAX_COLUMNS + 1)

    def parse(*a, **k):  # noqa: ANN002, ANN003
        raise AssertionError("the file was parsed")

    monkeypatch.setattr(mio.pd, "read_csv", parse)
    rc, _, err = cli(["validate", f, "--item", "item", "--rater", "r0", "--value", "r1"])
    assert_one_line_error(rc, err, str(f), f"{MAX_COLUMNS + 1:,} columns")


def test_a_table_at_the_column_limit_passes_the_check(tmp_path):
    f = tmp_path / "wide.csv"
    _wide_header(f, MAX_COLUMNS)
    mio._refuse_too_wide(f, ",")  # no error
    _wide_header(f, MAX_COLUMNS + 1)
    with pytest.raises(InputError, match="columns"):
        mio._refuse_too_wide(f, ",")


def test_a_very_wide_parquet_is_refused(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    n = MAX_COLUMNS + 1
    t = pa.table({f"c{k}": pa.array(["A"]) for k in range(n)})
    f = tmp_path / "wide.parquet"
    pq.write_table(t, f)
    rc, _, err = cli(["validate", f, "--item", "c0", "--rater", "c1", "--value", "c2"])
    assert_one_line_error(rc, err, str(f), f"{n:,} columns")
