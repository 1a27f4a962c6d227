"""A bias suite for judges: self-preference, length, style and position, each with inference.

One row per judge x effect, each an estimate with a confidence interval and a test, and Holm's
adjustment over every test in the suite (``p_holm``; the family size is in the settings):

* ``self_preference`` — accuracy when the gold answer comes from the judge's own model family
  minus accuracy when it comes from the other model
  (:func:`medjudge.stats.self_preference.self_preference`). Needs the answer-model columns and
  the judge's family (mapping keys ``models``, ``[judge_families]``).
* ``length`` — length effect ``beta_1`` (log-odds) of the length-controlled accuracy model
  (:func:`medjudge.stats.length_control.length_controlled_accuracy`); the ``lc_accuracy``
  column gives the accuracy at equal lengths. Needs the answer lengths as item attributes.
* ``style`` — the same model with any other signed answer attribute (e.g. markdown headers in
  answer 1 and answer 2), when the study records it and it is named.
* ``position`` — as the presentation design allows (:mod:`medjudge.data.design`): for a judge
  seen in both orders on the same items, the share of its changed verdicts that chose the
  first-shown answer twice, minus 0.5 (exact binomial); for a judge seen in one order per item
  (fixed or randomised), its rate of choosing the first-shown answer minus the gold's on the
  same items (:func:`medjudge.analyses.position.a_rate_table`); ties excluded; not estimated
  when the labels have no positions or the order is not recorded (``notes``).

An effect that cannot be estimated for a study is listed in ``notes`` with the reason.
Correctness: the judge's verdict equals the gold; a judge's tie on a non-tie gold is wrong;
items with a tie gold, no gold, or no usable verdict are excluded and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from medjudge._validation import DEFAULT_ALPHA
from medjudge.analyses._result import Quantity, Result, long_table
from medjudge.analyses._tables import TablesToDict
from medjudge.data.design import presentation_design
from medjudge.data.model import Study
from medjudge.stats.length_control import length_controlled_accuracy
from medjudge.stats.multiplicity import adjust_pvalues
from medjudge.stats.self_preference import self_preference

from .._validation import ALPHA
from .design import resolve_clusters
from .position import a_rate_table, swap_table

__all__ = ["BiasSuiteResult", "bias_suite"]

#: what a position row estimates, by design: judges seen in both orders (swap) and judges seen
#: in one order per item; the two are different quantities and each row names its own
POSITION_ESTIMANDS = {
    "swap": "share of changed verdicts (both orders) that chose the first-shown answer twice, "
    "minus 0.5",
    "one_order": "rate of choosing the first-shown answer minus the gold's rate",
}


@dataclass(frozen=True, repr=False)
class BiasSuiteResult(TablesToDict, Result):
    """Effects table (``judge, effect, estimate, ci_low, ci_high, level, pvalue, p_holm …``),
    the settings, and one sentence per effect that did not apply.

    ``table("effects")`` is the tidy long table of the result contract (each effect on its own
    scale, named in ``estimand``), ``table("length_controlled")`` the length-controlled accuracy
    where the length effect ran; ``plot()`` draws every effect with its interval, a panel per
    estimand.
    """

    DICT_KEYS = ("settings", "effects", "notes")
    TABLES = ("effects", "length_controlled")
    PLOTS = {"effects": ("forest_plot", "effects", {
        "panel": "estimand", "baseline": 0.0, "baseline_label": "no effect",
        "xlabel": "effect (scale in the table)"})}  # fmt: skip

    effects: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def alpha(self) -> float:
        """The decision threshold: ``settings["alpha"]`` (the ``alpha`` the suite was given),
        else :data:`~medjudge._validation.DEFAULT_ALPHA` (0.05; never ``1 - confidence_level``)."""
        if self.settings.get("alpha") is not None:
            return float(self.settings["alpha"])
        return DEFAULT_ALPHA

    def _table(self, name: str) -> pd.DataFrame:
        e = self.effects
        level = float(self.settings.get("confidence_level", 0.95))
        if name == "length_controlled":
            return long_table(
                e[e["lc_accuracy"].notna()] if "lc_accuracy" in e.columns else e.iloc[0:0],
                ["judge"],
                [
                    Quantity(
                        "length-controlled accuracy",
                        "lc_accuracy",
                        "lc_ci_low",
                        "lc_ci_high",
                        "method",
                        n_unit="items",
                    )
                ],  # fmt: skip
                confidence_level=level,
                extra=["accuracy"],
            )
        what = e["effect"] + " effect (" + e["scale"].astype(str) + ")" if len(e) else ""
        return long_table(
            e.assign(_what=what),
            ["judge", "effect"],
            [
                Quantity(
                    "_what",
                    "estimate",
                    ci_method="method",
                    n_unit="items",
                    test="method",
                    p_value="pvalue",
                    p_adjusted="p_holm",
                    estimand_column=True,
                ),
            ],  # fmt: skip
            confidence_level=level,
            alpha=self.alpha,
            family=str(self.settings.get("multiplicity", "")),
            extra=[c for c in ("n_clusters", "excluded") if c in e.columns],
        )

    def findings(self) -> list[str]:
        lines = [
            f"{r.judge} {r.effect}: {r.estimate:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] "
            f"({r.scale}; {r.method}), {self.settings.get('adjustment', 'Holm')} p = "
            f"{r.p_holm:.3g} over the "
            f"{self.settings.get('family_size')} tests of the suite"
            + (" — significant" if r.p_holm < self.alpha else "")
            for r in self.effects.itertuples()
        ]
        return lines + [f"not tested: {k}: {v}" for k, v in self.notes.items()]

    def summary(self) -> str:
        """The one-line ``repr``, the multiplicity family and alpha, then one line per effect
        and per effect not tested."""
        family = self.settings.get("multiplicity", "no multiplicity adjustment")
        return "\n".join([repr(self), f"# bias suite: {family}, alpha = {self.alpha:g}",
                          *self.findings()])  # fmt: skip

    def __repr__(self) -> str:
        return (
            f"BiasSuiteResult({len(self.effects)} tests, family={self.settings.get('family_size')},"
            f" confidence_level={self.settings.get('confidence_level')})"
        )


@dataclass(frozen=True)
class _Suite:
    """What every effect of the suite reads: the outcomes, per-item correctness (NaN where not
    scored), gold codes, the non-tie mask, cluster labels, the level and the notes to fill."""

    study: Study
    oc: Any
    correct: np.ndarray
    gold: np.ndarray
    non_tie: np.ndarray
    cl: np.ndarray | None
    level: float
    notes: dict[str, str]

    def unpack(self) -> tuple:
        return (self.study, self.oc, self.correct, self.gold, self.non_tie, self.cl,
                self.level, self.notes)  # fmt: skip


def _self_preference_rows(s: _Suite, models: tuple) -> list[dict[str, Any]]:
    """Self-preference rows: each judge's accuracy gap when its own family wrote the gold answer
    (:func:`medjudge.stats.self_preference.self_preference`); the reason in ``notes`` if none."""
    study, oc, correct, gold, non_tie, cl, level, notes = s.unpack()
    rows: list[dict[str, Any]] = []
    if len(models) != 2 or any(c not in study.items.columns for c in models):
        notes["self_preference"] = "the study does not name the answer models (mapping key models)"
    elif not study.judge_families:
        notes["self_preference"] = "no judge has a model family ([judge_families] in the mapping)"
    else:
        it = study.items.set_index("item").loc[oc.items]
        fam = study.model_families
        f1 = it[models[0]].astype(str).map(lambda m: fam.get(m, m)).to_numpy()
        f2 = it[models[1]].astype(str).map(lambda m: fam.get(m, m)).to_numpy()
        gold_first = gold == 0  # code 0 = answer 1 preferred
        tested = 0
        for j, judge in enumerate(oc.judges):
            f = study.judge_families.get(judge)
            if f is None:
                continue
            one_own = (f1 == f) ^ (f2 == f)
            if one_own.sum() == 0:
                continue
            gold_own = np.where(gold_first, f1 == f, f2 == f)
            keep = one_own & non_tie
            r = self_preference(
                correct[keep, j],
                gold_own[keep],
                clusters=None if cl is None else cl[keep],
                confidence_level=level,
            )
            tested += 1
            rows.append(
                {
                    "judge": judge,
                    "effect": "self_preference",
                    "estimate": r.effect,
                    "ci_low": r.ci_low,
                    "ci_high": r.ci_high,
                    "level": level,
                    "pvalue": r.pvalue,
                    "n": r.n_gold_own + r.n_gold_other,
                    "n_clusters": r.n_clusters,
                    "method": "accuracy gap (gold own - gold other), cluster-robust LPM, Wald z",
                    "scale": "difference of accuracies",
                    "family": f,
                    "accuracy_gold_own": r.accuracy_gold_own,
                    "accuracy_gold_other": r.accuracy_gold_other,
                    "excluded": int(keep.sum() - (r.n_gold_own + r.n_gold_other)),
                }
            )
        if tested == 0:
            notes["self_preference"] = (
                "no judge's family wrote any of the answers (no item pits a judge's own family "
                "against another model)"
            )

    return rows


def _attribute_rows(s: _Suite, length: Any, style: Any) -> list[dict[str, Any]]:
    """Length and style rows: the log-odds effect of the gold answer's attribute advantage
    (:func:`medjudge.stats.length_control.length_controlled_accuracy`)."""
    study, oc, correct, gold, _, cl, level, notes = s.unpack()
    items = oc.items
    rows: list[dict[str, Any]] = []
    for effect, cols in (("length", length), ("style", style)):
        if cols is None:
            notes[effect] = "no answer attribute named for this effect"
            continue
        if len(cols) != 2 or any(c not in study.items.columns for c in cols):
            notes[effect] = "the study has no item columns " + " and ".join(map(str, cols))
            continue
        diff12 = _signed_difference(study, cols, items)
        # signed towards the gold-preferred answer
        delta = np.where(gold == 0, diff12, -diff12)
        for j, judge in enumerate(oc.judges):
            r = length_controlled_accuracy(
                correct[:, j], delta, clusters=cl, confidence_level=level
            )
            rows.append(
                {
                    "judge": judge,
                    "effect": effect,
                    "estimate": r.length_effect,
                    "ci_low": r.effect_ci_low,
                    "ci_high": r.effect_ci_high,
                    "level": level,
                    "pvalue": r.pvalue,
                    "n": r.n,
                    "n_clusters": r.n_clusters,
                    "method": "logistic GLM on tanh(diff/sd), cluster-robust, Wald z",
                    "scale": "log-odds per unit of tanh(diff/sd)",
                    "accuracy": r.accuracy,
                    "lc_accuracy": r.lc_accuracy,
                    "lc_ci_low": r.lc_ci_low,
                    "lc_ci_high": r.lc_ci_high,
                    "excluded": int(len(items) - r.n),
                }
            )

    return rows


def _position_rows(
    study: Study,
    dimension: str,
    judges: list[str],
    cluster: Any,
    cl_col: str | None,
    level: float,
    notes: dict[str, str],
) -> list[dict[str, Any]]:
    """Position rows as the presentation design allows: swap judges from both orders, the
    others from the first-shown rate against the gold's (ties excluded); none without positions
    or a recorded order (reason in ``notes``)."""
    rows: list[dict[str, Any]] = []
    design = presentation_design(study, dimension)
    if design.position_reason is not None:
        notes["position"] = design.position_reason
    else:
        swap_js = [j for j in judges if j in design.swap_judges]
        if swap_js:
            sw = swap_table(study, dimension, judges=swap_js, cluster=cl_col,
                            confidence_level=level)  # fmt: skip
            for r in sw.itertuples():
                k = int(r.first_first + r.second_second)
                rows.append(
                    {
                        "judge": r.judge,
                        "effect": "position",
                        "estimate": r.p_first_inconsistent - 0.5,
                        "ci_low": r.p_first_ci_low - 0.5,
                        "ci_high": r.p_first_ci_high - 0.5,
                        "level": level,
                        "pvalue": r.p_first_pvalue,
                        "n": k,
                        "n_clusters": k,
                        "method": "both orders: share of changed verdicts that chose the "
                        f"first-shown answer twice, minus 0.5; {r.p_first_test}",
                        "scale": "share minus 0.5",
                        "estimand": POSITION_ESTIMANDS["swap"],
                        "excluded": int(r.n - k),
                    }
                )
        rest = [j for j in judges if j not in design.swap_judges]
        pos = (
            a_rate_table(study, dimension, judges=rest, cluster=cluster, confidence_level=level)
            if rest
            else pd.DataFrame()
        )
        for r in pos.itertuples():
            rows.append(
                {
                    "judge": r.judge,
                    "effect": "position",
                    "estimate": r.difference,
                    "ci_low": r.ci_low,
                    "ci_high": r.ci_high,
                    "level": level,
                    "pvalue": r.p_value,
                    "n": r.n,
                    "n_clusters": r.n_clusters,
                    "method": f"first-shown rate minus gold's ({r.order}), {r.ci_method} "
                    f"interval, {r.test}",
                    "scale": "difference of rates",
                    "estimand": POSITION_ESTIMANDS["one_order"],
                    "excluded": r.excluded_no_verdict_or_gold + r.excluded_ties,
                }
            )
    return rows


def _signed_difference(study: Study, cols: Sequence[str], item_ids: list[str]) -> np.ndarray:
    it = study.items.set_index("item").loc[item_ids]
    a = pd.to_numeric(it[cols[0]], errors="coerce").to_numpy(dtype=float)
    b = pd.to_numeric(it[cols[1]], errors="coerce").to_numpy(dtype=float)
    return a - b


def bias_suite(
    study: Study,
    *,
    dimension: str | None = None,
    judges: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    length: Sequence[str] = ("answer1_len", "answer2_len"),
    style: Sequence[str] | None = None,
    cluster: str | None = "auto",
    order: str | None = None,
    confidence_level: float = 0.95,
    alpha: float | None = None,
) -> BiasSuiteResult:
    """Self-preference, length, style and position effects per judge, Holm over the suite.

    Parameters
    ----------
    study : a pairwise study (two answers per item, gold from experts or supplied).
    dimension : the dimension to test (default: the first).
    judges : judges to test (default: all).
    models : the two item columns naming the answer models (default: the study's
        ``answer_models``).
    length : item columns with the lengths of answer 1 and answer 2.
    style : item columns with another attribute of answer 1 and answer 2 (optional).
    cluster : item attribute for cluster-robust standard errors (e.g. image id); ``"auto"``
        (default) the study's clusters (:func:`medjudge.analyses.design.resolve_clusters`),
        ``None`` independent items.
    order : presentation order whose verdicts are tested (default: the study's presentation
        design — judges seen in both orders from AB, every other verdict as given).
    confidence_level : interval coverage.
    alpha : the decision threshold of the findings (a Holm-adjusted p below it); default
        0.05 (a setting of its own, not ``1 - confidence_level``).

    Returns
    -------
    BiasSuiteResult

    References
    ----------
    Holm, S. (1979). Scand. J. Statist. 6:65–70. Dubois et al. (2024), arXiv:2404.04475
    (length control). Panickssery, Bowman & Feng (2024), NeurIPS (self-preference).

    Examples
    --------
    >>> from medjudge.data.tables import load_any
    >>> s = load_any("data/external/pandalm_testset/verdicts_wide.csv",
    ...              "data/mappings/pandalm_wide.toml")                # doctest: +SKIP
    >>> bias_suite(s).table()[["judge", "effect"]].head(2)           # doctest: +SKIP
    """
    if not (isinstance(confidence_level, float | int) and 0.5 <= confidence_level < 1):
        raise ValueError(f"confidence_level={confidence_level!r} is not allowed; use [0.5, 1)")
    if alpha is not None:
        alpha = float(ALPHA.check("alpha", alpha))
    dimension = dimension if dimension is not None else study.dimensions[0]
    if dimension not in study.scales:
        raise ValueError(f"dimension={dimension!r} is not allowed; have {list(study.scales)}")
    clusters = resolve_clusters(study, cluster)
    cl_col = clusters.column if clusters.labels is not None else None
    judges = list(judges) if judges is not None else study.judges
    for j in judges:
        if j not in study.judges:
            raise ValueError(f"judges: {j!r} is not a judge; judges are {study.judges}")
    models = tuple(models) if models is not None else tuple(study.answer_models)
    notes: dict[str, str] = {}
    scale = study.scales[dimension]
    oc = study.outcomes(dimension, judges=judges, order=order)
    tie_code = scale.categories.index(scale.tie) if scale.tie is not None else -1
    gold = oc.gold
    non_tie = gold != tie_code
    # items a judge was not given (inf) are left out like unusable verdicts
    correct = np.where(non_tie[:, None] & ~np.isinf(oc.outcome), oc.outcome, np.nan)
    items = oc.items
    cl = (
        study.items.set_index("item").loc[items, cl_col].astype(str).to_numpy()
        if cl_col is not None
        else None
    )
    level = float(confidence_level)
    suite = _Suite(study, oc, correct, gold, non_tie, cl, level, notes)
    rows = _self_preference_rows(suite, models) + _attribute_rows(suite, length, style)
    rows += _position_rows(study, dimension, judges, cluster, cl_col, level, notes)
    t = pd.DataFrame(rows)
    if len(t):
        p = t["pvalue"].to_numpy(dtype=float)
        ok = np.isfinite(p)
        adj = np.full(p.shape, np.nan)
        adj[ok] = adjust_pvalues(p[ok], "holm")
        t["p_holm"] = adj
    settings = {
        "dimension": dimension,
        "order": order if order is not None else presentation_design(study, dimension).describe(),
        "confidence_level": level,
        "alpha": alpha,
        "adjustment": "Holm",
        "adjustment_cited": "Holm (1979)",
        "multiplicity": "Holm over every test in the suite",
        "family_size": int(np.isfinite(t["pvalue"].to_numpy(dtype=float)).sum()) if len(t) else 0,
        "cluster": clusters.describe(),
        "gold_method": oc.gold_method,
        "excluded_items_without_gold": oc.excluded.get("items_without_gold", 0),
        "gold_ties_excluded": int((~non_tie).sum()),
        "models": list(models),
        "length_columns": list(length) if length is not None else None,
        "style_columns": list(style) if style is not None else None,
    }
    return BiasSuiteResult(t, settings, notes)
