"""Answer-model rankings: Bradley–Terry strengths of the answer models by the experts' gold and
by each judge, with cluster-bootstrap intervals and rank sets, and how closely each judge's
ranking reproduces the experts' (Kendall's tau with its interval; swapped pairs) — present only
when the study names the answer models of each item (mapping key ``models``).

Every number comes from :func:`medjudge.analyses.models.answer_model_ranking`.
Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...analyses.models import EXPERTS, answer_model_ranking
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import fmt_ci, fmt_int, fmt_num
from . import Section, builder, md
from ._results import judge_order, on_headline

KEY = "models"
TITLE = "Answer-model rankings"

#: Bootstrap resamples of the ranking (the report's ``n_resamples``, but at least this many,
#: as the analysis requires).
MIN_RESAMPLES = 50


def why_not(ctx: ReportContext) -> str | None:
    """One sentence why the section does not apply (``None``: it does)."""
    s = ctx.study
    if len(s.answer_models) != 2:
        return (
            "the study does not name the two answer models of each item (the mapping key "
            "“models” names the two item columns that hold them)"
        )
    if not s.scales[ctx.headline].is_categorical:
        return f"“{ctx.headline}” is not a preference between two answers"
    return None


def result(ctx: ReportContext) -> Any:
    return on_headline(ctx, "models", answer_model_ranking, MIN_RESAMPLES)


def source_order(ctx: ReportContext, res: Any) -> list[str]:
    """Experts first, then the judges in the report's one order."""
    have = list(dict.fromkeys(res.strengths["source"]))
    judges = [j for j in judge_order(ctx) if j in have]
    return (
        ([EXPERTS] if EXPERTS in have else [])
        + judges
        + [s for s in have if s != EXPERTS and s not in judges]
    )


def model_order(res: Any) -> list[str]:
    """Models by the experts' strength (else the first source's), strongest first."""
    t = res.strengths
    ref = t[t["source"] == EXPERTS] if (t["source"] == EXPERTS).any() else t
    return ref.groupby("model")["strength"].mean().sort_values(ascending=False).index.tolist()


def strengths_table(res: Any, sources: list[str], models: list[str]) -> pd.DataFrame:
    """Model × source: strength with interval and rank set (one column per source)."""
    t = res.strengths.set_index(["source", "model"])
    out: dict[str, list[str]] = {"model": list(models)}
    for src in sources:
        cells = []
        for m in models:
            if (src, m) not in t.index:
                cells.append("–")
                continue
            r = t.loc[(src, m)]
            ranks = (
                f"{int(r['rank_low'])}–{int(r['rank_high'])}"
                if r["rank_low"] != r["rank_high"]
                else f"{int(r['rank_low'])}"
            )
            cells.append(
                f"{fmt_num(r['strength'], 2)} {fmt_ci(r['ci_low'], r['ci_high'], 2)}; rank {ranks}"
            )
        out[src] = cells
    return pd.DataFrame(out)


def correlation_table(res: Any, judges: list[str]) -> pd.DataFrame:
    c = res.correlations.set_index("judge").reindex(
        [j for j in judges if j in set(res.correlations["judge"])]
    )
    return pd.DataFrame(
        {
            "judge": c.index.astype(str),
            "Kendall τ": [fmt_num(v, 2) for v in c["kendall_tau"]],
            "interval": [fmt_ci(a, b, 2) for a, b in zip(c["ci_low"], c["ci_high"], strict=True)],
            "joint interval": [
                fmt_ci(a, b, 2)
                for a, b in zip(c["simultaneous_ci_low"], c["simultaneous_ci_high"], strict=True)
            ],
            "Spearman ρ": [fmt_num(v, 2) for v in c["spearman_rho"]],
            "swapped pairs": [
                f"{int(s)} of {int(p)}" for s, p in zip(c["swapped_pairs"], c["pairs"], strict=True)
            ],
            "significantly swapped": [fmt_int(v) for v in c["swapped_significant"]],
            "P(closest)": [fmt_num(v, 2) for v in c["p_best"]],
        }
    )


def figure(res: Any, sources: list[str], models: list[str]):
    """Strengths with intervals, one marker per source, models strongest at the top."""
    import matplotlib.pyplot as plt

    t = res.strengths
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(models) + 1.4))
    step = 0.8 / max(len(sources), 1)
    ypos = np.arange(len(models))[::-1]
    for k, src in enumerate(sources):
        s = t[t["source"] == src].set_index("model").reindex(models)
        y = ypos + 0.4 - step * (k + 0.5)
        ax.errorbar(
            s["strength"], y,
            xerr=[s["strength"] - s["ci_low"], s["ci_high"] - s["strength"]],
            fmt="o", ms=4, capsize=2, label=src,
        )  # fmt: skip
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.set_yticks(ypos, models)
    ax.set_xlabel("Bradley–Terry strength (log scale, mean 0)")
    ax.legend(fontsize=8, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0),
              ncol=min(len(sources), 4))  # fmt: skip
    fig.tight_layout()
    return at_page_width(fig)


APPLIES = why_not


def present(ctx: ReportContext, res: Any) -> Section:
    st, lvl = res.settings, ctx.level
    sources = source_order(ctx, res)
    models = model_order(res)
    judges = [s for s in sources if s != EXPERTS]
    sec = Section(KEY, TITLE)
    tie = (
        "a tie counts as half a win for each model"
        if st["ties"] == "half"
        else "Davidson's tie model"
    )
    sec.text(
        f"Each item compares the answers of two of {len(models)} models. @tbl-models gives the "
        f"Bradley–Terry strength of each model (log scale, centred to mean 0; {tie}) as induced "
        f"by the {md(ctx.names_of('expert'))}' gold and by each {md(ctx.name('judge'))}'s "
        f"verdicts, with {lvl} {st['resampling']} intervals and rank confidence sets; "
        "@fig-models-strengths plots them."
    )
    sec.table(
        "tbl-models",
        f"Answer-model strengths on *{md(ctx.headline)}* ({lvl} intervals; rank: "
        f"{md(st['rank_sets'])} rank confidence set).",
        strengths_table(res, sources, models),
    )
    sec.figure(
        "fig-models-strengths",
        f"Bradley–Terry strengths with {lvl} intervals, models by the experts' strength.",
        lambda: figure(res, sources, models),
    )
    c = res.correlations
    if c.empty:
        sec.text(
            f"*Not shown:* the rank correlation with the {md(ctx.names_of('expert'))}' ranking "
            "needs both the experts' gold and at least one judge."
        )
    else:
        sec.text(
            f"@tbl-models-tau compares each {md(ctx.name('judge'))}'s ranking of the models with "
            f"the experts': Kendall's τ with its {lvl} interval (and the joint interval, "
            f"{st['joint']} over the {len(c)} {md(ctx.names_of('judge', len(c)))}, for "
            "picking the "
            "closest), "
            "the pairs of models the two rankings order differently (and how many of these are "
            "significant in both rankings), and the share of resamples in which the judge is "
            "the closest to the experts."
        )
        sec.table(
            "tbl-models-tau",
            f"Judge ranking against the experts' ranking ({lvl} intervals).",
            correlation_table(res, judges),
        )
        sec.findings += res.findings(names=ctx.names_of, markup=ctx.markup)
    n = res.counts
    excl = [
        c for c in ("excluded_model_pair", "excluded_no_gold", "excluded_no_usable_verdict")
        if c in n.columns
    ]  # fmt: skip
    lost = n[excl].fillna(0).sum(axis=1) if excl else pd.Series(0, index=n.index)
    if int(lost.sum()):
        sec.text(
            "Comparisons left out and counted (no gold, no usable verdict or no model pair): "
            + ", ".join(
                f"{md(src)} {fmt_int(k)}" for src, k in zip(n["source"], lost, strict=True) if k
            )
            + "."
        )
    sec.methods.append(
        f"Answer-model rankings: Bradley–Terry (1952) strengths ({md(st['tie_rule'])}) for the "
        f"experts' gold and each judge, {md(st['interval'])} ({fmt_int(st['n_resamples'])} "
        f"resamples, seed {st['seed']}); rank confidence sets: {md(st['rank_sets'])}; judge against expert ranking: Kendall's τ-b with percentile intervals, "
        f"{st['joint_method']} over judges."
    )
    sec.references += ["bradley1952", "mogstad2024", "kendall1938"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
