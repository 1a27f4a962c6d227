"""Issue 38, item 4 and the nested-output case of item 6: a reader that closes standard output
(``| head -1``) never costs the outputs; a signal during the clean-up of an output folder
leaves neither staging folder nor lock; ``run --out O`` and ``report --out O/reports`` at the
same time are refused rather than racing."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from medjudge.cli import Terminated
from medjudge.commands import _output
from medjudge.commands._output import output_folder
from robust_support import assert_complete, assert_one_line_error, cli, small_rows, write_wide


@pytest.fixture()
def table(tmp_path):
    return write_wide(tmp_path / "in", small_rows(), judges=("j1", "j2"))


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# ------------------------------------------------------------------ a closed standard output
def test_a_closed_stdout_keeps_the_outputs_and_exits_quietly(tmp_path, table):
    """``medjudge run ... | head -1`` discarded the run with exit 2 ("could not write the
    outputs: Broken pipe"); the folder was fine, only standard output was closed."""
    path, mapping = table
    out = tmp_path / "out"
    argv = ["run", path, "--mapping", mapping, "--out", out, "--report", "none"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "medjudge.cli", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = proc.stdout.readline()  # the reader takes one line and goes away
    proc.stdout.close()
    err = proc.stderr.read()
    rc = proc.wait(timeout=300)
    assert first.strip(), err
    assert rc == 0, err
    assert err == "", err
    assert_complete(out)
    assert _leftovers(tmp_path) == []


def test_a_closed_stdout_in_process_keeps_the_outputs(tmp_path, table, monkeypatch):
    """The same in-process: every write after the first broken one is dropped."""

    class Closed(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    from medjudge.cli import main

    path, mapping = table
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "stdout", Closed())
    rc = main(
        [str(a) for a in ["run", path, "--mapping", mapping, "--out", out, "--report", "none"]]
    )
    monkeypatch.undo()
    assert rc == 0
    assert_complete(out)


# ------------------------------------------------------------------ signals during clean-up
def _raise_terminated(signum, frame):
    raise Terminated()


def test_sigterm_during_the_clean_up_leaves_no_staging_folder_nor_lock(tmp_path, monkeypatch):
    """A SIGTERM that arrives while a failed run removes its staging folder used to stop the
    removal half way (an empty staging folder was left behind)."""
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    real_rmtree = _output.shutil.rmtree
    sent = []

    def rmtree(path, *a, **kw):
        if not sent:
            sent.append(path)
            os.kill(os.getpid(), signal.SIGTERM)  # the signal arrives now
        return real_rmtree(path, *a, **kw)

    monkeypatch.setattr(_output.shutil, "rmtree", rmtree)
    out = tmp_path / "out"
    try:
        with pytest.raises(Terminated), output_folder(out, argv=["run"]) as stage:
            (stage / "reports").mkdir()
            (stage / "reports" / "judges.html").write_text("half")
            raise Terminated()  # the first SIGTERM, during the render
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert sent, "the clean-up did not run"
    assert _leftovers(tmp_path) == [] and not out.exists()


def test_sigterm_during_the_swap_finishes_the_swap(tmp_path, monkeypatch):
    """The final swap is one step: a signal arriving inside waits until the set is in place."""
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    real_replace = _output.os.replace

    def replace(a, b):
        os.kill(os.getpid(), signal.SIGTERM)
        return real_replace(a, b)

    monkeypatch.setattr(_output.os, "replace", replace)
    out = tmp_path / "out"
    try:
        with pytest.raises(Terminated), output_folder(out, argv=["run"]) as stage:
            (stage / "validation.json").write_text("{}")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert sorted(p.name for p in out.iterdir()) == ["MANIFEST.json", "validation.json"]
    assert _leftovers(tmp_path) == []


def test_sigterm_while_rendering_leaves_nothing_behind(tmp_path, table):
    """A real SIGTERM while ``report`` renders: exit 143, no staging folder, no lock."""
    pytest.importorskip("nbclient")
    path, mapping = table
    out = tmp_path / "rep"
    proc = subprocess.Popen(
        [sys.executable, "-m", "medjudge.cli", "report", str(path), "--mapping", str(mapping),
         "--out", str(out), "--kind", "judges"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    import time

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(tmp_path.glob(".rep.partial-*/*")):
        time.sleep(0.05)
    time.sleep(0.5)  # the kernel is running
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=120)
    err = proc.stderr.read()
    assert rc in (0, 143), err
    assert _leftovers(tmp_path) == [], err


# ------------------------------------------------------------------ nested outputs
@contextlib.contextmanager
def _held(lock: Path):
    """Another run's lock: an exclusive flock on its own open file, with its pid written."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"4242")
    try:
        yield
    finally:
        os.unlink(lock)
        os.close(fd)


def test_report_into_a_folder_that_run_is_writing_is_refused(tmp_path, table):
    """``run --out O`` and ``report --out O/reports`` at once: the report failed with "typst
    failed on judges.typ: No such file or directory" when the run swapped O in."""
    path, mapping = table
    out = tmp_path / "O"
    with _held(tmp_path / ".O.lock"):
        rc, _, err = cli(["report", path, "--mapping", mapping, "--out", out / "reports"])
    assert_one_line_error(rc, err, f"enclosing folder {out}", "process 4242")
    assert not out.exists() or not any(out.iterdir())  # at most the (empty) parent it made


def test_run_over_a_folder_a_report_is_writing_is_refused(tmp_path, table):
    path, mapping = table
    out = tmp_path / "O"
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert rc == 0, err
    before = sorted(p.name for p in out.iterdir())
    with _held(out / ".reports.lock"):
        rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
        assert_one_line_error(rc, err, f"{out / 'reports'} inside it", "process 4242")
    assert sorted(p.name for p in out.iterdir()) == before


def test_a_stale_lock_file_inside_is_no_obstacle(tmp_path, table):
    """A lock file nobody holds (a killed run's) does not refuse anything."""
    path, mapping = table
    out = tmp_path / "O"
    out.mkdir()
    (tmp_path / ".O.lock").write_text("999999")
    rc, _, err = cli(
        ["run", path, "--mapping", mapping, "--out", tmp_path / "P", "--report", "none"]
    )
    assert rc == 0, err
