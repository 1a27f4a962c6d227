"""Judges against gold: accuracy, Cohen's (weighted) kappa, per-class recall and precision,
ordinal under-/over-calling and the confusion matrices, with the trivial baselines beside every
judge and a paired test against the best of them (:func:`medjudge.analyses.judge_vs_gold`).

Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from medjudge.stats.resampling import Bootstrap

from ...analyses.judge_vs_gold import judge_vs_gold
from ..escape import prose
from ..tables import fmt_ci
from . import Finding, Section, builder, md
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


def baseline_findings(ctx: Any, res: Any, dimension: str) -> list[Finding]:
    """How many judges beat the best trivial baseline and how many are below it, from the
    paired tests of each judge against it (Holm over the judges of the dimension)."""
    tests = res.wide("baseline_tests", dimension)
    if tests.empty:
        return []
    judges = ctx.names_of("judge")
    n_beat, n = int(tests["beats_baseline"].sum()), len(tests)
    a = float(res.settings["alpha"])  # the α "beats_baseline" was decided at
    adj = md(res.settings.get("adjustment", ""))
    below = tests[(tests["difference"] < 0) & (tests["p_holm"] < a)]
    own_items = bool(res.settings.get("not_assigned", {}).get(dimension))
    base = tests.loc[tests["baseline_accuracy"].index[0]]
    test = _test_names(tests)
    where = (
        "each judge scored with it on the items it was given"
        if own_items
        else f"right on {_num(base['baseline_accuracy'])} of the items"
    )
    lead = (
        f"On *{md(dimension)}*, {n_beat} of {n} {md(judges)} beat the best constant answer "
        f"({md(base['baseline'])}, {where}; {test}, {adj} over {n} tests, α = {a:g})"
    )
    tail = (
        f"; {len(below)} {'is' if len(below) == 1 else 'are'} significantly *below* it"
        if len(below)
        else ""
    )
    if n_beat == 0:
        none = (
            f"**No {md(ctx.name('judge'))} is shown to beat the best constant answer** on "
            f"*{md(dimension)}* ({md(base['baseline'])}, {where}; {test}, {adj} over {n} tests, "
            f"α = {a:g})"
        )
        return [
            Finding(
                none + tail + ".",
                caveat="a leaderboard of judges that do not beat a constant answer ranks noise",
                weight=11,
            )
        ]
    top = tests.loc[tests["difference"].idxmax()]
    text = (
        f"{lead}{tail}; the largest gain is {md(top['judge'])}'s +{_num(top['difference'])} "
        f"({ctx.level} CI {_ci(top['ci_low'], top['ci_high'])})."
    )
    return [Finding(text, weight=4)]


def _test_names(tests: Any) -> str:
    """The test(s) the table ran, as recorded in its rows (e.g. "McNemar mid-p")."""
    names = list(dict.fromkeys(str(t) for t in tests["test"]))
    return " / ".join(md(t) for t in names) + (" tests" if len(names) == 1 else "")


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
            sec.findings.extend(baseline_findings(ctx, res, d))
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
        + _test_names(res.wide("baseline_tests"))
        + f", {md(s.get('adjustment', ''))}-adjusted across judges at alpha {s['alpha']:g}."
    )
    sec.references += ["cohen1960", "cohen1968", "efron1987", "wilson1927", "kish1965",
                       "fagerland2013", "durkalski2003", "holm1979"]  # fmt: skip
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
