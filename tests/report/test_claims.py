"""The claims checker: what the reports *say* is read against what the library *computed*, on
the demo and on every bundled real dataset (PandaLM, LLMBar, HANNA as its first 120 stories).

Both reports are built in-process (the same sections the rendered documents show) and checked
mechanically:

* every interval level in the text is the level the intervals were computed at, and every
  result table with a ``level`` column holds that level (built at 90% so that a typed "95%"
  cannot hide);
* every test or interval method the key findings and the Methods name is one that a result
  records (its ``test``, ``ci_method`` or ``method`` columns);
* every "N of M … differ / beat / below / prefer one position" finding counts the significant
  decisions of the table behind it, in the family it names;
* a "least accurate on" finding points to a significant heterogeneity test;
* no section that does not apply is shown (it is listed once under Methods, *Not run*).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPORT_ALPHA, REPORT_LEVEL, REPORT_STUDIES, built_reports
from medjudge.report.document import section_markdown

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL, MAPPINGS = ROOT / "data" / "external", ROOT / "data" / "mappings"
LEVEL, ALPHA = REPORT_LEVEL, REPORT_ALPHA


#: method names a sentence may use -> what a result must record for it (regex, lower case)
METHOD_WORDS = {
    r"\bmid-?p\b": r"mid-?p",  # not "midpoint" (the constant score baseline)
    r"durkalski": r"clustered|durkalski",
    r"tango": r"tango",
    r"wilson": r"wilson",
    r"clopper": r"clopper",
    r"\bbca\b": r"bca",
    r"\bfce\b": r"fce",
    r"exact binomial": r"binom",
}


@pytest.fixture(scope="module", params=REPORT_STUDIES)
def reports(request, tmp_path_factory):
    """Both reports of each study at 90% (tests/conftest.py: built_reports, shared with
    test_report_text; HANNA as its first 120 stories)."""
    built = built_reports(request.param, tmp_path_factory)
    return request.param, built["judges"], built["audit"]


def _results(obj, seen=None):
    """Every DataFrame reachable from a cached result (dataclasses, dicts, lists)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, pd.DataFrame):
        yield obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _results(getattr(obj, f.name), seen)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _results(v, seen)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _results(v, seen)


def _text(report) -> str:
    return "\n".join(section_markdown(s) for s in report.sections if s.applies)


def _plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def test_every_interval_is_at_the_level_the_text_states(reports):
    name, *reps = reports
    for rep in reps:
        text = _plain(_text(rep))
        stated = {float(x) for x in re.findall(r"(\d{2}(?:\.\d+)?)\s?% (?:CI|intervals?)", text)}
        assert stated <= {100 * LEVEL}, f"{name} {rep.kind}: levels stated {stated}"
        for frame in _results(rep.context._cache):
            if "level" in frame.columns and len(frame):
                lv = pd.to_numeric(frame["level"], errors="coerce").dropna().unique()
                assert set(np.round(lv, 9)) <= {LEVEL}, (
                    f"{name} {rep.kind}: a result table has level {lv} under a {LEVEL} report "
                    f"(columns {list(frame.columns)[:8]})"
                )


def test_methods_named_are_methods_that_ran(reports):
    name, *reps = reports
    for rep in reps:
        recorded = " ".join(
            str(v).lower()
            for frame in _results(rep.context._cache)
            for col in ("test", "ci_method", "method")
            if col in frame.columns
            for v in frame[col].dropna().unique()
        )
        for key in ("summary", "methods"):
            if key not in rep.keys:
                continue
            said = _plain(section_markdown(rep[key])).lower()
            for word, need in METHOD_WORDS.items():
                if re.search(word, said):
                    assert re.search(need, recorded), (
                        f"{name} {rep.kind} {key}: names {word!r} but no result records it"
                    )


def _judge_tables(rep):
    cache = rep.context._cache
    ev = cache.get("evaluation")
    gold = cache.get("judge_vs_gold")
    return ev, gold


def test_counted_findings_count_significant_decisions(reports):
    name, judges, _ = reports
    if "summary" not in judges.keys:
        return
    ctx = judges.context
    ev, gold = _judge_tables(judges)
    text = _plain("\n".join(f.text for s in judges.sections for f in s.findings))
    head = ctx.headline
    m = re.search(r"([\d,]+) of the ([\d,]+) pairs of .* differ significantly", text)
    if m and ev is not None:
        pairs = ev.pairs[ev.pairs["dimension"] == head]
        assert int(m.group(1).replace(",", "")) == int((pairs["p_holm"] < ALPHA).sum())
        assert int(m.group(2).replace(",", "")) == len(pairs)
    m = re.search(r"(\d+) of (\d+) \S+ beat the best constant answer", text)
    if m and gold is not None:
        t = gold.wide("baseline_tests", head)
        assert int(m.group(1)) == int(t["beats_baseline"].sum()) and int(m.group(2)) == len(t)
        below = re.search(r"(\d+) (?:is|are) significantly \*?below", text)
        n_below = int(((t["difference"] < 0) & (t["p_holm"] < ALPHA)).sum())
        assert (int(below.group(1)) if below else 0) == n_below
    m = re.search(r"(\d+) of (\d+) judges seen in both orders prefer one position", text)
    if m:
        sw = ctx._cache["position"]["swap"]
        sw = sw[sw["dimension"] == head]
        assert int(m.group(1)) == int((sw["p_first_holm"] < ALPHA).sum())
    m = re.search(
        r"best judge, \*?\*?(.+?)\*?\*?, is (?:not equally accurate|least accurate)", text
    )
    if m:
        het = [v for k, v in ctx._cache.items() if k.startswith("heterogeneity:")]
        judge = m.group(1).strip("*")
        assert het and any(
            ((h["judge"] == judge) & (h["dimension"] == head) & (h["p_holm"] < ALPHA)).any()
            for h in het
        ), f"{name}: a weakest-subgroup finding without a significant heterogeneity test"


def test_sections_that_do_not_apply_are_listed_once_not_shown(reports):
    name, *reps = reports
    for rep in reps:
        shown = _text(rep)
        assert "Not shown:" not in shown, (
            f"{name} {rep.kind}: a shown section says only 'not shown'"
        )
        collecting = {"summary", "methods", "references"}  # built from the others, last
        skipped = [s for s in rep.sections if not s.applies and s.key not in collecting]
        if skipped and "methods" in rep.keys:
            methods = section_markdown(rep["methods"])
            assert methods.count("**Not run**") == 1
            for s in skipped:
                assert s.title.lower() in _plain(methods).lower(), (name, rep.kind, s.key)
