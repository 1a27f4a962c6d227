"""Reliability of the expert labels within each item subgroup."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..context import ReportContext
from ..tables import est_ci_column, fmt_int
from . import Section, md
from ._results import audit, why_no_audit

KEY = "subgroup-reliability"
TITLE = "Reliability by subgroup"


def subgroup_reliability_table(au: Any, dimension: str) -> pd.DataFrame:
    """Fleiss κ and Krippendorff α per item subgroup (too-small subgroups listed, not dropped)."""
    s = au.dimensions.get(dimension, {}).get("subgroups")
    if s is None or s.empty:
        return pd.DataFrame()
    out = {
        "attribute": [str(a).replace("_", " ") for a in s["attribute"]],
        "group": s["group"].astype(str).to_numpy(),
        "items": [fmt_int(v) for v in s["n_items"]],
    }
    if "fleiss_kappa" in s:
        out["Fleiss' κ [CI]"] = est_ci_column(s, "fleiss_kappa", "fleiss_low", "fleiss_high")
    out["Krippendorff's α [CI]"] = est_ci_column(s, "alpha", "alpha_low", "alpha_high")
    out["too small"] = np.where(s["too_small"].astype(bool), "yes", "")
    return pd.DataFrame(out)


def build(ctx: ReportContext) -> Section:
    why = why_no_audit(ctx)
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    head = ctx.headline
    tab = subgroup_reliability_table(audit(ctx), head)
    if tab.empty:
        return Section.not_applicable(
            KEY, TITLE, "the items carry no subgroup attribute (e.g. organ_system)"
        )
    sec = Section(KEY, TITLE)
    sec.text(
        f"@tbl-subgroup-reliability repeats the reliability within each item subgroup on "
        f"*{md(head)}*, each with its own {ctx.level} interval and item count, so a weak "
        "subgroup is visible together with its uncertainty. Subgroups with fewer than 10 items "
        "are listed as too small."
    )
    sec.table(
        "tbl-subgroup-reliability",
        f"Reliability per item subgroup on *{md(head)}* ({ctx.level} intervals).",
        tab,
    )
    sec.methods.append("Subgroup reliability: Fleiss' κ and Krippendorff's α within each subgroup.")
    return sec
