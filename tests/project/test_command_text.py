"""Issue 35: ``commands/`` prints results, it does not lay out their tables. A command that
formats a table itself (``.to_string(``, ``pivot_table(``, ``table_text(``) is listed in
``PENDING`` with its count, which may only shrink; the layout lives beside the result
(``tables_text``/``summary`` on the analyses floor)."""

from __future__ import annotations

import re
from pathlib import Path

COMMANDS = Path(__file__).resolve().parents[2] / "analysis" / "medjudge" / "commands"
LAYOUT = re.compile(r"\.to_string\(|pivot_table\(|\btable_text\(")

#: file -> formatting calls still written in the command (data summaries, not results)
PENDING = {
    "_common.py": 1,  # the definition of table_text itself
    "agreement.py": 1,  # the pairwise agreement table (no result class yet)
    "plan.py": 1,  # the sample-size plan's table
    "run.py": 1,  # the first rows of the accuracy table written to CSV
    "validate.py": 1,  # the per-rater counts of the validation report
}


def _found() -> dict[str, int]:
    out = {}
    for p in sorted(COMMANDS.glob("*.py")):
        n = len(LAYOUT.findall(p.read_text(encoding="utf-8")))
        if n:
            out[p.name] = n
    return out


def test_commands_lay_out_no_new_tables():
    found = _found()
    grown = {k: v for k, v in found.items() if v > PENDING.get(k, 0)}
    gone = {k: v for k, v in PENDING.items() if found.get(k, 0) < v}
    assert not grown, f"tables laid out in commands/ (move them beside the result): {grown}"
    assert not gone, f"fewer than PENDING lists; shrink PENDING: {gone}"


def test_the_scan_sees_a_table_laid_out_in_a_command():
    assert LAYOUT.search("print(t.pivot_table(index='judge').to_string())")
    assert not LAYOUT.search("print(res.tables_text(width=w))")
