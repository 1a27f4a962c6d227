"""Can a judge stand in for an expert? Leave-one-expert-out κ and the alternative annotator
test (Calderon, Reichart & Dror 2025)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...plots.forest import forest_plot
from ...stats.judge_vs_experts import alt_test_table
from ..context import ReportContext
from ..tables import est_ci_column, fmt_int, fmt_num, fmt_p
from . import Finding, Section, md
from ._audit_text import methods, n_items, one_level
from ._results import (
    alt_invalid_rule,
    alt_results,
    in_judge_order,
    judge_agreement,
    report_judge_order,
    why_no_audit,
)

KEY = "judge-vs-experts"
TITLE = "Can a judge stand in for an expert?"


def judge_agreement_frame(table: pd.DataFrame) -> pd.DataFrame:
    """Forest frame of the leave-one-expert-out κ difference (judge minus expert), one panel per
    left-out expert."""
    return pd.DataFrame(
        {
            "judge": table["judge"].to_numpy(),
            "dimension": [f"left out: {e}" for e in table["expert"]],
            "estimate": table["judge_minus_expert"].to_numpy(float),
            "ci_low": table["diff_low"].to_numpy(float),
            "ci_high": table["diff_high"].to_numpy(float),
        }
    )


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


def stand_in_finding(
    alt: pd.DataFrame,
    ja: pd.DataFrame,
    *,
    head: str,
    epsilon: float,
    q: float,
    n_exp: int,
    judge_word: str = "judges",
) -> str:
    """The judge-versus-expert finding from both views of the section.

    A judge is called a possible stand-in only when it passes the alternative annotator test
    **and** none of its leave-one-expert-out κ differences (judge minus expert, the same
    remaining experts as reference) has an interval entirely below 0. Every judge the second
    view contradicts is counted, so the sentence cannot say "stand in" while the table says
    "significantly less than an expert".
    """
    judges = [str(j) for j in dict.fromkeys(alt["judge"])] if len(alt) else []
    n = len(judges)
    passed = {str(j) for j, ok in zip(alt["judge"], alt["passed"], strict=True) if bool(ok)}
    rows = ja[np.isfinite(ja["diff_high"].astype(float))] if len(ja) else ja
    below_rows = rows[rows["diff_high"].astype(float) < 0] if len(rows) else rows
    below = {str(j) for j in below_rows["judge"]} if len(rows) else set()
    stand = [j for j in judges if j in passed and j not in below]
    text = (
        f"{fmt_int(len(passed))} of {fmt_int(n)} {md(judge_word)} pass the alternative "
        f"annotator test on *{md(head)}* (Calderon et al. 2025: ε = {epsilon:g}, one-sided "
        f"paired t-tests, Benjamini–Yekutieli at q = {q:g} over {n_exp} annotators, pass = "
        "winning rate ≥ 0.5)."
    )
    if len(rows):
        lvl = one_level(rows["level"])
        d = rows["judge_minus_expert"].astype(float)
        n_items_ = int(rows["n_items"].max()) if "n_items" in rows else int(rows["n"].max())
        text += (
            f" In the leave-one-expert-out comparison (mean Cohen's κ with the remaining "
            f"experts, judge minus left-out expert, {n_items(n_items_)}), the differences run "
            f"from {fmt_num(d.min(), 3)} to {fmt_num(d.max(), 3)}; "
            f"{fmt_int(len(below_rows))} of {fmt_int(len(rows))} {lvl} intervals "
            f"({methods(rows['ci_method'])}) lie entirely below 0, for "
            f"{fmt_int(len(below))} of {fmt_int(n)} {md(judge_word)}"
            + (
                f", including {fmt_int(len(passed & below))} of the {fmt_int(len(passed))} "
                "that pass the alt-test"
                if passed
                else ""
            )
            + "."
        )
    else:
        text += " The leave-one-expert-out comparison has no interval to check."
    if stand and len(rows):
        text += (
            f" Only {', '.join(f'**{md(j)}**' for j in stand)} pass"
            + ("es" if len(stand) == 1 else "")
            + " the alt-test and agree with the experts not significantly less than any expert: "
            "the candidate stand-in" + ("" if len(stand) == 1 else "s") + " for an expert."
        )
    elif passed:
        text += (
            " No judge is supported by both views: the alt-test margin tolerates a gap that the "
            "κ comparison shows to be real."
        )
    else:
        text += " No judge could stand in for an expert on this evidence."
    return text


def build(ctx: ReportContext) -> Section:
    why = why_no_audit(ctx)
    head, lvl = ctx.headline, ctx.level
    if why is None and not ctx.study.judges:
        why = f"the study has no {ctx.names_of('judge')}"
    if why is None and "expert" in getattr(ctx.study, "exchangeable", ()):
        why = (
            f"the {ctx.names_of('expert')} are exchangeable annotation slots, so a judge cannot "
            "be compared with individual annotators"
        )
    if why is None and not ctx.study.scales[head].is_categorical:
        why = f"*{head}* is not categorical (κ needs categories)"
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    order = report_judge_order(ctx)
    ja = in_judge_order(judge_agreement(ctx), "judge", order)
    res = alt_results(ctx)
    alt = alt_test_table(res, head)
    n_exp = len(ctx.study.experts)
    rule = alt_invalid_rule(ctx.policy)
    has_ci = len(ja) and np.isfinite(ja["diff_high"].astype(float)).any()
    lvl = one_level(ja["level"].dropna()) if has_ci else lvl
    how = methods(ja["ci_method"].dropna()) if has_ci else "no interval"
    sec = Section(KEY, TITLE)
    sec.text(
        f"Two views on *{md(head)}*. First, leaving one expert out at a time, the judge's mean "
        "Cohen's κ with the remaining experts is compared with the left-out expert's "
        f"(@fig-judge-vs-experts, @tbl-judge-vs-experts; {lvl} paired interval of the "
        f"difference, {how}): a negative difference whose interval excludes 0 means the judge "
        "agrees with the experts less than an expert does. Second, the alternative annotator test "
        f"(Calderon, Reichart & Dror 2025; margin ε = {ctx.epsilon:g}) asks whether the judge is "
        "at least as good as each annotator at matching the others; a judge passes when it wins "
        f"against at least half of the {n_exp} annotators after Benjamini–Yekutieli adjustment "
        f"at q = {ctx.alpha:g} over those {n_exp} tests (@tbl-alt-test). Items without a usable "
        + (
            "verdict count as losses for the judge."
            if rule == "wrong"
            else "verdict are excluded (as in the authors' code)."
        )
        + " A judge is called a candidate stand-in only when both views agree."
    )
    frame = judge_agreement_frame(ja)
    sec.figure(
        "fig-judge-vs-experts",
        f"Judge minus expert: difference in mean Cohen's κ with the other experts, per "
        f"left-out expert (*{md(head)}*), with {lvl} paired intervals ({how}). Dashed: no "
        "difference.",
        lambda: forest_plot(frame, baseline=0.0, baseline_label="no difference",
                            xlabel="κ judge − κ expert",
                            judge_order=[j for j in order if j in set(frame["judge"])]
                            if order else None),
    )  # fmt: skip
    sec.table(
        "tbl-alt-test",
        f"Alternative annotator test on *{md(head)}*: winning rate ω, average advantage "
        f"probability ρ, pass (ω ≥ 0.5), and the Benjamini–Yekutieli adjusted p-value against "
        f"each excluded annotator (ε = {ctx.epsilon:g}).",
        alt_test_display(alt, order),
    )
    sec.table(
        "tbl-judge-vs-experts",
        f"Leave-one-expert-out κ of each judge and expert with the remaining experts "
        f"(*{md(head)}*).",
        judge_agreement_table(ja, lvl),
    )
    sec.findings.append(
        Finding(
            stand_in_finding(
                alt,
                ja,
                head=head,
                epsilon=ctx.epsilon,
                q=ctx.alpha,
                n_exp=n_exp,
                judge_word=ctx.names_of("judge"),
            ),  # fmt: skip
            caveat=(
                f"the alt-test with {n_exp} annotators is weak (Calderon et al. recommend at "
                "least three)"
                if n_exp < 3
                else None
            ),
            weight=7,
        )
    )
    sec.methods.append(
        f"Judge versus experts: leave-one-expert-out Cohen's κ with a paired {lvl} interval "
        f"({how}); the alternative annotator test "
        f"(Calderon et al. 2025) with ε = {ctx.epsilon:g}, one-sided paired t-tests and "
        f"Benjamini–Yekutieli (2001) adjustment; items without a usable judge verdict "
        + ("count as losses." if rule == "wrong" else "are excluded.")
    )
    sec.references += ["calderon2025", "benjamini2001", "cohen1960"]
    return sec
