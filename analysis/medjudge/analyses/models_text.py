"""The key finding of a :class:`~medjudge.analyses.models.ModelRankingResult`, in words:
which judge's ranking of the answer models is closest to the experts' (Kendall's τ with its
interval and the joint interval over the judges, and the pairs of models swapped)."""

from __future__ import annotations

from typing import Any

import pandas as pd

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


#: the strengths' columns in the terminal table
STRENGTH_COLUMNS = ["source", "model", "strength", "ci_low", "ci_high", "elo", "rank", "rank_low",
                    "rank_high"]  # fmt: skip
#: the rank correlations' columns in the terminal table
CORRELATION_COLUMNS = ["judge", "kendall_tau", "ci_low", "ci_high", "spearman_rho",
                       "swapped_pairs", "swapped_significant", "p_best"]  # fmt: skip


def ranking_tables_text(res: Any, *, width: int = 100) -> str:
    """The model ranking as terminal text: its settings, the strengths and rank sets per source,
    each judge's ranking against the experts', and the comparisons used and excluded."""
    st = res.settings
    out = [
        f"# answer-model strengths ({st['dimension']}; {st['tie_rule']}; {st['interval']}, "
        f"B={st['n_resamples']}, seed={st['seed']}; rank sets: {st['rank_sets']})"
    ]
    with pd.option_context("display.width", 180, "display.float_format", "{:.3f}".format):
        t = res.strengths
        if not t.empty:
            t = t.sort_values(["source", "rank"])[STRENGTH_COLUMNS]
            out.append(t.to_string(line_width=width, index=False))
        if not res.correlations.empty:
            out.append("\n# judge ranking vs expert ranking")
            c = res.correlations[CORRELATION_COLUMNS]
            out.append(c.to_string(line_width=width, index=False))
        out.append("\n# comparisons used and excluded")
        out.append(res.counts.to_string(line_width=width, index=False))
    return "\n".join(out)
