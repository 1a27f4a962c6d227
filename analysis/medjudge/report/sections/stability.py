"""Stability across prompts and runs: for each evaluator judged under several prompt variants
(judges named ``evaluator/variant``, e.g. LLMBar's 15 prompting strategies) and/or repeated runs,
the variance components of its correctness (item, prompt, item × prompt, run) as shares of the
total and the share of items whose verdict flips across prompts, with bootstrap intervals
(:func:`medjudge.analyses.stability.stability`).

Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...analyses.stability import stability
from ..context import ReportContext
from ..tables import fmt_ci, fmt_int, fmt_num
from . import Section, builder, md
from ._results import on_headline, why_no_judges

KEY = "stability"
TITLE = "Stability across prompts and runs"

#: The analysis needs at least this many bootstrap resamples.
MIN_RESAMPLES = 50

COMPONENT_LABELS = {
    "item": "item",
    "prompt": "prompt",
    "item_x_prompt": "item × prompt",
    "run": "run",
    "residual": "item × prompt (residual)",
}
FLIP_LABELS = {
    "across_prompts": "flip across prompts",
    "across_runs": "flip across runs",
    "within_item_sd": "within-item SD across prompts",
}
#: scores change rather than flip
SCORE_LABELS = {
    "across_prompts": "score changes across prompts",
    "across_runs": "score changes across runs",
}


def why_no_variants(ctx: ReportContext) -> str | None:
    sep = "/"
    if not any(sep in j for j in ctx.study.judges):
        return (
            f"no {ctx.name('judge')} was run under several prompt variants (the study would "
            f"name them “evaluator{sep}variant”)"
        )
    return None


def result(ctx: ReportContext) -> Any:
    return on_headline(ctx, "stability", stability, MIN_RESAMPLES)


def stability_table(res: Any) -> pd.DataFrame:
    """One row per evaluator: design, component shares and flip shares with intervals."""
    comp, flips = res.components, res.flips
    rows = []
    for ev, g in comp.groupby("evaluator", sort=True):
        first = g.iloc[0]
        row: dict[str, str] = {
            "evaluator": str(ev),
            "prompts": fmt_int(first["n_prompts"]),
            "runs": fmt_int(first["n_runs"]),
            "items": fmt_int(first["n_items"]),
        }
        for r in g.itertuples():
            row[f"share: {COMPONENT_LABELS.get(r.component, r.component)}"] = (
                f"{fmt_num(r.share, 3)} {fmt_ci(r.share_ci_low, r.share_ci_high, 3)}"
            )
        for r in flips[flips["evaluator"] == ev].itertuples():
            labels = (
                {**FLIP_LABELS, **SCORE_LABELS}
                if res.settings.get("outcome") == "score"
                else FLIP_LABELS
            )
            row[labels.get(r.kind, r.kind)] = (
                f"{fmt_num(r.share, 3)} {fmt_ci(r.ci_low, r.ci_high, 3)}"
            )
        rows.append(row)
    return pd.DataFrame(rows).fillna("–")


APPLIES = (why_no_judges, why_no_variants)


def present(ctx: ReportContext, res: Any) -> Section:
    if res.components.empty:
        reasons = sorted(set(res.notes.values()))
        return Section.not_applicable(
            KEY, TITLE,
            f"no evaluator has verdicts under two or more prompt variants on the same items "
            f"({'; '.join(reasons)})",
        )  # fmt: skip
    st, lvl, head = res.settings, ctx.level, ctx.headline
    comp = res.components
    excluded = comp.groupby("evaluator")["excluded_incomplete_items"].first()
    outcome = {"correct": "correctness against gold", "score": "score"}.get(
        st["outcome"], "verdict code"
    )
    unit = "score" if st["outcome"] == "score" else "verdict"
    changes = "changes" if st["outcome"] == "score" else "flips"
    sec = Section(KEY, TITLE)
    sec.text(
        f"How much of the variation in each evaluator's {outcome} on *{md(head)}* is due to the "
        "prompt variant rather than the item: variance components as shares of the total, "
        f"and the share of items whose {unit} differs between at least two prompt variants"
        + (
            " (and the mean within-item standard deviation of the score across variants)"
            if unit == "score"
            else ""
        )
        + f", with {lvl} intervals ({md(st['interval'])}). A judge whose {unit} {changes} "
        "with the prompt on many items gives a ranking that depends on the prompt as much as "
        "on the judge."
        + (
            " Only items with a verdict under every prompt variant enter: "
            + ", ".join(f"{md(e)} {fmt_int(n)}" for e, n in excluded.items() if n)
            + " items left out and counted."
            if int(excluded.sum())
            else ""
        )
    )
    sec.table(
        "tbl-stability",
        f"Variance shares and flip rates per evaluator on *{md(head)}* ({lvl} intervals).",
        stability_table(res),
    )
    sec.text("\n".join(f"- {md(res.explain(ev))}" for ev in dict.fromkeys(comp["evaluator"])))
    for ev, why_ev in res.notes.items():
        sec.text(f"*{md(ev)}*: {md(why_ev)}.")
    sec.findings += res.findings(names=ctx.names_of, markup=ctx.markup)
    sec.methods.append(
        f"Stability: {md(st['estimator'])}; flip shares; {md(st['interval'])} "
        f"({fmt_int(st['n_resamples'])} resamples, seed {st['seed']})."
    )
    sec.references += ["searle1992"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
