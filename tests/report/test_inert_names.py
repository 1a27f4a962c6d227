"""Issue 38, item 3: names are inert everywhere they are shown. One rule
(:func:`medjudge._inert.inert`) writes bidirectional controls, control characters and what XML
cannot carry as ``\\uXXXX``; every sink that shows text applies it — markdown, HTML, typst,
figures (SVG), the terminal — while JSON stays exact. A fuzz test drives arbitrary names
through every sink; one study whose judges are named with U+202E, ESC and NUL goes through
``validate`` and ``run --report both`` (HTML, PDF and their SVG figures)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from medjudge._inert import UNSAFE, inert
from medjudge.report import escape

BIDI = ["\u202e", "\u202d", "\u202a", "\u202b", "\u202c", "\u2066", "\u2067", "\u2068", "\u2069",
        "\u200e", "\u200f", "\u061c"]  # fmt: skip
CONTROLS = ["\x00", "\x1b[31m", "\x1b]0;title\x07", "\x7f", "\x9b2J", "\x08", "\x0c", "\ufffe"]
NAMES = st.lists(
    st.one_of(st.sampled_from(BIDI + CONTROLS + ["\r", "\n", "\t"]), st.text(max_size=3)),
    min_size=1,
    max_size=8,
).map("".join)
#: every character that acts instead of being read (the carriage return: on a terminal)
ACTIVE = re.compile("[" + "".join(BIDI) + "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")


def _terminal(text: str) -> str:
    """What the command line writes to standard output for ``text``."""
    from medjudge.cli import _ClosedPipeGuard

    buf = io.StringIO()
    _ClosedPipeGuard(buf).write(text)
    return buf.getvalue()


SINKS = {
    "markdown": escape.markdown,
    "html": escape.html,
    "typst": escape.typst,
    "figure": escape.mathtext,
    "terminal": _terminal,
}


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_no_sink_shows_an_active_character(name):
    for sink, fn in SINKS.items():
        out = fn(name)
        assert not ACTIVE.search(out), (sink, name, out)
    assert "\r" not in _terminal(name)


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_the_rule_reads_back_from_json_as_the_same_name(name):
    """Inside a JSON string the escapes are JSON's own: the terminal's ``--json`` output
    reads back as the exact name."""
    text = json.dumps({"judge": name}, ensure_ascii=False)
    assert json.loads(_terminal(text)) == {"judge": name}


def test_the_rule_leaves_ordinary_text_alone():
    for name in ["gpt-4o", "médecin", "医生", "עברית", "judge\tA", "a\nb", "$x$"]:
        assert inert(name) == name
    assert UNSAFE.search("\u202e") and not UNSAFE.search("\r")


def test_a_cell_starting_with_a_carriage_return_is_prefixed():
    """OWASP lists carriage return with = + - @ and tab: the cell itself gets its quote, not
    only the line inside (was ``"\\r'=2+2"``)."""
    assert escape.spreadsheet("\r=2+2") == "'\r'=2+2"
    assert escape.spreadsheet("\n@SUM(1)") == "'\n'@SUM(1)"
    assert escape.spreadsheet("\tx") == "'\tx"
    assert escape.spreadsheet("a\r=1") == "a\r'=1"


# --------------------------------------------------------------------- a study end to end
JUDGES = ["j\u202eevil", "j\x1b[31mred", "j\x00nul", "plain"]


@pytest.fixture(scope="module")
def named_study(tmp_path_factory):
    import random

    folder = tmp_path_factory.mktemp("names")
    rng = random.Random(0)
    rows = []
    for i in range(40):
        truth = "AB"[i % 2]
        other = "AB"[(i + 1) % 2]
        for e in ("e1", "e2", "e3"):
            v = truth if rng.random() < 0.9 else other
            rows.append({"item": f"i{i}", "rater": e, "role": "expert", "value": v})
        for j in JUDGES:
            v = truth if rng.random() < 0.7 else other
            rows.append({"item": f"i{i}", "rater": j, "role": "judge", "value": v})
    table = folder / "t.jsonl"
    table.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    mapping = folder / "m.toml"
    mapping.write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\nvalue = "value"\n'
    )
    return table, mapping


def _medjudge(*argv) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "medjudge.cli", *map(str, argv)],
        capture_output=True,
        timeout=900,
    )


def test_validate_prints_no_escape_sequence(named_study):
    table, mapping = named_study
    proc = _medjudge("validate", table, "--mapping", mapping)
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 0, proc.stderr
    assert not ACTIVE.search(out) and "\\u001b[31mred" in out and "\\u202eevil" in out
    js = _medjudge("validate", table, "--mapping", mapping, "--json")
    assert json.loads(js.stdout.decode("utf-8"))["judges"] == sorted(JUDGES)  # JSON exact


def test_reports_isolate_every_name(named_study, tmp_path):
    """A NUL in a judge name made ``report`` fail (the SVG writer refused it); U+202E reached
    the HTML unisolated 25 times out of 25."""
    pytest.importorskip("nbclient")
    table, mapping = named_study
    out = tmp_path / "O"
    proc = _medjudge("run", table, "--mapping", mapping, "--out", out, "--report", "both")
    assert proc.returncode == 0, proc.stderr.decode()
    for name in ("judges", "audit"):
        html = (out / "reports" / f"{name}.html").read_text(encoding="utf-8")
        assert not ACTIVE.search(html), name
        assert "\\u202eevil" in html and "\\u0000nul" in html
        pypdf = pytest.importorskip("pypdf")
        text = "".join(
            p.extract_text() for p in pypdf.PdfReader(out / "reports" / f"{name}.pdf").pages
        )
        assert not ACTIVE.search(text), name
        assert "u202eevil" in text
    data = json.loads((out / "validation.json").read_text(encoding="utf-8"))
    assert data["judges"] == sorted(JUDGES)  # JSON outputs keep names exact
    assert Path(out / "accuracy.csv").exists()
