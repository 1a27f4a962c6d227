"""Heterogeneity of each judge's accuracy across subgroups (χ² of homogeneity, I²)."""

from __future__ import annotations

import pandas as pd

from ...analyses.subgroup_results import Heterogeneity
from ..context import ReportContext
from ..tables import fmt_int, fmt_num, fmt_p
from . import Section, builder, md
from ._results import heterogeneity, judge_order, why_no_judge_evaluation
from .leaderboard import order_words

KEY = "heterogeneity"
TITLE = "Heterogeneity across subgroups"


def heterogeneity_display(table: pd.DataFrame, dimension: str, order: list[str]) -> pd.DataFrame:
    """Display rows of :func:`medjudge.analyses.heterogeneity.heterogeneity_table` (one dimension,
    judges in the report's order)."""
    t = table[table["dimension"] == dimension].copy()
    rank = {j: i for i, j in enumerate(order)}
    t = t.assign(_o=t["judge"].map(rank)).sort_values(["_o", "judge"], kind="stable")
    return pd.DataFrame(
        {
            "judge": t["judge"].to_numpy(),
            "groups": [fmt_int(v) for v in t["groups"]],
            "accuracy range": [
                f"{fmt_num(a, 3)}–{fmt_num(b, 3)}"
                for a, b in zip(t["min_accuracy"], t["max_accuracy"], strict=True)
            ],
            "χ²": [fmt_num(v, 1) for v in t["chi2"]],
            "df": [fmt_int(v) for v in t["df"]],
            "p": [fmt_p(v) for v in t["pvalue"]],
            "p (Holm)": [fmt_p(v) for v in t["p_holm"]],
            "p (Pearson, items independent)": [fmt_p(v) for v in t["p_pearson"]],
            "I² (descriptive)": [fmt_num(v, 2) for v in t["I2"]],
        }
    )


def why_no_attribute(ctx: ReportContext) -> str | None:
    if ctx.subgroup_attribute is None:
        return "the items carry no subgroup attribute with two or more values"
    return None


APPLIES = (why_no_judge_evaluation, why_no_attribute)


def result(ctx: ReportContext) -> pd.DataFrame:
    return heterogeneity(ctx, ctx.subgroup_attribute)


def present(ctx: ReportContext, tab: Heterogeneity) -> Section:
    attr = ctx.subgroup_attribute
    head = ctx.headline
    per_judge = tab.groupby("judge")["pvalue"].apply(lambda p: int(p.notna().sum()))
    m = int(per_judge.max()) if len(per_judge) else 0
    sec = Section(KEY, TITLE)
    adj = md(tab.adjustment)
    test = str(tab["test"].iloc[0]) if len(tab) else "Pearson chi-square"
    sec.text(
        f"@tbl-heterogeneity tests, per judge, whether accuracy on *{md(head)}* differs between "
        f"groups of *{md(ctx.label(attr))}*: {md(test)}, {adj}-adjusted within a judge over its "
        f"{fmt_int(m)} tests (one per dimension). Pearson's χ² p-value, which treats items as "
        "independent and over-rejects when several items share an image, is shown beside it; "
        "I² (Higgins & Thompson 2002) describes the share of between-group variation beyond "
        "sampling error (no interval: the usual one did not cover in simulation)."
    )
    sec.table(
        "tbl-heterogeneity",
        f"Heterogeneity of accuracy across {md(ctx.label(attr))} groups on *{md(head)}* "
        f"({adj} within each judge over {fmt_int(m)} dimensions).",
        heterogeneity_display(tab, head, judge_order(ctx)),
    )
    # "some judge varies" is a claim over every judge and dimension: Holm over all of them
    sec.findings += tab.findings(
        head, names=ctx.names_of, markup=ctx.markup, order_note=order_words(ctx, head)
    )
    sec.methods.append(
        f"Heterogeneity across {md(ctx.label(attr))}: {md(test)}, {adj}-adjusted within each "
        "judge in the table and over every judge × dimension test in the finding; I² "
        "descriptive (Higgins & Thompson 2002)."
    )
    sec.references += ["higgins2002", "holm1979"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
