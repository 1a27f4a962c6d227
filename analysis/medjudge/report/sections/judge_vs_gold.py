"""Judges against gold: accuracy, Cohen's (weighted) kappa, per-class recall and precision,
ordinal under-/over-calling and the confusion matrices, with the trivial baselines beside every
judge and a paired test against the best of them (:func:`medjudge.analyses.judge_vs_gold`).

Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from medjudge.stats.resampling import Bootstrap

from ...analyses.judge_vs_gold import judge_vs_gold
from ...analyses.judge_vs_gold_text import baseline_test_words
from ..escape import prose
from ..tables import fmt_ci
from . import Section, builder, md
from ._results import judge_order, why_no_gold, why_no_judges, why_too_few_items

KEY = "judge-vs-gold"
TITLE = "Judges against gold"

#: Confusion matrices shown in the report (headline dimension); all are in the JSON/CSV.
MAX_CONFUSION = 6


def _ci(low: float, high: float) -> str:
    return fmt_ci(low, high, 3)


def _num(x: float) -> str:
    return "–" if pd.isna(x) else f"{x:.3f}"


def result(ctx: Any) -> Any:
    """The analysis, computed once per report with the report's settings."""
    s = ctx.study
    cat = [d for d in s.dimensions if s.scales[d].is_categorical]
    return ctx.get(
        "judge_vs_gold",
        lambda: judge_vs_gold(
            s, policy=ctx.policy, dimensions=cat, bootstrap=Bootstrap(ctx.n_resamples, ctx.seed),
            confidence_level=ctx.confidence_level, alpha=ctx.alpha,
        ),
    )  # fmt: skip


def why_not(ctx: Any) -> str | None:
    s = ctx.study
    why = why_no_judges(ctx) or why_too_few_items(ctx)
    if why:
        return why
    if not any(s.scales[d].is_categorical for d in s.dimensions):
        return "no dimension has categorical labels (score dimensions are in the score section)"
    cat = [d for d in s.dimensions if s.scales[d].is_categorical]
    return why_no_gold(ctx, cat[0], minimum=0)


def _ordered(t: pd.DataFrame, order: list[str] | None) -> pd.DataFrame:
    """Rows of judges in ``order`` (the report's one judge ordering), baselines after them."""
    if not order:
        return t
    rank = {j: i for i, j in enumerate(order)}
    key = t["judge"].map(lambda j: rank.get(j, len(rank)))
    return t.assign(_o=key).sort_values("_o", kind="stable").drop(columns="_o")


def judge_order_of(ctx: Any, res: Any) -> list[str]:
    """The report's judge order (leaderboard on the headline dimension), else the result's."""
    try:
        order = judge_order(ctx)
    except (AttributeError, KeyError, ValueError):
        order = []
    have = list(res.settings["judges"])
    return [j for j in order if j in have] + [j for j in have if j not in order]


def metrics_table(res: Any, dimension: str, order: list[str] | None = None) -> pd.DataFrame:
    """Judge (and baseline) × metric display table of one dimension: estimate (interval)."""
    m = _ordered(res.wide("metrics", dimension), order)
    m = m.assign(
        cell=[
            f"{_num(e)} {_ci(a, b)}"
            for e, a, b in zip(m["estimate"], m["ci_low"], m["ci_high"], strict=True)
        ]
    )
    wide = m.pivot_table(
        index=["judge", "role"], columns="metric", values="cell", aggfunc="first", sort=False
    )
    return wide.reset_index()


APPLIES = why_not


def present(ctx: Any, res: Any) -> Section:
    lvl = ctx.level
    order = judge_order_of(ctx, res)
    dims = res.settings["dimensions"]
    head = getattr(ctx, "headline", None)
    head_dim = head if head in dims else dims[0]
    sec = Section(KEY, TITLE)
    w = res.settings["kappa_weights"]
    sec.text(
        f"Each {md(ctx.name('judge'))} against gold on every categorical dimension: accuracy, "
        "Cohen's kappa (weights named per dimension: "
        + ", ".join(f"*{md(d)}* {md(k)}" for d, k in w.items())
        + f"), and on ordinal dimensions the rates of calling too low and too high, with {lvl} "
        "intervals. The trivial baselines (the majority class; always-tie where the scale has a "
        "tie) are scored beside the judges on the same items."
    )
    for d in res.settings["dimensions"]:
        sec.text(prose(res.headline[d]))
        if res.settings["n_items_with_gold"].get(d, 0) < 2:
            continue
        sec.table(
            f"tbl-{KEY}-{len(sec.blocks)}",
            f"*{md(d)}*: judges and baselines against gold ({lvl} intervals).",
            metrics_table(res, d, order),
        )
        if d == head_dim:
            cls = _ordered(res.wide("classes", d).query("role == 'judge'"), order)
            if len(cls):
                cls = cls.assign(
                    cell=[
                        f"{_num(e)} {_ci(a, b)}"
                        for e, a, b in zip(
                            cls["estimate"], cls["ci_low"], cls["ci_high"], strict=True
                        )
                    ]
                )
                t = cls.pivot_table(
                    index=["judge", "class"],
                    columns="metric",
                    values="cell",
                    aggfunc="first",
                    sort=False,
                ).reset_index()
                sec.table(
                    f"tbl-{KEY}-{len(sec.blocks)}",
                    f"*{md(d)}*: per-class recall and precision ({lvl} intervals).",
                    t,
                )
            shown = order[:MAX_CONFUSION]
            for judge in shown:
                cm = res.confusion_matrix(d, judge).reset_index()
                sec.table(
                    f"tbl-{KEY}-{len(sec.blocks)}",
                    f"*{md(d)}*: confusion matrix of {md(judge)} (rows gold, columns verdict).",
                    cm.astype(str),
                )
            if len(res.settings["judges"]) > MAX_CONFUSION:
                sec.text(
                    f"Confusion matrices of the other {len(res.settings['judges']) - MAX_CONFUSION} "
                    "judges and of the other dimensions: `compare --json` and `run` (confusion.csv)."
                )
        if d == head_dim:
            sec.findings += res.findings(d, names=ctx.names_of, markup=ctx.markup)
    s = res.settings
    met = res.wide("metrics")

    def recorded(metric: str) -> str:
        return " / ".join(
            md(m) for m in dict.fromkeys(met.loc[met["metric"] == metric, "ci_method"].astype(str))
        )

    rates = [m for m in ("too_low", "too_high") if m in set(met["metric"])]
    sec.methods.append(
        "Kappa against gold: Cohen (1960; weighted, Cohen 1968), "
        + (
            "items without a usable verdict left out"
            if ctx.policy == "exclude"
            else "an invalid verdict being a category of its own"
        )
        + f"; {lvl} {recorded('kappa')} intervals (clusters: {md(s['cluster'])}). Accuracy: "
        + f"{recorded('accuracy')} intervals"
        + (f"; the too-low/too-high rates: {recorded(rates[0])} intervals" if rates else "")
        + ". Each judge against the best baseline on the items it was given: "
        + baseline_test_words(res.wide("baseline_tests"), ctx.markup)
        + f", {md(s.get('adjustment', ''))}-adjusted across judges at alpha {s['alpha']:g}."
    )
    sec.references += ["cohen1960", "cohen1968", "efron1987", "wilson1927", "kish1965",
                       "fagerland2013", "durkalski2003", "holm1979"]  # fmt: skip
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
