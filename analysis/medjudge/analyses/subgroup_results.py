"""Results of the subgroup analyses: :class:`SubgroupAccuracy` (accuracy per judge x cell,
:func:`medjudge.analyses.subgroups.subgroup_accuracy`) and :class:`Heterogeneity` (does a
judge's accuracy differ across the groups, :func:`medjudge.heterogeneity_table`).

Both used to be bare DataFrames; they keep that table as ``frame`` and answer DataFrame access
(``t["accuracy"]``, ``t.columns``, ``len(t)``) from it, and add the result contract
(:mod:`medjudge.analyses._result`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ._findings import (
    PLAIN,
    Finding,
    Markup,
    Names,
    attribute_words,
    fmt_ci,
    fmt_int,
    fmt_level,
    fmt_num,
    value_words,
)
from ._result import Decided, FrameResult, Quantity, long_table


@dataclass(frozen=True, repr=False, eq=False)
class SubgroupAccuracy(FrameResult):
    """Accuracy of every judge in every cell of ``by``, with intervals and the small-cell flag.

    ``table("cells")`` is the tidy long table (a cell flagged ``small`` carries the rule in
    ``warning``); ``plot("heatmap")`` draws :func:`medjudge.plots.subgroup_heatmap` of one
    attribute and ``plot("forest")`` each cell's accuracy with its interval, a row per group
    and a panel per judge (select the other keys' values with ``where=``).
    """

    TABLES = ("cells",)
    PLOTS = {
        "heatmap": ("subgroup_heatmap", "cells", {"flag": "small"}),
        "forest": ("forest_plot", "cells", {"panel": "judge"}),
    }

    frame: pd.DataFrame
    by: tuple[str, ...]
    confidence_level: float

    def _table(self, name: str) -> pd.DataFrame:
        f = self.frame
        extra = [c for c in ("se", "n_invalid", "n_not_assigned", "n_clusters", "small",
                             "policy", "cluster", "gold") if c in f.columns]  # fmt: skip
        return long_table(
            f,
            ["judge", *self.by],
            [Quantity("accuracy", "accuracy")],
            confidence_level=self.confidence_level,
            warning=lambda t: t["rule"].where(t["small"].astype(bool), "").to_numpy(),
            extra=extra,
        )

    def _plot_options(self, kind: str, data: pd.DataFrame, options: Any) -> dict[str, Any]:
        keys = list(self.by)
        col = next((k for k in keys if k != "dimension"), keys[0] if keys else None)
        if col is None:
            raise ValueError(f"plot({kind!r}) needs a subgroup: this breakdown has no `by` key")
        several = [k for k in keys if k != col and data[k].nunique() > 1]
        if several:
            raise ValueError(
                f"plot({kind!r}) draws one cell per judge and {col}: choose one value of "
                + ", ".join(several)
                + " with where={...}"
            )
        if kind == "forest":  # a row per group in the table's order, a panel per judge
            order = {"judge_order": list(dict.fromkeys(data[col])),
                     "dimension_order": list(dict.fromkeys(data["judge"]))}  # fmt: skip
            return {"row": col, "xlabel": f"accuracy per {col}", **order, **options}
        return {"col": col, **options}

    def findings(self) -> list[str]:
        f = self.frame
        if f.empty:
            return ["No cell has a verdict with gold."]
        n_small = int(f["small"].sum())
        level = f"{100 * self.confidence_level:g}%"
        return [
            f"Accuracy of {f['judge'].nunique()} judges in {len(f)} cells of "
            f"{', '.join(self.by) or 'the whole study'} ({level} intervals: "
            f"{f['ci_method'].iloc[0]}; n counts {f['n_unit'].iloc[0]}; resampled together by "
            f"{f['cluster'].iloc[0]}; an unusable verdict counts as {f['policy'].iloc[0]}); "
            f"{n_small} cells are small ({f['rule'].iloc[0]})."
        ]

    def __repr__(self) -> str:
        f = self.frame
        return (
            f"SubgroupAccuracy({len(f)} cells: judge x {', '.join(self.by) or '-'}, "
            f"{int(f['small'].sum()) if len(f) else 0} small, level={self.confidence_level})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"by": list(self.by), "cells": self.frame.to_dict(orient="records")}


@dataclass(frozen=True, repr=False, eq=False)
class Heterogeneity(Decided, FrameResult):
    """Per judge x dimension, the test of equal accuracy across the groups of ``across``.

    ``table("tests")``: the estimand is the spread of the group accuracies (largest minus
    smallest; no interval) with the test named in ``test``, its p-value and Holm within each
    judge (``p_adjusted``).
    """

    TABLES = ("tests",)

    frame: pd.DataFrame
    across: str
    confidence_level: float
    decision_alpha: float | None = None
    #: the multiplicity adjustment of ``p_holm`` (within a judge) and ``p_holm_all``
    adjustment: str = "Holm"

    def _table(self, name: str) -> pd.DataFrame:
        f = self.frame.assign(_spread=self.frame["max_accuracy"] - self.frame["min_accuracy"])
        return long_table(
            f,
            ["judge", "dimension", "across"],
            [
                Quantity(
                    f"largest minus smallest accuracy across {self.across}", "_spread", None,
                    None, "none (no interval computed)", n_unit="items", test="test",
                    p_value="pvalue", p_adjusted="p_holm",
                )
            ],  # fmt: skip
            confidence_level=self.confidence_level,
            alpha=self.alpha,
            family=f"{self.adjustment} within each judge",
            family_by=("judge",),
            extra=["groups", "chi2", "df", "p_pearson", "Q", "p_q", "I2", "min_accuracy",
                   "max_accuracy", "p_fdr_bh"],
        )  # fmt: skip

    def _family(self) -> tuple[str, str]:
        """The p-value column of a claim over every judge x dimension test, and its words."""
        f = self.frame
        if "p_holm_all" in f:
            m = int(f["pvalue"].notna().sum())
            return "p_holm_all", f"{self.adjustment} over all {m} judge x dimension tests"
        return "p_holm", f"{self.adjustment} within each judge"

    def findings(
        self,
        dimension: str | None = None,
        *,
        names: Names | None = None,
        markup: Markup = PLAIN,
        order_note: str = "",
    ) -> list[Finding]:
        """Per dimension (``dimension`` only, else every one): how many judges' accuracy varies
        significantly across the groups. "Some judge varies" is a claim over every judge and
        dimension, so the family is all judge x dimension tests (``p_holm_all``); ``order_note``
        (in ``markup``) names the presentation order scored, where the design has several."""
        f = self.frame
        dims = [dimension] if dimension is not None else list(dict.fromkeys(f["dimension"]))
        m_all = int(f["pvalue"].notna().sum())
        out = []
        for d in dims:
            h = f[f["dimension"] == d]
            if h.empty:
                continue
            n_sig = int((h["p_holm_all"] < self.alpha).sum()) if "p_holm_all" in h else 0
            text = (
                f"{fmt_int(n_sig)} of {fmt_int(len(h))} {markup.role(names, 'judge')}' accuracy "
                f"on {markup.em_data(d)} varies significantly across "
                f"{markup.data(attribute_words(self.across))} groups "
                f"({markup.data(f['test'].iloc[0])}, {markup.data(self.adjustment)} over all "
                f"{fmt_int(m_all)} {markup.role(names, 'judge', 1)} × dimension tests, "
                f"α = {self.alpha:g}{order_note})."
            )
            out.append(Finding(text, weight=2))
        return out

    def summary(self) -> str:
        """The one-line ``repr``, the findings, then each judge whose accuracy differs."""
        f = self.frame
        col, fam = self._family()
        hits = f[f[col] < self.alpha] if len(f) else f
        return "\n".join(
            [repr(self), *self.findings()]
            + [
                f"{r['judge']} on {r['dimension']}: accuracy differs across {self.across} "
                f"({r['min_accuracy']:.3f} to {r['max_accuracy']:.3f}; {r['test']}, "
                f"p = {r['pvalue']:.3g}, {fam} {r[col]:.3g}, alpha = {self.alpha:g})."
                for _, r in hits.iterrows()
            ]
        )

    def weakest_finding(
        self, cells: pd.DataFrame, judge: str, dimension: str, *, markup: Markup = PLAIN
    ) -> list[Finding]:
        """``judge`` (the evaluation's most accurate on ``dimension``) is not equally accurate
        across the groups — only when its own test says so (Holm within the judge) — and its
        least accurate group among ``cells`` (a :class:`SubgroupAccuracy` frame of
        ``dimension``) that are not flagged small, with interval and n; ``[]`` otherwise."""
        het = self.frame
        row = het[(het["judge"] == judge) & (het["dimension"] == dimension)]
        if row.empty or not (row["p_holm"].iloc[0] < self.alpha):
            return []
        t = cells[cells["judge"] == judge]
        if "small" in t:
            t = t[~t["small"].astype(bool)]
        if t.empty:
            return []
        weak = t.sort_values(["accuracy", self.across], kind="stable").iloc[0]
        h, lvl = row.iloc[0], fmt_level(self.confidence_level)
        small = bool(cells["small"].any()) if "small" in cells else False
        return [
            Finding(
                f"The best judge, {markup.strong_data(judge)}, is not equally accurate across "
                f"{markup.em_data(attribute_words(self.across))} on {markup.em_data(dimension)} "
                f"({markup.data(h['test'])}, p = {fmt_num(h['pvalue'], 3)}, "
                f"{markup.data(self.adjustment)} {fmt_num(h['p_holm'], 3)}, α = "
                f"{self.alpha:g}); it is least accurate on "
                f"{markup.data(value_words(weak[self.across]))}: {fmt_num(weak['accuracy'], 3)} "
                f"({lvl} CI {fmt_ci(weak['ci_low'], weak['ci_high'], 3)}, n = "
                f"{fmt_int(weak['n'])} {markup.data(weak['n_unit'])}).",
                caveat="some subgroup cells are small; read the interval, not the point"
                if small
                else None,
                weight=3,
            )
        ]

    def __repr__(self) -> str:
        return (
            f"Heterogeneity({len(self.frame)} tests across {self.across!r}, alpha={self.alpha:g})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"across": self.across, "tests": self.frame.to_dict(orient="records")}
