"""Leaderboard: accuracy with intervals, rank intervals, the forest plot with the trivial
baseline and the expert ceiling, and the headline findings (best judge, judges that cannot be
told apart from it, judges not above the trivial baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ...plots.forest import forest_plot
from ...plots.rank_intervals import rank_interval_plot
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import fmt_ci, fmt_int, fmt_num
from . import Finding, Section, builder, md
from ._results import evaluation, headline_board, judge_order, why_no_judge_evaluation

KEY = "leaderboard"
TITLE = "Leaderboard"

#: Above this many judges the per-dimension forest plot shows the headline dimension only.
MAX_FOREST_JUDGES = 40


def baseline_by_dimension(baselines: pd.DataFrame) -> dict[str, float]:
    """Trivial baseline per dimension: the best constant judge (``always-<class>``).

    Its accuracy is the prevalence of the majority gold class — what a judge that ignores the
    input reaches.
    """
    const = baselines[baselines["judge"].astype(str).str.startswith("always-")]
    return {str(d): float(g["accuracy"].max()) for d, g in const.groupby("dimension", sort=False)}


def ceiling_by_dimension(expert_ceiling: pd.DataFrame) -> dict[str, float]:
    """Expert ceiling per dimension: mean over experts of each expert's accuracy against the
    strict majority of the other experts (:func:`medjudge.analyses.evaluation.expert_ceiling`)."""
    if expert_ceiling.empty:
        return {}
    return {
        str(d): float(g["accuracy"].mean())
        for d, g in expert_ceiling.groupby("dimension", sort=False)
    }


def leaderboard_table(
    leaderboard: pd.DataFrame, dimension: str, level: str = "95%"
) -> pd.DataFrame:
    """Display table of one dimension's leaderboard (formatted strings, best first)."""
    lb = leaderboard[leaderboard["dimension"] == dimension].sort_values(["rank", "judge"])
    return pd.DataFrame(
        {
            # a judge without any usable verdict is listed, not ranked
            "rank": ["–" if pd.isna(r) else str(int(r)) for r in lb["rank"]],
            "judge": lb["judge"].to_numpy(),
            "accuracy": [fmt_num(v, 3) for v in lb["accuracy"]],
            f"{level} CI": [
                fmt_ci(a, b, 3) for a, b in zip(lb["ci_low"], lb["ci_high"], strict=True)
            ],
            "rank set": [
                "not ranked"
                if pd.isna(a) or pd.isna(b)
                else (f"{int(a)}–{int(b)}" if a != b else f"{int(a)}")
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


def forest_frame(leaderboard: pd.DataFrame) -> pd.DataFrame:
    """``judge, dimension, estimate, ci_low, ci_high`` for :func:`~medjudge.plots.forest.forest_plot`."""
    return leaderboard.rename(columns={"accuracy": "estimate"})[
        ["judge", "dimension", "estimate", "ci_low", "ci_high"]
    ]


def rank_frame(leaderboard: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """``judge, rank, rank_low, rank_high`` of one dimension (for the rank-interval plot)."""
    lb = leaderboard[leaderboard["dimension"] == dimension]
    lb = lb[lb["rank"].notna()]  # unranked judges (no usable verdict) have no interval
    return (
        lb[["judge", "rank", "rank_low", "rank_high"]]
        .astype({"rank": int, "rank_low": int, "rank_high": int})
        .reset_index(drop=True)
    )


def headline_findings(ctx: ReportContext) -> list[Finding]:
    """Best judge and how many others cannot be told apart from it (the comparison with the
    trivial baselines is a finding of the judges-against-gold section, from its paired tests)."""
    lb = headline_board(ctx)
    head, lvl = ctx.headline, ctx.level
    judge = ctx.name("judge")
    best = lb.iloc[0]
    out: list[Finding] = []
    if len(lb) == 1:
        text = (
            f"The single {md(judge)} **{md(best['judge'])}** reaches accuracy "
            f"{fmt_num(best['accuracy'], 3)} ({lvl} CI {fmt_ci(best['ci_low'], best['ci_high'], 3)}) "
            f"on *{md(head)}*."
        )
        out.append(Finding(text, weight=10))
    else:
        others = lb.iloc[1:]
        n_tied = int(others["top_set"].sum())  # the best judge itself is not counted
        second = others.iloc[0]
        text = (
            f"On *{md(head)}* the most accurate {md(judge)} is **{md(best['judge'])}** with "
            f"accuracy {fmt_num(best['accuracy'], 3)} ({lvl} CI "
            f"{fmt_ci(best['ci_low'], best['ci_high'], 3)}; rank interval "
            f"{int(best['rank_low'])}–{int(best['rank_high'])}), "
            f"{fmt_num(best['accuracy'] - second['accuracy'], 3)} ahead of "
            f"{md(second['judge'])}; "
        )
        ev = evaluation(ctx)
        pairs = ev.pairs[ev.pairs["dimension"] == head]
        test = " / ".join(md(t) for t in dict.fromkeys(pairs["test"].astype(str)))
        fam = md((ev.settings.get("multiplicity") or {}).get("description", "Holm"))
        how = f"({test}; {fam}; α = {ctx.alpha:g})"
        if n_tied == 0:
            text += f"every other {md(judge)} is significantly less accurate {how}."
        else:
            text += (
                f"{fmt_int(n_tied)} other {md(ctx.names_of('judge', n_tied))} cannot be "
                f"distinguished from it {how}."
            )
        out.append(Finding(text, weight=10))
    return out


APPLIES = why_no_judge_evaluation


def present(ctx: ReportContext, ev: Any) -> Section:
    head, lvl = ctx.headline, ctx.level
    dims = list(ev.settings["dimensions"])
    order = judge_order(ctx)
    sec = Section(KEY, TITLE)
    sec.text(
        f"@tbl-leaderboard ranks the {md(ctx.names_of('judge'))} on *{md(head)}*: accuracy with "
        f"its {lvl} interval, a simultaneous {lvl} rank confidence set (all judges' ranks "
        "jointly; Mogstad et al. 2024), the share of resamples in which the judge ranks first "
        "(a description of the resampling spread, not the probability of being best), and a "
        "compact letter display (Piepho 2004; judges sharing a letter are not distinguishable "
        f"by the McNemar tests, {md(ev.settings['multiplicity']['description'])}). Every table "
        "and figure lists the judges in this order."
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
    sec.table(
        "tbl-leaderboard",
        f"Leaderboard on *{md(head)}* ({lvl} intervals).",
        leaderboard_table(ev.leaderboard, head, lvl),
    )
    if len(dims) > 1:
        sec.table(
            "tbl-leaderboard-grid",
            "Accuracy per judge and dimension (rows in leaderboard order).",
            accuracy_grid(ev.leaderboard, dims, order),
        )
    forest = forest_frame(ev.leaderboard)
    shown_dims = dims if len(order) <= MAX_FOREST_JUDGES else [head]
    forest = forest[forest["dimension"].isin(shown_dims)]
    base = baseline_by_dimension(ev.baselines)
    ceil = ceiling_by_dimension(ev.expert_ceiling) or None
    sec.figure(
        "fig-leaderboard-forest",
        f"Accuracy with {lvl} intervals"
        + (" per dimension" if len(shown_dims) > 1 else f" on *{md(head)}*")
        + ". Dashed: trivial baseline"
        + ("; dotted: expert ceiling." if ceil else "."),
        lambda: forest_plot(
            forest, baseline=base, ceiling=ceil, dimension_order=shown_dims, judge_order=order
        ),
    )
    sec.text(
        "@fig-leaderboard-ranks shows how uncertain the ranks are: overlapping rank sets "
        "mean the order of those judges is not established by these data."
    )
    sec.figure(
        "fig-leaderboard-ranks",
        f"Rank on *{md(head)}* with the simultaneous {lvl} rank confidence set.",
        lambda: at_page_width(rank_interval_plot(rank_frame(ev.leaderboard, head))),
    )
    sec.findings.extend(headline_findings(ctx))
    s = ev.settings
    sec.methods.append(
        f"Accuracy is the share of items with gold on which the verdict equals the gold label; "
        f"its {lvl} interval: {md(ev.leaderboard['ci_method'].iloc[0])} (clusters: "
        f"{md(s['cluster'])}; Wilson 1927 with the design effect of Kish 1965). Rank confidence sets are simultaneous "
        f"(max-t over all pairs; Mogstad et al. 2024) and, with the share ranked first, come from "
        f"{fmt_int(s['n_resamples'])} cluster-bootstrap resamples (seed {s['seed']}) shared by all "
        f"judges. Pairwise McNemar tests: {md(s['multiplicity']['description'])}; the letter "
        "display follows Piepho's (2004) insert-and-absorb algorithm on those decisions."
    )
    sec.references += ["wilson1927", "kish1965", "mogstad2024", "piepho2004"]
    return sec


build = builder(KEY, TITLE, APPLIES, evaluation, present)
