"""Annotator audit: each expert against the others, pairwise κ, agreement per category."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..context import ReportContext
from ..layout import at_page_width
from ..tables import est_ci_column, fmt_int, fmt_num
from . import Section, builder, md
from ._audit_text import methods, one_level
from ._results import audit, why_no_audit

KEY = "annotators"
TITLE = "Annotator audit"


def _kappa_header(frame: pd.DataFrame, name: str = "Cohen's κ") -> str:
    return f"{name} [{one_level(frame['level'])} CI]"


def annotator_table(au: Any, level: str | None = None) -> pd.DataFrame:
    """Each annotator against the leave-one-out majority of the others, per dimension.

    Interval headers carry the level the result records (``level`` is ignored; kept for
    callers of the old signature)."""
    frames = []
    for dim, d in au.dimensions.items():
        if "annotators" not in d:
            continue
        a = d["annotators"]
        lvl = one_level(a["level"])
        frames.append(
            pd.DataFrame(
                {
                    "dimension": dim,
                    "annotator": a["rater"].to_numpy(),
                    "n (items)": [fmt_int(v) for v in a["n"]],
                    f"agreement [{lvl} CI]": est_ci_column(
                        a, "agreement", "agreement_low", "agreement_high"
                    ),
                    f"Cohen's κ [{lvl} CI]": est_ci_column(a, "kappa", "kappa_low", "kappa_high"),
                    "others split": [fmt_int(v) for v in a["others_split"]],
                    "no label": [fmt_int(v) for v in a["no_label"]],
                }
            )
        )
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def pairwise_agreement_table(au: Any, dimension: str, level: str | None = None) -> pd.DataFrame:
    """Every annotator pair: κ and percent agreement with intervals (level from the result)."""
    p = au.dimensions[dimension]["pairwise"]
    lvl = one_level(p["level"])
    return pd.DataFrame(
        {
            "annotator A": p["rater_a"].to_numpy(),
            "annotator B": p["rater_b"].to_numpy(),
            "n (items)": [fmt_int(v) for v in p["n"]],
            f"Cohen's κ [{lvl} CI]": est_ci_column(p, "kappa", "kappa_low", "kappa_high"),
            f"agreement [{lvl} CI]": est_ci_column(
                p, "agreement", "agreement_low", "agreement_high"
            ),
        }
    )


def category_table(au: Any, dimension: str, level: str | None = None) -> pd.DataFrame:
    """Per-category Fleiss κ (category against the rest) with the category's share."""
    c = au.dimensions[dimension]["categories"]
    return pd.DataFrame(
        {
            "category": c["category"].astype(str).to_numpy(),
            "share of labels": [fmt_num(v, 3) for v in c["share"]],
            f"κ [{one_level(c['level'])} CI]": est_ci_column(c, "kappa", "ci_low", "ci_high"),
            "n (items)": [fmt_int(v) for v in c["n"]],
        }
    )


def why_exchangeable(ctx: ReportContext) -> str | None:
    """Why annotators cannot be audited one by one (``None``: they can)."""
    if "expert" not in getattr(ctx.study, "exchangeable", ()):
        return None
    return (
        f"the {ctx.names_of('expert')} are exchangeable annotation slots, not the same "
        "persons across items, so no annotator can be audited on their own (the reliability "
        "section reports the rater-exchangeable coefficients)"
    )


APPLIES = (why_no_audit, why_exchangeable)


def plain(values: Any) -> str:
    """The distinct method names a result recorded (e.g. "Wilson (1927)"), as written: they
    are the analysis' own words, not data."""
    return "; ".join(dict.fromkeys(str(v) for v in values if isinstance(v, str) and v))


def present(ctx: ReportContext, au: Any) -> Section:
    head = au.settings.get("headline", ctx.headline)
    expert = ctx.name("expert")
    sec = Section(KEY, TITLE)
    table = annotator_table(au)
    if table.empty:
        scales = {ctx.study.scales[d].level for d in au.dimensions}
        if not any(ctx.study.scales[d].is_categorical for d in au.dimensions):
            why = (
                "each annotator is compared with the others' majority label by Cohen's κ, which "
                f"needs categories; the dimensions are on an {' / '.join(sorted(scales))} scale "
                "(the reliability section reports Krippendorff's α for scores)"
            )
        else:
            why = f"no dimension has labels from two or more {ctx.names_of('expert')}"
        return Section.not_applicable(KEY, TITLE, why)
    ann = pd.concat([d["annotators"] for d in au.dimensions.values() if "annotators" in d])
    sec.text(
        f"Each {md(expert)} is compared with the strict majority of the *other* "
        f"{md(ctx.names_of('expert'))} (@tbl-annotators); items where the others split have no "
        "reference and are counted, not dropped. One whose κ interval lies below the others' "
        "is the first to check for drift or a different reading of the guidelines."
    )
    sec.table(
        "tbl-annotators",
        f"Each {md(expert)} against the leave-one-out majority of the others. Intervals: "
        f"agreement {plain(ann['agreement_ci_method'])}; Cohen's κ "
        f"{methods(ann['kappa_ci_method'])}.",
        table,
    )
    hd = au.dimensions.get(head, {})
    n_dims = len(au.dimensions)
    chosen = (
        f" (the headline dimension of {fmt_int(n_dims)}; `--headline` chooses another, "
        "`dimension=` in Python)"
        if n_dims > 1
        else ""
    )
    if "pairwise" in hd and len(hd["pairwise"]):
        pw = hd["pairwise"]
        sec.text(
            f"@fig-annotators-pairwise shows Cohen's κ for every pair on *{md(head)}*{chosen} "
            "(@tbl-annotators-pairwise lists the intervals)."
        )
        sec.figure(
            "fig-annotators-pairwise",
            f"Pairwise Cohen's κ between {md(ctx.names_of('expert'))} on *{md(head)}*.",
            lambda: at_page_width(au.plot("pairwise", where={"dimension": head})),
        )
        sec.table(
            "tbl-annotators-pairwise",
            f"Pairwise agreement on *{md(head)}* ({one_level(pw['level'])} intervals: Cohen's κ "
            f"{methods(pw['kappa_ci_method'])}; agreement {plain(pw['agreement_ci_method'])}).",
            pairwise_agreement_table(au, head),
        )
    if "categories" in hd and len(hd["categories"]):
        cat = hd["categories"]
        sec.text(f"@tbl-annotators-categories shows how well each category of *{md(head)}* is "
                 "agreed on.")  # fmt: skip
        sec.table(
            "tbl-annotators-categories",
            f"Agreement per category on *{md(head)}* (Fleiss' κ of the category against the "
            f"rest; {one_level(cat['level'])} intervals: {methods(cat['ci_method'])}).",
            category_table(au, head),
        )
    sec.findings += au.annotator_findings(names=ctx.names_of, markup=ctx.markup)
    sec.methods.append(
        f"Each {md(expert)} was compared with the strict majority of the others (Cohen's 1960 κ, "
        f"intervals {methods(ann['kappa_ci_method'])}; percent agreement, "
        f"{plain(ann['agreement_ci_method'])} intervals that treat items as independent); pairs of annotators with Cohen's κ; categories with "
        "Fleiss' κ of the category against the rest."
    )
    sec.references += ["cohen1960", "fleiss1971"]
    return sec


build = builder(KEY, TITLE, APPLIES, audit, present)
