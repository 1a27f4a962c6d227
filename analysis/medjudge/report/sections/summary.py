"""Executive summary: the 3–6 most important findings of the other sections, each a sentence
with its estimate, interval and test, followed by the caveats that apply."""

from __future__ import annotations

from collections.abc import Sequence

from ..context import ReportContext
from ..tables import fmt_int
from . import Finding, Section, md

KEY = "summary"
TITLE = "Key findings"
COLLECTS = True
MAX_FINDINGS = 6


def select(sections: Sequence[Section], k: int = MAX_FINDINGS) -> list[Finding]:
    """The ``k`` findings with the largest weight (report order breaks ties)."""
    found = [(f.weight, -i, f) for i, f in enumerate(f for s in sections for f in s.findings)]
    found.sort(key=lambda t: (-t[0], -t[1]))
    return [f for _, _, f in found[:k]]


def build(ctx: ReportContext, sections: Sequence[Section]) -> Section:
    sec = Section(KEY, TITLE)
    study = ctx.study
    if ctx.simulated:
        sec.text(
            "::: {.callout-warning}\n## Simulated data\nThe data in this report are "
            "**simulated** (the bundle ships its true parameters in `truth/params.json`); the "
            "numbers illustrate the method and say nothing about real judges.\n:::"
        )
    n_j, n_e = len(study.judges), len(study.experts)
    sec.text(
        f"Study *{md(study.name)}*: {fmt_int(len(study.items))} items, "
        f"{len(study.dimensions)} dimension{'s' if len(study.dimensions) != 1 else ''} ({', '.join(md(d) for d in study.dimensions)}), "
        f"{fmt_int(n_j)} {md(ctx.names_of('judge', n_j))}, {fmt_int(n_e)} "
        f"{md(ctx.names_of('expert', n_e))}. Headline dimension: *{md(ctx.headline)}*; "
        f"intervals are {ctx.level}; {md(ctx.unusable_rule())}."
    )
    findings = select(sections)
    if findings:
        sec.text("\n".join(f"{i}. {f.text}" for i, f in enumerate(findings, 1)))
    else:
        sec.text("No analysis in this report applies to this study; see the sections below.")
    caveats = list(dict.fromkeys(f.caveat for f in findings if f.caveat))
    skipped = [s for s in sections if not s.applies]
    if skipped:
        caveats.append(
            (
                "1 analysis does not apply to this study and is not shown"
                if len(skipped) == 1
                else f"{len(skipped)} analyses do not apply to this study and are not shown"
            )
            + " (listed with their reasons under Methods, *Not run*)"
        )
    if caveats:
        sec.text("**Caveats:** " + "; ".join(caveats) + ".")
    return sec
