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

from ._findings import PLAIN, Finding, Markup, Names, fmt_int, fmt_level, fmt_num
from ._result import Decided, Quantity, Result, long_table

#: the two swap measures that are 0.5 without position bias (the plot's rows)
FIRST_SHOWN = "first-shown share, all verdicts"
FIRST_FIRST = "first-first share, inconsistent pairs"


def swap_test_name(swap: pd.DataFrame) -> str:
    """The swap table's test, named from its ``p_first_test`` column ("exact binomial test"
    without clusters, "cluster sign-flip test" with)."""
    names = dict.fromkeys(str(t).split(" (")[0] for t in swap["p_first_test"])
    return " / ".join(n if n.endswith("test") else f"{n} test" for n in names)


def _family_size(t: pd.DataFrame, p: str) -> int:
    """Tests in a multiplicity family: the finite p-values of ``t[p]``."""
    return int(pd.to_numeric(t[p], errors="coerce").notna().sum()) if len(t) else 0


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

    def findings(
        self,
        dimension: str | None = None,
        *,
        names: Names | None = None,
        markup: Markup = PLAIN,
        randomised: bool = False,
    ) -> list[Finding]:
        """Per dimension (``dimension`` only, else every one): how many judges seen in both
        orders prefer one position (the first-first test, adjusted over the judge x dimension
        tests); and, when ``randomised`` (the design varied the order between items, so a
        first-shown rate unlike the gold's is position bias), how many judges seen in one
        order per item differ from the gold, with the largest difference and its interval."""
        swap, single = self.swap, self.single_order
        dims = [dimension] if dimension is not None else list(
            dict.fromkeys([*swap.get("dimension", []), *single.get("dimension", [])])
        )  # fmt: skip
        adj, lvl = markup.data(self.adjustment), fmt_level(self.confidence_level)
        out = []
        for d in dims:
            h = swap[swap["dimension"] == d] if len(swap) else swap
            if len(h):
                m = _family_size(swap, "p_first_pvalue")
                n_sig = int((h["p_first_holm"] < self.alpha).sum())
                out.append(Finding(
                    f"{fmt_int(n_sig)} of {fmt_int(len(h))} {markup.role(names, 'judge')} seen "
                    f"in both orders prefer one position on {markup.em_data(d)} "
                    f"({markup.data(swap_test_name(swap))}, {adj} over {fmt_int(m)} tests, "
                    f"α = {self.alpha:g}).",
                    weight=3 if n_sig else 1,
                ))  # fmt: skip
            h1 = single[single["dimension"] == d] if len(single) else single
            n_sig1 = int((h1["p_holm"] < self.alpha).sum()) if len(h1) else 0
            if n_sig1 and randomised:
                m = _family_size(single, "p_value")
                tests = " / ".join(markup.data(t) for t in dict.fromkeys(h1["test"]))
                top = h1.loc[h1["difference"].abs().idxmax()]
                out.append(Finding(
                    f"{fmt_int(n_sig1)} of {fmt_int(len(h1))} {markup.role(names, 'judge')} seen "
                    f"in one randomised order per item choose the first-shown answer at a rate "
                    f"different from the gold's on {markup.em_data(d)} ({tests}, {adj} over "
                    f"{fmt_int(m)} tests, α = {self.alpha:g}); the largest difference is "
                    f"{markup.data(top['judge'])}'s {fmt_num(top['difference'], 3)} ({lvl} CI "
                    f"{fmt_num(top['ci_low'], 3)} to {fmt_num(top['ci_high'], 3)}).",
                    weight=3,
                ))  # fmt: skip
        return out

    def summary(self) -> str:
        """The one-line ``repr``, the findings, then each judge with a position effect and the
        dimensions without a position analysis."""
        out = [repr(self), *self.findings()]
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
        if len(out) == 1:
            out.append(
                f"No judge shows a position effect ({self.adjustment}, alpha = {self.alpha:g})."
            )
        return "\n".join(out)

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
