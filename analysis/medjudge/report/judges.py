"""The judge evaluation report: an ordered list of sections (see :mod:`.sections`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..data.model import Study
from .document import Report, build_report
from .sections import (
    bias_suite,
    calibration,
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
    summary, data, leaderboard, judge_vs_gold, calibration, scores, pairwise, subgroups, heterogeneity,
    position, length, bias_suite, stability, models, ppi, structure, sensitivity, methods,
    references, provenance,
]  # fmt: skip


def judges_report(
    study: Study, *, progress: Callable[[int, int, str], None] | None = None, **settings: Any
) -> Report:
    """Build every section of the judge evaluation report (settings: :class:`ReportContext`)."""
    return build_report("judges", SECTIONS, study, progress, **settings)
