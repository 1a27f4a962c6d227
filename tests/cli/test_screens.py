"""Issue 40, items 3 and 4 on the command line: each judge's n in the leaderboard when the judges
saw different numbers of items; progress with counts on a terminal only (nothing in pipes or
``--json``)."""

from __future__ import annotations

import pandas as pd
from _studies import write_small_study
from medjudge.cli import main


def _uneven(tmp_path):
    """The small 3 × 3 study with mistral-7b not run on the 12 items of 3 cases."""
    table, mapping = write_small_study(tmp_path)
    t = pd.read_csv(table)
    drop = (t["rater"] == "mistral-7b") & t["case"].isin(["case01", "case02", "case03"])
    t[~drop].to_csv(table, index=False)
    return table, mapping


def _board(text: str) -> list[list[str]]:
    lines = text.split("== overall", 1)[1].splitlines()[1:]
    return [line.split() for line in lines[: 1 + 3]]


def test_compare_leaderboard_shows_each_judges_n_when_they_differ(tmp_path, capsys):
    table, mapping = _uneven(tmp_path)
    assert main(["compare", str(table), "--mapping", str(mapping), "--resamples", "30"]) == 0
    head, *rows = _board(capsys.readouterr().out)
    assert "n" in head
    n = {r[1]: int(r[head.index("n")]) for r in rows}
    # counted independently: the items each judge has a row for
    t = pd.read_csv(table)
    assert n == t[t["role"] == "judge"].groupby("rater")["item"].nunique().to_dict()
    assert n["mistral-7b"] == 48 and n["gpt-4o"] == 60


def test_compare_leaderboard_without_n_when_all_judges_saw_every_item(tmp_path, capsys):
    table, mapping = write_small_study(tmp_path)
    assert main(["compare", str(table), "--mapping", str(mapping), "--resamples", "30"]) == 0
    head, *_ = _board(capsys.readouterr().out)
    assert "n" not in head and "n_invalid" in head


# ---------------------------------------------------------------------------- progress
def _in_a_terminal(argv: list[str]) -> tuple[int, str]:
    """Run ``python -m medjudge.cli argv`` with a pseudo-terminal as its standard streams."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import subprocess
    import sys
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # rows, columns
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "medjudge.cli", *argv], stdin=slave, stdout=slave,
        stderr=slave, env=env, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=600)
    os.close(master)
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace")


def _piped(argv: list[str]):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "medjudge.cli", *argv], capture_output=True, text=True, timeout=600
    )


def test_report_progress_counts_sections_on_a_terminal_only(tmp_path):
    """On a terminal each report shows its sections counted (``k/n``) and then typesetting; in
    a pipe nothing but the paths written."""
    import re

    table, mapping = write_small_study(tmp_path)
    argv = ["report", str(table), "--mapping", str(mapping), "--resamples", "30", "--to", "html"]
    rc, screen = _in_a_terminal([*argv, "--out", str(tmp_path / "tty")])
    assert rc == 0, screen
    # the judges report's sections, by name and counted, then typesetting
    from medjudge.report.audit import SECTIONS as AUDIT
    from medjudge.report.judges import SECTIONS

    total = len(SECTIONS) + 1
    # the titles drawn depend on the timing; both reports' sections are on the screen
    titles = {getattr(m, "TITLE", "") for m in (*SECTIONS, *AUDIT)}
    shown = set(re.findall(r"section ([A-Z][\w -]+?)\s*\x1b", screen))
    assert shown and shown <= titles, shown
    assert "typesetting html" in screen
    # a count follows a colour code ("\x1b[32m19/21"): no word boundary before its digits
    counts = {int(k) for k in re.findall(rf"(?<!\d)(\d+)/{total}\b", screen)}
    assert len(counts) >= 3, screen[-2000:]
    piped = _piped([*argv, "--out", str(tmp_path / "pipe")])
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout.splitlines() == [
        f"{k}: {tmp_path / 'pipe' / (k + '.html')}" for k in ("judges", "audit")
    ]


def test_compare_progress_on_a_terminal_and_clean_json_in_a_pipe(tmp_path):
    import json

    from _studies import write_score_study

    table, mapping = write_small_study(tmp_path)
    argv = ["compare", str(table), "--mapping", str(mapping), "--resamples", "30"]
    rc, screen = _in_a_terminal(argv)
    assert rc == 0 and "judges against gold" in screen and "1/2" in screen, screen[-2000:]
    piped = _piped([*argv, "--json"])
    assert piped.returncode == 0 and piped.stderr == ""
    assert "leaderboard" in json.loads(piped.stdout)  # nothing but the JSON on stdout
    # a score study: one step per score dimension
    scores, smap = write_score_study(tmp_path, n_items=30)
    rc, screen = _in_a_terminal(["compare", str(scores), "--mapping", str(smap),
                                 "--resamples", "30"])  # fmt: skip
    assert rc == 0 and "dimension quality" in screen and "0/1" in screen, screen[-2000:]
    piped = _piped(["compare", str(scores), "--mapping", str(smap), "--resamples", "30", "--json"])
    assert piped.returncode == 0 and piped.stderr == ""
    assert "scores" in json.loads(piped.stdout)


def test_run_counts_the_report_steps_on_a_terminal_only(tmp_path):
    """``run`` renders its reports while it writes the tables; on a terminal it then shows each
    report's steps counted; in a pipe standard error stays empty."""
    table, mapping = write_small_study(tmp_path)
    argv = ["run", str(table), "--mapping", str(mapping), "--resamples", "30"]
    rc, screen = _in_a_terminal([*argv, "--out", str(tmp_path / "tty")])
    assert rc == 0 and "typesetting html, pdf" in screen, screen[-2000:]
    piped = _piped([*argv, "--out", str(tmp_path / "pipe")])
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr
    assert "\x1b" not in piped.stdout
