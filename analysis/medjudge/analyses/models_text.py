"""The key finding of a :class:`~medjudge.analyses.models.ModelRankingResult`, in words:
which judge's ranking of the answer models is closest to the experts' (Kendall's τ with its
interval and the joint interval over the judges, and the pairs of models swapped)."""

from __future__ import annotations

from typing import Any

from ._findings import PLAIN, Finding, Markup, Names, fmt_ci, fmt_level, fmt_num


def closest_finding(
    res: Any, *, names: Names | None = None, markup: Markup = PLAIN
) -> list[Finding]:
    """The judge(s) with the largest Kendall τ against the experts' ranking (ties named
    together), with its interval, the joint interval over the judges and the swapped pairs;
    a caveat when few models make τ coarse. ``[]`` without a correlation."""
    c = res.correlations
    if c.empty:
        return []
    st = res.settings
    t = res.strengths
    ref = t[t["source"] == "experts"] if (t["source"] == "experts").any() else t
    n_models = int(ref["model"].nunique())
    lvl = fmt_level(float(st["confidence_level"]))
    best = c.sort_values(["kendall_tau", "p_best"], ascending=False).iloc[0]
    tied = c[c["kendall_tau"] == best["kendall_tau"]]["judge"].tolist()
    who = (
        markup.strong_data(best["judge"])
        if len(tied) == 1
        else " and ".join(markup.strong_data(j) for j in tied) + " (tied)"
    )
    text = (
        f"Closest to the experts' ranking of the {n_models} answer models: {who}, "
        f"Kendall τ {fmt_num(best['kendall_tau'], 2)} ({lvl} CI "
        f"{fmt_ci(best['ci_low'], best['ci_high'], 2)}; {st['joint']} over "
        f"{len(c)} {markup.role(names, 'judge', len(c))}: "
        f"{fmt_ci(best['simultaneous_ci_low'], best['simultaneous_ci_high'], 2)}); "
        f"{int(best['swapped_pairs'])} of {int(best['pairs'])} pairs of models swapped."
    )
    caveat = (
        f"with {n_models} models τ takes few values; the interval is wide" if n_models < 8 else None
    )
    return [Finding(text, caveat=caveat, weight=5)]
