"""Shared results of the report sections, each computed once per report (``ctx.get``).

Every function here calls one library analysis with the report's settings; sections read the
result. ``why_no_*`` return one sentence saying why an analysis does not apply to a study
(``None`` when it does), so that sections can say so instead of failing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from medjudge.stats.resampling import Bootstrap

from ...analyses.audit import audit_settings as resolve
from ...analyses.audit import audit_study
from ...analyses.bias import dimension_structure, length_bias
from ...analyses.bias_results import LengthBias
from ...analyses.evaluation import evaluate_judges
from ...analyses.expert_results import AltTests, ExpertAgreement
from ...analyses.heterogeneity import heterogeneity_table
from ...analyses.judge_vs_experts import judge_expert_agreement, study_alt_test
from ...analyses.position import position_bias
from ...analyses.position_result import PositionBias
from ...analyses.subgroup_results import Heterogeneity, SubgroupAccuracy
from ...analyses.subgroups import stack_outcomes, subgroup_accuracy
from ..context import ReportContext, alt_invalid_rule


# ---------------------------------------------------------------------------- applicability
def why_no_gold(ctx: ReportContext, dimension: str, minimum: int = 2) -> str | None:
    """Why ``dimension`` has fewer than ``minimum`` items with a gold label (``None``: enough).

    Gold is derived by the study's rule (supplied, else the experts' majority or mean); it
    cannot be derived only when the study has neither supplied gold nor experts.
    """
    s = ctx.study
    if s.gold_table is None and not s.experts:
        return (
            f"the study has neither supplied gold labels nor {ctx.names_of('expert')}, so no "
            "gold label can be derived"
        )
    n = s.gold(dimension).n_with_gold
    if n < minimum:
        return (
            f"only {n} item{'s' if n != 1 else ''} of “{dimension}” "
            f"{'have' if n != 1 else 'has'} a gold label; at least {minimum} are needed"
        )
    return None


def why_no_judges(ctx: ReportContext) -> str | None:
    """Why no judge can be analysed: the study has none (``None``: it has judges)."""
    return None if ctx.study.judges else f"the study has no {ctx.names_of('judge')}"


def why_too_few_items(ctx: ReportContext) -> str | None:
    """Why no interval can be given: fewer than two items (``None``: enough)."""
    n = len(ctx.study.items)
    return f"the study has {n} item; an interval needs at least two" if n < 2 else None


def why_no_judge_evaluation(ctx: ReportContext) -> str | None:
    """Why judge accuracy cannot be evaluated on this study (``None``: it can)."""
    s = ctx.study
    why = why_no_judges(ctx) or why_too_few_items(ctx)
    if why:
        return why
    if "judge" in getattr(s, "exchangeable", ()):
        return (
            f"the {ctx.names_of('judge')} are exchangeable slots, not the same rater across "
            "items: there is no one to rank (the reliability section describes them together)"
        )
    head = ctx.headline
    if not s.scales[head].is_categorical:
        return (
            f"the verdicts are on an {s.scales[head].level} scale; accuracy against a gold label "
            "needs categorical verdicts (the scores are compared in the Scores section)"
        )
    return why_no_gold(ctx, head)


def why_no_audit(ctx: ReportContext) -> str | None:
    """Why the expert-reliability audit does not apply (``None``: it does)."""
    n = len(ctx.study.experts)
    if n < 2:
        return (
            f"the study has {n} {ctx.names_of('expert', n)}; agreement between "
            f"{ctx.names_of('expert')} needs at least two"
        )
    if len(ctx.study.items) < 2:
        return "the study has a single item; agreement needs at least two"
    return None


# ---------------------------------------------------------------------------- judges
def on_headline(
    ctx: ReportContext, name: str, analysis: Any, min_resamples: int | None = None, **kw: Any
) -> Any:
    """``analysis(study, dimension=headline, confidence_level=…, **kw)`` computed once per
    report under ``name``; with ``min_resamples``, also ``bootstrap=`` with the report's
    resamples raised to that minimum (the analysis' own floor)."""
    if min_resamples is not None:
        kw["bootstrap"] = Bootstrap(max(ctx.n_resamples, min_resamples), ctx.seed)
    return ctx.get(
        name,
        lambda: analysis(
            ctx.study, dimension=ctx.headline, confidence_level=ctx.confidence_level, **kw
        ),
    )


def evaluation(ctx: ReportContext) -> Any:
    """Every judge against gold under the report's policy, resamples, level and α (once)."""
    kw = {
        "policy": ctx.policy,
        "bootstrap": ctx.bootstrap,
        "confidence_level": ctx.confidence_level,
        "alpha": ctx.alpha,
    }
    return ctx.get("evaluation", lambda: evaluate_judges(ctx.study, **kw))


def headline_board(ctx: ReportContext) -> pd.DataFrame:
    """The headline dimension's leaderboard, best first: the one judge order of the report."""
    lb = evaluation(ctx).leaderboard
    return lb[lb["dimension"] == ctx.headline].sort_values(["rank", "judge"]).reset_index(drop=True)


def judge_order(ctx: ReportContext) -> list[str]:
    return [str(j) for j in headline_board(ctx)["judge"]]


def report_judge_order(ctx: ReportContext) -> list[str] | None:
    """The report's one judge order (the headline leaderboard's) when accuracy against gold
    applies to the study, else ``None`` (then a section keeps its own order)."""
    return judge_order(ctx) if why_no_judge_evaluation(ctx) is None else None


def in_judge_order(frame: pd.DataFrame, column: str, order: list[str] | None) -> pd.DataFrame:
    """Rows of ``frame`` with ``column`` in ``order`` (stable; names not in it last)."""
    if not order or frame.empty:
        return frame
    rank = {j: i for i, j in enumerate(order)}
    key = frame[column].astype(str).map(lambda j: rank.get(j, len(rank)))
    return frame.assign(_o=key).sort_values("_o", kind="stable").drop(columns="_o")


def stacked(ctx: ReportContext) -> Any:
    return ctx.get("stacked", lambda: stack_outcomes(ctx.study))


def subgroups(ctx: ReportContext, attribute: str) -> SubgroupAccuracy:
    return ctx.get(
        f"subgroups:{attribute}",
        lambda: subgroup_accuracy(
            ctx.study,
            (attribute,),
            policy=ctx.policy,
            _stacked=stacked(ctx),
            confidence_level=ctx.confidence_level,
        ),
    )


def heterogeneity(ctx: ReportContext, attribute: str) -> Heterogeneity:
    return ctx.get(
        f"heterogeneity:{attribute}",
        lambda: heterogeneity_table(
            ctx.study,
            attribute,
            policy=ctx.policy,
            _stacked=stacked(ctx),
            confidence_level=ctx.confidence_level,
            alpha=ctx.alpha,
        ),
    )


def position(ctx: ReportContext) -> PositionBias:
    return ctx.get(
        "position",
        lambda: position_bias(
            ctx.study, policy=ctx.policy, confidence_level=ctx.confidence_level, alpha=ctx.alpha
        ),
    )


def length(ctx: ReportContext) -> LengthBias:
    return ctx.get(
        "length",
        lambda: length_bias(ctx.study, confidence_level=ctx.confidence_level, alpha=ctx.alpha),
    )


def structure(ctx: ReportContext) -> pd.DataFrame:
    return ctx.get("structure", lambda: dimension_structure(ctx.study)["summary"])


# ---------------------------------------------------------------------------- audit
def audit_attributes(ctx: ReportContext) -> tuple[str, ...]:
    """Item attributes of the reliability-by-subgroup table: those the judges report breaks
    accuracy down by (:attr:`ReportContext.subgroup_attributes`: ``by`` when given, else the
    one default rule of :func:`~medjudge.analyses.subgroups.default_subgroup_attributes`), so
    both reports of one command show the same breakdown."""
    return tuple(ctx.subgroup_attributes)


def audit_settings(ctx: ReportContext) -> Any:
    """The audit's interval settings, resolved once (the same function ``medjudge audit`` calls)."""

    return ctx.get(
        "audit_settings",
        lambda: resolve(
            ctx.study,
            ci=ctx.reliability_ci,
            confidence_level=ctx.confidence_level,
            bootstrap=ctx.bootstrap,
        ),
    )


def audit(ctx: ReportContext) -> Any:
    return ctx.get(
        "audit",
        lambda: audit_study(
            ctx.study,
            by=list(audit_attributes(ctx)),
            dimension=ctx.headline,
            settings=audit_settings(ctx),
        ),
    )


def judge_agreement(ctx: ReportContext) -> ExpertAgreement:
    st = audit_settings(ctx)
    return ctx.get(
        "judge_agreement",
        lambda: judge_expert_agreement(
            ctx.study,
            ctx.headline,
            bootstrap=Bootstrap(ctx.n_resamples, ctx.seed),
            confidence_level=st.confidence_level,
            clusters=st.clusters(ctx.study.matrix(ctx.headline, role="expert").items),
        ),
    )


def alt_results(ctx: ReportContext) -> AltTests:
    return ctx.get(
        "alt_test",
        lambda: study_alt_test(
            ctx.study,
            ctx.headline,
            epsilon=ctx.epsilon,
            q=ctx.alpha,
            policy=alt_invalid_rule(ctx.policy),  # type: ignore[arg-type]
        ),
    )


def finite(x: Any) -> bool:
    try:
        return bool(np.isfinite(float(x)))
    except (TypeError, ValueError):
        return False
