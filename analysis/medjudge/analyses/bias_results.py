"""Results of the bias diagnostics (:mod:`medjudge.analyses.bias`,
:mod:`medjudge.analyses.consistency`): :class:`LengthBias`, :class:`RunConsistency` and
:class:`BiasReport` (every diagnostic that applies to a study).

``LengthBias`` and ``RunConsistency`` used to be bare DataFrames and ``BiasReport`` a dict of
them; each keeps that (``frame``; ``report["length_bias"]``, ``sorted(report)``) and adds the
result contract (:mod:`medjudge.analyses._result`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ._findings import PLAIN, Finding, Markup, Names, fmt_int
from ._result import Decided, FrameResult, Quantity, Result, long_table

#: Newcombe's hybrid score interval of two independent proportions (``_two_sample``)
GAP_INTERVAL = "Newcombe hybrid score"
GAP_TEST = "score test of two independent proportions"
LENGTH_UNIT = "items whose answers differ in length"


def _label(t: pd.DataFrame) -> list[str]:
    """A rater's row label: experts marked, as the report draws them."""
    return [
        f"{r} (expert)" if role == "expert" else str(r)
        for r, role in zip(t["rater"], t["role"], strict=True)
    ]


@dataclass(frozen=True, repr=False, eq=False)
class LengthBias(Decided, FrameResult):
    """Length (verbosity) bias per dimension and rater (``frame``: the wide table of
    :func:`medjudge.analyses.bias.length_bias`).

    Tables: ``length_gap`` (accuracy when the gold answer is the longer minus when it is the
    shorter; Newcombe interval, score test, Holm over the table) and ``longer_rate`` (how often
    the rater picks the longer answer minus how often the gold does; Tango interval, McNemar
    mid-p, Holm). Plot ``gap``: :func:`medjudge.plots.forest_plot` of the accuracy gaps, one row
    per rater (experts marked), one panel per dimension; 0 = no length bias.
    """

    TABLES = ("length_gap", "longer_rate")
    PLOTS = {
        "gap": ("forest_plot", "length_gap", {
            "row": "label", "baseline": 0.0, "baseline_label": "no gap",
            "xlabel": "accuracy gap (gold longer − gold shorter)"}),
        "longer_rate": ("forest_plot", "longer_rate", {
            "row": "label", "baseline": 0.0, "baseline_label": "as often as the gold",
            "xlabel": "picks the longer answer, rater − gold"}),
    }  # fmt: skip

    frame: pd.DataFrame
    confidence_level: float = 0.95
    decision_alpha: float | None = None
    #: the multiplicity adjustment of both tables' p-values, over every rater and dimension
    adjustment: str = "Holm"

    @property
    def family(self) -> str:
        """The multiplicity family, in words."""
        return f"{self.adjustment} over every rater and dimension"

    def _table(self, name: str) -> pd.DataFrame:
        f = self.frame.assign(n_unit=LENGTH_UNIT)
        if len(f):
            f["label"] = _label(f)
        keys = ["dimension", "rater", "role"]
        if name == "length_gap":
            q = Quantity("accuracy when the gold answer is the longer minus when it is the "
                         "shorter", "length_gap", "gap_ci_low", "gap_ci_high", GAP_INTERVAL,
                         test=GAP_TEST, p_value="gap_pvalue", p_adjusted="gap_p_holm")  # fmt: skip
            extra = ["label", "accuracy_gold_longer", "accuracy_gold_shorter", "excluded"]
        else:
            q = Quantity("share picking the longer answer, rater minus gold", "difference",
                         test="test", p_value="pvalue", p_adjusted="p_holm")  # fmt: skip
            extra = ["label", "rater_longer_rate", "gold_longer_rate", "b", "c", "excluded"]
        return long_table(
            f,
            keys,
            [q],
            confidence_level=self.confidence_level,
            alpha=self.alpha,
            family=self.family,
            extra=extra if len(f) else (),
        )

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """Per dimension (``dimension`` only, else every one): how many judges show a length
        bias (their accuracy gap, adjusted over every rater x dimension test, at α)."""
        t = self.table("length_gap")
        if t.empty:
            return []
        m = int(t["family_size"].max())
        dims = [dimension] if dimension is not None else list(dict.fromkeys(t["dimension"]))
        out = []
        for d in dims:
            h = t[(t["dimension"] == d) & (t["role"] != "expert")]
            n_sig = int((h["p_adjusted"] < self.alpha).sum())
            out.append(
                Finding(
                    f"{fmt_int(n_sig)} of {fmt_int(len(h))} {markup.role(names, 'judge')} show a "
                    f"length bias on {markup.em_data(d)} (accuracy gap, "
                    f"{markup.data(self.adjustment)} over {fmt_int(m)} tests, "
                    f"α = {self.alpha:g}).",
                    weight=3 if n_sig else 1,
                )
            )
        return out

    def summary(self) -> str:
        """The one-line ``repr``, then per dimension the finding, the intervals and test used
        and the judges with a length bias."""
        return "\n".join([repr(self), *self.details()])

    def details(self) -> list[str]:
        """Each finding followed by the interval and test used and the judges it counts."""
        t = self.table("length_gap")
        t = t[t["role"] != "expert"]
        if t.empty:
            return ["No item has two answers of different lengths: no length bias estimated."]
        out = []
        for d, g in t.groupby("dimension", sort=False):
            f = self.findings(str(d))[0]
            hits = g[g["p_adjusted"] < self.alpha]
            out.append(
                f"{f} Gap intervals: {GAP_INTERVAL}, {100 * self.confidence_level:g}%; test: "
                f"{GAP_TEST}" + (f"; biased: {', '.join(hits['rater'])}." if len(hits) else ".")
            )
        return out

    def __repr__(self) -> str:
        return (
            f"LengthBias({len(self.frame)} rater x dimension rows, level={self.confidence_level:g})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"length_bias": self.frame.to_dict(orient="records")}


@dataclass(frozen=True, repr=False, eq=False)
class RunConsistency(FrameResult):
    """Flip rates of repeated runs per rater × dimension × order (``frame``: the wide table of
    :func:`medjudge.run_consistency`; empty when no rater has repeated runs).

    Table ``flips``: the share of items whose runs do not all agree, Wilson interval. Plot
    ``forest``: :func:`medjudge.plots.forest_plot` of the flip rates, one row per rater.
    """

    TABLES = ("flips",)
    PLOTS = {"forest": ("forest_plot", "flips", {"row": "rater", "xlabel": "flip rate"})}

    frame: pd.DataFrame
    confidence_level: float = 0.95

    def _table(self, name: str) -> pd.DataFrame:
        f = self.frame
        q = Quantity("flip rate (share of items whose runs disagree)", "flip_rate",
                     ci_method="wilson", n="n_items",
                     n_unit="items rated in two or more runs")  # fmt: skip
        extra = ["runs", "flips", "pairwise_disagreement", "within_item_variance"]
        return long_table(
            f, ["rater", "dimension", "order"], [q], confidence_level=self.confidence_level,
            extra=extra if len(f) else (),
        )  # fmt: skip

    def findings(self) -> list[str]:
        t = self.table()
        if t.empty:
            return ["No rater has repeated runs: no run consistency measured."]
        worst = t.loc[t["estimate"].idxmax()]
        return [
            f"{len(t)} rater x dimension x order cells have repeated runs; flip rates from "
            f"{t['estimate'].min():.3f} to {t['estimate'].max():.3f} (highest: {worst['rater']} "
            f"on {worst['dimension']}, {worst['ci_method']} {100 * self.confidence_level:g}% "
            f"interval {worst['ci_low']:.3f} to {worst['ci_high']:.3f}, n = {int(worst['n'])} "
            f"{worst['n_unit']})."
        ]

    def __repr__(self) -> str:
        return (
            f"RunConsistency({len(self.frame)} rater x dimension x order rows with repeated runs)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"run_consistency": self.frame.to_dict(orient="records")}


@dataclass(frozen=True, repr=False, eq=False)
class BiasReport(Result):
    """Every bias diagnostic that applies to a study (see :func:`medjudge.bias_report`).

    Answers ``report["length_bias"]``, ``sorted(report)`` and ``report.items()`` as the dict of
    wide tables it used to be. Tables: ``length_gap`` and ``longer_rate`` (of
    :class:`LengthBias`), ``prevalence`` (gold prevalence of each category, Wilson),
    ``constant_answers`` (accuracy of always answering one category, Wilson) and ``flips``
    (of :class:`RunConsistency`); position bias is :func:`medjudge.position_bias`'s result.
    """

    TABLES = ("length_gap", "longer_rate", "prevalence", "constant_answers", "flips")
    PLOTS = {
        "length": ("forest_plot", "length_gap", LengthBias.PLOTS["gap"][2]),
        "constant_answers": ("forest_plot", "constant_answers", {"xlabel": "accuracy"}),
    }

    tables_: dict[str, pd.DataFrame]
    confidence_level: float = 0.95

    # the dict this result used to be
    def __getitem__(self, key: str) -> pd.DataFrame:
        return self.tables_[key]

    def __contains__(self, key: object) -> bool:
        return key in self.tables_

    def __iter__(self) -> Iterator[str]:
        return iter(self.tables_)

    def __len__(self) -> int:
        return len(self.tables_)

    def keys(self) -> Any:
        return self.tables_.keys()

    def items(self) -> Any:
        return self.tables_.items()

    def values(self) -> Any:
        return self.tables_.values()

    def get(self, key: str, default: Any = None) -> Any:
        return self.tables_.get(key, default)

    def _table(self, name: str) -> pd.DataFrame:
        level = self.confidence_level
        if name in ("length_gap", "longer_rate"):
            lb = self.tables_.get("length_bias", pd.DataFrame())
            return LengthBias(lb, level).table(name)
        if name == "flips":
            return RunConsistency(
                self.tables_.get("run_consistency", pd.DataFrame()), level
            ).table()
        if name == "prevalence":
            f = self.tables_.get("label_balance", pd.DataFrame())
            q = Quantity("gold prevalence of the category", "prevalence", ci_method="wilson",
                         n_unit="items with gold")  # fmt: skip
            return long_table(f, ["dimension", "category"], [q], confidence_level=level,
                              extra=["count", "no_gold", "gold"] if len(f) else ())  # fmt: skip
        f = self.tables_.get("constant_answers", pd.DataFrame())
        if len(f):
            f = f.assign(ci_method=f["ci_low"].notna().map({True: "wilson", False: ""}))
            f["ci_method"] = f["ci_method"].replace("", "none (no interval computed)")
        q = Quantity("accuracy of a constant answer", "accuracy", n_unit="items with gold")
        return long_table(f, ["dimension", "judge"], [q], confidence_level=level)

    def findings(self) -> list[str]:
        lb = self.tables_.get("length_bias")
        rc = self.tables_.get("run_consistency")
        out = LengthBias(lb, self.confidence_level).details() if lb is not None else []
        if rc is not None:
            out += RunConsistency(rc, self.confidence_level).findings()
        return out

    def __repr__(self) -> str:
        return f"BiasReport({', '.join(self.tables_)}; level={self.confidence_level:g})"

    def to_dict(self) -> dict[str, Any]:
        return {k: v.to_dict(orient="records") for k, v in self.tables_.items()}
