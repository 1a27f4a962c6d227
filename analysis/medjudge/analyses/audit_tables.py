"""The tidy tables of an :class:`~medjudge.analyses.audit.AuditReport` and the coefficient names
they (and the report) use.

Each table becomes one long table of the result contract (:mod:`medjudge.analyses._result`):
the reliability coefficients, each annotator against the others, every pair of annotators, the
per-category kappas and the subgroup reliability, stacked over the audited dimensions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._result import Quantity, Result, long_table

#: a coefficient's name as a reader knows it
COEFFICIENT_NAMES = {
    "percent_agreement": "percent agreement",
    "fleiss_kappa": "Fleiss' κ",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2",
    "krippendorff_alpha": "Krippendorff's α",
}


def coefficient_label(coefficient: str, weights: Any) -> str:
    """``"Fleiss' κ"``, or ``"Fleiss' κ (ordinal weights)"`` when the row was weighted;
    Krippendorff's α names its metric (``"Krippendorff's α (ordinal metric)"``).

    Examples
    --------
    >>> coefficient_label("fleiss_kappa", "linear"), coefficient_label("gwet_ac1", "identity")
    ("Fleiss' κ (linear weights)", "Gwet's AC1")
    """
    name = COEFFICIENT_NAMES.get(coefficient, coefficient)
    w = (
        ""
        if weights is None or (isinstance(weights, float) and np.isnan(weights))
        else str(weights)
    )
    if not w or w == "identity" or w == "nominal metric":
        return name
    if w.endswith("metric"):
        return f"{name} ({w})"
    return f"{name} ({w} weights)"


def _stacked(res: Result, key: str) -> pd.DataFrame:
    """The per-dimension table ``key`` of every audited dimension, with a ``dimension`` column."""
    frames = [
        d[key].assign(dimension=dim)
        for dim, d in res.dimensions.items()
        if isinstance(d.get(key), pd.DataFrame) and len(d[key])
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _agreement_pair(
    t: pd.DataFrame, keys: list[str], against: str, level: float, which: tuple[str, ...]
) -> pd.DataFrame:
    """Percent agreement (Wilson interval) and/or Cohen's kappa of each row of ``t``."""
    quantities = {
        "agreement": Quantity(f"percent agreement with {against}", "agreement", "agreement_low",
                              "agreement_high", "wilson", n_unit="items"),
        "kappa": Quantity(f"Cohen's κ with {against}", "kappa", "kappa_low", "kappa_high",
                          "kappa_ci_method", n_unit="items"),
    }  # fmt: skip
    return long_table(t, keys, [quantities[w] for w in which], confidence_level=level)


def audit_table(res: Result, name: str) -> pd.DataFrame:
    """The tidy long table ``name`` of ``res`` (one of ``AuditReport.TABLES``)."""
    level = float(res.settings.get("confidence_level", 0.95))
    if name == "reliability":
        r = res.reliability
        what = [
            coefficient_label(c, w) for c, w in zip(r["coefficient"], r["weights"], strict=True)
        ]
        return long_table(
            r.assign(_what=what, _n=r["n_pairable"] if "n_pairable" in r else r["n"]),
            ["dimension", "coefficient"],
            [
                Quantity(
                    "_what",
                    "estimate",
                    n="_n",
                    n_unit="items with at least two labels",
                    estimand_column=True,
                )
            ],
            confidence_level=level,
            extra=["se", "measurement", "weights", "pa", "pe", "n_raters"],
        )
    if name == "annotators":
        t = _stacked(res, "annotators")
        against = "the majority of the other annotators"
        return _agreement_pair(t, ["rater", "dimension"], against, level, ("agreement", "kappa"))
    if name in ("pairwise", "pairwise_agreement"):
        t = _stacked(res, "pairwise")
        which = ("kappa",) if name == "pairwise" else ("agreement",)
        keys = ["rater_a", "rater_b", "dimension"]
        return _agreement_pair(t, keys, "the other annotator", level, which)
    if name == "categories":
        t = _stacked(res, "categories")
        return long_table(
            t,
            ["category", "dimension"],
            [Quantity("category-specific κ", "kappa", n_unit="items")],
            confidence_level=level,
            extra=["share"] if "share" in t.columns else [],
        )
    t = _stacked(res, "subgroups")
    if len(t):
        t = t[~t["too_small"].astype(bool)]
    quantities = [
        Quantity("Krippendorff's α within the group", "alpha", "alpha_low", "alpha_high",
                 n="n_items", n_unit="items")
    ]  # fmt: skip
    if "fleiss_kappa" in t.columns:
        quantities.insert(0, Quantity("Fleiss' κ within the group", "fleiss_kappa", "fleiss_low",
                                      "fleiss_high", "fleiss_ci_method", "n_items", "items"))  # fmt: skip
    out = long_table(
        t, ["attribute", "group", "dimension"], quantities, confidence_level=level,
        extra=["weights"] if "weights" in t.columns else [],
    )  # fmt: skip
    return out[out["estimate"].notna()].reset_index(drop=True) if len(out) else out
