"""The tidy tables of a :class:`~medjudge.analyses.judge_vs_gold.JudgeGoldResult`.

Each wide table becomes one long table of the result contract (:mod:`medjudge.analyses._result`).
"""

from __future__ import annotations

import pandas as pd

from ._result import Quantity, Result, long_table

NO_INTERVAL = "none (no interval computed)"


def _rate_method(res: Result) -> str:
    """The interval of a per-class rate: the same (clustered) Wilson interval as the ordinal
    error rates (:func:`medjudge.stats.confusion.rate_intervals`)."""
    clustered = not str(res.settings.get("cluster", "none")).startswith("none")
    return "wilson (effective n, Korn-Graubard df)" if clustered else "wilson"


def gold_table(res: Result, name: str) -> pd.DataFrame:
    """The tidy long table ``name`` (one of ``metrics, classes, confusion, baseline_tests``)."""
    level = float(res.settings.get("confidence_level", 0.95))
    alpha = float(res.settings.get("alpha", 1.0 - level))
    keys = ["judge", "dimension", "role"]
    if name == "metrics":
        return long_table(
            res.metrics,
            keys,
            [Quantity("metric", "estimate", n_unit="items", estimand_column=True)],
            confidence_level=level,
            extra=["se", "n_invalid", "weights"],
        )
    if name == "classes":
        c = res.classes
        c = c.assign(_what=c["metric"] + " of class " + c["class"].astype(str))
        return long_table(
            c,
            [*keys, "class"],
            [
                Quantity(
                    "_what",
                    "estimate",
                    ci_method=_rate_method(res),
                    n_unit="items",
                    estimand_column=True,
                )
            ],  # fmt: skip
            confidence_level=level,
            extra=["count"],
        )
    if name == "confusion":
        c = res.confusion
        total = c.groupby(["dimension", "judge"], sort=False)["count"].transform("sum")
        c = c.assign(_what="items with this gold label and this verdict", _n=total)
        return long_table(
            c,
            [*keys, "gold", "predicted"],
            [
                Quantity(
                    "_what", "count", None, None, NO_INTERVAL, "_n", "items", estimand_column=True
                )
            ],  # fmt: skip
            confidence_level=level,
        )
    t = res.baseline_tests
    m = res.metrics[res.metrics["metric"] == "accuracy"].set_index(["dimension", "judge"])["n"]
    n = pd.MultiIndex.from_frame(t[["dimension", "judge"]]).map(m.to_dict())
    return long_table(
        t.assign(_n=list(n)).rename(columns={"baseline": "compared_with"}),
        ["judge", "dimension", "compared_with"],
        [
            Quantity(
                "accuracy minus the best trivial baseline's",
                "difference",
                n="_n",
                n_unit="items",
                test="test",
                p_value="pvalue",
                p_adjusted="p_holm",
            )
        ],  # fmt: skip
        confidence_level=level,
        alpha=alpha,
        family="Holm over the judges within each dimension",
        family_by=("dimension",),
        extra=["accuracy", "baseline_accuracy", "statistic", "b", "c", "beats_baseline"],
    )
