"""Methods: written from the analyses actually run (each section adds its sentences), plus the
settings that apply to all of them and the software versions."""

from __future__ import annotations

from collections.abc import Sequence

from ..context import ReportContext
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
        sec.text("\n".join(f"- **{md(s.title)}.** " + " ".join(s.methods) for s in ran))
    if skipped:
        sec.text(
            "**Not run** (the analysis does not apply to this study): "
            + "; ".join(f"{md(s.title).lower()} — {s.reason or ''}" for s in skipped)
            + "."
        )
    versions = record(ctx).get("versions", {})
    if versions:
        sec.text(
            "Software: "
            + ", ".join(f"{md(k)} {md(v)}" for k, v in versions.items() if v != "not installed")
            + " (full list in @sec-provenance)."
        )
    return sec
