"""Accuracy per item subgroup (any declared item attribute; ``--by``)."""

from __future__ import annotations

import pandas as pd

from ..context import ReportContext
from . import Finding, Section, builder, md
from ._audit_text import methods
from ._results import SubgroupAccuracy, judge_order, subgroups, why_no_judge_evaluation

KEY = "subgroups"
TITLE = "Accuracy by subgroup"

#: Heatmaps show at most this many judges (the best by the headline metric) and columns.
MAX_ROWS = 30
MAX_COLS = 20


def no_attribute_reason(ctx: ReportContext) -> str:
    """Why there is no subgroup breakdown, naming what the items do carry.

    Plain text (a "Not run" reason is escaped once where it is shown, by
    :meth:`Section.not_applicable`): names are not markdown-escaped here, or the reader would
    see ``organ\\_system``.
    """
    from ..context import SUBGROUP_ATTRIBUTES

    have = [str(c) for c in ctx.study.items.columns if c != "item"]
    if ctx.by:
        return (
            "none of the attributes asked for (--by "
            + ", ".join(str(b) for b in ctx.by)
            + ") has two or more values"
        )
    from ...analyses.subgroups import MAX_SUBGROUPS

    return (
        "no item attribute is a subgroup: none of "
        + ", ".join(SUBGROUP_ATTRIBUTES)
        + f" is present, and no other attribute has 2 to {MAX_SUBGROUPS} values with 5 or more "
        "items each"
        + (
            " (the items carry: "
            + ", ".join(have[:8])
            + (", …" if len(have) > 8 else "")
            + "; choose one with --by)"
            if have
            else ""
        )  # fmt: skip
    )


def headline_cells(ctx: ReportContext, attribute: str) -> pd.DataFrame:
    """Accuracy per judge x ``attribute`` on the headline dimension (not pooled)."""
    from ...analyses.subgroups import subgroup_accuracy
    from ._results import stacked

    t = ctx.get(
        f"subgroups-headline:{attribute}",
        lambda: subgroup_accuracy(
            ctx.study,
            (attribute, "dimension"),
            policy=ctx.policy,
            _stacked=stacked(ctx),
            confidence_level=ctx.confidence_level,
        ),
    )
    return t[t["dimension"] == ctx.headline]


def weakest_finding(ctx: ReportContext, attr: str, judge: str) -> list[Finding]:
    """The best judge's weakest subgroup on the headline dimension — only when its accuracy
    differs across the subgroups (:meth:`Heterogeneity.weakest_finding`)."""
    from ._results import heterogeneity

    return heterogeneity(ctx, attr).weakest_finding(
        headline_cells(ctx, attr), judge, ctx.headline, markup=ctx.markup
    )


def why_no_attribute(ctx: ReportContext) -> str | None:
    return None if ctx.subgroup_attributes else no_attribute_reason(ctx)


APPLIES = (why_no_judge_evaluation, why_no_attribute)


def result(ctx: ReportContext) -> list[SubgroupAccuracy]:
    return [subgroups(ctx, a) for a in ctx.subgroup_attributes]


def present(ctx: ReportContext, tables: list[SubgroupAccuracy]) -> Section:
    attrs = ctx.subgroup_attributes
    order = judge_order(ctx)
    rows = order[:MAX_ROWS]
    sec = Section(KEY, TITLE)
    lvl = ctx.level
    for attr, tab in zip(attrs, tables, strict=True):
        name = ctx.label(attr)
        n_groups = tab[attr].nunique()
        cols = None
        if n_groups > MAX_COLS:
            sizes = tab.groupby(attr)["n"].max().sort_values(ascending=False, kind="stable")
            cols = list(sizes.index[:MAX_COLS])
        label = f"fig-subgroups-{attr}".replace("_", "-")
        cl = str(tab["cluster"].iloc[0])
        together = (
            "items treated as independent"
            if cl in ("none", "None", "", "nan")
            else f"verdicts resampled and tested together by {md(cl)}"
        )
        sec.text(
            f"@{label} breaks the accuracy down by *{md(name)}*, pooling the dimensions "
            f"({lvl} intervals; {together}; n counts "
            f"{md(tab['n_unit'].iloc[0])}). Hatched cells with the estimate in brackets "
            "are *uncertain*: too few verdicts or too wide an interval to be read on their own."
            + (
                f" Only the {MAX_ROWS} most accurate judges are shown."
                if len(rows) < len(order)
                else ""
            )
            + (f" The {MAX_COLS} largest of {n_groups} groups are shown." if cols else "")
        )
        where = {"judge": rows, **({attr: cols} if cols is not None else {})}
        sec.figure(
            label,
            f"Accuracy per judge and {md(name)} (all dimensions pooled); hatched: uncertain cell.",
            lambda tab=tab, where=where: tab.plot("heatmap", where=where, row_order=rows).figure,
        )
        sec.findings += weakest_finding(ctx, attr, order[0])
    tab0 = subgroups(ctx, attrs[0])
    sec.methods.append(
        "Subgroup accuracies pool the dimensions of each item ("
        + methods(tab0["ci_method"])  # small cells: the pooled correlation (subgroup_intervals)
        + f" intervals, verdicts resampled together by {md(tab0['cluster'].iloc[0])}). "
        f"Subgroups by: {', '.join(md(ctx.label(a)) for a in attrs)}."
    )
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
