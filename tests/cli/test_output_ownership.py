"""Issue 30: medjudge replaces only an output folder it can prove it wrote (its manifest's
format marker and the hash of every file it lists, and nothing else in the folder); ``--out``
is never empty, never the input, a parent of it or a symbolic link that is replaced."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from medjudge.commands._output import output_folder
from medjudge.data.errors import InputError
from robust_support import (
    assert_complete,
    assert_one_line_error,
    cli,
    no_partials,
    small_rows,
    snapshot,
    write_wide,
)


@pytest.fixture()
def table(tmp_path):
    return write_wide(tmp_path / "in", small_rows(), judges=("j1", "j2"))


def _run(table, out, *more):
    path, mapping = table
    return cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none", *more])


@pytest.fixture()
def previous(tmp_path, table):
    out = tmp_path / "out"
    rc, _, err = _run(table, out)
    assert rc == 0, err
    return out, snapshot(out)


def test_input_inside_a_reports_folder_is_not_deleted(tmp_path, table):
    # the reproduction: P holds only a folder called reports/ with the inputs in it
    p = tmp_path / "P"
    (p / "reports").mkdir(parents=True)
    path, mapping = table
    shutil.copy(path, p / "reports" / path.name)
    shutil.copy(mapping, p / "reports" / mapping.name)
    before = snapshot(p)
    rc, _, err = cli(
        [
            "run",
            p / "reports" / path.name,
            "--mapping",
            p / "reports" / mapping.name,
            "--out",
            p,
            "--report",
            "none",
        ]
    )
    assert_one_line_error(rc, err, str(p))
    assert snapshot(p) == before


def test_a_lone_reports_folder_it_did_not_write_is_refused(tmp_path, table):
    p = tmp_path / "P"
    (p / "reports").mkdir(parents=True)
    (p / "reports" / "draft.html").write_text("mine")
    rc, _, err = _run(table, p)
    assert_one_line_error(rc, err, "reports", "will not be replaced")
    assert (p / "reports" / "draft.html").read_text() == "mine"


def test_an_empty_folder_it_did_not_write_is_refused(tmp_path, table):
    p = tmp_path / "P"
    (p / "figures").mkdir(parents=True)
    rc, _, err = _run(table, p)
    assert_one_line_error(rc, err, "figures", "will not be replaced")
    assert (p / "figures").is_dir()


def test_a_foreign_manifest_does_not_make_a_folder_ours(tmp_path, table):
    p = tmp_path / "P"
    p.mkdir()
    (p / "MANIFEST.json").write_text('{"name": "my package"}')
    (p / "setup.py").write_text("precious")
    rc, _, err = _run(table, p)
    assert_one_line_error(rc, err, "will not be replaced")
    assert (p / "setup.py").read_text() == "precious"
    # even a manifest alone (no marker) is not proof
    (p / "setup.py").unlink()
    rc, _, err = _run(table, p)
    assert_one_line_error(rc, err, "MANIFEST.json", "will not be replaced")
    assert (p / "MANIFEST.json").read_text() == '{"name": "my package"}'


def test_a_copied_manifest_does_not_cover_other_files(tmp_path, previous, table):
    out, _ = previous
    p = tmp_path / "P"
    p.mkdir()
    shutil.copy(out / "MANIFEST.json", p / "MANIFEST.json")
    (p / "data.csv").write_text("precious")
    rc, _, err = _run(table, p)
    assert_one_line_error(rc, err, "will not be replaced")
    assert (p / "data.csv").read_text() == "precious"


def test_a_note_saved_into_a_previous_output_is_not_deleted(previous, table):
    out, snap = previous
    (out / "notes.md").write_text("my notes")
    rc, _, err = _run(table, out)
    assert_one_line_error(rc, err, "notes.md", "will not be replaced")
    assert (out / "notes.md").read_text() == "my notes"
    assert {k: v for k, v in snapshot(out).items() if k != "notes.md"} == snap


def test_an_edited_output_file_is_not_replaced(previous, table):
    out, _ = previous
    (out / "accuracy.csv").write_text("my edited table")
    rc, _, err = _run(table, out)
    assert_one_line_error(rc, err, "accuracy.csv", "will not be replaced")
    assert (out / "accuracy.csv").read_text() == "my edited table"


def test_a_previous_output_is_still_replaced(previous, table):
    out, snap = previous
    rc, _, err = _run(table, out)
    assert rc == 0, err
    assert snapshot(out) == snap
    assert_complete(out)


def test_empty_out_is_refused(previous, table, monkeypatch):
    # the working folder is a previous output (the case where "" was replaced before)
    out, snap = previous
    monkeypatch.chdir(out)
    rc, _, err = _run(table, "")
    assert_one_line_error(rc, err, "--out", "current folder")
    assert snapshot(out) == snap
    with pytest.raises(InputError, match="--out"), output_folder("", argv=["x"]):
        pass


def test_empty_out_is_refused_by_report_and_simulate(tmp_path, table, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, mapping = table
    for argv in (["simulate", "--out", ""], ["report", path, "--mapping", mapping, "--out", ""]):
        rc, _, err = cli(argv)
        if rc == 2 and "report extra" in err:
            continue
        assert_one_line_error(rc, err, "--out")
    assert sorted(os.listdir(tmp_path)) == ["in"]


def test_out_symlink_is_followed(tmp_path, table):
    target = tmp_path / "target"
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    # the target does not exist yet: a link to a missing folder is refused (never replaced)
    rc, _, err = _run(table, link)
    assert_one_line_error(rc, err, str(link))
    assert link.is_symlink()
    target.mkdir()
    rc, _, err = _run(table, link)
    assert rc == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert (target / "validation.json").is_file()
    assert_complete(target)
    rc, _, err = _run(table, link)  # again: the previous outputs behind the link are replaced
    assert rc == 0, err
    assert link.is_symlink() and (target / "accuracy.csv").is_file()
    assert no_partials(tmp_path) == []


def test_out_equal_to_or_parent_of_the_input_is_refused(tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree("data/demo", bundle)
    before = snapshot(tmp_path)
    for out in (bundle, tmp_path):
        rc, _, err = cli(["run", bundle, "--out", out, "--report", "none"])
        assert_one_line_error(rc, err, "--out", "input")
    path, mapping = write_wide(tmp_path / "tables", small_rows())
    before = snapshot(tmp_path)
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", path.parent, "--report", "none"])
    assert_one_line_error(rc, err, "--out", "input")
    assert snapshot(tmp_path) == before


def test_out_inside_the_input_is_not_listed_as_input(tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree("data/demo", bundle)
    out = bundle / "out"
    for _ in range(2):  # the second run sees the first one's outputs, lock and staging folder
        rc, _, err = cli(["run", bundle, "--out", out, "--report", "none"])
        assert rc == 0, err
    man = json.loads((out / "MANIFEST.json").read_text())
    listed = [f["path"] for i in man["inputs"] for f in i["files"]]
    assert listed and not [p for p in listed if p.startswith(("out/", ".out"))], listed


def test_stale_cleanup_touches_only_staging_folders(previous, table):
    out, _ = previous
    mine = out.parent / f".{out.name}.partial-notes"
    mine.mkdir()
    (mine / "n.txt").write_text("mine")
    rc, _, err = _run(table, out)
    assert rc == 0, err
    assert (mine / "n.txt").read_text() == "mine"


def test_simulate_force_replaces_only_its_own_bundle(tmp_path):
    out = tmp_path / "sim"
    rc, _, err = cli(["simulate", "--out", out, "--items", "30"])
    assert rc == 0, err
    rc, _, err = cli(["simulate", "--out", out, "--items", "30", "--force"])
    assert rc == 0, err
    (out / "predictions" / "mine.jsonl").write_text("{}\n")
    rc, _, err = cli(["simulate", "--out", out, "--items", "30", "--force"])
    assert_one_line_error(rc, err, "mine.jsonl", "will not be replaced")
    assert (out / "predictions" / "mine.jsonl").read_text() == "{}\n"


def test_report_into_run_reports_folder_and_run_again(tmp_path):
    """``run --out out`` then ``report --out out/reports`` (the defaults) then ``run`` again:
    out/reports is proven by out/MANIFEST.json, then by its own manifest."""
    out = tmp_path / "out"
    with output_folder(out, argv=["run"]) as stage:
        (stage / "validation.json").write_text("{}")
        (stage / "reports").mkdir()
        (stage / "reports" / "judges.html").write_text("<p>1</p>")
    with output_folder(out / "reports", argv=["report"]) as stage:
        (stage / "judges.html").write_text("<p>2</p>")
    assert (out / "reports" / "judges.html").read_text() == "<p>2</p>"
    with output_folder(out, argv=["run"]) as stage:
        (stage / "validation.json").write_text("{}")
    assert sorted(p.name for p in out.iterdir()) == ["MANIFEST.json", "validation.json"]
    # but a file added to the report folder is still refused, from either level
    with output_folder(out / "reports", argv=["report"]) as stage:
        (stage / "judges.html").write_text("<p>3</p>")
    (out / "reports" / "mine.txt").write_text("mine")
    for target in (out, out / "reports"):
        with pytest.raises(InputError, match="mine.txt"), output_folder(target, argv=["x"]):
            pass
