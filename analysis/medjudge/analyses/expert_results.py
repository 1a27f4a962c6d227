"""Results of the judge-versus-experts analyses (:mod:`medjudge.analyses.judge_vs_experts`):
:class:`AltTests` (the alternative annotator test of every judge), :class:`ExpertAgreement`
(leave-one-expert-out κ) and :class:`StandIn` (the stand-in decision).

Each keeps what the analysis used to return (a list, a DataFrame) and answers the same access
(``res[0]``, ``len``, iteration; ``t["judge"]``, ``t.columns``), and adds the result contract
(:mod:`medjudge.analyses._result`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..stats.judge_vs_experts import AltTestResult
from ._result import FrameResult, Quantity, Result, long_table

NO_INTERVAL = "none (no interval computed)"


@dataclass(frozen=True, repr=False, eq=False)
class AltTests(Result):
    """The alt-test of every judge against the experts on one dimension (a list of
    :class:`~medjudge.stats.judge_vs_experts.AltTestResult`, one per judge).

    Tables: ``judges`` (winning rate ω and average advantage probability ρ per judge; the
    judge passes when ω ≥ 0.5) and ``annotators`` (one test per judge and left-out annotator:
    the one-sided paired t-test, Benjamini–Yekutieli within each judge at ``q``).
    """

    TABLES = ("judges", "annotators")

    results: list[AltTestResult]
    dimension: str

    # the list this result used to be
    def __getitem__(self, k: Any) -> Any:
        return self.results[k]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[AltTestResult]:
        return iter(self.results)

    #: the multiplicity adjustment over the annotators of each judge
    adjustment = "Benjamini–Yekutieli"

    @property
    def q(self) -> float:
        """The false discovery rate of the Benjamini–Yekutieli procedure."""
        return float(self.results[0].q) if self.results else 0.05

    def _table(self, name: str) -> pd.DataFrame:
        d = self.dimension
        if name == "judges":
            f = pd.DataFrame(
                {"dimension": d, "judge": r.judge, "winning_rate": r.winning_rate,
                 "advantage_probability": r.advantage_probability, "passed": bool(r.passed),
                 "epsilon": r.epsilon, "q": r.q, "n": r.n_items}
                for r in self.results
            )  # fmt: skip
            return long_table(
                f,
                ["dimension", "judge"],
                [
                    Quantity(
                        "winning rate ω (share of annotators the judge beats)",
                        "winning_rate",
                        None,
                        None,
                        NO_INTERVAL,
                        n_unit="items",
                    ),
                    Quantity(
                        "average advantage probability ρ",
                        "advantage_probability",
                        None,
                        None,
                        NO_INTERVAL,
                        n_unit="items",
                    ),
                ],  # fmt: skip
                confidence_level=1 - self.q,
                extra=["passed", "epsilon"],
            )
        parts = [
            r.table.assign(dimension=d, judge=r.judge, test=_alt_test_words(r))
            for r in self.results
        ]
        f = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        return long_table(
            f,
            ["dimension", "judge", "annotator"],
            [
                Quantity(
                    "judge's advantage minus the annotator's, less ε (mean over items)",
                    "mean_d",
                    None,
                    None,
                    NO_INTERVAL,
                    n_unit="items",
                    test="test",
                    p_value="pvalue",
                    p_adjusted="p_by",
                )
            ],  # fmt: skip
            confidence_level=1 - self.q,
            alpha=self.q,
            family=f"{self.adjustment} over the annotators of each judge",
            family_by=("judge",),
            extra=["rho_judge", "rho_annotator", "rejected"],
        )

    def findings(self) -> list[str]:
        if not self.results:
            return [f"No judge was tested on {self.dimension}."]
        r0 = self.results[0]
        passed = [r.judge for r in self.results if r.passed]
        return [
            f"{len(passed)} of {len(self.results)} judges pass the alternative annotator test "
            f"on {self.dimension} ({r0.method}; ε = {r0.epsilon:g}, q = {r0.q:g}, "
            f"pass = winning rate ≥ 0.5; n = {max(r.n_items for r in self.results)} items)"
            + (f": {', '.join(passed)}." if passed else ".")
        ]

    def __repr__(self) -> str:
        n = sum(bool(r.passed) for r in self.results)
        return f"AltTests({self.dimension}: {n} of {len(self.results)} judges pass, q={self.q:g})"

    def to_dict(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "judges": [r.to_dict() for r in self.results]}


def _alt_test_words(r: AltTestResult) -> str:
    return f"one-sided paired t (judge's advantage vs the annotator's, ε = {r.epsilon:g})"


@dataclass(frozen=True, repr=False, eq=False)
class ExpertAgreement(FrameResult):
    """Leave-one-expert-out κ of every judge (``frame``: one row per judge × left-out expert).

    Tables: ``differences`` (the judge's mean Cohen's κ with the other experts minus the
    left-out expert's, with its paired bootstrap interval) and ``kappa`` (Cohen's κ of the
    judge with the left-out expert). Plot ``forest``: :func:`medjudge.plots.forest_plot` of
    the differences, one panel per left-out expert (0 = agrees as an expert does).
    """

    TABLES = ("differences", "kappa")
    PLOTS = {
        "forest": ("forest_plot", "differences", {
            "panel": "left_out", "baseline": 0.0, "baseline_label": "no difference",
            "xlabel": "κ judge − κ expert"}),
    }  # fmt: skip

    frame: pd.DataFrame
    dimension: str
    confidence_level: float
    kappa_method: str = ""

    def _table(self, name: str) -> pd.DataFrame:
        f = self.frame.assign(dimension=self.dimension, n_unit="items")
        if len(f):
            f["left_out"] = [f"left out: {e}" for e in f["expert"]]
        if name == "kappa":
            q = Quantity("Cohen's κ, judge with the left-out expert", "kappa_judge_expert",
                         "kappa_judge_expert_low", "kappa_judge_expert_high",
                         self.kappa_method or NO_INTERVAL)  # fmt: skip
            return long_table(f, ["dimension", "judge", "expert"], [q],
                              confidence_level=self.confidence_level)  # fmt: skip
        if "judge_minus_expert" not in f.columns:  # fewer than two experts: nothing to compare
            f = f.iloc[0:0]
        q = Quantity("mean Cohen's κ with the other experts, judge minus left-out expert",
                     "judge_minus_expert", "diff_low", "diff_high", n="n_items")  # fmt: skip
        return long_table(
            f,
            ["dimension", "judge", "expert"],
            [q],
            confidence_level=self.confidence_level,
            extra=["left_out", "kappa_judge_others", "kappa_expert_others"],
        )

    def findings(self) -> list[str]:
        t = self.table("differences")
        t = t[np.isfinite(t["ci_high"].astype(float))]
        if t.empty:
            return [f"The leave-one-expert-out κ comparison on {self.dimension} has no interval."]
        below = t[t["ci_high"].astype(float) < 0]
        level = f"{100 * self.confidence_level:g}%"
        return [
            f"Leave-one-expert-out on {self.dimension} (mean Cohen's κ with the remaining "
            f"experts, judge minus left-out expert, n = {int(t['n'].max())} items): "
            f"differences from {t['estimate'].min():.3f} to {t['estimate'].max():.3f}; "
            f"{len(below)} of {len(t)} {level} intervals ({', '.join(t['ci_method'].unique())}) "
            f"lie entirely below 0, for {below['judge'].nunique()} of {t['judge'].nunique()} "
            "judges."
        ]

    def __repr__(self) -> str:
        return (
            f"ExpertAgreement({self.dimension}: {len(self.frame)} judge x left-out expert rows, "
            f"level={self.confidence_level:g})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "rows": self.frame.to_dict(orient="records")}


@dataclass(frozen=True, repr=False, eq=False)
class StandIn(FrameResult):
    """The stand-in decision per judge (``frame``: one row per judge; see
    :func:`medjudge.analyses.judge_vs_experts.study_stand_in`).

    Table ``decisions``: the weakest left-out comparison (the judge's accuracy minus the
    expert's against the other experts' majority) with its interval, and the decision. Plot
    ``forest``: those differences against the margin.
    """

    TABLES = ("decisions",)
    PLOTS = {
        "forest": ("forest_plot", "decisions", {
            "baseline_label": "clinical margin", "xlabel": "accuracy, judge − expert"}),
    }  # fmt: skip

    frame: pd.DataFrame
    confidence_level: float

    def _table(self, name: str) -> pd.DataFrame:
        q = Quantity("accuracy minus the left-out expert's against the other experts' "
                     "majority (weakest expert)", "difference", n_unit="items")  # fmt: skip
        return long_table(
            self.frame.assign(n_unit="items"),
            ["dimension", "judge"],
            [q],
            confidence_level=self.confidence_level,
            extra=["expert", "margin", "decision", "non_inferior", "candidate"],
        )

    def _plot_options(self, kind: str, data: pd.DataFrame, options: Any) -> dict[str, Any]:
        return {"baseline": -float(data["margin"].iloc[0]), **options}

    def findings(self) -> list[str]:
        f = self.frame
        if f.empty:
            return ["No stand-in decision was made."]
        stand = list(f.loc[f["candidate"].astype(bool), "judge"])
        return [
            f"{len(stand)} of {len(f)} judges are candidate stand-ins for an expert "
            f"(non-inferior within {100 * float(f['margin'].iloc[0]):g} accuracy points to "
            f"every left-out expert, {100 * self.confidence_level:g}% intervals: "
            f"{', '.join(f['ci_method'].unique())})" + (f": {', '.join(stand)}." if stand else ".")
        ]

    def __repr__(self) -> str:
        n = int(self.frame["candidate"].sum()) if len(self.frame) else 0
        return f"StandIn({n} of {len(self.frame)} judges candidate stand-ins)"

    def to_dict(self) -> dict[str, Any]:
        return {"decisions": self.frame.to_dict(orient="records")}
