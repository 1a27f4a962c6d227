"""Calibration of the judges' stated confidence: ECE, Brier score, test and reliability diagram.

Applies only when some judge states a confidence with its verdicts (mapping key
``confidence``); otherwise the section is one sentence saying so, and Methods lists it under
"Not run".
"""

from __future__ import annotations

import pandas as pd

from ...analyses.calibration import CalibrationResult, judge_calibration, why_no_calibration
from ..context import ReportContext
from ..escape import prose
from ..layout import at_page_width, legend_above
from ..tables import est_ci_column, fmt_int, fmt_num, fmt_p
from . import Section, builder, md
from ._results import judge_order, why_no_judge_evaluation

KEY = "calibration"
TITLE = "Calibration of stated confidence"


def why_no_confidence(ctx: ReportContext) -> str | None:
    return why_no_calibration(ctx.study)


APPLIES = (why_no_judge_evaluation, why_no_confidence)


def result(ctx: ReportContext) -> CalibrationResult:
    return ctx.get(
        "calibration",
        lambda: judge_calibration(
            ctx.study, dimensions=[ctx.headline], bootstrap=ctx.bootstrap,
            confidence_level=ctx.confidence_level, alpha=ctx.alpha,
        ),
    )  # fmt: skip


def calibration_display(c: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Display rows of the calibration table (judges in the report's order)."""
    rank = {j: i for i, j in enumerate(order)}
    c = c.assign(_o=c["judge"].map(rank)).sort_values(["_o", "judge"], kind="stable")
    return pd.DataFrame(
        {
            "judge": c["judge"].to_numpy(),
            "ECE [CI]": est_ci_column(c, "ece", "ece_low", "ece_high"),
            "ECE if calibrated": [fmt_num(v, 3) for v in c["ece_null"]],
            "Brier [CI]": est_ci_column(c, "brier", "brier_low", "brier_high"),
            "confidence − accuracy [CI]": est_ci_column(c, "gap", "gap_low", "gap_high"),
            "p (Holm)": [fmt_p(v) for v in c["p_holm"]],
            "calibration": c["flag"].to_numpy(),
            "n (items)": [fmt_int(v) for v in c["n"]],
        }
    )


def present(ctx: ReportContext, res: CalibrationResult) -> Section:
    head, lvl, s = ctx.headline, ctx.level, res.settings
    adj = md(s["adjustment"])
    c = res.calibration
    sec = Section(KEY, TITLE)
    judges = ctx.names_of("judge")
    sec.text(
        f"{fmt_int(len(s['judges']))} {judges} state a confidence with each verdict. "
        f"@tbl-calibration compares it with how often the verdict matches the gold on "
        f"*{md(head)}*: the expected calibration error (ECE, {fmt_int(s['n_bins'])} equal-width "
        "bins; the mean gap between stated confidence and observed accuracy, weighted by the "
        "items in each bin), the Brier score and the mean confidence minus the accuracy, with "
        f"{lvl} intervals (ECE: {prose(s['ci_method'])}; Brier score and gap: "
        f"{prose(s['mean_ci_method'])}). The ECE of a perfectly calibrated judge is "
        "above 0 in a finite sample; *ECE if calibrated* is its expected value with these very "
        f"confidences, and the test ({prose(s['test'])}) asks whether the observed ECE exceeds it "
        f"({adj} over {fmt_int(len(c))} tests, α = {s['alpha']:g})."
    )
    if s["no_confidence"]:
        sec.text(
            "No stated confidence (not in the table): "
            + ", ".join(md(j) for j in s["no_confidence"]) + "."
        )  # fmt: skip
    if s["no_usable_pair"]:
        sec.text(
            "No item with both a stated confidence and a usable verdict against the gold: "
            + ", ".join(md(j) for j in s["no_usable_pair"]) + "."
        )  # fmt: skip
    sec.table(
        "tbl-calibration",
        f"Calibration of stated confidence on *{md(head)}* ({lvl} intervals).",
        calibration_display(c, judge_order(ctx)),
    )
    if len(res.reliability):
        sec.figure(
            "fig-calibration-reliability",
            f"Reliability diagram on *{md(head)}*: observed accuracy against mean stated "
            "confidence per bin (marker area: items in the bin); the diagonal is perfect "
            "calibration.",
            lambda: at_page_width(legend_above(res.plot("reliability"))),
        )
    sec.findings += res.findings(head, names=ctx.names_of, markup=ctx.markup)
    sec.methods.append(
        f"Calibration of stated confidence: ECE over {fmt_int(s['n_bins'])} equal-width bins "
        f"(Guo et al. 2017) with {prose(s['ci_method'])} intervals, Brier score (Brier 1950) "
        f"and confidence gap with {prose(s['mean_ci_method'])} intervals; miscalibration tested "
        f"by {prose(s['test'])} (items independent given their confidence), {adj}-adjusted."
    )
    sec.references += ["guo2017", "brier1950", "brocker2007", "holm1979"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
