"""Methods: written from the analyses actually run (each section adds its sentences), plus the
settings that apply to all of them and the software versions."""

from __future__ import annotations

from collections.abc import Sequence

from ..context import ReportContext
from ..escape import join_sentence, prose
from ..tables import fmt_int
from . import Section, md
from .provenance import record

KEY = "methods"
TITLE = "Methods"
COLLECTS = True


def build(ctx: ReportContext, sections: Sequence[Section]) -> Section:
    sec = Section(KEY, TITLE)
    ran = [s for s in sections if s.applies and s.methods]
    skipped = [s for s in sections if not s.applies]
    general = (
        f"All intervals are {ctx.level} intervals and all tests have size α = {ctx.alpha:g} "
        f"after the stated multiplicity adjustment. Resampling used {fmt_int(ctx.n_resamples)} "
        f"resamples with seed {ctx.seed}; the same data and seed give the same numbers."
    )
    sec.text(general)
    if ran:
        sec.text(
            "\n".join(f"- **{join_sentence(md(s.title))}** " + " ".join(s.methods) for s in ran)
        )
    if skipped:
        sec.text(not_run(skipped))
    versions = record(ctx).get("versions", {})
    if versions:
        sec.text(
            "Software: "
            + ", ".join(f"{md(k)} {md(v)}" for k, v in versions.items() if v != "not installed")
            + " (full list in @sec-provenance)."
        )
    return sec


def not_run(skipped: Sequence[Section]) -> str:
    """The "Not run" paragraph: sections that share a reason are named together, once.

    Titles and reasons are plain text, escaped here (:func:`medjudge.report.escape.prose`).
    """
    by_reason: dict[str, list[str]] = {}
    for s in skipped:
        by_reason.setdefault(s.reason or "", []).append(s.title)
    parts = [
        f"{prose(', '.join(t[:1].lower() + t[1:] for t in titles)).rstrip()} — {prose(why)}"
        for why, titles in by_reason.items()
    ]
    return "**Not run** (the analysis does not apply to this study): " + join_sentence(
        "; ".join(parts)
    )
