"""Sensitivity of the headline accuracy to the invalid-verdict policy."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...analyses.evaluation_text import policy_finding
from ..context import ReportContext
from ..tables import est_ci_column, fmt_int, fmt_num
from . import Section, builder, md
from ._results import evaluation, judge_order, why_no_judge_evaluation

KEY = "sensitivity"
TITLE = "Sensitivity to the invalid-verdict policy"


def sensitivity_table(sensitivity: pd.DataFrame, dimension: str, order: list[str]) -> pd.DataFrame:
    """Accuracy under the three invalid-verdict policies for one dimension (report order)."""
    s = sensitivity[sensitivity["dimension"] == dimension].copy()
    rank = {j: i for i, j in enumerate(order)}
    s = s.assign(_o=s["judge"].map(rank)).sort_values(["_o", "judge"], kind="stable")
    out = {"judge": s["judge"].to_numpy(), "invalid": [fmt_int(v) for v in s["n_invalid"]]}
    for pol in ("wrong", "exclude", "half"):
        out[pol] = est_ci_column(s, f"accuracy_{pol}", f"ci_low_{pol}", f"ci_high_{pol}")
    out["max shift"] = [fmt_num(v, 3) for v in s["max_shift"]]
    return pd.DataFrame(out)


APPLIES = why_no_judge_evaluation


def present(ctx: ReportContext, ev: Any) -> Section:
    head, lvl = ctx.headline, ctx.level
    sec = Section(KEY, TITLE)
    sec.text(
        "An unusable verdict can count as wrong (the Med-RewardBench rule), be excluded, or "
        "count as half correct. @tbl-sensitivity shows the headline accuracy under all three; "
        "judges with many invalid verdicts move most, and a ranking that changes between "
        "columns depends on the policy rather than on the judges' verdicts."
    )
    sec.table(
        "tbl-sensitivity",
        f"Accuracy [{lvl} CI] on *{md(head)}* under each invalid-verdict policy.",
        sensitivity_table(ev.sensitivity, head, judge_order(ctx)),
    )
    sec.findings += policy_finding(ev, head, markup=ctx.markup)
    return sec


build = builder(KEY, TITLE, APPLIES, evaluation, present)
