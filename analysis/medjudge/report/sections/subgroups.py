"""Accuracy per item subgroup (any declared item attribute; ``--by``)."""

from __future__ import annotations

import pandas as pd

from ..context import ReportContext
from ..figures.matrices import organ_heatmap
from ..tables import fmt_ci, fmt_int, fmt_num
from . import Finding, Section, md
from ._results import judge_order, subgroups, why_no_judge_evaluation

KEY = "subgroups"
TITLE = "Accuracy by subgroup"

#: Heatmaps show at most this many judges (the best by the headline metric) and columns.
MAX_ROWS = 30
MAX_COLS = 20


def subgroup_frame(table: pd.DataFrame, attribute: str) -> pd.DataFrame:
    """``judge, <attribute>, estimate, n, ci_low, ci_high, uncertain`` for the heatmap."""
    out = table.rename(columns={"accuracy": "estimate"})
    cols = ["judge", attribute, "estimate", "n", "ci_low", "ci_high"]
    out = out[cols + (["small"] if "small" in out else [])].copy()
    if "small" in out:
        out = out.rename(columns={"small": "uncertain"})
    return out.reset_index(drop=True)


def weakest_cell(table: pd.DataFrame, attribute: str, judge: str) -> pd.Series | None:
    """The best judge's least accurate subgroup among cells that are not flagged small."""
    t = table[(table["judge"] == judge)]
    if "small" in t:
        t = t[~t["small"].astype(bool)]
    if t.empty:
        return None
    return t.sort_values(["accuracy", attribute], kind="stable").iloc[0]


def build(ctx: ReportContext) -> Section:
    why = why_no_judge_evaluation(ctx)
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    attrs = ctx.subgroup_attributes
    if not attrs:
        return Section.not_applicable(
            KEY,
            TITLE,
            "the items carry no subgroup attribute with two or more values"
            + (" among those asked for (--by)" if ctx.by else " (e.g. organ_system)"),
        )
    order = judge_order(ctx)
    rows = order[:MAX_ROWS]
    sec = Section(KEY, TITLE)
    lvl = ctx.level
    for attr in attrs:
        tab = subgroups(ctx, attr)
        name = ctx.label(attr)
        n_groups = tab[attr].nunique()
        cols = None
        if n_groups > MAX_COLS:
            sizes = tab.groupby(attr)["n"].max().sort_values(ascending=False, kind="stable")
            cols = list(sizes.index[:MAX_COLS])
        label = f"fig-subgroups-{attr}".replace("_", "-")
        sec.text(
            f"@{label} breaks the accuracy down by *{md(name)}*, pooling the dimensions "
            f"({lvl} intervals clustered by item). Hatched cells with the estimate in brackets "
            "are *uncertain*: too few verdicts or too wide an interval to be read on their own."
            + (
                f" Only the {MAX_ROWS} most accurate judges are shown."
                if len(rows) < len(order)
                else ""
            )
            + (f" The {MAX_COLS} largest of {n_groups} groups are shown." if cols else "")
        )
        frame = subgroup_frame(tab, attr)
        frame = frame[frame["judge"].isin(rows)]
        if cols is not None:
            frame = frame[frame[attr].isin(cols)]
        sec.figure(
            label,
            f"Accuracy per judge and {md(name)} (all dimensions pooled); hatched: uncertain cell.",
            lambda frame=frame, attr=attr: organ_heatmap(frame, col=attr, row_order=rows),
        )
        weak = weakest_cell(tab, attr, order[0])
        if weak is not None:
            sec.findings.append(
                Finding(
                    f"The best judge, **{md(order[0])}**, is least accurate on *{md(name)}* = "
                    f"{md(ctx.value_label(weak[attr]))}: {fmt_num(weak['accuracy'], 3)} ({lvl} CI "
                    f"{fmt_ci(weak['ci_low'], weak['ci_high'], 3)}, "
                    f"n = {fmt_int(weak['n'])}, all dimensions pooled).",
                    caveat="subgroup cells are small; read the interval, not the point",
                    weight=3,
                )
            )
    sec.methods.append(
        "Subgroup accuracies pool the dimensions of each item; their intervals are clustered by "
        f"item. Subgroups by: {', '.join(md(ctx.label(a)) for a in attrs)}."
    )
    return sec
