"""Issue 14: output folders are replaced as a set (staged, locked, manifested, swapped), table
exports are safe in spreadsheets while JSON stays exact, and errors of the operating system,
interrupts and library warnings reach the user as one line."""

from __future__ import annotations

import errno
import json
import os
import warnings

import pandas as pd
import pytest
from medjudge.commands import run as run_cmd
from medjudge.commands._output import folder_lock, output_folder
from robust_support import (
    assert_complete,
    assert_one_line_error,
    cli,
    no_partials,
    small_rows,
    snapshot,
    write_wide,
)

HOSTILE = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)"]


@pytest.fixture()
def table(tmp_path):
    return write_wide(tmp_path / "in", small_rows(), judges=("j1", "j2"))


@pytest.fixture()
def previous(tmp_path, table):
    """A good previous output folder and its snapshot."""
    out = tmp_path / "out"
    path, mapping = table
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert rc == 0, err
    return out, snapshot(out)


def test_run_writes_a_complete_manifested_set(previous, table):
    out, snap = previous
    man = assert_complete(out)
    assert {"validation.json", "parse_status.csv", "accuracy.csv"} <= set(snap)
    assert man["command"].startswith("medjudge run ")
    inputs = {os.path.basename(i["input"]): i for i in man["inputs"]}
    path, mapping = table
    assert set(inputs) == {path.name, mapping.name}
    assert inputs[path.name]["files"][0]["sha256"] == snapshot(path.parent)[path.name]
    assert no_partials(out.parent) == []


def test_rerun_replaces_the_set_and_is_byte_identical(previous, table):
    out, snap = previous
    path, mapping = table
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert rc == 0, err
    assert snapshot(out) == snap  # deterministic, manifest included (no time stamps)


def test_spreadsheet_cells_are_neutralised_json_exact(tmp_path):
    path, mapping = write_wide(
        tmp_path / "in", small_rows(), judges=HOSTILE[:2], experts=HOSTILE[2:] + ["e3"]
    )
    out = tmp_path / "out"
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert rc == 0, err
    for name in ("accuracy.csv", "parse_status.csv"):
        raw = pd.read_csv(out / name, dtype=str, keep_default_na=False)
        names = set(raw["judge" if name == "accuracy.csv" else "rater"])
        for cell in names:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (name, cell)
        assert "'" + HOSTILE[0] in names
    doc = json.loads((out / "validation.json").read_text(encoding="utf-8"))
    assert set(HOSTILE[:2]) <= set(doc["status_per_judge"])  # JSON keeps the exact names


def test_failed_run_leaves_previous_outputs_untouched(previous, table, monkeypatch):
    out, snap = previous
    path, mapping = table

    def disk_full(study, **_):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / "accuracy.csv"))

    monkeypatch.setattr(run_cmd, "accuracy_table", disk_full)
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert_one_line_error(rc, err, "No space left on device", str(out))
    assert snapshot(out) == snap
    assert no_partials(out.parent) == []


def test_interrupted_run_leaves_previous_outputs_untouched(previous, table, monkeypatch):
    out, snap = previous
    path, mapping = table

    def ctrl_c(study, **_):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_cmd, "accuracy_table", ctrl_c)
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert rc == 130 and err.strip() == "medjudge: interrupted; no outputs were replaced"
    assert snapshot(out) == snap and no_partials(out.parent) == []


def test_out_is_an_existing_file(tmp_path, table):
    path, mapping = table
    f = tmp_path / "file.txt"
    f.write_text("keep me")
    for argv in (
        ["run", path, "--mapping", mapping, "--out", f, "--report", "none"],
        ["report", path, "--mapping", mapping, "--out", f],
        ["simulate", "--out", f],
    ):
        rc, _, err = cli(argv)
        if rc == 2 and "report extra" in err:
            continue
        assert_one_line_error(rc, err, str(f), "existing file")
    assert f.read_text() == "keep me"


def test_a_folder_with_other_files_is_not_replaced(tmp_path, table):
    path, mapping = table
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert_one_line_error(rc, err, "thesis.tex", "will not be replaced")
    assert snapshot(out) == {"thesis.tex": snapshot(out)["thesis.tex"]}


def test_concurrent_writer_gets_a_clear_message(previous, table):
    out, snap = previous
    path, mapping = table
    with folder_lock(out):
        rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert_one_line_error(rc, err, "another medjudge run is writing this folder", str(os.getpid()))
    assert snapshot(out) == snap
    assert no_partials(out.parent) == []  # the lock file is removed with the lock


def test_stale_partial_of_a_killed_run_is_cleaned_up(previous, table):
    out, snap = previous
    path, mapping = table
    stale = out.parent / f".{out.name}.partial-999999"
    stale.mkdir()
    (stale / "accuracy.csv").write_text("truncat")
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert rc == 0, err
    assert not stale.exists() and snapshot(out) == snap


def test_output_folder_api_discards_on_error(tmp_path):
    out = tmp_path / "o"
    with output_folder(out, argv=["x"]) as stage:
        (stage / "validation.json").write_text("1")
    before = snapshot(out)
    with pytest.raises(RuntimeError), output_folder(out, argv=["x"]) as stage:
        (stage / "validation.json").write_text("2")
        raise RuntimeError("boom")
    assert snapshot(out) == before and no_partials(tmp_path) == []


def test_library_warnings_become_one_counted_note(table, monkeypatch):
    path, mapping = table
    from medjudge.commands import validate

    real = validate.load_input

    def noisy(args):
        import numpy as np

        np.array([0.0]) / np.array([0.0])  # RuntimeWarning from numpy's own file
        warnings.warn("from a library", RuntimeWarning, stacklevel=1)
        return real(args)

    monkeypatch.setattr(validate, "load_input", noisy)
    rc, out, err = cli(["validate", path, "--mapping", mapping])
    assert rc == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("medjudge: note: 2 warning(s) from numpy")
    assert "site-packages" not in err and ".py" not in err


def test_bare_key_error_is_not_printed_as_a_message(table, monkeypatch):
    path, mapping = table
    from medjudge.commands import validate

    def broken(args):
        raise KeyError("nodim")

    monkeypatch.setattr(validate, "load_input", broken)
    rc, _, err = cli(["validate", path, "--mapping", mapping])
    assert rc == 3 and err.count("\n") == 1
    assert "internal error: missing key 'nodim'" in err and "error: 'nodim'" not in err


def test_os_errors_are_one_line_with_the_path(table, monkeypatch):
    path, mapping = table
    from medjudge.commands import validate

    for code, text in ((errno.EACCES, "Permission denied"), (errno.EFBIG, "File too large")):

        def fail(args, code=code):
            raise OSError(code, os.strerror(code), "/some/where.csv")

        monkeypatch.setattr(validate, "load_input", fail)
        rc, _, err = cli(["validate", path, "--mapping", mapping])
        assert_one_line_error(rc, err, "/some/where.csv", text)
