"""Report section "Judge-assisted estimate": presents a :class:`~medjudge.analyses.
judge_assisted.PPIResult` (tables, one figure, a few sentences). Computes nothing new.

    from medjudge.analyses.judge_assisted import judge_assisted_estimate
    from medjudge.report.sections import ppi
    sec = ppi.section(judge_assisted_estimate(study))
    sec["applies"], sec["text"], sec["tables"]["estimates"], sec["figure"]
"""

from __future__ import annotations

from typing import Any

import pandas as pd

TITLE = "Judge-assisted estimate"
METHODS = ["classical", "naive", "ppi", "ppi++", "rogan-gladen", "ppi++ stratified"]
LABELS = {
    "classical": "experts only",
    "naive": "judge only (biased)",
    "ppi": "PPI (λ = 1)",
    "ppi++": "PPI++",
    "rogan-gladen": "Rogan–Gladen",
    "ppi++ stratified": "PPI++ stratified",
}


def applies(result: Any) -> tuple[bool, str]:
    """Whether the section has something to show, and if not, the one sentence saying why."""
    rows = result.rows
    if rows.empty:
        return False, "No dimension had at least two items with gold, so nothing was estimated."
    if not (rows["method"] != "classical").any():
        return False, (
            "Every item has a gold label, so a judge cannot add information to the expert-only "
            "estimate; this section applies when some items are unlabelled."
        )
    return True, ""


def tables(result: Any) -> dict[str, pd.DataFrame]:
    """``estimates`` (overall rows) and, when present, ``subgroups``; readable column names."""
    t = result.table(subgroup="all")
    t = t[t["method"].isin(METHODS) | t["method"].str.startswith("cross-fit")]
    cols = [
        "dimension",
        "target",
        "judge",
        "method",
        "estimate",
        "ci_low",
        "ci_high",
        "level",
        "effective_n",
        "width_ratio",
        "bias",
    ]
    est = t[cols].assign(method=t["method"].map(lambda m: LABELS.get(m, m)))
    out = {"estimates": est.reset_index(drop=True)}
    sub = result.rows[result.rows["subgroup"] != "all"]
    if len(sub):
        out["subgroups"] = sub[
            [
                "dimension",
                "target",
                "subgroup",
                "judge",
                "method",
                "estimate",
                "ci_low",
                "ci_high",
                "level",
                "n_labelled",
            ]
        ].reset_index(drop=True)
    return out


def text(result: Any) -> list[str]:
    """Sentences: what was labelled, the assumption, and the headline gain per judge."""
    ok, why = applies(result)
    if not ok:
        return [why]
    out = []
    for dim, c in result.counts.items():
        out.append(
            f"{dim}: {c['labelled']} of {c['items']} items have gold ({c['gold_method']}); the "
            f"judges' verdicts on the other {c['unlabelled']} are used through prediction-powered "
            "inference, which removes the judge's bias measured on the labelled items."
        )
    pp = result.table("ppi++")
    if len(pp):
        best = pp.loc[pp["effective_n"].idxmax()]
        out.append(
            f"The largest gain is {best['judge']} on {best['dimension']}/{best['target']}: its "
            f"{int(best['n_labelled'])} expert labels are worth {best['effective_n']:.0f} "
            f"(interval {1 / best['width_ratio']:.2f}× narrower than experts only)."
        )
    out.extend(result.notes)
    return out


def figure(result: Any, *, dimension: str | None = None, target: str | None = None, ax=None):
    """Intervals of experts-only, PPI, PPI++ (and judge-only) per judge for one target."""
    import matplotlib.pyplot as plt

    t = result.table(["classical", "naive", "ppi", "ppi++"])
    if t.empty:
        raise ValueError("nothing to plot: the result has no estimates")
    dimension = dimension or t["dimension"].iloc[0]
    t = t[t["dimension"] == dimension]
    target = target or t["target"].iloc[0]
    t = t[t["target"] == target].reset_index(drop=True)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 0.45 * len(t) + 1.2))
    labels = [f"{r.judge} — {LABELS.get(r.method, r.method)}" for r in t.itertuples()]
    ypos = list(range(len(t)))[::-1]
    colors = {"classical": "0.2", "naive": "tab:red", "ppi": "tab:blue", "ppi++": "tab:green"}
    for yv, r in zip(ypos, t.itertuples(), strict=True):
        ax.plot([r.ci_low, r.ci_high], [yv, yv], color=colors[r.method], lw=2)
        ax.plot([r.estimate], [yv], "o", color=colors[r.method])
    ax.set_yticks(ypos, labels)
    ax.set_xlabel(f"{dimension}: rate of {target} ({t['level'].iloc[0]:.0%} interval)")
    ax.grid(axis="x", alpha=0.3)
    return ax.figure


def section(result: Any) -> dict[str, Any]:
    """Everything the report shows for this section: ``title``, ``applies``, ``text``,
    ``tables`` and ``figure`` (None when the section does not apply)."""
    ok, _ = applies(result)
    return {
        "title": TITLE,
        "applies": ok,
        "text": text(result),
        "tables": tables(result) if ok else {},
        "figure": figure(result) if ok else None,
    }
