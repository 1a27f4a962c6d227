"""The annotation reliability audit: an ordered list of sections (see :mod:`.sections`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..data.model import Study
from .document import Report, build_report
from .sections import (
    annotators,
    data,
    dawid_skene,
    judge_vs_experts,
    methods,
    provenance,
    references,
    reliability,
    subgroup_reliability,
    summary,
)

TITLE = "Annotation reliability audit"
SECTIONS = [
    summary, reliability, annotators, subgroup_reliability, dawid_skene, judge_vs_experts,
    data, methods, references, provenance,
]  # fmt: skip


def audit_report(
    study: Study, *, progress: Callable[[int, int, str], None] | None = None, **settings: Any
) -> Report:
    """Build every section of the annotation audit (settings: :class:`ReportContext`)."""
    return build_report("audit", SECTIONS, study, progress, **settings)
