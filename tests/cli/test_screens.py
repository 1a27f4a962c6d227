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
