"""Bias suite: self-preference, length, style and position effects of each judge, each an
estimate with an interval and a test, Holm-adjusted over the whole suite; effects the study
cannot support are named with the reason (:func:`medjudge.analyses.bias_suite.bias_suite`).

Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...analyses.bias_suite import POSITION_ESTIMANDS, bias_suite
from ..context import ReportContext
from ..escape import prose
from ..tables import fmt_ci, fmt_int, fmt_num, fmt_p
from . import Finding, Section, builder, md
from ._results import judge_order, on_headline, why_no_gold, why_no_judges

KEY = "bias-suite"
TITLE = "Bias suite"

EFFECTS = {
    "self_preference": ("self-preference", "accuracy when the gold answer is the judge's own "
                        "model family's minus when it is the other model's"),
    "length": ("length", "log-odds of a correct verdict per unit of the (tanh-scaled) length "
               "advantage of the gold-preferred answer"),
    "style": ("style", "the same model with the named style attribute instead of length"),
    "position": ("position", "rate of choosing the first-shown answer minus the gold's rate"),
}  # fmt: skip


def _estimand_words(res: Any, effect: str) -> str:
    """What the rows of ``effect`` estimate: the rows' own ``estimand`` (position: one per
    design, both named when the table holds both), else the effect's description."""
    t = res.effects
    if "estimand" in t.columns:
        own = list(dict.fromkeys(t.loc[t["effect"] == effect, "estimand"].dropna().astype(str)))
        if len(own) == 1:
            return md(own[0])
        if own:
            who = {
                POSITION_ESTIMANDS["swap"]: "judges seen in both orders",
                POSITION_ESTIMANDS["one_order"]: "judges seen in one order",
            }
            return "; ".join(md(e) + (f" ({who[e]})" if e in who else "") for e in own)
    return EFFECTS[effect][1]


def why_not(ctx: ReportContext) -> str | None:
    s, head = ctx.study, ctx.headline
    if not s.judges:
        return why_no_judges(ctx)
    if not s.scales[head].is_categorical:
        return f"“{head}” is not a choice between answers; the suite needs pairwise verdicts"
    return why_no_gold(ctx, head)


def result(ctx: ReportContext) -> Any:
    return on_headline(ctx, "bias_suite", bias_suite, alpha=ctx.alpha)


def effects_table(res: Any, order: list[str]) -> pd.DataFrame:
    t = res.effects
    rank = {j: i for i, j in enumerate(order)}
    eff = list(EFFECTS)
    t = t.assign(
        _e=t["effect"].map(lambda e: eff.index(e) if e in eff else len(eff)),
        _j=t["judge"].map(lambda j: rank.get(j, len(rank))),
    ).sort_values(["_e", "_j", "judge"], kind="stable")
    est = t["estimand"] if "estimand" in t.columns else pd.Series(None, index=t.index)
    several = est.dropna().nunique() > 1  # two position estimands: each row names its own
    return pd.DataFrame(
        {
            "effect": [
                EFFECTS.get(e, (str(e).replace("_", " "),))[0]
                + (f" ({m})" if several and isinstance(m, str) else "")
                for e, m in zip(t["effect"], est, strict=True)
            ],
            "judge": t["judge"].astype(str).to_numpy(),
            "estimate": [fmt_num(v, 3) for v in t["estimate"]],
            "interval": [fmt_ci(a, b, 3) for a, b in zip(t["ci_low"], t["ci_high"], strict=True)],
            "p": [fmt_p(v) for v in t["pvalue"]],
            "p (Holm)": [fmt_p(v) for v in t["p_holm"]],
            "n": [fmt_int(v) for v in t["n"]],
        }
    )


APPLIES = why_not


def present(ctx: ReportContext, res: Any) -> Section:
    st, lvl, head = res.settings, ctx.level, ctx.headline
    adj = md(st["adjustment"])
    sec = Section(KEY, TITLE)
    if res.effects.empty:
        reasons = "; ".join(f"{EFFECTS.get(k, (k,))[0]}: {v}" for k, v in res.notes.items())
        return Section.not_applicable(KEY, TITLE, f"no bias effect can be estimated ({reasons})")
    present = [e for e in EFFECTS if e in set(res.effects["effect"])]
    sec.text(
        f"Each {md(ctx.name('judge'))}'s biases on *{md(head)}* tested together: "
        + "; ".join(f"*{EFFECTS[e][0]}* — {_estimand_words(res, e)}" for e in present)
        + f". {lvl} intervals; the p-values are {adj}-adjusted over all "
        f"{st['family_size']} tests of the suite (@tbl-bias-suite)."
    )
    if res.notes:
        sec.text(
            "Not tested: "
            + "; ".join(f"{EFFECTS.get(k, (k,))[0]} — {prose(v)}" for k, v in res.notes.items())
            + "."
        )
    sec.table(
        "tbl-bias-suite",
        f"Bias effects on *{md(head)}* ({lvl} intervals; {adj} over the {st['family_size']} "
        "tests).",
        effects_table(res, judge_order(ctx)),
    )
    t = res.effects
    sig = t[t["p_holm"] < res.alpha]
    if len(sig):
        by_effect = sig.groupby("effect", sort=False).size()
        top = sig.loc[sig["estimate"].abs().idxmax()]
        sec.findings.append(
            Finding(
                f"Bias suite: {fmt_int(len(sig))} of {st['family_size']} bias tests are significant "
                f"after {adj} adjustment (α = {res.alpha:g}; "
                + ", ".join(f"{EFFECTS.get(e, (e,))[0]} {n}" for e, n in by_effect.items())
                + f"); the largest is {md(top['judge'])}'s {EFFECTS.get(top['effect'], (top['effect'],))[0]} "
                f"effect {fmt_num(top['estimate'], 3)} ({lvl} CI "
                f"{fmt_ci(top['ci_low'], top['ci_high'], 3)}).",
                weight=3,
            )
        )
    else:
        sec.findings.append(
            Finding(
                f"Bias suite: none of the {st['family_size']} bias tests is significant after "
                f"{adj} adjustment (α = {res.alpha:g}).",
                weight=1,
            )
        )
    methods = t.groupby("effect", sort=False)["method"].agg(lambda m: "; ".join(dict.fromkeys(m)))
    sec.methods.append(
        "Bias suite ("
        + md(st["cluster"])
        + "): "
        + "; ".join(f"{EFFECTS.get(e, (e,))[0]} — {md(m)}" for e, m in methods.items())
        # a method name the analysis records (plain text, not data: shown as written)
        + f"; {st['adjustment_cited']} over the {st['family_size']} tests of the suite."
    )
    sec.references += ["holm1979", "dubois2024", "panickssery2024", "tango1998"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
