"""The tidy tables and the sentences of a :class:`~medjudge.analyses.evaluation.JudgeEvaluation`.

Each wide table of the evaluation becomes one long table of the result contract
(:mod:`medjudge.analyses._result`): a row per judge (or pair, expert) x dimension x estimand.
"""

from __future__ import annotations

import pandas as pd

from ._result import Quantity, Result, long_table

#: the reason an interval is absent where the analysis computes none
NO_INTERVAL = "none (no interval computed)"
POLICIES = ("wrong", "exclude", "half")


def _leaderboard(ev: Result, level: float) -> pd.DataFrame:
    return long_table(
        ev.leaderboard,
        ["judge", "dimension"],
        [Quantity("accuracy", "accuracy", n_unit="items")],
        confidence_level=level,
        warning="warning",
        extra=["rank", "rank_low", "rank_high", "share_ranked_first", "group", "top_set",
               "n_invalid", "policy"],
    )  # fmt: skip


def _pairs(ev: Result, level: float) -> pd.DataFrame:
    m = ev.settings.get("multiplicity") or {}
    return long_table(
        ev.pairs.drop(columns=["alpha", "family", "family_size"], errors="ignore"),
        ["judge_a", "judge_b", "dimension"],
        [
            Quantity(
                "difference in accuracy (a - b)", "difference", n="n_common", n_unit="items",
                test="test", p_value="pvalue", p_adjusted="p_holm",
            )
        ],  # fmt: skip
        confidence_level=level,
        alpha=float(ev.settings["alpha"]),
        family=str(m.get("description", "")),
        family_by=() if m.get("family", "table") == "table" else ("dimension",),
        warning="warning",
        extra=["accuracy_a", "accuracy_b", "b", "c", "statistic", "n_units", "unit",
               "p_fdr_bh", "can_decide"],
    )  # fmt: skip


def _sensitivity(ev: Result, level: float) -> pd.DataFrame:
    return long_table(
        ev.sensitivity,
        ["judge", "dimension"],
        [
            Quantity(
                f"accuracy (invalid verdict = {p})",
                f"accuracy_{p}",
                f"ci_low_{p}",
                f"ci_high_{p}",
                ci_method=f"ci_method_{p}",
                n=f"n_{p}",
                n_unit="items",
            )
            for p in POLICIES
        ],  # fmt: skip
        confidence_level=level,
        extra=["n_invalid", "max_shift"],
    )


def _classification(ev: Result, level: float) -> pd.DataFrame:
    c = ev.classification
    metrics = [col for col in c.columns if col not in ("dimension", "judge", "n_invalid", "policy")]
    n = ev.settings.get("n_items_with_gold", {})
    c = c.assign(_n=c["dimension"].map(n))
    return long_table(
        c,
        ["judge", "dimension"],
        [Quantity(m.replace("_", " "), m, None, None, NO_INTERVAL, "_n", "items") for m in metrics],
        confidence_level=level,
        extra=["n_invalid", "policy"],
    )


def _baselines(ev: Result, level: float) -> pd.DataFrame:
    return long_table(
        ev.baselines,
        ["judge", "dimension"],
        [Quantity("accuracy of a trivial judge", "accuracy", ci_method="wilson", n_unit="items")],
        confidence_level=level,
        extra=["role"],
    )


def _ceiling(ev: Result, level: float) -> pd.DataFrame:
    return long_table(
        ev.expert_ceiling,
        ["expert", "dimension"],
        [
            Quantity(
                "expert accuracy against the other experts' majority",
                "accuracy",
                None,
                None,
                NO_INTERVAL,
                n_unit="items",
            )
        ],  # fmt: skip
        confidence_level=level,
        extra=["judges_accuracy", "gap", "n_no_gold", "reference"],
    )


_BUILDERS = {
    "leaderboard": _leaderboard,
    "pairs": _pairs,
    "sensitivity": _sensitivity,
    "classification": _classification,
    "baselines": _baselines,
    "expert_ceiling": _ceiling,
}


def evaluation_table(ev: Result, name: str) -> pd.DataFrame:
    """The tidy long table ``name`` of ``ev`` (one of ``JudgeEvaluation.TABLES``)."""
    return _BUILDERS[name](ev, float(ev.settings.get("level", 0.95)))


def _counts(counts: dict[str, int]) -> str:
    """``{"items_without_gold": 0}`` as ``items without gold 0`` (``none`` when empty)."""
    return ", ".join(f"{str(k).replace('_', ' ')} {v}" for k, v in counts.items()) or "none"


def _pairs_text(ev: Result, width: int) -> list[str]:
    """How many pairwise tests decide at the evaluation's alpha in its family, the pairs that
    cannot decide whatever the verdicts, and the 30 smallest p-values."""
    s, pairs = ev.settings, ev.pairs
    a = float(s.get("alpha", 1.0 - float(s.get("level", 0.95))))
    n_dims = max(len(s["dimensions"]), 1)
    out = []
    if len(pairs):
        out.append(
            f"\npairwise: {len(pairs)} comparisons ({len(pairs) // n_dims} pairs × {n_dims} "
            f"dimensions); {s['multiplicity']['description']}; significant at α = {a:g}: "
            f"{int(pairs['significant'].sum())}"
        )
    if len(pairs) and "min_attainable_p_holm" in pairs.columns:
        stuck = pairs[~pairs["can_decide"]]
        if len(stuck):
            r = stuck.iloc[0]
            out.append(
                f"cannot decide: {len(stuck)} of {len(pairs)} pairs cannot reach p_holm < "
                f"{a:g} whatever the verdicts (e.g. {r['dimension']} {r['judge_a']} vs "
                f"{r['judge_b']}: {int(r['n_units'])} {r['unit']}, smallest attainable "
                f"p_holm {r['min_attainable_p_holm']:.3g}); a shared letter there is no "
                "evidence of a tie"
            )
    cols = ["dimension", "judge_a", "judge_b", "difference", "ci_low", "ci_high", "b", "c",
            "pvalue", "p_holm", "p_fdr_bh"]  # fmt: skip
    top = pairs.sort_values("pvalue")[cols].head(30).round(4)
    for c in ("pvalue", "p_holm", "p_fdr_bh"):
        top[c] = pairs.loc[top.index, c].map(lambda v: f"{v:.2g}" if v == v else "not tested")
    top = top.rename(columns={"pvalue": "p_value"})
    if len(top):  # a pair without a common item: "not tested", never a bare NaN
        out.append(top.to_string(line_width=width, index=False, na_rep="not defined"))
    else:
        out.append(f"(no pairs: {len(s['judges'])} judge; a comparison needs two)")
    return out


def _board_text(lb: pd.DataFrame, width: int) -> str:
    """One dimension's leaderboard as text; a judge without a verdict is listed, never ranked.
    Each judge's item count ``n`` is a column when the judges saw different numbers of items."""
    cols = ["rank", "judge", "accuracy", "ci_low", "ci_high", "rank_low", "rank_high", "group",
            "n_invalid"]  # fmt: skip
    if "n" in lb and lb["n"].nunique(dropna=False) > 1:
        cols.insert(cols.index("n_invalid"), "n")
    t = lb[cols].round(3).astype(object)
    unranked = lb["rank"].isna().to_numpy()
    for c in ("rank", "rank_low", "rank_high", "ci_low", "ci_high"):
        t.loc[unranked, c] = "—"
    t.loc[unranked, "accuracy"] = "no verdict"
    for c in ("rank", "rank_low", "rank_high"):
        t.loc[~unranked, c] = t.loc[~unranked, c].map(lambda v: f"{int(v)}")
    return t.to_string(line_width=width, index=False)


def evaluation_summary(ev: Result, width: int = 100) -> str:
    """The terminal text of an evaluation: per dimension the leaderboard, the trivial baselines
    and the expert ceiling; then the pairwise tests."""
    s = ev.settings
    out = [
        f"{len(s['judges'])} judges; gold {s['gold']}; policy {s['policy']}; clusters "
        f"{s['cluster']}; B={s['n_resamples']} seed={s['seed']}; "
        f"{100 * float(s['level']):g}% intervals"
    ]
    for d in s["dimensions"]:
        lb = ev.leaderboard[ev.leaderboard["dimension"] == d]
        out.append(
            f"\n== {d} (n={s['n_items_with_gold'][d]}; excluded: {_counts(ev.excluded[d])}; "
            f"intervals: {lb['ci_method'].iloc[0] if len(lb) else 'none'})"
        )
        out.append(_board_text(lb, width))
        base = ev.baselines[ev.baselines["dimension"] == d]
        out.append(
            "baselines: " + ", ".join(f"{r.judge} {r.accuracy:.3f}" for r in base.itertuples())
        )
        ceil = ev.expert_ceiling[ev.expert_ceiling["dimension"] == d]
        if len(ceil):
            out.append(
                "experts vs leave-one-out majority: "
                + ", ".join(f"{r.expert} {r.accuracy:.3f} (n={r.n})" for r in ceil.itertuples())
            )
    return "\n".join(out + _pairs_text(ev, width))
