"""A result states its key findings once; the report section shows those sentences (issue 35,
item 1).

The section's findings are the result's ``findings(dimension, names=, markup=)`` with the
report's markup; the same call with the default markup is plain text for a terminal; the role
names come from the study; and every number of the leaderboard's finding is in its table.
"""

from __future__ import annotations

import pickle
import re

import pytest
from medjudge.analyses._findings import PLAIN, Finding, Markup
from medjudge.analyses.evaluation_text import leader_finding
from medjudge.report.context import ReportContext
from medjudge.report.sections import (
    annotators,
    heterogeneity,
    leaderboard,
    pairwise,
    position,
    reliability,
    sensitivity,
)
from medjudge.report.sections._results import audit, evaluation
from medjudge.report.sections._results import position as position_result

B = 50


@pytest.fixture(scope="module")
def ctx(demo_study):
    return ReportContext(demo_study, n_resamples=B, confidence_level=0.9)


def test_sections_show_the_results_own_findings(ctx):
    ev, au, head = evaluation(ctx), audit(ctx), ctx.headline
    mine = ev.findings(head, names=ctx.names_of, markup=ctx.markup)
    note = leaderboard.order_words(ctx, head)  # the design's words on the order scored
    lead = leader_finding(ev, head, names=ctx.names_of, markup=ctx.markup, order_note=note)
    assert [f.text for f in leaderboard.build(ctx).findings] == [lead.text]
    assert lead.text.replace(note, "") == mine[0].text
    assert [f.text for f in pairwise.build(ctx).findings] == [mine[1].text]
    assert [f.weight for f in mine[:2]] == [10, 4]
    assert [f.text for f in sensitivity.build(ctx).findings] == [f.text for f in mine[2:]]
    pos = position_result(ctx)
    got = [f.text for f in position.build(ctx).findings]
    mine = [[f.text for f in pos.findings(head, markup=ctx.markup, randomised=r)] for r in (0, 1)]
    assert got and got in mine
    rel = [f.text for f in reliability.build(ctx).findings]
    assert rel == [f.text for f in au.reliability_findings(head, markup=ctx.markup)]
    ann = [f.text for f in annotators.build(ctx).findings]
    assert ann == [f.text for f in au.annotator_findings(markup=ctx.markup)] and ann
    het = heterogeneity.build(ctx)
    assert het.findings and "varies significantly" in het.findings[0].text


def test_plain_findings_carry_no_markdown(ctx):
    ev = evaluation(ctx)
    plain = ev.findings()  # every dimension, plain text
    assert len(plain) >= 2 * len(ev.settings["dimensions"]) - 1
    for f in plain + audit(ctx).findings():
        assert isinstance(f, Finding) and isinstance(f, str)
        assert "**" not in f and "\\" not in f and "*" not in f.replace("×", "")
    report = ev.findings(ctx.headline, markup=ctx.markup)
    assert "**" in report[0] and f"*{ctx.headline}*" in report[0]


def test_role_names_come_from_the_caller(ctx):
    ev = evaluation(ctx)

    def names(role, n=None):
        word = {"judge": "grader", "expert": "physician"}[role]
        return word if n == 1 else word + "s"

    text = " ".join(ev.findings(ctx.headline, names=names))
    assert "the most accurate grader is" in text and " graders " in text
    assert "physicians agree" in " ".join(audit(ctx).findings(names=names))


def test_markup_escapes_data_strings():
    md = Markup(escape=lambda s: s.replace("*", "\\*"), strong="**{}**", em="*{}*")
    assert md.strong_data("gpt-4*") == "**gpt-4\\***"
    assert PLAIN.strong_data("gpt-4*") == "gpt-4*"
    f = Finding("x", caveat="c", weight=2)
    assert (f.text, f.caveat, f.weight, str(f)) == ("x", "c", 2, "x")
    g = pickle.loads(pickle.dumps(f))  # a report is cached and copied with its findings
    assert (g.text, g.caveat, g.weight) == ("x", "c", 2)


def test_leader_finding_numbers_are_in_the_leaderboard_table(ctx):
    """Every number of the leader's sentence is a cell of @tbl-leaderboard (accuracy, CI bounds,
    rank set, n of judges), of the leader's or the runner-up's row (the lead is their
    difference), or is the α and family size of the decisions."""
    sec = leaderboard.build(ctx)
    text = sec.findings[0].text
    table = sec.tables["tbl-leaderboard"]
    ev = evaluation(ctx)
    board = ev.leaderboard[ev.leaderboard["dimension"] == ctx.headline]
    cells = set(table.astype(str).to_numpy().ravel())
    cells |= {c for v in table["rank set"] for c in str(v).split("–")}
    cells |= {c.strip("[]") for v in table.iloc[:, 3] for c in str(v).split(", ")}
    top, second = (float(v) for v in table["accuracy"].iloc[:2])
    cells |= {f"{top - second:.3f}", f"{float(board['alpha'].iloc[0]):g}"}
    cells |= set(re.findall(r"\d+", str(board["family"].iloc[0])))
    pairs = ev.pairs[ev.pairs["dimension"] == ctx.headline]
    cells |= {y for t in pairs["test"] for y in re.findall(r"\d+", str(t))}  # a citation year
    text = text.replace(leaderboard.order_words(ctx, ctx.headline), "")  # the design's words
    cells.add(str(int(board.sort_values(["rank", "judge"])["n_indistinguishable"].iloc[0])))
    numbers = re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w%])", text)
    missing = [n for n in numbers if n not in cells]
    assert numbers and not missing, (missing, text)
