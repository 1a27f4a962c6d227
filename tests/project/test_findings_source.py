"""A result states its own key findings (issue 35, item 1).

A report section must not type the sentences of its executive-summary findings: it calls the
result's ``findings()`` (or a named part of it, e.g. ``au.annotator_findings``), which builds
them from the result's own fields with the report's markup and role names passed in. This scans
``report/sections/`` for ``Finding(`` constructed in a section.

``PENDING`` counts, per section file, the ``Finding(`` constructions still to be moved into
their result. The test fails on any new construction and on any count that has gone down
without the list being updated: it is a ratchet, not an allow-list.
"""

from __future__ import annotations

import ast
from pathlib import Path

SECTIONS = Path(__file__).resolve().parents[2] / "analysis" / "medjudge" / "report" / "sections"

#: section file -> ``Finding(`` constructions still typed in the section (only shrinks)
PENDING = {
    # per-effect lines of BiasSuiteResult.findings() are the `bias` command's text: convert
    # together with that command (rename them, then state the suite's finding here)
    "bias_suite.py": 2,
    # the study's own accounting (data floor, below the Finding record): a Study finding
    "data.py": 2,
    # PPIResult.findings() (assumption and notes) ends the `ppi` command's summary: convert
    # together with that command
    "ppi.py": 1,
}


def finding_constructions(source: str) -> int:
    """How many calls of ``Finding(...)`` a module's source makes."""
    return sum(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "Finding"
        for n in ast.walk(ast.parse(source))
    )


def test_sections_take_their_findings_from_the_result():
    found = {
        p.name: n
        for p in sorted(SECTIONS.glob("*.py"))
        if (n := finding_constructions(p.read_text(encoding="utf-8")))
    }
    new = {f: n for f, n in found.items() if n > PENDING.get(f, 0)}
    assert not new, (
        f"sections that construct Finding themselves: {new}; build the sentence in the "
        "result's findings() and call it from the section"
    )
    stale = {f: n for f, n in PENDING.items() if found.get(f, 0) < n}
    assert not stale, f"update PENDING (fewer typed findings now): {stale} -> found {found}"


def test_the_scan_counts_a_typed_finding():
    typed = 'sec.findings.append(Finding(f"{n} of {m} pairs differ", weight=4))\n'
    called = "sec.findings += ev.findings(head, markup=ctx.markup)\n"
    assert finding_constructions(typed) == 1
    assert finding_constructions(called) == 0
