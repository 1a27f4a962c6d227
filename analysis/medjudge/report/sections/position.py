"""Position bias: swap consistency for judges seen in both orders; first-answer rate against
the gold's for judges seen in one order."""

from __future__ import annotations

import pandas as pd

from ...analyses.position_result import swap_test_name
from ...data.design import presentation_design
from ..context import ReportContext
from ..layout import at_page_width, legend_above
from ..tables import est_ci_column, family_size, fmt_int, fmt_num, fmt_p
from . import Section, builder, md
from ._results import PositionBias, judge_order, position, why_no_judge_evaluation

KEY = "position"
TITLE = "Position bias"


def _ordered(df: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    rank = {j: i for i, j in enumerate(order)}
    return df.assign(_o=df["judge"].map(rank)).sort_values(["_o", "judge"], kind="stable")


def position_table(swap: pd.DataFrame, dimension: str, order: list[str]) -> pd.DataFrame:
    """Swap consistency, first-shown preference and accuracy per order for one dimension."""
    s = _ordered(swap[swap["dimension"] == dimension], order)
    return pd.DataFrame(
        {
            "judge": s["judge"].to_numpy(),
            "consistency": est_ci_column(
                s, "consistency", "consistency_ci_low", "consistency_ci_high"
            ),
            "first-first / second-second": [
                f"{fmt_int(a)} / {fmt_int(b)}"
                for a, b in zip(s["first_first"], s["second_second"], strict=True)
            ],
            "p (Holm)": [fmt_p(v) for v in s["p_first_holm"]],
            "accuracy AB": [fmt_num(v, 3) for v in s["accuracy_ab"]],
            "accuracy BA": [fmt_num(v, 3) for v in s["accuracy_ba"]],
            "tie-resolved": [fmt_num(v, 3) for v in s["accuracy_tie_resolved"]],
        }
    )


def a_rate_table(single: pd.DataFrame, dimension: str, order: list[str]) -> pd.DataFrame:
    """Judge's rate of answering "first" against the gold rate on the same items (one order)."""
    s = _ordered(single[single["dimension"] == dimension], order)
    return pd.DataFrame(
        {
            "judge": s["judge"].to_numpy(),
            "judge first-shown rate": [fmt_num(v, 3) for v in s["judge_a_rate"]],
            "gold first-shown rate": [fmt_num(v, 3) for v in s["gold_a_rate"]],
            "difference [CI]": est_ci_column(s, "difference", "ci_low", "ci_high"),
            "p (Holm)": [fmt_p(v) for v in s["p_holm"]],
            "n (items)": [fmt_int(v) for v in s["n"]],
        }
    )


def why_no_orders(ctx: ReportContext) -> str | None:
    """Why the presentation design cannot show a position effect (``None``: it can)."""
    return presentation_design(ctx.study, ctx.headline).position_reason


APPLIES = (why_no_judge_evaluation, why_no_orders)


def present(ctx: ReportContext, pos: PositionBias) -> Section:
    head, lvl, adj = ctx.headline, ctx.level, md(pos.adjustment)
    design = presentation_design(ctx.study, head)
    order = judge_order(ctx)
    swap, single = pos["swap"], pos["single_order"]
    has_swap = len(swap) > 0 and head in set(swap["dimension"])
    sec = Section(KEY, TITLE)
    if has_swap:
        m = family_size(swap, "p_first_pvalue")
        swap_test = md(swap_test_name(swap))
        sec.text(
            f"{fmt_int(len(design.swap_judges))} {md(ctx.names_of('judge', len(design.swap_judges)))} "
            "saw the same items in both presentation orders. @fig-position-swap shows "
            "two measures that are 0.5 without position bias: the share of all verdicts that "
            "chose the answer shown first, and, among items whose two verdicts disagree, the "
            "share where the judge chose the first-shown answer both times; "
            "@tbl-position-swap adds swap consistency and the accuracy in each order."
        )
        sec.figure(
            "fig-position-swap",
            f"Position bias of the judges seen in both orders on *{md(head)}*, with {lvl} "
            "intervals; 0.5 = no bias.",
            lambda: at_page_width(legend_above(pos.plot("position", where={"dimension": head}))),
        )
        sec.table(
            "tbl-position-swap",
            f"Swap consistency, first-position preference ({swap_test} of first-first "
            f"against second-second, {adj} over the {fmt_int(m)} judge × dimension tests) and "
            "accuracy per order.",
            position_table(swap, head, order),
        )
    elif design.kind == "fixed":
        sec.text(
            "No judge saw the items in both presentation orders and every verdict was given in "
            f"order {md(design.orders[0])}, so position bias cannot be separated from a "
            "preference for one answer."
        )
    randomised = False  # a first-shown rate unlike the gold's is position bias (design)
    if len(single) and head in set(single["dimension"]):
        h1 = single[single["dimension"] == head]
        m = family_size(single, "p_value")
        tests = " / ".join(md(t) for t in dict.fromkeys(h1["test"]))
        cis = " / ".join(md(c) for c in dict.fromkeys(h1["ci_method"]))
        ties = int(h1["excluded_ties"].sum())
        randomised = design.kind in ("randomised", "swapped") and bool((h1["order"] != "AB").any())
        sec.text(
            (
                "For judges seen in one order per item, the order varied between items, so a "
                "judge that picks the first-shown answer more often than the gold names it shows "
                "position bias"
                if randomised
                else "With one presentation order, what can be tested is whether a judge picks "
                "the first-shown answer more often than the gold label names it on the same "
                "items; a difference may be position bias or a one-sided disagreement with the "
                "gold"
            )
            + f" (@tbl-position-arate; {tests} with {cis} intervals, {adj} over the "
            f"{fmt_int(m)} judge × dimension tests"
            + (f"; {fmt_int(ties)} verdicts with a tie in the verdict or the gold excluded" if ties
               else "")
            + ")."
        )  # fmt: skip
        sec.table(
            "tbl-position-arate",
            f"Rate of choosing the first-shown answer: judge against gold on *{md(head)}* ({lvl} "
            f"intervals; {adj} over {fmt_int(m)} tests).",
            a_rate_table(single, head, order),
        )
    sec.findings += pos.findings(head, names=ctx.names_of, markup=ctx.markup, randomised=randomised)
    parts = [f"presentation design on *{md(head)}*: {md(design.describe())}"]
    if has_swap:
        tests_swap = " / ".join(md(str(t)) for t in dict.fromkeys(swap["p_first_test"]))
        parts.append(
            "judges seen in both orders: swap consistency and a test of first-first against "
            f"second-second verdicts ({tests_swap})"
        )
    randomised = False  # a first-shown rate unlike the gold's is position bias (design)
    if len(single) and head in set(single["dimension"]):
        h1 = single[single["dimension"] == head]
        parts.append(
            "judges seen in one order per item: the first-shown rate against the gold's, "
            + " / ".join(md(t) for t in dict.fromkeys(h1["test"]))
            + " with "
            + " / ".join(md(c) for c in dict.fromkeys(h1["ci_method"]))
            + " intervals, ties excluded"
        )
    sec.methods.append(
        "Position bias (" + "; ".join(parts) + f"; {adj} over every judge and dimension)."
    )
    sec.references += ["tango1998", "holm1979"]
    return sec


build = builder(KEY, TITLE, APPLIES, position, present)
