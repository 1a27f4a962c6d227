"""Dimension structure: does a rater give the same verdict in every dimension?"""

from __future__ import annotations

import pandas as pd

from ..context import ReportContext
from ..tables import fmt_int, fmt_num
from . import Section, md
from ._results import report_judge_order, structure

KEY = "structure"
TITLE = "Are the dimensions distinct verdicts?"


def dimension_structure_table(
    summary: pd.DataFrame, order: list[str] | None = None
) -> pd.DataFrame:
    """Per rater: share of items with the same verdict in every dimension, mean and minimum
    Cohen's κ between dimensions, broadcast rate. Experts first; judges in ``order`` (the
    report's one judge order) when given."""
    t = summary.sort_values(["role", "mean_kappa", "rater"], ascending=[True, False, True])
    if order:
        rank = {j: i for i, j in enumerate(order)}
        key = [
            (0, 0) if role == "expert" else (1, rank.get(str(r), len(rank)))
            for role, r in zip(t["role"], t["rater"], strict=True)
        ]
        t = t.assign(_o=key).sort_values("_o", kind="stable").drop(columns="_o")
    return pd.DataFrame(
        {
            "rater": t["rater"].to_numpy(),
            "role": t["role"].to_numpy(),
            "items": [fmt_int(v) for v in t["n_items"]],
            "all dimensions identical": [fmt_num(v, 3) for v in t["all_identical"]],
            "mean κ between dimensions": [fmt_num(v, 3) for v in t["mean_kappa"]],
            "min κ": [fmt_num(v, 3) for v in t["min_kappa"]],
            "broadcast": [fmt_num(v, 3) for v in t["broadcast_rate"]],
        }
    )


def why_not_comparable(ctx: ReportContext) -> str | None:
    """Why dimension structure does not apply (``None``: it does): it needs judges that are
    persons (not exchangeable slots) and dimensions with the same label set, since κ between a
    fluency code and an effect-direction label compares unrelated codes."""
    s = ctx.study
    if not s.judges:
        return f"the study has no {ctx.names_of('judge')}"
    if "judge" in getattr(s, "exchangeable", ()):
        return (
            f"the {ctx.names_of('judge')} are exchangeable slots, not the same rater across items"
        )
    cats = {d: tuple(map(str, s.scales[d].categories)) for d in s.dimensions}
    if len(set(cats.values())) > 1:
        a, b = list(dict.fromkeys(cats.values()))[:2]
        da = next(d for d, c in cats.items() if c == a)
        db = next(d for d, c in cats.items() if c == b)
        return (
            f"the dimensions have different label sets ({da}: {', '.join(a)}; {db}: "
            f"{', '.join(b)}), so agreement between dimensions would compare unrelated codes"
        )
    return None


def build(ctx: ReportContext) -> Section:
    if len(ctx.study.dimensions) < 2:
        return Section.not_applicable(KEY, TITLE, "the study has a single dimension")
    if not all(ctx.study.scales[d].is_categorical for d in ctx.study.dimensions):
        return Section.not_applicable(
            KEY, TITLE, "Cohen's κ between dimensions needs categorical verdicts"
        )
    why = why_not_comparable(ctx)
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    tab = structure(ctx)
    # exchangeable roles are slots, not persons: a slot has no dimensions "of its own"
    tab = tab[~tab["role"].isin(getattr(ctx.study, "exchangeable", ()))]
    sec = Section(KEY, TITLE)
    sec.text(
        f"A rater that gives the same verdict in every dimension answers one question "
        f"{len(ctx.study.dimensions)} times. @tbl-structure compares the "
        f"{md(ctx.names_of('judge'))}' agreement between their own dimensions with the "
        f"{md(ctx.names_of('expert'))}'."
    )
    sec.table(
        "tbl-structure",
        "Dimension structure per rater: share of items with identical verdicts in all "
        "dimensions, Cohen's κ between dimensions (mean, minimum) and broadcast rate.",
        dimension_structure_table(tab, report_judge_order(ctx)),
    )
    sec.methods.append("Dimension structure: Cohen's (1960) κ between each rater's dimensions.")
    sec.references.append("cohen1960")
    return sec
