"""Score dimensions (interval/ratio scales): judges against gold — error, correlations, Lin's
CCC, ICC and Bland–Altman limits — beside constant baselines, each expert against the others,
and reliability within roles (:func:`medjudge.analyses.score_study`).

Like for like: a judge is scored against the mean of all *k* experts, an expert against the
mean of the other *k* − 1; a mean of fewer ratings is noisier, so the two are shown in separate
tables and the text says that they are not comparable. Prompt variants of one model
(``model/variant``) are not independent raters: agreement among the judges is reported per
prompt variant, across the models.

Section interface: :mod:`medjudge.report.sections` (``KEY``, ``TITLE``, ``build(ctx)``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from medjudge.stats.agreement.icc import icc
from medjudge.stats.resampling import Bootstrap

from ...analyses.score_study import score_study
from ..escape import prose
from ..tables import fmt_ci, fmt_int, fmt_num
from . import Section, builder, md

KEY = "scores"
TITLE = "Scores"

#: separator of model and prompt variant in judge names (as the stability section reads them)
VARIANT_SEPARATOR = "/"


def numeric_dimensions(ctx: Any) -> list[str]:
    s = ctx.study
    return [d for d in s.dimensions if not s.scales[d].is_categorical]


def why_not(ctx: Any) -> str | None:
    return None if numeric_dimensions(ctx) else "no dimension is on an interval or ratio scale"


def result(ctx: Any) -> Any:
    return ctx.get(
        "score_study",
        lambda: score_study(
            ctx.study, dimensions=numeric_dimensions(ctx),
            bootstrap=Bootstrap(ctx.n_resamples, ctx.seed), confidence_level=ctx.confidence_level,
            baselines=True, alpha=ctx.alpha,
        ),
    )  # fmt: skip


def reference_words(ctx: Any, res: Any, dimension: str) -> str:
    """The judges' reference in words (the gold rule recorded by the analysis)."""
    rule = (res.settings.get("gold") or {}).get(dimension)
    return prose(rule) if rule else "the reference"


#: the score tables and their columns (metric names of the result)
SCORE_TABLES = {
    "errors": ("mae", "rmse", "bias"),
    "limits of agreement": ("sd_difference", "loa_low", "loa_high"),
    "association": ("pearson", "spearman", "kendall_tau_b", "ccc", "icc_a1"),
}
#: the columns of the experts' table (one table: three rows)
EXPERT_COLUMNS = ("mae", "rmse", "bias", "pearson", "ccc")
SCORE_LABELS = {
    "mae": "MAE", "rmse": "RMSE", "bias": "bias", "sd_difference": "SD of differences",
    "loa_low": "lower limit of agreement", "loa_high": "upper limit of agreement",
    "pearson": "Pearson r", "spearman": "Spearman ρ", "kendall_tau_b": "Kendall τ-b",
    "ccc": "Lin's CCC", "icc_a1": "ICC(A,1)",
}  # fmt: skip


def metric_cells(m: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """One row per rater, one column per metric: ``estimate [low, high]`` (the caption names
    the role: the columns must fit a page)."""
    m = m[m["metric"].isin(columns)]
    m = m.assign(cell=[
        "not defined" if pd.isna(e) else f"{e:.3f} {fmt_ci(a, b, 3)}"
        for e, a, b in zip(m["estimate"], m["ci_low"], m["ci_high"], strict=True)
    ])  # fmt: skip
    t = m.pivot_table(
        index=["rater"], columns="metric", values="cell", aggfunc="first", sort=False
    ).reset_index()
    have = [c for c in columns if c in t.columns]
    return t[["rater", *have]].fillna("–").rename(columns=SCORE_LABELS)


def variants(judges: list[str]) -> dict[str, list[str]]:
    """``{prompt variant: [judges]}`` when judges are ``model/variant`` with a model run under
    several variants (else empty: the judges are distinct raters)."""
    split = [j.split(VARIANT_SEPARATOR, 1) for j in judges]
    if not all(len(p) == 2 for p in split):
        return {}
    per_model: dict[str, set[str]] = {}
    for model, prompt in split:
        per_model.setdefault(model, set()).add(prompt)
    if not any(len(p) > 1 for p in per_model.values()):
        return {}
    out: dict[str, list[str]] = {}
    for j, (_, prompt) in zip(judges, split, strict=True):
        out.setdefault(prompt, []).append(j)
    return dict(sorted(out.items()))


def per_prompt_reliability(ctx: Any, dimension: str, groups: dict[str, list[str]]) -> pd.DataFrame:
    """ICC across the models under each prompt variant (each model one rater); with clusters
    the intervals keep them (as the score study's reliability table). The interval methods are
    in ``attrs["methods"]``."""
    from ...analyses.evaluation import cluster_ids

    clusters, _ = cluster_ids(ctx.study, "auto")
    cluster_of = None if clusters is None else pd.Series(clusters, index=ctx.study.item_ids)
    rows, methods_ = [], []
    for prompt, judges in groups.items():
        if len(judges) < 2:
            continue
        m = ctx.study.matrix(dimension, raters=judges)
        cl = None if cluster_of is None else cluster_of.loc[list(m.items)].to_numpy()
        est = {
            e.name: e
            for e in icc(
                m.values, ci="analytic", confidence_level=ctx.confidence_level, clusters=cl
            )
        }
        for f in ("ICC1", "ICC2", "ICC2k"):
            e = est[f]
            rows.append({
                "prompt": prompt, "form": f"{f} = {e.extra['mcgraw_wong']}",
                "estimate": fmt_num(e.estimate, 3), "interval": fmt_ci(e.ci_low, e.ci_high, 3),
                "n": fmt_int(e.n), "models": fmt_int(len(judges)),
            })  # fmt: skip
            methods_.append(e.ci_method)
    out = pd.DataFrame(rows)
    out.attrs["methods"] = list(dict.fromkeys(methods_))
    return out


APPLIES = why_not

#: a dimension's judge pairs are listed in full up to this many rows; beyond it, the pairs
#: of the judge closest to the reference (the caption says so)
PAIR_ROWS = 30


def pairs_table(ctx: Any, sec: Section, res: Any, dimension: str) -> None:
    """The judge pairs of ``dimension``: the result's sentence and its table (difference in
    MAE and bias, interval, Holm-adjusted p)."""
    p = res.wide("pairs", dimension)
    words = res.pair_findings(dimension)
    if p.empty or not words:
        return
    sec.text(prose(words[0]))
    caption = f"*{md(dimension)}*: judge pairs, first minus second ({ctx.level} intervals)"
    if len(p) > PAIR_ROWS:
        j = res.wide("metrics", dimension)
        mae = j[(j["role"] == "judge") & (j["metric"] == "mae")].sort_values(["estimate", "rater"])
        best = str(mae.iloc[0]["rater"])
        p = p[(p["judge_a"] == best) | (p["judge_b"] == best)]
        caption += (
            f", the pairs of {md(best)}, the {md(ctx.name('judge'))} closest to the reference"
        )
    cells = pd.DataFrame({
        "pair": [f"{a} − {b}" for a, b in zip(p["judge_a"], p["judge_b"], strict=True)],
        "metric": [SCORE_LABELS.get(k, k) for k in p["metric"]],
        "difference": [fmt_num(v, 3) for v in p["difference"]],
        "interval": [fmt_ci(a, b, 3) for a, b in zip(p["ci_low"], p["ci_high"], strict=True)],
        "p (Holm)": [fmt_num(v, 4) for v in p["p_holm"]],
    })  # fmt: skip
    sec.table(f"tbl-{KEY}-{len(sec.blocks)}", caption + ".", cells)


def present(ctx: Any, res: Any) -> Section:
    lvl = ctx.level
    sec = Section(KEY, TITLE)
    k = len(res.settings.get("experts", []))
    judge, judges = ctx.name("judge"), ctx.names_of("judge")
    sec.text(
        f"Scores against the reference, for each {md(judge)}: MAE, RMSE and bias ({md(judge)} "
        "minus reference), Pearson, Spearman and Kendall correlations, Lin's concordance correlation "
        f"(CCC), ICC(A,1) and the Bland–Altman limits of agreement, each with its {lvl} "
        "interval. Two constant baselines are scored on the same items (always the mean gold "
        "score; always the scale midpoint): a judge is useful only where its error is below "
        "theirs."
    )
    metrics = res.wide("metrics")
    if len(metrics) and (metrics["role"] == "expert").any():
        sec.text(
            f"Not like for like: the {md(judges)} are scored against the mean of all {k} "
            f"{md(ctx.names_of('expert'))}, each {md(ctx.name('expert'))} against the mean of the "
            f"other {k - 1}. A mean of fewer ratings is noisier, which inflates an "
            f"{md(ctx.name('expert'))}'s error against it, so the {md(ctx.names_of('expert'))}' "
            f"table and the {md(judges)}' tables are not comparable row for row; no {md(judge)} "
            f"is compared with a mean of {k - 1}."
        )
    groups = variants(list(res.settings.get("judges", [])))
    if groups:
        models = {j.split(VARIANT_SEPARATOR, 1)[0] for js in groups.values() for j in js}
        sec.text(
            f"The {fmt_int(len(res.settings['judges']))} {md(judges)} are {len(models)} models "
            f"× {len(groups)} prompt variants, not independent raters: agreement among the "
            f"{md(judges)} is given per prompt variant, across the {len(models)} models (one ICC "
            "row set per variant); each variant's scores against the reference are listed "
            "separately."
        )
    dims = list(res.settings["dimensions"])
    head = getattr(ctx, "headline", None)
    for d in dims:
        m = res.wide("metrics", d)
        ref = reference_words(ctx, res, d)
        scored = m[m["role"].isin(["judge", "baseline"])]
        for part, cols in SCORE_TABLES.items():
            rows = scored if part == "errors" else scored[scored["role"] == "judge"]
            if rows.empty:
                continue
            sec.table(
                f"tbl-{KEY}-{len(sec.blocks)}",
                f"*{md(d)}*: {part} of the {md(judges)}"
                + (" and the constant baselines" if part == "errors" else "")
                + f" against the reference ({ref}; {lvl} intervals).",
                metric_cells(rows, cols),
            )
        ex = m[m["role"] == "expert"]
        if len(ex):
            sec.table(
                f"tbl-{KEY}-{len(sec.blocks)}",
                f"*{md(d)}*: each {md(ctx.name('expert'))} against the mean of the other "
                f"{k - 1} ({lvl} intervals; not comparable with the {md(judges)}' rows above).",
                metric_cells(ex, EXPERT_COLUMNS),
            )
        r = res.wide("reliability", d)
        if groups and len(r):
            r = r[r["role"] != "judge"]
        if len(r):
            r = r.assign(
                interval=[fmt_ci(a, b, 3) for a, b in zip(r["ci_low"], r["ci_high"], strict=True)]
            )
            sec.table(
                f"tbl-{KEY}-{len(sec.blocks)}",
                f"*{md(d)}*: reliability within roles ({lvl} intervals: "
                + "; ".join(md(str(x)) for x in dict.fromkeys(r["ci_method"]))
                + ").",
                r[["role", "form", "estimate", "interval", "n", "raters"]].round(3).astype(str),
            )
        if groups:
            per = per_prompt_reliability(ctx, d, groups)
            if len(per):
                sec.table(
                    f"tbl-{KEY}-{len(sec.blocks)}",
                    f"*{md(d)}*: agreement among the models under each prompt variant (ICC "
                    f"across models, {lvl} intervals: "
                    + "; ".join(md(str(x)) for x in per.attrs["methods"])
                    + ").",
                    per,
                )
        pairs_table(ctx, sec, res, d)
        if len(m) and (d == head or (head not in dims and d == dims[0])):
            sec.findings += res.closest_findings(d, names=ctx.names_of, markup=ctx.markup)
    for part, why in res.not_applicable.items():
        sec.text(f"*Not computed:* {prose(part)} — {prose(why)}.")
    st = res.settings
    sec.methods.append(
        f"Score intervals: {md(st['interval'])} ({st['n_resamples']} resamples, seed {st['seed']}, "
        f"clusters: {md(st['cluster'])}); Bland & Altman (1986, 1999), Lin (1989), McGraw & Wong "
        "(1996). Constant baselines: always the mean gold score, always the scale midpoint."
        + (
            " Agreement among judges: ICC across models within each prompt variant (prompt "
            "variants of one model are not independent raters)."
            if groups
            else ""
        )
    )
    pairs = res.wide("pairs")
    if len(pairs):
        sec.methods.append(
            f"Judge pairs: {md(st.get('pairs_family', ''))}; "
            + "; ".join(
                dict.fromkeys(
                    md(t) for t in pairs["method"].str.replace(r"; \d+ clusters\)", ")", regex=True)
                )
            )  # fmt: skip
            + "."
        )
    sec.references += ["bland1986", "lin1989", "mcgraw1996"]
    return sec


build = builder(KEY, TITLE, APPLIES, result, present)
