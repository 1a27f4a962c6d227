"""Score dimensions (interval/ratio scales): judges against gold — error, correlations, Lin's
CCC, ICC and Bland–Altman limits — each expert against the others, and reliability within roles
(:func:`medjudge.analyses.score_study`).

Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from medjudge.stats.resampling import Bootstrap

from ...analyses.score_study import score_study
from ..escape import prose
from ..tables import fmt_ci, fmt_num
from . import Finding, Section, md

KEY = "scores"
TITLE = "Scores"


def result(ctx: Any) -> Any:
    s = ctx.study
    num = [d for d in s.dimensions if not s.scales[d].is_categorical]
    return ctx.get(
        "score_study",
        lambda: score_study(
            s, dimensions=num, bootstrap=Bootstrap(ctx.n_resamples, ctx.seed),
            confidence_level=ctx.confidence_level,
        ),
    )  # fmt: skip


def score_findings(ctx: Any, res: Any, dimension: str) -> list[Finding]:
    """The judge closest to the reference on ``dimension`` (smallest MAE), with its MAE, CCC
    and bias and their intervals; the analysis' own sentence when the table lacks them."""
    m = res.table("metrics", dimension)
    j = m[m["role"] == "judge"]
    mae = j[j["metric"] == "mae"].sort_values(["estimate", "rater"])
    if mae.empty:
        return [Finding(md(res.headline[dimension]), weight=5)]
    best = mae.iloc[0]
    row = {r.metric: r for r in j[j["rater"] == best["rater"]].itertuples()}
    lvl = getattr(ctx, "level", "95%")
    parts = [
        f"MAE {fmt_num(best['estimate'], 2)} ({lvl} CI {fmt_ci(best['ci_low'], best['ci_high'], 2)})"
    ]
    for key, name in (("ccc", "CCC"), ("bias", "bias")):
        if key in row:
            r = row[key]
            parts.append(f"{name} {fmt_num(r.estimate, 2)} ({fmt_ci(r.ci_low, r.ci_high, 2)})")
    rule = (
        res.settings.get("gold", {}).get(dimension)
        if isinstance(res.settings.get("gold"), dict)
        else None
    )
    ref = md(rule) if rule else (md(best["reference"]) if "reference" in best else "the reference")
    judge = ctx.name("judge") if hasattr(ctx, "name") else "judge"
    text = (
        f"On *{md(dimension)}* the {md(judge)} closest to the reference ({ref}) is "
        f"**{md(best['rater'])}**: " + "; ".join(parts) + "."
    )
    return [Finding(text, weight=5)]


#: the two score tables and their columns (metric names of the result)
SCORE_TABLES = {
    "errors": ("mae", "rmse", "bias", "sd_difference", "loa_low", "loa_high"),
    "association": ("pearson", "spearman", "kendall_tau_b", "ccc", "icc_a1"),
}
SCORE_LABELS = {
    "mae": "MAE", "rmse": "RMSE", "bias": "bias", "sd_difference": "SD of differences",
    "loa_low": "lower limit of agreement", "loa_high": "upper limit of agreement",
    "pearson": "Pearson r", "spearman": "Spearman ρ", "kendall_tau_b": "Kendall τ-b",
    "ccc": "Lin's CCC", "icc_a1": "ICC(A,1)",
}  # fmt: skip


def build(ctx: Any) -> Section:
    s = ctx.study
    if not any(not s.scales[d].is_categorical for d in s.dimensions):
        return Section.not_applicable(KEY, TITLE, "no dimension is on an interval or ratio scale")
    res = result(ctx)
    lvl = ctx.level
    sec = Section(KEY, TITLE)
    sec.text(
        "Scores against the reference: MAE, RMSE and bias (verdict minus reference), Pearson, "
        "Spearman and Kendall correlations, Lin's concordance correlation (CCC), ICC(A,1) and the "
        f"Bland–Altman limits of agreement, each with its {lvl} interval."
    )
    dims = list(res.settings["dimensions"])
    for d in dims:
        sec.text(md(res.headline[d]))
        m = res.table("metrics", d)
        if len(m):
            m = m.assign(cell=[
                "–" if pd.isna(e) else f"{e:.3f} {fmt_ci(a, b, 3)}"
                for e, a, b in zip(m["estimate"], m["ci_low"], m["ci_high"], strict=True)
            ])  # fmt: skip
            t = m.pivot_table(
                index=["role", "rater", "reference"],
                columns="metric",
                values="cell",
                aggfunc="first",
                sort=False,
            ).reset_index()
            refs = list(dict.fromkeys(t["reference"].astype(str)))
            keys = ["role", "rater"] if len(refs) == 1 else ["role", "rater", "reference"]
            ref_text = f"; reference: {md(refs[0])}" if len(refs) == 1 else ""
            # two narrower tables (errors, association) with readable headers, so that each
            # fits the page
            for part, cols in SCORE_TABLES.items():
                have = [c for c in cols if c in t.columns]
                if not have:
                    continue
                shown = t[keys + have].rename(columns=SCORE_LABELS)
                sec.table(
                    f"tbl-{KEY}-{len(sec.blocks)}",
                    f"*{md(d)}*: {part} of the scores against the reference ({lvl} intervals"
                    f"{ref_text}).",
                    shown,
                )
        r = res.table("reliability", d)
        if len(r):
            r = r.assign(
                interval=[fmt_ci(a, b, 3) for a, b in zip(r["ci_low"], r["ci_high"], strict=True)]
            )
            sec.table(
                f"tbl-{KEY}-{len(sec.blocks)}",
                f"*{md(d)}*: reliability within roles.",
                r[["role", "form", "estimate", "interval", "n", "raters"]].round(3).astype(str),
            )
        head = getattr(ctx, "headline", None)
        if len(m) and (d == head or (head not in res.settings["dimensions"] and d == dims[0])):
            sec.findings.extend(score_findings(ctx, res, d))
    for part, why in res.not_applicable.items():
        sec.text(f"*Not computed:* {prose(part)} — {prose(why)}.")
    st = res.settings
    sec.methods.append(
        f"Score intervals: {md(st['interval'])} ({st['n_resamples']} resamples, seed {st['seed']}, "
        f"clusters: {md(st['cluster'])}); Bland & Altman (1986, 1999), Lin (1989), McGraw & Wong (1996)."
    )
    sec.references += ["bland1986", "lin1989", "mcgraw1996"]
    return sec
