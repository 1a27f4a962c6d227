"""Annotator audit: each expert against the others, pairwise κ, agreement per category."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...analyses.audit import MIN_ITEMS
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import est_ci_column, fmt_ci, fmt_int, fmt_num
from . import Finding, Section, builder, md
from ._audit_text import methods, n_items, one_level
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


def least_in_line(au: Any) -> tuple[pd.Series, int, list[pd.Series]] | None:
    """The annotator x dimension row with the lowest κ against the others' majority, among rows
    resting on at least :data:`MIN_ITEMS` items whose κ is informative; how many rows had fewer
    items; and the rows whose κ is *degenerate* (a zero-width interval: every resample gives
    the same κ, as when the others' majority or the annotator's labels hardly vary — the
    prevalence paradox, κ near 0 at high raw agreement). A degenerate κ says nothing about
    who is out of line, so those rows are listed, not ranked."""
    rows, small, flat = [], 0, []
    for dim, d in au.dimensions.items():
        a = d.get("annotators")
        if a is None or len(a) < 2:
            continue
        k = a["kappa"].astype(float)
        width = a["kappa_high"].astype(float) - a["kappa_low"].astype(float)
        big = a["n"] >= MIN_ITEMS
        small += int((~big).sum())
        ok = a[big & np.isfinite(k) & (width > 0)]
        degenerate = a[big & np.isfinite(k) & ~(width > 0)]
        rows += [pd.concat([r, pd.Series({"dimension": dim})]) for _, r in ok.iterrows()]
        flat += [pd.concat([r, pd.Series({"dimension": dim})]) for _, r in degenerate.iterrows()]
    if not rows and not flat:
        return None
    rows.sort(key=lambda r: (float(r["kappa"]), str(r["dimension"]), str(r["rater"])))
    return (rows[0] if rows else None), small, flat


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
    low = least_in_line(au)
    if low is not None:
        r, small, flat = low
        text = ""
        if r is not None:
            lvl = one_level([r["level"]])
            text = (
                f"The {md(expert)} least in line with the others is **{md(r['rater'])}** on "
                f"*{md(r['dimension'])}*: Cohen's κ with the others' majority "
                f"{fmt_num(r['kappa'], 3)} ({lvl} CI "
                f"{fmt_ci(r['kappa_low'], r['kappa_high'], 3)}, {n_items(r['n'])}; "
                f"{md(r['kappa_ci_method'])}); raw agreement {fmt_num(r['agreement'], 3)}."
            )
        if flat:
            names = ", ".join(f"{md(f['rater'])} ({md(f['dimension'])})" for f in flat[:5])
            agree = [float(f["agreement"]) for f in flat]
            text += (
                f" κ is not informative for {fmt_int(len(flat))} {md(expert)} × dimension "
                f"row{'s' if len(flat) != 1 else ''} ({names}{', …' if len(flat) > 5 else ''}): "
                "its interval has zero width, as when the others' majority or the "
                f"{md(expert)}'s labels hardly vary (raw agreement "
                f"{fmt_num(min(agree), 3)}–{fmt_num(max(agree), 3)}); "
                + ("they are not ranked." if r is not None else "no one is named least in line.")
            )
        if small:
            text += (
                f" {fmt_int(small)} {md(expert)} × dimension rows rest on fewer than "
                f"{MIN_ITEMS} items and were not ranked."
            )
        sec.findings.append(Finding(text.strip(), weight=4))
    sec.methods.append(
        f"Each {md(expert)} was compared with the strict majority of the others (Cohen's 1960 κ, "
        f"intervals {methods(ann['kappa_ci_method'])}; percent agreement, "
        f"{plain(ann['agreement_ci_method'])} intervals that treat items as independent); pairs of annotators with Cohen's κ; categories with "
        "Fleiss' κ of the category against the rest."
    )
    sec.references += ["cohen1960", "fleiss1971"]
    return sec


build = builder(KEY, TITLE, APPLIES, audit, present)
