"""Reliability of the expert labels within each item subgroup."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...analyses.audit import MIN_ITEMS
from ..context import RULE_TEXT, ReportContext
from ..tables import est_ci_column, fmt_int
from . import Section, builder, md
from ._audit_text import coefficient_label, methods, one_level
from ._results import audit, why_no_audit

KEY = "subgroup-reliability"
TITLE = "Reliability by subgroup"


def subgroup_reliability_table(au: Any, dimension: str) -> pd.DataFrame:
    """Fleiss κ and Krippendorff α per item subgroup (too-small subgroups listed, not dropped).

    Headers name the weights and the level the result records."""
    s = au.dimensions.get(dimension, {}).get("subgroups")
    if s is None or s.empty:
        return pd.DataFrame()
    ok = s[~s["too_small"].astype(bool)]
    lvl = one_level(ok["level"]) if len(ok) else ""
    ci = f" [{lvl} CI]" if lvl else ""
    out = {
        "attribute": [str(a).replace("_", " ") for a in s["attribute"]],
        "group": [str(g) if str(g).strip() else "(blank)" for g in s["group"]],
        "n (items)": [fmt_int(v) for v in s["n_items"]],
    }
    if "fleiss_kappa" in s:
        w = s["weights"].iloc[0]
        out[f"{coefficient_label('fleiss_kappa', w)}{ci}"] = est_ci_column(
            s, "fleiss_kappa", "fleiss_low", "fleiss_high"
        )
    out[f"Krippendorff's α{ci}"] = est_ci_column(s, "alpha", "alpha_low", "alpha_high")
    out["too small"] = np.where(s["too_small"].astype(bool), "yes", "")
    return pd.DataFrame(out)


def _no_attribute_reason(ctx: ReportContext) -> str:
    """Why no subgroup table, in plain words (the "Not run" paragraph escapes it)."""
    have = [str(c) for c in ctx.study.items.columns if c != "item"]
    if ctx.by is not None:
        return f"the attribute(s) {', '.join(map(str, ctx.by))} have fewer than two values"
    return f"no item attribute is a subgroup by the default rule ({RULE_TEXT})" + (
        f"; the items carry {', '.join(have)} (choose with by= or --by)"
        if have
        else "; the items carry no attribute"
    )


APPLIES = why_no_audit


def present(ctx: ReportContext, au: Any) -> Section:
    head = au.settings.get("headline", ctx.headline)
    tab = subgroup_reliability_table(au, head)
    if tab.empty:
        return Section.not_applicable(KEY, TITLE, _no_attribute_reason(ctx))
    sg = au.dimensions[head]["subgroups"]
    ok = sg[~sg["too_small"].astype(bool)]
    lvl = one_level(ok["level"]) if len(ok) else ctx.level
    sec = Section(KEY, TITLE)
    sec.text(
        f"@tbl-subgroup-reliability repeats the reliability within each item subgroup on "
        f"*{md(head)}*, each with its own {lvl} interval and item count, so a weak "
        f"subgroup is visible together with its uncertainty. Subgroups with fewer than "
        f"{MIN_ITEMS} items are listed as too small"
        + (
            f" ({fmt_int(int(sg['too_small'].sum()))} here)."
            if sg["too_small"].any()
            else " (none here)."
        )  # fmt: skip
    )
    used = (
        methods([*ok.get("fleiss_ci_method", pd.Series(dtype=object)), *ok["ci_method"]])
        if len(ok)
        else "none"
    )
    sec.table(
        "tbl-subgroup-reliability",
        f"Reliability per item subgroup on *{md(head)}* ({lvl} intervals: {used}).",
        tab,
    )
    w = sg["weights"].iloc[0]
    sec.methods.append(
        f"Subgroup reliability: {coefficient_label('fleiss_kappa', w)} (the weights of the "
        f"overall row) and Krippendorff's α within each subgroup, {used} intervals."
    )
    return sec


build = builder(KEY, TITLE, APPLIES, audit, present)
