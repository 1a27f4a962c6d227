"""Leaderboard: accuracy with intervals, rank intervals, the forest plot with the trivial
baseline and the expert ceiling, and the headline findings (best judge, judges that cannot be
told apart from it, judges not above the trivial baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ...analyses._findings import Finding
from ...analyses.evaluation_text import decision_words, leader_finding
from ...data.design import presentation_design
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import fmt_ci, fmt_int, fmt_num
from . import Section, builder, md
from ._results import evaluation, judge_order, why_no_judge_evaluation
from .references import interval_cites

KEY = "leaderboard"
TITLE = "Leaderboard"

#: Above this many judges the per-dimension forest plot shows the headline dimension only.
MAX_FOREST_JUDGES = 40


def leaderboard_table(
    leaderboard: pd.DataFrame, dimension: str, level: str = "95%"
) -> pd.DataFrame:
    """Display table of one dimension's leaderboard (formatted strings, best first)."""
    lb = leaderboard[leaderboard["dimension"] == dimension].sort_values(["rank", "judge"])
    return pd.DataFrame(
        {
            "rank": [fmt_int(v) if v == v else "not ranked" for v in lb["rank"]],
            "judge": lb["judge"].to_numpy(),
            "accuracy": [fmt_num(v, 3) for v in lb["accuracy"]],
            f"{level} CI": [
                fmt_ci(a, b, 3) for a, b in zip(lb["ci_low"], lb["ci_high"], strict=True)
            ],
            "rank set": [
                "no verdict"
                if not (a == a and b == b)
                else f"{int(a)}–{int(b)}"
                if a != b
                else f"{int(a)}"
                for a, b in zip(lb["rank_low"], lb["rank_high"], strict=True)
            ],
            "share ranked 1st": [fmt_num(v, 3) for v in lb["share_ranked_first"]],
            "group": lb["group"].to_numpy(),
            "invalid": [fmt_int(v) for v in lb["n_invalid"]],
            "n": [fmt_int(v) for v in lb["n"]],
        }
    )


def accuracy_grid(
    leaderboard: pd.DataFrame, dimensions: Sequence[str], order: Sequence[str]
) -> pd.DataFrame:
    """Judge × dimension accuracies, rows in ``order`` (the report's one judge ordering)."""
    wide = leaderboard.pivot(index="judge", columns="dimension", values="accuracy")
    wide = wide[list(dimensions)].reindex([j for j in order if j in wide.index])
    out = wide.reset_index()
    for d in dimensions:
        out[d] = [fmt_num(v, 3) for v in out[d]]
    return out


def order_words(ctx: ReportContext, dimension: str) -> str:
    """``"; verdicts in order AB for the 4 judges seen in both orders"`` when the accuracy of
    some judges uses one of several presentation orders (empty otherwise), from the design."""
    d = presentation_design(ctx.study, dimension)
    if d.kind != "swapped":
        return ""
    n = len(d.swap_judges)
    return (
        f"; verdicts in order {d.evaluation_order} for the {fmt_int(n)} "
        f"{md(ctx.names_of('judge', n))} seen in both orders"
    )


def headline_findings(ctx: ReportContext) -> list[Finding]:
    """The evaluation's own finding on the headline dimension: the best judge and how many
    others cannot be told apart from it (:meth:`JudgeEvaluation.findings`; the comparison with
    the trivial baselines is a finding of the judges-against-gold section)."""
    head = ctx.headline
    return [
        leader_finding(
            evaluation(ctx), head, names=ctx.names_of, markup=ctx.markup,
            order_note=order_words(ctx, head),
        )
    ]  # fmt: skip


APPLIES = why_no_judge_evaluation


def present(ctx: ReportContext, ev: Any) -> Section:
    head, lvl = ctx.headline, ctx.level
    dims = list(ev.settings["dimensions"])
    order = judge_order(ctx)
    sec = Section(KEY, TITLE)
    board = ev.leaderboard[ev.leaderboard["dimension"] == head]
    several = len(board) > 1
    pairs = ev.pairs[ev.pairs["dimension"] == head]
    how = decision_words(board, pairs, ctx.markup) if several else ""
    if several:
        intro = (
            f"@tbl-leaderboard ranks the {md(ctx.names_of('judge'))} on *{md(head)}*: accuracy "
            f"with its {lvl} interval, a rank set (one plus the number of "
            f"{md(ctx.names_of('judge'))} shown to be more accurate, to the number of "
            f"{md(ctx.names_of('judge'))} minus those shown to be less accurate; "
            f"{md(str(board['rank_set'].iloc[0]))}), the share of resamples in which the judge "
            "ranks first (a description of the resampling spread, not the probability of being "
            "best), and a compact letter display (Piepho 2004; judges sharing a letter are not "
            f"distinguishable by those decisions: {how}). Every table and figure lists the "
            "judges in this order."
        )
    else:
        intro = (
            f"@tbl-leaderboard gives the accuracy of the single {md(ctx.name('judge'))} on "
            f"*{md(head)}* with its {lvl} interval; with one {md(ctx.name('judge'))} there is "
            "nothing to rank or compare."
        )
    sec.text(
        intro
        + (" @tbl-leaderboard-grid gives the accuracy in every dimension." if len(dims) > 1 else "")
        + f" @fig-leaderboard-forest shows the accuracies with their {lvl} intervals, the "
        "trivial baseline (dashed: the best constant answer, i.e. the majority-class share)"
        + (
            " and the expert ceiling (dotted: the mean accuracy of each expert against the "
            "majority of the others)."
            if not ev.expert_ceiling.empty
            else "."
        )
    )
    table = leaderboard_table(ev.leaderboard, head, lvl)
    if not several:
        table = table.drop(columns=["rank", "rank set", "share ranked 1st", "group"])
    sec.table("tbl-leaderboard", f"Leaderboard on *{md(head)}* ({lvl} intervals).", table)
    if len(dims) > 1:
        sec.table(
            "tbl-leaderboard-grid",
            "Accuracy per judge and dimension (rows in leaderboard order).",
            accuracy_grid(ev.leaderboard, dims, order),
        )
    shown_dims = dims if len(order) <= MAX_FOREST_JUDGES else [head]
    ceil = ev.ceiling_by_dimension()
    sec.figure(
        "fig-leaderboard-forest",
        f"Accuracy with {lvl} intervals"
        + (" per dimension" if len(shown_dims) > 1 else f" on *{md(head)}*")
        + ". Dashed: trivial baseline"
        + ("; dotted: expert ceiling." if ceil else "."),
        lambda: ev.plot(
            "forest",
            where={"dimension": shown_dims},
            dimension_order=shown_dims,
            judge_order=order,
        ),
    )
    if several:
        a = float(board["alpha"].iloc[0])
        sec.text(
            "@fig-leaderboard-ranks shows how uncertain the ranks are: overlapping rank sets "
            "mean the order of those judges is not established by these data."
        )
        sec.figure(
            "fig-leaderboard-ranks",
            f"Rank on *{md(head)}* with its rank set from the pairwise decisions at "
            f"α = {a:g} (joint coverage ≥ {1 - a:g} when the family's error rate holds).",
            lambda: at_page_width(ev.plot("ranks", where={"dimension": head})),
        )
    sec.findings.extend(headline_findings(ctx))
    s = ev.settings
    ci_method = str(ev.leaderboard["ci_method"].iloc[0])
    cites = interval_cites(ci_method)
    text = (
        f"Accuracy is the share of items with gold on which the verdict equals the gold label; "
        f"its {lvl} interval: {md(ci_method)} (clusters: {md(s['cluster'])}"
        + "".join(f"; {words}" for _, words in cites)
        + ")."
    )
    design = presentation_design(ctx.study, head)
    if design.kind == "swapped":
        src = (design.source or {}).get("accuracy_order", "")
        text += (
            f" The {fmt_int(len(design.swap_judges))} "
            f"{md(ctx.names_of('judge', len(design.swap_judges)))} seen in both presentation "
            f"orders ({', '.join(design.orders)}) are scored on their verdicts in order "
            f"{design.evaluation_order} ({md(src)}); every other judge on its one verdict per item."
        )
    if several:
        text += (
            f" Rank sets are {md(str(board['rank_set'].iloc[0]))}. The share ranked first is "
            f"the share of {fmt_int(s['n_resamples'])} resamples (clusters: {md(s['cluster'])}; "
            f"seed {s['seed']}, shared by all judges) in which the judge ranks first. Pairwise "
            f"tests: {how}; the letter display follows Piepho's (2004) insert-and-absorb "
            "algorithm on those decisions."
        )
    sec.methods.append(text)
    sec.references += [k for k, _ in cites] + (["piepho2004"] if several else [])
    return sec


build = builder(KEY, TITLE, APPLIES, evaluation, present)
