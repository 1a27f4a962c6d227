"""Can a judge stand in for an expert? Leave-one-expert-out κ and the alternative annotator
test (Calderon, Reichart & Dror 2025)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from ...analyses.expert_findings import stand_in_finding
from ...analyses.expert_results import AltTests, ExpertAgreement
from ...stats.judge_vs_experts import alt_test_table
from ..context import ReportContext
from ..tables import est_ci_column, fmt_int, fmt_num, fmt_p
from . import Section, builder, md
from ._audit_text import methods, one_level
from ._results import (
    alt_invalid_rule,
    alt_results,
    in_judge_order,
    judge_agreement,
    report_judge_order,
    why_no_audit,
    why_no_judges,
)

KEY = "judge-vs-experts"
TITLE = "Can a judge stand in for an expert?"


def judge_agreement_table(table: pd.DataFrame, level: str = "95%") -> pd.DataFrame:
    """Display rows of :func:`medjudge.analyses.judge_vs_experts.judge_expert_agreement`."""
    return pd.DataFrame(
        {
            "judge": table["judge"].to_numpy(),
            "left-out expert": table["expert"].to_numpy(),
            "κ judge–others": [fmt_num(v, 3) for v in table["kappa_judge_others"]],
            "κ expert–others": [fmt_num(v, 3) for v in table["kappa_expert_others"]],
            f"difference [{level} CI]": est_ci_column(
                table, "judge_minus_expert", "diff_low", "diff_high"
            ),
        }
    )


def alt_test_display(table: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Display rows of :func:`medjudge.stats.judge_vs_experts.alt_test_table`: judges in
    ``order`` (the report's one order), else best ρ first."""
    if order:
        table = in_judge_order(table, "judge", order)
    else:
        table = table.sort_values(["advantage_probability", "judge"], ascending=[False, True])
    out = pd.DataFrame(
        {
            "judge": table["judge"].to_numpy(),
            "ω": [fmt_num(v, 3) for v in table["winning_rate"]],
            "ρ": [fmt_num(v, 3) for v in table["advantage_probability"]],
            "passes": np.where(table["passed"].astype(bool), "yes", "no"),
            "items": [fmt_int(v) for v in table["n_items"]],
        }
    )
    for col in table.columns:
        if col.startswith("p_by["):
            out[f"p vs {col[5:-1]}"] = [fmt_p(v) for v in table[col]]
    return out


def stand_in_display(si: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Display rows of :func:`medjudge.analyses.judge_vs_experts.study_stand_in`: per judge the
    decision, the weakest left-out comparison (judge minus expert accuracy with its interval)
    and the views that differ from the decision."""
    if order:
        si = in_judge_order(si, "judge", order)
    return pd.DataFrame(
        {
            "judge": si["judge"].to_numpy(),
            "decision": si["decision"].to_numpy(),
            "weakest comparison": [f"vs {e}" if e is not None else "none" for e in si["expert"]],
            "accuracy difference": est_ci_column(si, "difference", "ci_low", "ci_high"),
            "margin": [f"−{100 * float(m):g} points" for m in si["margin"]],
            "views that differ": [
                "; ".join(v) if len(v) else "none" for v in si["disagreeing_views"]
            ],
        }
    )


def stand_in_table(ctx: ReportContext, alt: list[Any], ja: pd.DataFrame) -> pd.DataFrame:
    """The stand-in decision of the headline dimension (empty with fewer than 3 experts)."""
    from ...analyses.judge_vs_experts import study_stand_in
    from ._results import audit_settings

    if len(ctx.study.experts) < 3:
        return pd.DataFrame()
    st = audit_settings(ctx)
    return ctx.get(
        "stand_in",
        lambda: study_stand_in(
            ctx.study,
            ctx.headline,
            margin=ctx.margin,
            clusters=st.clusters(ctx.study.matrix(ctx.headline, role="expert").items),
            confidence_level=st.confidence_level,
            alt=alt,
            agreement=ja,
        ),
    )


def why_not(ctx: ReportContext) -> str | None:
    """Why no judge can be set against individual experts (``None``: it can)."""
    if not ctx.study.judges:
        return why_no_judges(ctx)
    if "expert" in getattr(ctx.study, "exchangeable", ()):
        return (
            f"the {ctx.names_of('expert')} are exchangeable annotation slots, so a judge cannot "
            "be compared with individual annotators"
        )
    if not ctx.study.scales[ctx.headline].is_categorical:
        return f"“{ctx.headline}” is not categorical (κ needs categories)"
    return None


APPLIES = (why_no_audit, why_not)


def result(ctx: ReportContext) -> tuple[ExpertAgreement, AltTests]:
    return judge_agreement(ctx), alt_results(ctx)


def present(ctx: ReportContext, results: tuple[ExpertAgreement, AltTests]) -> Section:
    head, lvl = ctx.headline, ctx.level
    order = report_judge_order(ctx)
    ja = in_judge_order(results[0].frame, "judge", order)
    agreement = dataclasses.replace(results[0], frame=ja)  # drawn in the report's judge order
    res = results[1]
    alt = alt_test_table(res, head)
    n_exp = len(ctx.study.experts)
    rule = alt_invalid_rule(ctx.policy)
    has_ci = len(ja) and np.isfinite(ja["diff_high"].astype(float)).any()
    lvl = one_level(ja["level"].dropna()) if has_ci else lvl
    how = methods(ja["ci_method"].dropna()) if has_ci else "no interval"
    si = stand_in_table(ctx, res, results[0].frame)
    pts = f"{100 * float(si['margin'].iloc[0]):g} accuracy points" if len(si) else ""
    sec = Section(KEY, TITLE)
    sec.text(
        f"Two views on *{md(head)}*. First, leaving one expert out at a time, the judge's mean "
        "Cohen's κ with the remaining experts is compared with the left-out expert's "
        f"(@fig-judge-vs-experts, @tbl-judge-vs-experts; {lvl} paired interval of the "
        f"difference, {how}): a negative difference whose interval excludes 0 means the judge "
        "agrees with the experts less than an expert does. Second, the alternative annotator test "
        f"(Calderon, Reichart & Dror 2025; margin ε = {ctx.epsilon:g}) asks whether the judge is "
        "at least as good as each annotator at matching the others; a judge passes when it wins "
        f"against at least half of the {n_exp} annotators after {res.adjustment} adjustment "
        f"at q = {ctx.alpha:g} over those {n_exp} tests (@tbl-alt-test). Items without a usable "
        + (
            "verdict count as losses for the judge."
            if rule == "wrong"
            else "verdict are excluded (as in the authors' code)."
        )
        + (
            f" The decision is a non-inferiority test of accuracy with a clinical margin of "
            f"{pts} (judge minus each left-out expert, against the other experts' majority, "
            "clustered intervals); a judge is called a candidate stand-in only when it holds "
            "against every expert and no leave-one-expert-out κ interval lies below 0."
            if len(si)
            else " With fewer than three experts no stand-in decision is made."
        )
    )
    drawn = [j for j in order if j in set(ja["judge"])] if order else None
    sec.figure(
        "fig-judge-vs-experts",
        f"Judge minus expert: difference in mean Cohen's κ with the other experts, per "
        f"left-out expert (*{md(head)}*), with {lvl} paired intervals ({how}). Dashed: no "
        "difference.",
        lambda: agreement.plot("forest", judge_order=drawn),
    )
    sec.table(
        "tbl-alt-test",
        f"Alternative annotator test on *{md(head)}*: winning rate ω, average advantage "
        f"probability ρ, pass (ω ≥ 0.5), and the {res.adjustment} adjusted p-value against "
        f"each excluded annotator (ε = {ctx.epsilon:g}).",
        alt_test_display(alt, order),
    )
    if len(si):
        sec.table(
            "tbl-stand-in",
            f"Stand-in decision on *{md(head)}*: non-inferiority of accuracy within {pts} of "
            f"every left-out expert ({one_level(si['level'])} intervals, "
            f"{methods(si['ci_method'])}); the weakest comparison per judge, and the views "
            "whose verdict differs from the decision.",
            stand_in_display(si, order),
        )
    sec.table(
        "tbl-judge-vs-experts",
        f"Leave-one-expert-out κ of each judge and expert with the remaining experts "
        f"(*{md(head)}*).",
        judge_agreement_table(ja, lvl),
    )
    sec.findings.append(
        stand_in_finding(
            alt, ja, si, head=head, epsilon=ctx.epsilon, q=ctx.alpha, n_exp=n_exp,
            names=ctx.names_of, markup=ctx.markup,
        )
    )  # fmt: skip
    sec.methods.append(
        f"Judge versus experts: leave-one-expert-out Cohen's κ with a paired {lvl} interval "
        f"({how}); the alternative annotator test "
        f"(Calderon et al. 2025) with ε = {ctx.epsilon:g}, one-sided paired t-tests and "
        f"{res.adjustment} adjustment; items without a usable judge verdict "
        + ("count as losses." if rule == "wrong" else "are excluded.")
        + (
            f" Stand-in decision: non-inferiority of accuracy within {pts} of every left-out "
            f"expert ({methods(si['ci_method'])}; an intersection-union test, Berger 1982)."
            if len(si)
            else ""
        )
    )
    sec.references += ["calderon2025", "benjamini2001", "cohen1960"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
