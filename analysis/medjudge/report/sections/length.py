"""Length (verbosity) bias: accuracy when the gold answer is the longer one minus when it is
the shorter one, per rater."""

from __future__ import annotations

import pandas as pd

from ...plots.forest import forest_plot
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import est_ci_column, family_size, fmt_int, fmt_num, fmt_p
from . import Finding, Section, md
from ._results import judge_order, length, why_no_judge_evaluation

KEY = "length"
TITLE = "Length bias"


def length_gap_frame(table: pd.DataFrame, dimension: str, order: list[str]) -> pd.DataFrame:
    """Forest frame of the accuracy gap per rater (judges in report order, then experts)."""
    t = table[table["dimension"] == dimension].copy()
    rank = {j: i for i, j in enumerate(order)}
    t["_o"] = [
        rank.get(r, len(rank) + 1) if role != "expert" else len(rank) + 2
        for r, role in zip(t["rater"], t["role"], strict=True)
    ]
    t = t.sort_values(["_o", "rater"], kind="stable")
    return pd.DataFrame(
        {
            "judge": [
                f"{r} (expert)" if role == "expert" else r
                for r, role in zip(t["rater"], t["role"], strict=True)
            ],
            "dimension": dimension,
            "estimate": t["length_gap"].to_numpy(float),
            "ci_low": t["gap_ci_low"].to_numpy(float),
            "ci_high": t["gap_ci_high"].to_numpy(float),
        }
    )


def length_bias_table(table: pd.DataFrame, dimension: str, order: list[str]) -> pd.DataFrame:
    """Longer-answer rate against the gold's and the accuracy gap, per rater (one dimension)."""
    frame = length_gap_frame(table, dimension, order)
    t = table[table["dimension"] == dimension].copy()
    key = [
        f"{r} (expert)" if role == "expert" else r
        for r, role in zip(t["rater"], t["role"], strict=True)
    ]
    t = t.assign(_k=key).set_index("_k").loc[frame["judge"]]
    return pd.DataFrame(
        {
            "rater": t["rater"].to_numpy(),
            "role": t["role"].to_numpy(),
            "picks longer": [fmt_num(v, 3) for v in t["rater_longer_rate"]],
            "gold longer": [fmt_num(v, 3) for v in t["gold_longer_rate"]],
            "accuracy gap [CI]": est_ci_column(t, "length_gap", "gap_ci_low", "gap_ci_high"),
            "p (gap, Holm)": [fmt_p(v) for v in t["gap_p_holm"]],
            "n": [fmt_int(v) for v in t["n"]],
        }
    )


def build(ctx: ReportContext) -> Section:
    why = why_no_judge_evaluation(ctx)
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    tab = length(ctx)
    head, lvl = ctx.headline, ctx.level
    if tab.empty or head not in set(tab["dimension"]):
        return Section.not_applicable(
            KEY, TITLE, "the items carry no answer lengths (answer1_len, answer2_len)"
        )
    order = judge_order(ctx)
    m = family_size(tab, "gap_pvalue")
    sec = Section(KEY, TITLE)
    sec.text(
        "On items whose answers differ in length, @fig-length-gap shows each rater's accuracy "
        "when the gold answer is the longer one minus its accuracy when the gold answer is the "
        "shorter one (Newcombe interval): a judge that favours longer answers gains on the "
        "first kind and loses on the second. @tbl-length adds how often each rater picks the "
        "longer answer against how often the gold does; the experts are shown for scale."
    )
    frame = length_gap_frame(tab, head, order)
    sec.figure(
        "fig-length-gap",
        f"Length bias on *{md(head)}*: accuracy gap (gold longer − gold shorter) with {lvl} "
        "intervals; dashed: no gap.",
        lambda: at_page_width(
            forest_plot(
                frame, baseline=0.0, baseline_label="no gap", judge_order=list(frame["judge"]),
                xlabel="accuracy gap (gold longer − gold shorter)",
            )
        ),
    )  # fmt: skip
    sec.table(
        "tbl-length",
        f"Length bias on *{md(head)}*: share choosing the longer answer (rater and gold on the "
        f"same items) and the accuracy gap (Holm over the {fmt_int(m)} rater × dimension tests).",
        length_bias_table(tab, head, order),
    )
    h = tab[(tab["dimension"] == head) & (tab["role"] != "expert")]
    n_sig = int((h["gap_p_holm"] < ctx.alpha).sum())
    sec.findings.append(
        Finding(
            f"{fmt_int(n_sig)} of {fmt_int(len(h))} judges show a length bias on *{md(head)}* "
            f"(accuracy gap, Holm over {fmt_int(m)} tests, α = {ctx.alpha:g}).",
            weight=3 if n_sig else 1,
        )
    )
    sec.methods.append(
        "Length bias: difference of two accuracies (gold answer longer vs shorter) with "
        "Newcombe's (1998) hybrid score interval; Holm over every rater and dimension."
    )
    sec.references += ["newcombe1998", "holm1979"]
    return sec
