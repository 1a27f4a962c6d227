"""Length (verbosity) bias: accuracy when the gold answer is the longer one minus when it is
the shorter one, per rater."""

from __future__ import annotations

import dataclasses

import pandas as pd

from ...analyses.bias_results import LengthBias
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import est_ci_column, fmt_int, fmt_num, fmt_p
from . import Section, builder, md
from ._results import judge_order, length, why_no_judge_evaluation

KEY = "length"
TITLE = "Length bias"


def in_report_order(lb: LengthBias, order: list[str]) -> LengthBias:
    """The result with its rows in the report's order: judges as ranked, then experts."""
    t = lb.frame
    rank = {j: i for i, j in enumerate(order)}
    key = [
        rank.get(r, len(rank) + 1) if role != "expert" else len(rank) + 2
        for r, role in zip(t["rater"], t["role"], strict=True)
    ]
    t = t.assign(_o=key).sort_values(["_o", "rater"], kind="stable").drop(columns="_o")
    return dataclasses.replace(lb, frame=t)


def length_bias_table(gap: pd.DataFrame, rate: pd.DataFrame, adjustment: str) -> pd.DataFrame:
    """Longer-answer rate against the gold's and the accuracy gap, per rater (the rows of
    ``gap``, the result's ``length_gap`` table of one dimension; ``rate``: its
    ``longer_rate`` table in the same order)."""
    return pd.DataFrame(
        {
            "rater": gap["rater"].to_numpy(),
            "role": gap["role"].to_numpy(),
            "picks longer": [fmt_num(v, 3) for v in rate["rater_longer_rate"]],
            "gold longer": [fmt_num(v, 3) for v in rate["gold_longer_rate"]],
            "accuracy gap [CI]": est_ci_column(gap, "estimate", "ci_low", "ci_high"),
            f"p (gap, {adjustment})": [fmt_p(v) for v in gap["p_adjusted"]],
            "n": [fmt_int(v) for v in gap["n"]],
        }
    )


#: the item columns holding the two answers' lengths (those :func:`length_bias` reads)
LENGTH_COLUMNS = ("answer1_len", "answer2_len")


def why_no_lengths(ctx: ReportContext) -> str | None:
    """Why no length effect can be estimated (``None``: the items carry both lengths)."""
    if all(c in ctx.study.items.columns for c in LENGTH_COLUMNS):
        return None
    return f"the items carry no answer lengths ({' and '.join(LENGTH_COLUMNS)})"


APPLIES = (why_no_judge_evaluation, why_no_lengths)


def present(ctx: ReportContext, lb: LengthBias) -> Section:
    head, lvl = ctx.headline, ctx.level
    if lb.frame.empty or head not in set(lb.frame["dimension"]):
        return Section.not_applicable(
            KEY, TITLE, f"no item of “{head}” has two answers of different lengths"
        )
    lb = in_report_order(lb, judge_order(ctx))
    gap = lb.table("length_gap", dimension=head)
    m = int(lb.table("length_gap")["family_size"].max())
    adj, interval = lb.adjustment, str(gap["ci_method"].iloc[0])
    sec = Section(KEY, TITLE)
    sec.text(
        "On items whose answers differ in length, @fig-length-gap shows each rater's accuracy "
        "when the gold answer is the longer one minus its accuracy when the gold answer is the "
        f"shorter one ({interval} interval): a judge that favours longer answers gains on the "
        "first kind and loses on the second. @tbl-length adds how often each rater picks the "
        "longer answer against how often the gold does; the experts are shown for scale."
    )
    sec.figure(
        "fig-length-gap",
        f"Length bias on *{md(head)}*: accuracy gap (gold longer − gold shorter) with {lvl} "
        "intervals; dashed: no gap.",
        lambda: at_page_width(
            lb.plot("gap", where={"dimension": head}, judge_order=list(gap["label"]))
        ),
    )
    sec.table(
        "tbl-length",
        f"Length bias on *{md(head)}*: share choosing the longer answer (rater and gold on the "
        f"same items) and the accuracy gap ({adj} over the {fmt_int(m)} rater × dimension tests).",
        length_bias_table(gap, lb.table("longer_rate", dimension=head), adj),
    )
    sec.findings += lb.findings(head, names=ctx.names_of, markup=ctx.markup)
    sec.methods.append(
        "Length bias: difference of two accuracies (gold answer longer vs shorter) with "
        f"the {interval} interval; {lb.family}."
    )
    sec.references += ["newcombe1998", "holm1979"]
    return sec


build = builder(KEY, TITLE, APPLIES, length, present)
