"""The judge evaluation report: an ordered list of sections (see :mod:`.sections`)."""

from __future__ import annotations

from typing import Any

from ..data.model import Study
from .context import ReportContext
from .document import Report, build_report
from .sections import (
    data,
    heterogeneity,
    leaderboard,
    length,
    methods,
    pairwise,
    position,
    provenance,
    references,
    sensitivity,
    structure,
    subgroups,
    summary,
)

TITLE = "Judge evaluation report"
SECTIONS = [
    summary, data, leaderboard, pairwise, subgroups, heterogeneity, position, length,
    structure, sensitivity, methods, references, provenance,
]  # fmt: skip


def judges_report(study: Study, **settings: Any) -> Report:
    """Build every section of the judge evaluation report (settings: :class:`ReportContext`)."""
    return build_report("judges", SECTIONS, ReportContext(study, **settings))
