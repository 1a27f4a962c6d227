"""Stability of judges across prompt variants and repeated runs: variance components and flips.

A judge evaluated under several prompt variants (LLMBar: 15 prompting strategies per
evaluator, raters named ``evaluator/strategy``) and/or several runs (the ``run`` column) gives
``y[item, prompt, run]`` — on a categorical scale its correctness against the gold (or, without
gold, its verdict code); on an interval or ratio scale its **score** (``settings["outcome"]``
says which): flips are then score changes, and ``flips`` adds ``within_item_sd``, the mean over
items of the score's standard deviation across prompt variants. Per evaluator: ANOVA variance components for item, prompt, item x prompt and run
(:func:`medjudge.stats.variance_components.variance_components`), their shares of the total,
and the share of items whose verdict flips across prompts (and of cells that flip across runs),
each with a cluster bootstrap percentile interval (items resampled; prompts and runs fixed).
Items lacking any prompt x run cell are excluded and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from medjudge.analyses._findings import (
    PLAIN,
    Finding,
    Markup,
    Names,
    fmt_ci,
    fmt_level,
    fmt_num,
)
from medjudge.analyses._result import Quantity, Result, long_table
from medjudge.analyses._tables import TablesToDict
from medjudge.data.model import Study
from medjudge.stats.resampling import Bootstrap, ResamplePlan, as_bootstrap, bootstrap_interval
from medjudge.stats.score_agreement import SharedDraws
from medjudge.stats.variance_components import COMPONENTS, flip_shares, variance_components

__all__ = ["StabilityResult", "stability"]


@dataclass(frozen=True, repr=False)
class StabilityResult(TablesToDict, Result):
    """``components`` (evaluator x component: ``variance``, ``share``, ``ci_low``, ``ci_high``,
    ``level``) and ``flips`` (evaluator x kind: ``share``, ``ci_low``, ``ci_high``, ``level``).

    ``table("components" | "shares" | "flips")`` gives the variances, their shares and the flip
    shares as tidy long tables of the result contract;
    ``plot("shares")`` draws each evaluator's variance shares, ``plot("flips")`` its flip
    shares; ``findings()`` states the prompt sensitivity and ``explanations()`` is
    :meth:`explain` of every evaluator.
    """

    DICT_KEYS = ("settings", "components", "flips", "notes")
    TABLES = ("components", "shares", "flips")
    PLOTS = {
        "shares": ("forest_plot", "shares", {"row": "evaluator", "panel": "component",
                                                  "xlabel": "share of the variance"}),
        "flips": ("forest_plot", "flips", {"row": "evaluator", "panel": "kind",
                                           "xlabel": "share of items whose verdict flips"}),
    }  # fmt: skip

    components: pd.DataFrame
    flips: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def _table(self, name: str) -> pd.DataFrame:
        level = float(self.settings.get("confidence_level", 0.95))
        method = str(self.settings.get("interval", ""))
        if name == "flips":
            return long_table(
                self.flips,
                ["evaluator", "kind"],
                [
                    Quantity(
                        "share of items whose verdict flips",
                        "share",
                        ci_method=method,
                        n="n_items",
                        n_unit="items",
                    )
                ],  # fmt: skip
                confidence_level=level,
                extra=["excluded_incomplete_items"],
            )
        share = name == "shares"
        return long_table(
            self.components,
            ["evaluator", "component"],
            [
                Quantity(
                    "share of the variance",
                    "share",
                    "share_ci_low",
                    "share_ci_high",
                    method,
                    "n_items",
                    "items",
                )
                if share
                else Quantity(
                    "variance component", "variance", ci_method=method, n="n_items", n_unit="items"
                )
            ],  # fmt: skip
            confidence_level=level,
            extra=["n_prompts", "n_runs", "excluded_incomplete_items"],
        )

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """Prompt sensitivity: the evaluators whose verdict (or score) changes between prompt
        variants on the largest and the smallest share of items, with intervals (one dimension
        is analysed; only items judged under every variant count)."""
        fl = self.flips[self.flips["kind"] == "across_prompts"] if len(self.flips) else self.flips
        if fl.empty:
            return []
        score = self.settings.get("outcome") == "score"
        unit, changes = ("score", "changes") if score else ("verdict", "flips")
        lvl = fmt_level(float(self.settings.get("confidence_level", 0.95)))
        hi, lo = fl.loc[fl["share"].idxmax()], fl.loc[fl["share"].idxmin()]
        text = (
            f"Prompt sensitivity: {markup.data(hi['evaluator'])}'s {unit} {changes} between "
            f"prompt variants on {fmt_num(hi['share'], 3)} of the items ({lvl} CI "
            f"{fmt_ci(hi['ci_low'], hi['ci_high'], 3)})"
            + (
                f", {markup.data(lo['evaluator'])}'s on {fmt_num(lo['share'], 3)} "
                f"{fmt_ci(lo['ci_low'], lo['ci_high'], 3)}."
                if lo["evaluator"] != hi["evaluator"]
                else "."
            )
        )
        caveat = "only items judged under every prompt variant are counted"
        return [Finding(text, caveat=caveat, weight=4)]

    def summary(self) -> str:
        """The one-line ``repr``, the findings, then what each evaluator's components mean."""
        return "\n".join([repr(self), *self.findings(), *self.explanations()])

    def explanations(self) -> list[str]:
        """:meth:`explain` of every evaluator, then the evaluators not computed and why."""
        evaluators = dict.fromkeys(self.components["evaluator"]) if len(self.components) else {}
        return [self.explain(e) for e in evaluators] + [
            f"not computed: {k}: {v}" for k, v in self.notes.items()
        ]

    def explain(self, evaluator: str) -> str:
        """One sentence on what each variance component of ``evaluator`` means, from its shares
        and flip rate (plain text; the CLI prints it and the report shows it)."""
        g = self.components[self.components["evaluator"] == evaluator].set_index("component")
        if g.empty:
            return ""
        share = g["share"].to_dict()
        n_runs = int(g["n_runs"].iloc[0])
        fl = self.flips[
            (self.flips["evaluator"] == evaluator) & (self.flips["kind"] == "across_prompts")
        ]

        def pct(x: float) -> str:
            return f"{100 * x:.1f}%" if x < 0.1 else f"{100 * x:.0f}%"

        score = self.settings.get("outcome") == "score"
        hard = (
            "some items get high or low scores under every prompt"
            if score
            else "some items are hard for this judge under every prompt"
        )
        main = (
            "a prompt that shifts every score up or down"
            if score
            else "a prompt that makes the judge right more often on every item"
        )
        which = (
            "the prompt changes the scores item by item"
            if score
            else "the prompt changes which items the judge gets right"
        )
        parts = [
            f"{evaluator}: {pct(share.get('item', 0.0))} of the variance is between items ({hard})",
            f"{pct(share.get('prompt', 0.0))} is the prompt on its own ({main})",
        ]
        if n_runs >= 2:
            parts.append(
                f"{pct(share.get('item_x_prompt', 0.0))} is the item x prompt interaction "
                f"({which}) and {pct(share.get('run', 0.0))} run-to-run noise"
            )
        else:
            parts.append(
                f"{pct(share.get('residual', 0.0))} is the item x prompt interaction together "
                "with run-to-run noise, which one run per prompt cannot separate: "
                f"{which}"
            )
        text = "; ".join(parts)
        if len(fl):
            text += (
                " — so a small prompt share does not mean the prompt does not matter: the "
                + ("score changes" if score else "verdict flips")
                + f" between prompts on {pct(float(fl['share'].iloc[0]))} of the items"
            )
        return text + "."

    def __repr__(self) -> str:
        n = self.components["evaluator"].nunique() if len(self.components) else 0
        return (
            f"StabilityResult({n} evaluators, outcome={self.settings.get('outcome')!r}, "
            f"B={self.settings.get('n_resamples')}, "
            f"confidence_level={self.settings.get('confidence_level')})"
        )


def stability(
    study: Study,
    *,
    dimension: str | None = None,
    prompt_separator: str = "/",
    order: str = "AB",
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
) -> StabilityResult:
    """Variance components (item, prompt, item x prompt, run) and flip shares per evaluator.

    Parameters
    ----------
    study : a study whose judges are named ``evaluator<sep>prompt`` and/or have several runs.
    dimension : dimension to analyse (default: the first).
    prompt_separator : splits a judge name into evaluator and prompt variant at its first
        occurrence; a judge name without it is one evaluator with a single prompt.
    order : presentation order used when judges have both.
    n_resamples, seed, confidence_level : the item bootstrap.

    Returns
    -------
    StabilityResult

    Examples
    --------
    >>> import medjudge as mj
    >>> from medjudge.data.tables import load_any
    >>> s = load_any("data/external/llmbar/verdicts_long.csv",
    ...              "data/mappings/llmbar_long.toml")              # doctest: +SKIP
    >>> stability(s, bootstrap=mj.Bootstrap(200)).table("flips").head()         # doctest: +SKIP
    """
    boot = Bootstrap(1000) if bootstrap is None else as_bootstrap(bootstrap)
    n_resamples, seed = boot.n_resamples, boot.seed
    if not (isinstance(confidence_level, float | int) and 0.5 <= confidence_level < 1):
        raise ValueError(f"confidence_level={confidence_level!r} is not allowed; use [0.5, 1)")
    if not (isinstance(n_resamples, int | np.integer) and n_resamples >= 50):
        raise ValueError(f"n_resamples={n_resamples!r} is not allowed; need an integer >= 50")
    if not prompt_separator:
        raise ValueError("prompt_separator must be a non-empty string")
    dimension = dimension if dimension is not None else study.dimensions[0]
    if dimension not in study.scales:
        raise ValueError(f"dimension={dimension!r} is not allowed; have {list(study.scales)}")
    sub, outcome, use_order = _outcomes(study, dimension, order, prompt_separator)
    level = float(confidence_level)
    comp_rows, flip_rows, notes = [], [], {}
    for ev, grp in sorted(sub.groupby("_eval"), key=lambda kv: kv[0]):
        prompts = sorted(set(grp["_prompt"]))
        runs = sorted(set(grp["run"]))
        if len(prompts) < 2:
            notes[ev] = f"one prompt variant only ({len(runs)} run(s)): no prompt component"
            continue
        arr, complete = _cube(grp, study, prompts, runs)
        if arr.shape[0] < 2:
            notes[ev] = "fewer than two items with a verdict under every prompt and run"
            continue
        # the counts drawn once for every sum of the evaluator's components and flips
        plan = SharedDraws(arr.shape[0], n_resamples, seed)
        c, f = _evaluator_rows(ev, arr, int((~complete).sum()), plan, outcome, level)
        comp_rows += c
        flip_rows += f
    settings = {
        "dimension": dimension,
        "outcome": outcome,
        "order": use_order,
        "prompt_separator": prompt_separator,
        "n_resamples": int(n_resamples),
        "seed": int(seed),
        "confidence_level": level,
        "interval": "item bootstrap percentile (prompts and runs fixed)",
        "estimator": "ANOVA (expected mean squares), Searle et al. 1992 Sec. 4.5; share = "
        "max(component, 0) / total",
    }
    return StabilityResult(pd.DataFrame(comp_rows), pd.DataFrame(flip_rows), settings, notes)


def _outcomes(
    study: Study, dimension: str, order: str | None, prompt_separator: str
) -> tuple[pd.DataFrame, str, str]:
    """The judges' rows of ``dimension`` in one order with ``_eval`` (evaluator), ``_prompt``
    (variant) and ``_y`` (correct 0/1 against gold; the score on interval scales; the verdict
    code without gold), the outcome's name and the order used."""
    r = study.ratings
    sub = r[(r["dimension"] == dimension) & (r["role"] == "judge")]
    use_order = order if order in set(sub["order"]) else ""
    sub = sub[sub["order"] == use_order]
    sub = sub.assign(_c=study.scales[dimension].encode(list(sub["value"])))
    scale = study.scales[dimension]
    if not scale.is_categorical:
        # scores: the estimand is the score itself (a score "equal to the experts' mean" is
        # no verdict); flips are score changes, and the within-item SD is reported too
        gmap, outcome = {}, "score"
    else:
        try:
            gold = study.gold(dimension)
            gmap = dict(zip(gold.items, gold.codes, strict=True))
            outcome = "correct"
        except ValueError:
            gmap, outcome = {}, "verdict code"
    names = sub["rater"].str.split(prompt_separator, n=1, regex=False)
    sub = sub.assign(_eval=names.str[0], _prompt=names.map(lambda p: p[1] if len(p) > 1 else ""))
    if gmap:
        g = sub["item"].map(gmap).to_numpy(dtype=float)
        y = np.where(np.isnan(sub["_c"]) | np.isnan(g), np.nan, (sub["_c"] == g).astype(float))
        sub = sub.assign(_y=y)
    else:
        sub = sub.assign(_y=sub["_c"])
    return sub, outcome, use_order


def _cube(
    grp: pd.DataFrame, study: Study, prompts: list[str], runs: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """``(items x prompts x runs)`` outcomes of one evaluator on the items complete under every
    prompt and run (items in sorted id order), and the mask of complete items."""
    cube = grp.pivot_table(
        index="item", columns=["_prompt", "run"], values="_y", aggfunc="first", dropna=False
    )
    full_cols = pd.MultiIndex.from_product([prompts, runs])
    cube = cube.reindex(columns=full_cols)
    cube = cube.reindex(sorted(set(study.item_ids)))  # sorted ids: row-order free
    arr = cube.to_numpy(dtype=float).reshape(len(cube), len(prompts), len(runs))
    complete = ~np.isnan(arr).any((1, 2))
    arr = arr[complete]
    return arr, complete


def _evaluator_rows(
    ev: str, arr: np.ndarray, n_incomplete: int, plan: ResamplePlan, outcome: str, level: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Variance-component rows and flip-share rows (with the within-item SD on scores) of one
    evaluator, percentile intervals from the item bootstrap ``plan``."""
    comp_rows: list[dict[str, Any]] = []
    flip_rows: list[dict[str, Any]] = []
    runs = range(arr.shape[2])
    w = plan
    vc = variance_components(arr)
    vcb = variance_components(arr, w)
    fl = flip_shares(arr)
    flb = flip_shares(arr, w)
    for comp in (*COMPONENTS, "residual"):
        if len(runs) == 1 and comp in ("item_x_prompt", "run"):
            continue
        if len(runs) > 1 and comp == "residual":
            continue
        est = float(vc[comp])
        lo, hi = bootstrap_interval(est, vcb[comp], confidence_level=level, method="percentile")
        share_b = (
            np.maximum(vcb[comp], 0) / vcb["total"]
            if comp != "residual"
            else vcb[comp] / vcb["total"]
        )
        share = max(est, 0) / float(vc["total"]) if vc["total"] > 0 else np.nan
        slo, shi = bootstrap_interval(share, share_b, confidence_level=level, method="percentile")
        comp_rows.append(
            {
                "evaluator": ev,
                "component": comp,
                "variance": est,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "share": share,
                "share_ci_low": float(slo),
                "share_ci_high": float(shi),
                "level": level,
                "n_items": int(arr.shape[0]),
                "n_prompts": int(arr.shape[1]),
                "n_runs": len(runs),
                "excluded_incomplete_items": n_incomplete,
            }
        )
    for kind in ("across_prompts", "across_runs"):
        if kind == "across_runs" and len(runs) < 2:
            continue
        lo, hi = bootstrap_interval(
            float(fl[kind]), flb[kind], confidence_level=level, method="percentile"
        )
        flip_rows.append(
            {
                "evaluator": ev,
                "kind": kind,
                "share": float(fl[kind]),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "level": level,
                "n_items": int(arr.shape[0]),
                "excluded_incomplete_items": n_incomplete,
            }
        )
    if outcome == "score":
        # mean over items of the SD of the score across prompt variants (first run)
        sd = arr[:, :, 0].std(axis=1, ddof=1)
        est = float(sd.mean())
        sdb = (w @ sd) / w.sum(1)
        lo, hi = bootstrap_interval(est, sdb, confidence_level=level, method="percentile")
        flip_rows.append(
            {
                "evaluator": ev,
                "kind": "within_item_sd",
                "share": est,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "level": level,
                "n_items": int(arr.shape[0]),
                "excluded_incomplete_items": n_incomplete,
            }
        )
    return comp_rows, flip_rows
