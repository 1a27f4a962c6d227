"""The result of :func:`medjudge.position_bias`: position bias as the presentation design allows.

It keeps the analysis' wide tables (``swap``, ``single_order``) and ``not_applicable``, answers
``result["swap"]`` and ``sorted(result)`` as the dict it used to be, and adds the result
contract (:mod:`medjudge.analyses._result`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ._result import Decided, Quantity, Result, long_table

#: the two swap measures that are 0.5 without position bias (the plot's rows)
FIRST_SHOWN = "first-shown share, all verdicts"
FIRST_FIRST = "first-first share, inconsistent pairs"


@dataclass(frozen=True, repr=False, eq=False)
class PositionBias(Decided, Result):
    """Position bias per judge and dimension (and group of ``by``).

    Tables: ``position`` (swap judges: the first-shown share of all verdicts and the
    first-first share of the inconsistent pairs, with its test (``p_first_test``); both 0.5 without
    bias), ``swap`` (swap consistency and accuracy in each order), ``single_order`` (judges seen
    in one order: their first-shown rate minus the gold's, McNemar). Plots: ``position``
    (:func:`medjudge.plots.position_bias_plot`) and ``single_order``
    (:func:`medjudge.plots.forest_plot` of the differences, 0 = no bias).
    """

    TABLES = ("position", "swap", "single_order")
    PLOTS = {
        "position": ("position_bias_plot", "position", {"group": "estimand", "xlabel": "share"}),
        "single_order": ("forest_plot", "single_order", {
            "baseline": 0.0, "baseline_label": "no position bias",
            "xlabel": "judge minus gold first-shown rate"}),
    }  # fmt: skip
    KEYS = ("not_applicable", "single_order", "swap")

    swap: pd.DataFrame
    single_order: pd.DataFrame
    not_applicable: dict[str, str] = field(default_factory=dict)
    by: tuple[str, ...] = ()
    confidence_level: float = 0.95
    decision_alpha: float | None = None
    #: the multiplicity adjustment of every table's p-values (``p_first_holm``, ``p_holm``)
    adjustment: str = "Holm"

    # the dict this result used to be
    def __getitem__(self, key: str) -> Any:
        if key not in self.KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)

    def keys(self) -> tuple[str, ...]:
        return self.KEYS

    def _table(self, name: str) -> pd.DataFrame:
        keys = ["judge", "dimension", *self.by]
        level = self.confidence_level
        family = f"{self.adjustment} over the judge x dimension tests"
        tested = {"confidence_level": level, "alpha": self.alpha, "family": family}
        s = self.swap
        if name == "position":
            return long_table(
                s,
                keys,
                [
                    Quantity(
                        FIRST_SHOWN,
                        "first_shown_rate",
                        "first_shown_ci_low",
                        "first_shown_ci_high",
                        "consistency_ci_method",
                        "valid_verdicts",
                        "verdicts",
                    ),
                    Quantity(
                        FIRST_FIRST,
                        "p_first_inconsistent",
                        "p_first_ci_low",
                        "p_first_ci_high",
                        "p_first_test",
                        "inconsistent",
                        "pairs of verdicts",
                        test="p_first_test",
                        p_value="p_first_pvalue",
                        p_adjusted="p_first_holm",
                    ),
                ],  # fmt: skip
                **tested,
                extra=["first_first", "second_second"],
            )
        if name == "swap":
            variants = {"ab": "accuracy, order AB", "ba": "accuracy, order BA",
                        "both": "accuracy, right in both orders",
                        "tie_resolved": "accuracy, the two orders averaged"}  # fmt: skip
            return long_table(
                s,
                keys,
                [Quantity("swap consistency", "consistency", "consistency_ci_low",
                          "consistency_ci_high", "consistency_ci_method", "n", "items")]
                + [Quantity(label, f"accuracy_{v}", f"accuracy_{v}_ci_low",
                            f"accuracy_{v}_ci_high", "consistency_ci_method",
                            f"accuracy_{v}_n", "items") for v, label in variants.items()],
                confidence_level=level,
                extra=["policy"],
            )  # fmt: skip
        return long_table(
            self.single_order,
            [*keys, "order"],
            [
                Quantity(
                    "judge minus gold first-shown rate",
                    "difference",
                    test="test",
                    p_value="p_mcnemar_midp",
                    p_adjusted="p_holm",
                )
            ],  # fmt: skip
            **tested,
            warning="note",
            extra=["judge_a_rate", "gold_a_rate", "n_clusters"],
        )

    def findings(self) -> list[str]:
        out = []
        swap, single = self.swap, self.single_order
        swap = swap[swap["p_first_holm"] < self.alpha] if len(swap) else swap
        single = single[single["p_holm"] < self.alpha] if len(single) else single
        for _, r in swap.iterrows():
            out.append(
                f"{r['judge']} on {r['dimension']} chose the first-shown answer both times in "
                f"{int(r['first_first'])} of {int(r['first_first'] + r['second_second'])} "
                f"inconsistent pairs ({r['p_first_inconsistent']:.3f}; {r['p_first_test']}, "
                f"{self.adjustment} p = {r['p_first_holm']:.3g}, alpha = {self.alpha:g})."
            )
        for _, r in single.iterrows():
            out.append(
                f"{r['judge']} on {r['dimension']} answers first-shown at {r['judge_a_rate']:.3f} "
                f"against the gold's {r['gold_a_rate']:.3f} ({r['test']}, {self.adjustment} p = "
                f"{r['p_holm']:.3g}, alpha = {self.alpha:g}; n = {int(r['n'])} {r['n_unit']})."
            )
        for d, why in self.not_applicable.items():
            out.append(f"{d}: no position analysis ({why}).")
        return out or [
            f"No judge shows a position effect ({self.adjustment}, alpha = {self.alpha:g})."
        ]

    def __repr__(self) -> str:
        return (
            f"PositionBias({len(self.swap)} swap rows, {len(self.single_order)} single-order "
            f"rows, {len(self.not_applicable)} dimensions not applicable)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "swap": self.swap.to_dict(orient="records"),
            "single_order": self.single_order.to_dict(orient="records"),
            "not_applicable": dict(self.not_applicable),
        }
