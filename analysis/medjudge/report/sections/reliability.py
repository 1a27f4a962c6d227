"""Reliability of the expert labels per dimension (percent agreement, Fleiss' κ, Gwet's AC1,
Krippendorff's α with intervals)."""

from __future__ import annotations

import pandas as pd

from ..context import ReportContext
from ..figures.intervals import forest_plot
from ..tables import est_ci_column, fmt_ci, fmt_int, fmt_num
from . import Finding, Section, md
from ._results import audit, why_no_audit

KEY = "reliability"
TITLE = "Reliability per dimension"

COEFFICIENT_NAMES = {
    "percent_agreement": "percent agreement",
    "fleiss_kappa": "Fleiss' κ",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2",
    "krippendorff_alpha": "Krippendorff's α",
}


def reliability_frame(reliability: pd.DataFrame) -> pd.DataFrame:
    """Coefficient rows as a forest frame (``judge`` = coefficient name, one panel per dimension)."""
    out = reliability.assign(
        judge=reliability["coefficient"].map(lambda c: COEFFICIENT_NAMES.get(c, c))
    )
    return out[["judge", "dimension", "estimate", "ci_low", "ci_high"]]


def reliability_table(reliability: pd.DataFrame) -> pd.DataFrame:
    """Dimension × coefficient table of ``estimate [CI]`` strings."""
    f = reliability_frame(reliability).copy()
    f["value"] = est_ci_column(f, "estimate", "ci_low", "ci_high")
    wide = f.pivot(index="dimension", columns="judge", values="value")
    wide = wide.reindex(index=list(dict.fromkeys(f["dimension"])))
    wide = wide[list(dict.fromkeys(f["judge"]))]
    return wide.reset_index()


def build(ctx: ReportContext) -> Section:
    why = why_no_audit(ctx)
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    au = audit(ctx)
    rel = au.reliability
    lvl, head = ctx.level, ctx.headline
    experts = ctx.names_of("expert")
    sec = Section(KEY, TITLE)
    sec.text(
        f"@tbl-reliability lists the agreement among the {md(experts)} for every dimension and "
        f"@fig-reliability draws the coefficients with their {lvl} intervals. Percent agreement "
        "is not chance-corrected; Fleiss' κ and Krippendorff's α correct for the agreement "
        "expected from the label shares, and Gwet's AC1 is less sensitive to unbalanced shares "
        '(the "kappa paradox").'
    )
    sec.table(
        "tbl-reliability",
        f"Agreement among the {md(experts)} per dimension (estimate [{lvl} CI]).",
        reliability_table(rel),
    )
    frame = reliability_frame(rel)
    dims = list(dict.fromkeys(frame["dimension"]))
    sec.figure(
        "fig-reliability",
        f"Agreement coefficients with {lvl} intervals, one panel per dimension.",
        lambda: forest_plot(
            frame, dimension_order=dims, xlabel="coefficient",
            judge_order=list(dict.fromkeys(frame["judge"])),
        ),
    )  # fmt: skip
    if not ctx.study.scales[head].is_categorical:
        ka = rel[(rel["dimension"] == head) & (rel["coefficient"] == "krippendorff_alpha")]
        if len(ka):
            r = ka.iloc[0]
            sec.findings.append(
                Finding(
                    f"The {md(experts)} agree with Krippendorff's α (interval metric) = "
                    f"{fmt_num(r['estimate'], 3)} ({lvl} CI "
                    f"{fmt_ci(r['ci_low'], r['ci_high'], 3)}) on the *{md(head)}* scores.",
                    caveat=(
                        "expert agreement below 0.6 limits how well any judge can be measured "
                        "against their scores"
                        if float(r["estimate"]) < 0.6
                        else None
                    ),
                    weight=8,
                )
            )
    fk = rel[(rel["dimension"] == head) & (rel["coefficient"] == "fleiss_kappa")]
    if len(fk) and ctx.study.scales[head].is_categorical:
        r = fk.iloc[0]
        n_disp = au.dimensions.get(head, {}).get("n_disputed", 0)
        sec.findings.append(
            Finding(
                f"The {md(experts)} agree with Fleiss' κ = {fmt_num(r['estimate'], 3)} ({lvl} CI "
                f"{fmt_ci(r['ci_low'], r['ci_high'], 3)}) on *{md(head)}*; "
                f"{fmt_int(n_disp)} items have at least one dissenting label.",
                caveat=(
                    "expert agreement below 0.6 limits how well any judge can be measured "
                    "against their labels"
                    if float(r["estimate"]) < 0.6
                    else None
                ),
                weight=8,
            )
        )
    sec.methods.append(
        f"Agreement among the {md(experts)}: percent agreement, Fleiss' (1971) κ, Gwet's (2008) "
        f"AC1 and Krippendorff's (2011) α, with {md(au.settings.get('ci', ctx.reliability_ci))} "
        f"{lvl} intervals."
    )
    sec.references += ["fleiss1971", "gwet2008", "krippendorff2011"]
    return sec
