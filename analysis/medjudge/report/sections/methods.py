"""Methods: written from the analyses actually run (each section adds its sentences), plus the
settings that apply to all of them and the software versions."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

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
    alphas = decision_alphas(ctx)
    size = (
        ""
        if not alphas
        else f" and all tests have size α = {alphas[0]:g} after the stated multiplicity adjustment"
        if len(alphas) == 1
        else f" and the tests have size α = {' or '.join(f'{a:g}' for a in alphas)} after the "
        "stated multiplicity adjustment, as each section states"
    )
    general = (
        f"All intervals are {ctx.level} intervals{size}. Resampling used "
        f"{fmt_int(ctx.n_resamples)} resamples with seed {ctx.seed}; the same data and seed "
        "give the same numbers."
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


def decision_alphas(ctx: ReportContext) -> list[float]:
    """The decision thresholds the report's results recorded (``alpha`` of a result, or its
    ``settings["alpha"]``), sorted: the α of the tests that ran, read from the results."""
    found = set()
    for res in list(ctx._cache.values()):
        if isinstance(res, pd.DataFrame | pd.Series):
            continue
        a = getattr(res, "alpha", None)
        settings = getattr(res, "settings", None)
        if a is None and isinstance(settings, dict):
            a = settings.get("alpha")
        if isinstance(a, int | float) and not isinstance(a, bool) and 0 < a < 1:
            found.add(round(float(a), 12))
    return sorted(found)


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
