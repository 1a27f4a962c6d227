"""Report section: answer-model rankings (experts' gold and each judge), present only when the
study names the answer models of each item.

``section(study, ...) -> dict`` with ``title``, ``text`` (list of sentences), ``tables``
(name -> DataFrame) and ``figures`` (name -> matplotlib Figure); presentation only — every
number comes from :func:`medjudge.analyses.models.answer_model_ranking`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from medjudge.analyses.models import EXPERTS, ModelRankingResult, answer_model_ranking
from medjudge.data.model import Study

TITLE = "Answer-model rankings"


def applies(study: Study) -> str | None:
    """None when the section applies, else the one sentence saying why not."""
    if len(study.answer_models) != 2:
        return (
            "This section is not shown: the study does not name the answer models of each item "
            "(mapping key models, or --models)."
        )
    return None


def figure(result: ModelRankingResult, ax=None):
    """Forest plot of strengths with intervals, one marker per source."""
    import matplotlib.pyplot as plt

    t = result.strengths
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 0.45 * t["model"].nunique() + 1.2))
    ref = t[t["source"] == EXPERTS] if (t["source"] == EXPERTS).any() else t
    order = ref.groupby("model")["strength"].mean().sort_values().index.tolist()
    sources = list(dict.fromkeys(t["source"]))
    step = 0.8 / max(len(sources), 1)
    for k, src in enumerate(sources):
        s = t[t["source"] == src].set_index("model").reindex(order)
        y = [i - 0.4 + step * (k + 0.5) for i in range(len(order))]
        ax.errorbar(
            s["strength"],
            y,
            xerr=[s["strength"] - s["ci_low"], s["ci_high"] - s["strength"]],
            fmt="o",
            ms=4,
            capsize=2,
            label=src,
        )
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.set_yticks(range(len(order)), order)
    ax.set_xlabel("Bradley–Terry strength (log scale, mean 0)")
    ax.legend(fontsize=8, frameon=False)
    return ax.figure


def section(study: Study, *, n_resamples: int = 2000, seed: int = 0, **kwargs: Any) -> dict:
    reason = applies(study)
    if reason is not None:
        return {"title": TITLE, "text": [reason], "tables": {}, "figures": {}}
    res = answer_model_ranking(study, n_resamples=n_resamples, seed=seed, **kwargs)
    st = res.settings
    text = [
        f"Bradley–Terry strengths of {len(st['models'])} answer models from the verdicts on "
        f"'{st['dimension']}' ({st['tie_rule']}); intervals: {st['interval']} "
        f"({st['n_resamples']} resamples, seed {st['seed']}, level {st['confidence_level']}); "
        f"rank sets: {st['rank_sets']}."
    ]
    c = res.correlations
    if not c.empty:
        best = c.sort_values("kendall_tau", ascending=False).iloc[0]
        tied = list(c.loc[c["kendall_tau"] == best["kendall_tau"], "judge"])
        who = best["judge"] if len(tied) == 1 else " and ".join(tied) + " (tied)"
        text.append(
            f"Closest to the expert ranking: {who} (Kendall tau {best['kendall_tau']:.2f}, "
            f"{st['confidence_level']:.0%} CI {best['ci_low']:.2f} to {best['ci_high']:.2f}; "
            f"best in {best['p_best']:.0%} of resamples)."
        )
    strengths = res.strengths[
        [
            "source",
            "model",
            "strength",
            "ci_low",
            "ci_high",
            "level",
            "elo",
            "rank",
            "rank_low",
            "rank_high",
        ]
    ].sort_values(["source", "rank"])
    tables: dict[str, pd.DataFrame] = {"strengths": strengths, "counts": res.counts}
    if not c.empty:
        tables["judge_vs_experts"] = c[
            ["judge", "kendall_tau", "ci_low", "ci_high", "spearman_rho", "swapped_pairs",
             "swapped_significant", "p_best"]
        ]  # fmt: skip
    return {"title": TITLE, "text": text, "tables": tables, "figures": {"strengths": figure(res)}}
