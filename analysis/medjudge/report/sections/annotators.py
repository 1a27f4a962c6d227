"""Annotator audit: each expert against the others, pairwise κ, agreement per category."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..context import ReportContext
from ..figures.matrices import agreement_matrix
from ..layout import at_page_width
from ..tables import est_ci_column, fmt_ci, fmt_int, fmt_num
from . import Finding, Section, md
from ._results import audit, why_no_audit

KEY = "annotators"
TITLE = "Annotator audit"


def annotator_table(au: Any, level: str = "95%") -> pd.DataFrame:
    """Each annotator against the leave-one-out majority of the others, per dimension."""
    frames = []
    for dim, d in au.dimensions.items():
        if "annotators" not in d:
            continue
        a = d["annotators"]
        frames.append(
            pd.DataFrame(
                {
                    "dimension": dim,
                    "annotator": a["rater"].to_numpy(),
                    "n": [fmt_int(v) for v in a["n"]],
                    f"agreement [{level} CI]": est_ci_column(
                        a, "agreement", "agreement_low", "agreement_high"
                    ),
                    f"Cohen's κ [{level} CI]": est_ci_column(a, "kappa", "kappa_low", "kappa_high"),
                    "others split": [fmt_int(v) for v in a["others_split"]],
                    "no label": [fmt_int(v) for v in a["no_label"]],
                }
            )
        )
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def pairwise_agreement_frame(au: Any, dimension: str) -> pd.DataFrame:
    """``rater_a, rater_b, estimate, n`` (Cohen's κ) for :func:`~medjudge.report.figures.matrices.agreement_matrix`."""
    p = au.dimensions[dimension]["pairwise"]
    return p.rename(columns={"kappa": "estimate"})[["rater_a", "rater_b", "estimate", "n"]]


def pairwise_agreement_table(au: Any, dimension: str, level: str = "95%") -> pd.DataFrame:
    """Every annotator pair: κ and percent agreement with intervals."""
    p = au.dimensions[dimension]["pairwise"]
    return pd.DataFrame(
        {
            "annotator A": p["rater_a"].to_numpy(),
            "annotator B": p["rater_b"].to_numpy(),
            "n": [fmt_int(v) for v in p["n"]],
            f"Cohen's κ [{level} CI]": est_ci_column(p, "kappa", "kappa_low", "kappa_high"),
            f"agreement [{level} CI]": est_ci_column(
                p, "agreement", "agreement_low", "agreement_high"
            ),
        }
    )


def category_table(au: Any, dimension: str, level: str = "95%") -> pd.DataFrame:
    """Per-category Fleiss κ (category against the rest) with the category's share."""
    c = au.dimensions[dimension]["categories"]
    return pd.DataFrame(
        {
            "category": c["category"].astype(str).to_numpy(),
            "share of labels": [fmt_num(v, 3) for v in c["share"]],
            f"κ [{level} CI]": est_ci_column(c, "kappa", "ci_low", "ci_high"),
            "n": [fmt_int(v) for v in c["n"]],
        }
    )


def build(ctx: ReportContext) -> Section:
    why = why_no_audit(ctx)
    if why is None and "expert" in getattr(ctx.study, "exchangeable", ()):
        why = (
            f"the {md(ctx.names_of('expert'))} are exchangeable annotation slots, not the same "
            "persons across items, so no annotator can be audited on their own (the reliability "
            "section reports the rater-exchangeable coefficients)"
        )
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    au = audit(ctx)
    head, lvl = ctx.headline, ctx.level
    expert = ctx.name("expert")
    sec = Section(KEY, TITLE)
    table = annotator_table(au, lvl)
    if table.empty:
        return Section.not_applicable(
            KEY, TITLE, "no dimension has labels from two or more experts"
        )
    sec.text(
        f"Each {md(expert)} is compared with the strict majority of the *other* "
        f"{md(ctx.names_of('expert'))} (@tbl-annotators); items where the others split have no "
        "reference and are counted, not dropped. One whose κ interval lies below the others' "
        "is the first to check for drift or a different reading of the guidelines."
    )
    sec.table(
        "tbl-annotators",
        f"Each {md(expert)} against the leave-one-out majority of the others.",
        table,
    )
    hd = au.dimensions.get(head, {})
    if "pairwise" in hd and len(hd["pairwise"]):
        sec.text(
            f"@fig-annotators-pairwise shows Cohen's κ for every pair on *{md(head)}* "
            "(@tbl-annotators-pairwise lists the intervals)."
        )
        frame = pairwise_agreement_frame(au, head)
        sec.figure(
            "fig-annotators-pairwise",
            f"Pairwise Cohen's κ between {md(ctx.names_of('expert'))} on *{md(head)}*.",
            lambda: at_page_width(agreement_matrix(frame, value_label="Cohen's κ")),
        )
        sec.table(
            "tbl-annotators-pairwise",
            f"Pairwise agreement on *{md(head)}* ({lvl} intervals).",
            pairwise_agreement_table(au, head, lvl),
        )
    if "categories" in hd and len(hd["categories"]):
        sec.text("@tbl-annotators-categories shows how well each category is agreed on.")
        sec.table(
            "tbl-annotators-categories",
            f"Agreement per category on *{md(head)}* (Fleiss' κ of the category against the rest).",
            category_table(au, head, lvl),
        )
    a = hd.get("annotators")
    if a is not None and len(a) > 1:
        low = a.sort_values(["kappa", "rater"], kind="stable").iloc[0]
        sec.findings.append(
            Finding(
                f"The {md(expert)} least in line with the others on *{md(head)}* is "
                f"**{md(low['rater'])}**: Cohen's κ with the others' majority "
                f"{fmt_num(low['kappa'], 3)} ({lvl} CI "
                f"{fmt_ci(low['kappa_low'], low['kappa_high'], 3)}).",
                weight=4,
            )
        )
    sec.methods.append(
        f"Each {md(expert)} was compared with the strict majority of the others (Cohen's 1960 κ "
        "and percent agreement); pairs of annotators with Cohen's κ; categories with Fleiss' κ "
        "of the category against the rest."
    )
    sec.references += ["cohen1960", "fleiss1971"]
    return sec
