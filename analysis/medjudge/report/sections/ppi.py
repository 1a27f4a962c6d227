"""Judge-assisted estimate: the rate of each gold category on the headline dimension from the
expert-labelled items plus every judge's verdicts on the unlabelled ones (prediction-powered
inference, :func:`medjudge.analyses.judge_assisted.judge_assisted_estimate`), beside the
expert-only and the (biased) judge-only estimates.

When it runs
------------
PPI is valid only when the labelled items are a random sample of all items. The section
therefore runs only when the items without gold are *unlabelled* — no expert rated them (and
no gold was supplied for them). Items that experts rated but that have no gold (a split vote,
no strict majority) are a selected set: the hard, ambiguous cases. Treating them as the
unlabelled part would estimate the gold rate over items where gold does not exist, with a
labelled part that is not representative, so the section then says so in one sentence instead
of showing numbers (the CLI ``medjudge ppi`` still computes them, with the assumption printed).

Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...analyses.evaluation import cluster_ids
from ...analyses.judge_assisted import judge_assisted_estimate
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import fmt_ci, fmt_int, fmt_num
from . import Finding, Section, builder, md
from ._results import judge_order, why_no_gold, why_no_judges

KEY = "ppi"
TITLE = "Judge-assisted estimate"

METHODS = ["classical", "naive", "ppi", "ppi++"]
LABELS = {
    "classical": "experts only",
    "naive": "judge only (biased)",
    "ppi": "PPI (λ = 1)",
    "ppi++": "PPI++ (power-tuned)",
    "rogan-gladen": "Rogan–Gladen",
    "ppi++ stratified": "PPI++ stratified",
}


def missing_gold(ctx: ReportContext, dimension: str) -> dict[str, int]:
    """Items of ``dimension`` without gold, split into *unlabelled* (no expert rating and no
    supplied gold) and *disputed* (rated by experts, yet without gold: no strict majority)."""
    s = ctx.study
    g = s.gold(dimension)
    no_gold = ~np.isfinite(g.codes)
    if s.experts:
        m = s.matrix(dimension, role="expert").values
        rated = np.isfinite(m).any(axis=1)
    else:
        rated = np.zeros(len(no_gold), dtype=bool)
    return {
        "items": len(no_gold),
        "labelled": int((~no_gold).sum()),
        "unlabelled": int((no_gold & ~rated).sum()),
        "disputed": int((no_gold & rated).sum()),
    }


def why_not(ctx: ReportContext) -> str | None:
    """One sentence why a judge-assisted estimate is not shown (``None``: it is)."""
    s, head = ctx.study, ctx.headline
    if not s.judges:
        return why_no_judges(ctx)
    if not s.scales[head].is_categorical:
        return (
            f"“{head}” is on an {s.scales[head].level} scale; this section estimates rates of gold "
            "categories"
        )
    why = why_no_gold(ctx, head)
    if why:
        return why
    c = missing_gold(ctx, head)
    if c["disputed"]:
        return (
            f"the {fmt_int(c['disputed'])} items of “{head}” without gold were rated by "
            f"{ctx.names_of('expert')} who did not agree (no strict majority): they are the "
            "ambiguous cases, not a random sample of unlabelled items, so prediction-powered "
            "inference (which assumes the labelled items are a random sample) would not be valid"
        )
    if c["unlabelled"] == 0:
        return (
            f"every item of “{head}” has gold, so a {ctx.name('judge')} adds no "
            "information to the expert-only estimate; the section applies when some items have no "
            "gold label because no one labelled them"
        )
    return None


def result(ctx: ReportContext) -> Any:
    """The analysis on the headline dimension, computed once per report."""
    return ctx.get(
        "ppi",
        lambda: judge_assisted_estimate(
            ctx.study, ctx.headline, cluster=cluster_ids(ctx.study)[1], seed=ctx.seed,
            confidence_level=ctx.confidence_level,
        ),
    )  # fmt: skip


def estimates_table(res: Any, order: list[str]) -> pd.DataFrame:
    """Target × judge × method display table (judges in the report's order)."""
    t = res.estimates(METHODS)
    rank = {j: i for i, j in enumerate(order)}
    t = t.assign(
        _j=t["judge"].map(lambda j: rank.get(j, -1)),
        _m=t["method"].map(METHODS.index),
    ).sort_values(["target", "_j", "_m"], kind="stable")
    return pd.DataFrame(
        {
            "category": t["target"].astype(str).to_numpy(),
            "judge": [
                "–" if m == "classical" else str(j)
                for j, m in zip(t["judge"], t["method"], strict=True)
            ],
            "method": [LABELS[m] for m in t["method"]],
            "estimate": [fmt_num(v, 3) for v in t["estimate"]],
            "interval": [fmt_ci(a, b, 3) for a, b in zip(t["ci_low"], t["ci_high"], strict=True)],
            "effective labels": [fmt_num(v, 0) for v in t["effective_n"]],
        }
    ).drop_duplicates(["category", "judge", "method"])


def figure(res: Any, order: list[str], level: str):
    """Intervals of experts-only, judge-only, PPI and PPI++ per judge for the first category."""
    import matplotlib.pyplot as plt

    t = res.estimates(METHODS)
    target = t["target"].iloc[0]
    t = t[t["target"] == target]
    cls = t[t["method"] == "classical"].head(1)
    rows = [cls] + [t[(t["judge"] == j) & (t["method"] != "classical")] for j in order]
    t = pd.concat(rows).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(6.5, 0.32 * len(t) + 1.0))
    colors = {"classical": "0.2", "naive": "tab:red", "ppi": "tab:blue", "ppi++": "tab:green"}
    ypos = np.arange(len(t))[::-1]
    for yv, r in zip(ypos, t.itertuples(), strict=True):
        ax.plot([r.ci_low, r.ci_high], [yv, yv], color=colors[r.method], lw=2)
        ax.plot([r.estimate], [yv], "o", color=colors[r.method], ms=4)
    labels = [
        LABELS[r.method] if r.method == "classical" else f"{r.judge}: {LABELS[r.method]}"
        for r in t.itertuples()
    ]
    ax.set_yticks(ypos, labels)
    ax.set_xlabel(f"rate of gold = {target} ({level} interval)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return at_page_width(fig)


APPLIES = why_not


def present(ctx: ReportContext, res: Any) -> Section:
    head, lvl = ctx.headline, ctx.level
    order = [j for j in judge_order(ctx) if j in set(res.rows["judge"])] or sorted(
        set(res.rows["judge"]) - {"(experts only)"}
    )
    c = missing_gold(ctx, head)
    sec = Section(KEY, TITLE)
    sec.text(
        f"{fmt_int(c['labelled'])} of {fmt_int(c['items'])} items of *{md(head)}* have gold; no "
        f"{md(ctx.name('expert'))} rated the other {fmt_int(c['unlabelled'])}. Prediction-powered "
        "inference (PPI; Angelopoulos et al. 2023) uses every "
        f"{md(ctx.name('judge'))}'s verdicts on all items and corrects their bias with the "
        "labelled items; PPI++ tunes how much the judge is trusted (Angelopoulos, Duchi & Zrnic "
        f"2023). @tbl-ppi gives the rate of each gold category with {lvl} intervals beside the "
        "experts-only estimate and the judge-only one (biased: its interval ignores the bias); "
        "*effective labels* is the number of expert labels the experts-only interval would "
        "need to be as narrow. **Assumption:** the labelled items are a random sample of all "
        "items; the data do not record how they were chosen, and if they were not chosen at "
        "random every estimate here — the experts-only one included — may be biased."
    )
    sec.table(
        "tbl-ppi",
        f"*{md(head)}*: rate of each gold category, experts only and judge-assisted "
        f"({lvl} intervals).",
        estimates_table(res, order),
    )
    sec.figure(
        "fig-ppi",
        f"*{md(head)}*: experts-only, judge-only and judge-assisted intervals ({lvl}).",
        lambda: figure(res, order, lvl),
    )
    pp = res.estimates("ppi++")
    if len(pp):
        best = pp.loc[pp["effective_n"].idxmax()]
        sec.findings.append(
            Finding(
                f"With {md(best['judge'])}'s verdicts on the {fmt_int(c['unlabelled'])} "
                f"unlabelled items, the {fmt_int(best['n_labelled'])} expert labels of "
                f"*{md(head)}* are worth {fmt_num(best['effective_n'], 0)} (PPI++ rate of "
                f"{md(best['target'])}: {fmt_num(best['estimate'], 3)}, {lvl} CI "
                f"{fmt_ci(best['ci_low'], best['ci_high'], 3)}).",
                caveat="valid only if the labelled items are a random sample of all items",
                weight=5,
            )
        )
    st = res.settings
    sec.methods.append(
        "Judge-assisted estimates: PPI and power-tuned PPI++ for a mean (Angelopoulos et al. "
        "2023; Angelopoulos, Duchi & Zrnic 2023), Student-t intervals with Satterthwaite degrees "
        f"of freedom{', cluster-robust by ' + md(st['cluster']) if st.get('cluster') else ''}; "
        "effective labels = labelled n × (experts-only width / PPI++ width)²."
    )
    sec.references += ["angelopoulos2023", "angelopoulos2023ppipp"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
