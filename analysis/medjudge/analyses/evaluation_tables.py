"""The tidy tables and the sentences of a :class:`~medjudge.analyses.evaluation.JudgeEvaluation`.

Each wide table of the evaluation becomes one long table of the result contract
(:mod:`medjudge.analyses._result`): a row per judge (or pair, expert) x dimension x estimand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ._result import Quantity, long_table

if TYPE_CHECKING:  # pragma: no cover
    from .evaluation import JudgeEvaluation

#: the reason an interval is absent where the analysis computes none
NO_INTERVAL = "none (no interval computed)"
POLICIES = ("wrong", "exclude", "half")


def _leaderboard(ev: JudgeEvaluation, level: float) -> pd.DataFrame:
    return long_table(
        ev.leaderboard,
        ["judge", "dimension"],
        [Quantity("accuracy", "accuracy", n_unit="items")],
        confidence_level=level,
        warning="warning",
        extra=["rank", "rank_low", "rank_high", "share_ranked_first", "group", "top_set",
               "n_invalid", "policy"],
    )  # fmt: skip


def _pairs(ev: JudgeEvaluation, level: float) -> pd.DataFrame:
    m = ev.settings.get("multiplicity") or {}
    return long_table(
        ev.pairs,
        ["judge_a", "judge_b", "dimension"],
        [
            Quantity(
                "difference in accuracy (a - b)", "difference", n="n_common", n_unit="items",
                test="test", p_value="pvalue", p_adjusted="p_holm",
            )
        ],  # fmt: skip
        confidence_level=level,
        alpha=1.0 - level,
        family=str(m.get("description", "")),
        family_by=() if m.get("family", "table") == "table" else ("dimension",),
        warning="warning",
        extra=["accuracy_a", "accuracy_b", "b", "c", "statistic", "n_units", "unit",
               "p_fdr_bh", "can_decide"],
    )  # fmt: skip


def _sensitivity(ev: JudgeEvaluation, level: float) -> pd.DataFrame:
    return long_table(
        ev.sensitivity,
        ["judge", "dimension"],
        [
            Quantity(f"accuracy (invalid verdict = {p})", f"accuracy_{p}", f"ci_low_{p}",
                     f"ci_high_{p}", ci_method=f"ci_method_{p}", n=f"n_{p}", n_unit="items")
            for p in POLICIES
        ],  # fmt: skip
        confidence_level=level,
        extra=["n_invalid", "max_shift"],
    )


def _classification(ev: JudgeEvaluation, level: float) -> pd.DataFrame:
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


def _baselines(ev: JudgeEvaluation, level: float) -> pd.DataFrame:
    return long_table(
        ev.baselines,
        ["judge", "dimension"],
        [Quantity("accuracy of a trivial judge", "accuracy", ci_method="wilson", n_unit="items")],
        confidence_level=level,
        extra=["role"],
    )


def _ceiling(ev: JudgeEvaluation, level: float) -> pd.DataFrame:
    return long_table(
        ev.expert_ceiling,
        ["expert", "dimension"],
        [
            Quantity("expert accuracy against the other experts' majority", "accuracy", None,
                     None, NO_INTERVAL, n_unit="items")
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


def evaluation_table(ev: JudgeEvaluation, name: str) -> pd.DataFrame:
    """The tidy long table ``name`` of ``ev`` (one of ``JudgeEvaluation.TABLES``)."""
    return _BUILDERS[name](ev, float(ev.settings.get("level", 0.95)))


def _ci(lo: float, hi: float) -> str:
    return f"[{lo:.3f}, {hi:.3f}]"


def evaluation_findings(ev: JudgeEvaluation) -> list[str]:
    """Per dimension: the most accurate judge with its interval, and how many others the
    pairwise tests of the stated family cannot tell apart from it."""
    s = ev.settings
    level = float(s.get("level", 0.95))
    alpha = 1.0 - level
    fam = (s.get("multiplicity") or {}).get("description", "Holm")
    out = []
    for d in s.get("dimensions", []):
        lb = ev.leaderboard[ev.leaderboard["dimension"] == d].sort_values(["rank", "judge"])
        if lb.empty:
            continue
        best = lb.iloc[0]
        text = (
            f"{d}: the most accurate judge is {best['judge']} with accuracy "
            f"{best['accuracy']:.3f} ({100 * level:g}% CI {_ci(best['ci_low'], best['ci_high'])}, "
            f"{best['ci_method']}; n = {int(best['n'])} items)"
        )
        if len(lb) > 1:
            tied = int(lb.iloc[1:]["top_set"].sum())
            pairs = ev.pairs[ev.pairs["dimension"] == d]
            tests = " / ".join(dict.fromkeys(pairs["test"].astype(str)))
            text += (
                f"; {tied} of the {len(lb) - 1} other judges cannot be told apart from it "
                f"({tests}; {fam}; alpha = {alpha:g})"
            )
        out.append(text + ".")
    return out
