"""The judge evaluation report: an ordered list of sections (see :mod:`.sections`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..data.model import Study
from .context import ReportContext
from .document import Report, build_report
from .sections import (
    bias_suite,
    data,
    heterogeneity,
    judge_vs_gold,
    leaderboard,
    length,
    methods,
    models,
    pairwise,
    position,
    ppi,
    provenance,
    references,
    scores,
    sensitivity,
    stability,
    structure,
    subgroups,
    summary,
)

TITLE = "Judge evaluation report"
SECTIONS = [
    summary, data, leaderboard, judge_vs_gold, scores, pairwise, subgroups, heterogeneity,
    position, length, bias_suite, stability, models, ppi, structure, sensitivity, methods,
    references, provenance,
]  # fmt: skip


def judges_report(study: Study, **settings: Any) -> Report:
    """Build every section of the judge evaluation report (settings: :class:`ReportContext`)."""
    return build_report("judges", SECTIONS, ReportContext(study, **settings))


def heavy_results(ctx: ReportContext) -> list[Callable[[], Any]]:
    """The judge report's slowest results (wild cluster bootstrap tests of heterogeneity, the
    position-bias tables) and the length-bias table (it balances the two kernels' work), as
    calls a second kernel can make beforehand
    (:mod:`medjudge.report.exchange`); only those the report's sections will ask for."""
    from .sections import _results as R

    if R.why_no_judge_evaluation(ctx) is not None:
        return []
    jobs: list[Callable[[], Any]] = []
    attr = ctx.subgroup_attribute
    if attr is not None:
        jobs.append(lambda: R.heterogeneity(ctx, attr))
    if len(ctx.study.scales[ctx.headline].categories) == 2:
        jobs.append(lambda: R.position(ctx))
    jobs.append(lambda: R.length(ctx))
    return jobs
