"""Reliability of the expert labels per dimension (percent agreement, Fleiss' κ, Gwet's AC1,
Krippendorff's α with intervals)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..context import ReportContext
from ..tables import est_ci_column, fmt_int
from . import Section, builder, md
from ._audit_text import (
    COEFFICIENT_NAMES,
    coefficient_label,
    methods,
    one_level,
)
from ._results import audit, why_no_audit

__all__ = ["COEFFICIENT_NAMES", "reliability_table", "build"]

KEY = "reliability"
TITLE = "Reliability per dimension"


def reliability_table(reliability: pd.DataFrame) -> pd.DataFrame:
    """Dimension × coefficient table of ``estimate [CI]`` strings, with the item count.

    Coefficient columns name their weights when a dimension is weighted (ordinal labels), so a
    study mixing scales gets one column per coefficient and weighting."""
    f = reliability.assign(
        judge=[
            coefficient_label(c, w)
            for c, w in zip(reliability["coefficient"], reliability["weights"], strict=True)
        ]
    )
    f["value"] = est_ci_column(f, "estimate", "ci_low", "ci_high")
    wide = f.pivot(index="dimension", columns="judge", values="value")
    wide = wide.reindex(index=list(dict.fromkeys(f["dimension"])))
    wide = wide[list(dict.fromkeys(f["judge"]))].fillna("")
    n = reliability.groupby("dimension", sort=False)["n"].max()
    wide.insert(0, "items", [fmt_int(n[d]) for d in wide.index])
    return wide.reset_index()


APPLIES = why_no_audit


def present(ctx: ReportContext, au: Any) -> Section:
    rel = au.reliability
    head = au.settings.get("headline", ctx.headline)
    lvl = one_level(rel["level"])
    experts = ctx.names_of("expert")
    sec = Section(KEY, TITLE)
    weighted = sorted({str(w) for w in rel["weights"] if str(w) not in ("identity", "") and
                       not str(w).endswith("metric")})  # fmt: skip
    sec.text(
        f"@tbl-reliability lists the agreement among the {md(experts)} for every dimension and "
        f"@fig-reliability draws the coefficients with their {lvl} intervals. Percent agreement "
        "is not chance-corrected; Fleiss' κ and Krippendorff's α correct for the agreement "
        "expected from the label shares, and Gwet's AC1 is less sensitive to unbalanced shares "
        '(the "kappa paradox").'
        + (
            " On ordered labels and scores the kappa-family coefficients and percent agreement "
            "give partial "
            f"credit to near misses ({', '.join(md(w) for w in weighted)} weights, as the column "
            "names say), so they are higher than the share of rater pairs giving the same label."
            if weighted
            else ""
        )
    )
    sec.table(
        "tbl-reliability",
        f"Agreement among the {md(experts)} per dimension (estimate [{lvl} CI]; items: items "
        "with at least one label).",
        reliability_table(rel),
    )
    sec.figure(
        "fig-reliability",
        f"Agreement coefficients with {lvl} intervals, one panel per dimension.",
        lambda: au.plot("reliability"),
    )
    sec.findings += au.reliability_findings(head, names=ctx.names_of, markup=ctx.markup)
    sec.methods.append(
        f"Agreement among the {md(experts)}: percent agreement, Fleiss' (1971) κ, Gwet's (2008) "
        f"AC1 and Krippendorff's (2011) α (weights and metric from each dimension's scale, as "
        f"the table names them), with {lvl} intervals: {methods(rel['ci_method'])}."
        + _cluster_sentence(au)
    )
    sec.references += ["fleiss1971", "gwet2008", "krippendorff2011"]
    return sec


def _cluster_sentence(au: Any) -> str:
    s = au.settings
    if not s.get("cluster"):
        return ""
    return (
        f" Items are clustered by *{md(s['cluster'])}* ({fmt_int(s['n_clusters'])} clusters), "
        "as the interval methods above say."
    )


build = builder(KEY, TITLE, APPLIES, audit, present)
