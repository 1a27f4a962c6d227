"""What a reader of the reports sees is text, not markup: both reports of the demo, PandaLM,
LLMBar and HANNA are built in-process (no rendering), parsed by the renderer's own pandoc, and
the prose and table cells — outside code — searched for raw Markdown (backticks, ``*word*``),
Python reprs (``['a', 'b']``, ``{'k': 0}``), doubled punctuation (``?.``, ``..``) and math (a
``$`` typeset as a formula). The reasons of sections that do not apply are plain text (no code
spans), and the most-disputed table is not a list of identical ties."""

from __future__ import annotations

import html
import json
import re
import subprocess

import pandas as pd
import pytest
from conftest import REPORT_STUDIES, built_reports
from medjudge.data.tables import load_any
from medjudge.report.document import section_markdown
from medjudge.report.escape import prose
from medjudge.report.judges import judges_report

pytest.importorskip("pypandoc")
RESAMPLES = 50  # the words, not the intervals, are under test

#: what must not reach a reader, in prose and table cells outside code
LEAKS = {
    "backtick": re.compile(r"`"),
    "emphasis markup": re.compile(r"(?<![\w*\\])\*[^\s*][^*\n]*?(?<![\s\\])\*(?![\w*])"),
    "list repr": re.compile(r"\[\s*['\"]"),
    "dict repr": re.compile(r"\{\s*['\"]"),
    "doubled punctuation": re.compile(r"[?!:;,]\s?[.,;:?]|(?<!\.)\.\.(?!\.)"),
    # an estimate that is not defined is said ("not defined" and why), never a bare NaN/inf
    "bare undefined value": re.compile(r"(?<![\w.])(?:nan|NaN|-?inf|<NA>|NaT)(?![\w])"),
}


def _pandoc_ast(markdown: str) -> dict:
    from medjudge.report.pandoc import pandoc_path

    out = subprocess.run(
        [pandoc_path(), "--from", "markdown-raw_html", "--to", "json"],
        input=markdown, capture_output=True, text=True, check=True, encoding="utf-8",
    )  # fmt: skip
    return json.loads(out.stdout)


def _walk(node, paragraphs: list[list], current: list) -> None:
    """Collect paragraphs as lists of ("text" | "code" | "math", string)."""
    if isinstance(node, list):
        for v in node:
            _walk(v, paragraphs, current)
        return
    if not isinstance(node, dict):
        return
    t = node.get("t")
    if t in ("Para", "Plain", "Header"):
        para: list = []
        paragraphs.append(para)
        _walk(node.get("c"), paragraphs, para)
        return
    if t == "Str":
        current.append(("text", node["c"]))
    elif t in ("Space", "SoftBreak", "LineBreak"):
        current.append(("text", " "))
    elif t == "Code":
        current.append(("code", node["c"][1]))
    elif t == "Math":
        current.append(("math", node["c"][1]))
    elif t == "CodeBlock":
        return
    elif t in ("RawBlock", "RawInline"):
        fmt, raw = node["c"]
        if fmt.startswith("html"):  # a table: its cells are what the reader reads
            for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", raw, flags=re.S):
                paragraphs.append([("text", html.unescape(re.sub(r"<[^>]+>", "", cell)))])
    else:
        _walk(node.get("c"), paragraphs, current)


def reader_text(markdown: str) -> list[list[tuple[str, str]]]:
    paragraphs: list = []
    _walk(_pandoc_ast(markdown)["blocks"], paragraphs, [])
    return paragraphs


def leaks(markdown: str) -> list[str]:
    """Every leak of ``markdown`` as read: ``"kind: context"``."""
    found = []
    for para in reader_text(markdown):
        text = "".join(s for k, s in para if k == "text")
        for kind, s in para:
            if kind == "math":
                found.append(f"math: ${s}$ in {text[:80]!r}")
        if text.startswith(("Not shown:", "Not run")) and any(k == "code" for k, _ in para):
            found.append(f"code in a reason: {text[:120]!r}")
        for name, pattern in LEAKS.items():
            for m in pattern.finditer(text):
                found.append(f"{name}: {text[max(0, m.start() - 60) : m.end() + 40]!r}")
    return found


#: the bundled datasets of the claims checker, HANNA as a subset
DATASETS = REPORT_STUDIES


@pytest.fixture(scope="module", params=list(DATASETS))
def built(request, tmp_path_factory):
    """Both reports of each study (tests/conftest.py: built_reports, shared with test_claims)."""
    return request.param, built_reports(request.param, tmp_path_factory)


def test_no_markup_repr_math_or_doubled_punctuation_reaches_the_reader(built):
    name, reports = built
    for kind, rep in reports.items():
        md = "\n".join(section_markdown(s) for s in rep.sections)
        found = leaks(md)
        assert not found, f"{name} {kind}: " + "\n".join(found[:10])


def test_reasons_are_plain_text_named_once(built):
    """A reason reaches the Methods' "Not run" list once, with every section it stops."""
    name, reports = built
    for rep in reports.values():
        # the References (built after Methods, from it) is left out when nothing cites a source
        skipped = [s for s in rep.sections if not s.applies and s.key != "references"]
        methods = section_markdown(rep["methods"])
        for s in skipped:
            assert "`" not in s.reason and "*" not in s.reason, (name, s.key, s.reason)
        for reason in {s.reason for s in skipped}:
            para = [p for p in methods.split("\n") if p.startswith("**Not run**")]
            assert len(para) == 1
            assert para[0].count(prose(reason)) == 1, (name, reason)


#: the datasets whose annotation audit shows a disputed-items table (LLMBar has no expert
#: labels per item, HANNA's experts are score slots)
WITH_DISPUTED = [d for d in DATASETS if d not in ("llmbar", "hanna")]


@pytest.mark.parametrize("built", WITH_DISPUTED, indirect=True)
def test_disputed_items_are_not_a_list_of_identical_ties(built):
    from medjudge.report.sections import dawid_skene as D
    from medjudge.report.sections._results import audit

    name, reports = built
    rep = reports["audit"]
    sec = rep["dawid-skene"]
    assert sec.applies and "tbl-disputed" in sec.tables, name
    au = audit(rep.context)
    head = au.settings.get("headline", rep.context.headline)
    tied = D.leading_ties(au.dimensions[head]["disputed"])
    shown = sec.tables["tbl-disputed"]
    if tied > D.MAX_DISPUTED:
        assert len(shown) == D.SHOWN_TIES
        text = section_markdown(sec)
        assert f"{tied:,} items tie at the most disputed level" in text
    else:
        assert len(shown) <= D.MAX_DISPUTED


def test_a_dollar_in_names_is_drawn_not_typeset(tmp_path):
    """The README: a ``$`` in a study's names is drawn literally (no formula in HTML or PDF)."""
    from test_report_sections import make_table

    table, mapping = make_table(tmp_path, judges={"$x$ judge": 0.8, "cost $5": 0.7})
    text = table.read_text(encoding="utf-8")
    table.write_text(text.replace("preference", "pref $y$"), encoding="utf-8")
    mapping.write_text(
        mapping.read_text(encoding="utf-8").replace('"preference"', '"pref $y$"'), "utf-8"
    )
    study = load_any(table, mapping)
    rep = judges_report(study, n_resamples=RESAMPLES)
    md = "\n".join(section_markdown(s) for s in rep.sections)
    assert not [f for f in leaks(md) if f.startswith("math")]
    prose_text = "".join(s for p in reader_text(md) for k, s in p if k == "text")
    assert "$x$ judge" in prose_text and "pref $y$" in prose_text
    from medjudge.report.pandoc import pandoc_path

    typ = subprocess.run(
        [pandoc_path(), "--from", "markdown-raw_html", "--to", "typst"],
        input=md, capture_output=True, text=True, check=True, encoding="utf-8",
    ).stdout  # fmt: skip
    assert re.search(r"(?<!\\)\$", typ) is None, "an unescaped $ starts typst math"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("the study has no item columns ['answer1_len', 'answer2_len']", "list repr"),
        ("excluded: {'items_without_gold': 0}", "dict repr"),
        ("Can a judge stand in for an expert?.", "doubled punctuation"),
        ("kappa NaN [nan, nan] over 21 items", "bare undefined value"),
        ("Pearson r -inf for the constant judge", "bare undefined value"),
        ("the study would name them `evaluator/variant`", None),  # a code span: see below
    ],
)
def test_the_checker_finds_each_leak(text, kind):
    """The checker is not vacuous: each pattern of the old reports is reported."""
    from medjudge.report.escape import markdown

    found = leaks(markdown(text))  # as text, the way a reason was escaped
    if kind is None:
        assert any(f.startswith("backtick") for f in found)
        assert any(f.startswith("code in a reason") for f in leaks(f"*Not shown:* {text}."))
    else:
        assert any(f.startswith(kind) for f in found), found


@pytest.mark.parametrize("built", ["hanna"], indirect=True)
def test_score_study_compares_like_with_like_and_groups_prompt_variants(built):
    """HANNA: the three expert slots are exchangeable (the mapping says so), so no slot is
    scored against the mean of the other 2 and their ICC is the one-way ICC(1) only (issue 36,
    item 7: per-slot rows and ICC(A,1)/(A,k) were shown); constant baselines sit beside the
    judges; the 20 judges (5 models x 4 prompts) are not one set of 20 raters in the ICC table."""
    _, reports = built
    sec = reports["judges"]["scores"]
    text = section_markdown(sec)
    assert "Not like for like" not in text and "exchangeable" in text
    assert "5 models × 4 prompt variants" in text
    tables = list(sec.tables.values())
    errors = tables[0]
    assert {"always the mean gold score", "always the scale midpoint"} <= set(errors["rater"])
    assert set(errors["rater"]) - set(tables[1]["rater"]) == {  # the baselines: errors only
        "always the mean gold score",
        "always the scale midpoint",
    }
    captions = [b.caption for b in sec.blocks if hasattr(b, "frame")]
    assert not any("against the mean of the other" in c for c in captions)
    for t in tables:
        if "raters" in t.columns:  # reliability within roles: no ICC across prompt variants
            assert "judge" not in set(t["role"])
            assert set(t.loc[t["role"] == "expert", "form"]) == {"ICC1 = ICC(1)"}
    per_prompt = [t for t in tables if "prompt" in t.columns]
    assert per_prompt and set(per_prompt[0]["models"]) == {"5"}
    assert "invalid verdicts" not in section_markdown(reports["judges"]["provenance"])
    finding = sec.findings[0].text
    assert "constant baseline" in finding


def test_score_baselines_are_the_constant_raters_errors():
    """The constant baselines beside the judges: MAE, RMSE and bias of always answering the mean
    gold score / the scale midpoint, checked against numpy on the same items."""
    import numpy as np
    from medjudge import Bootstrap
    from medjudge.analyses.score_study import score_study
    from medjudge.data.model import Study
    from medjudge.data.scale import Scale

    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, 40).astype(float)
    rows = [
        (f"i{i}", r, role, "q", float(np.clip(t + rng.integers(-1, 2), 1, 5)))
        for i, t in enumerate(truth)
        for r, role in (("e1", "expert"), ("e2", "expert"), ("m", "judge"))
    ]
    st = Study(
        pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"]),
        pd.DataFrame({"item": [f"i{i}" for i in range(40)]}),
        {"q": Scale("interval", low=1, high=5)},
    )
    res = score_study(st, bootstrap=Bootstrap(100, seed=0), baselines=True)
    m = res.wide("metrics")
    base = m[m["role"] == "baseline"].set_index(["rater", "metric"])["estimate"]
    gold = st.matrix("q", role="expert").values.mean(axis=1)
    for name, c in (("always the mean gold score", gold.mean()), ("always the scale midpoint", 3)):
        d = c - gold
        assert base[(name, "mae")] == pytest.approx(np.abs(d).mean())
        assert base[(name, "rmse")] == pytest.approx(np.sqrt((d**2).mean()))
        assert base[(name, "bias")] == pytest.approx(d.mean(), abs=1e-12)
    assert set(m.loc[m["role"] == "baseline", "metric"]) == {"mae", "rmse", "bias"}
    # opt-in: the default result (and every CLI output built on it) is unchanged
    plain_roles = set(score_study(st, bootstrap=Bootstrap(100, seed=0)).wide("metrics")["role"])
    assert "baseline" not in plain_roles
