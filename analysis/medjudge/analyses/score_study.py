"""Score studies (interval/ratio scales, e.g. 1–10 quality scores), end to end.

For every interval/ratio dimension :func:`score_study` reports what applies:

* **judges against gold** (when the study has judges and a gold score — supplied, or the mean of
  the experts): error (MAE, RMSE, bias = judge − gold), Pearson, Spearman and Kendall's tau-b,
  Lin's concordance correlation (CCC), ICC(A,1) of judge and gold, and the Bland–Altman limits
  of agreement — each with its interval;
* **each expert against the mean of the other experts** (fixed, named experts only: the human
  reference level a judge can be held to), with the same statistics;
* **reliability within each role** with two or more raters: ICC(1), ICC(A,1) and ICC(A,k)
  (Shrout & Fleiss 1979; McGraw & Wong 1996) with F-based intervals for independent items, or,
  when items cluster, the cluster jackknife on the log F scale (the F intervals covered 84-95%
  on clustered 1-5 scores; docs/calibration.md, "ICC with clusters"); exchangeable raters (crowd
  slots) get the one-way ICC(1) only.

Intervals (``interval="bootstrap"``, the default): BCa (Efron 1987) from the project's one
resampling engine — cluster bootstrap when items cluster (several questions per image), every
judge on the same resamples. ``interval="analytic"`` uses the closed forms for independent items
(Bland & Altman 1999 limits; Lin 1989 Z-transform; Fisher z; McGraw & Wong F intervals, the
ICC's cluster jackknife when items cluster); MAE,
RMSE, Spearman and Kendall are bootstrap in both modes. The coverage of both under clustering is
in docs/calibration.md ("Judges against gold and score studies").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from medjudge.stats.resampling import Bootstrap, Permutation, as_bootstrap

from ..data.model import Study
from ..stats.agreement.icc import icc
from ..stats.score_agreement import (
    SCORE_STATISTICS,
    SharedDraws,
    bland_altman,
    bootstrap_raters,
    constant_side,
    lin_ccc,
    pearson_interval,
)
from ..stats.scores import rank_replicates
from ._findings import PLAIN, Finding, Markup, Names
from ._result import Quantity, Result, long_table
from ._tables import TablesToDict
from .evaluation import cluster_ids
from .score_pairs import PAIR_COLUMNS, judge_pairs_table, pair_sentence
from .score_pairs import score_judge_pairs as score_judge_pairs  # its first home
from .score_text import closest_judge_finding, score_tables_text

INTERVALS = ("bootstrap", "analytic")
TABLES = ("metrics", "reliability", "pairs")
#: row order of ``metrics``: the score statistics, with the rank correlations after Pearson's
METRIC_ORDER = (
    *SCORE_STATISTICS[: SCORE_STATISTICS.index("pearson") + 1],
    "spearman",
    "kendall_tau_b",
    *SCORE_STATISTICS[SCORE_STATISTICS.index("pearson") + 1 :],
    "icc_a1",
)


#: what each metric estimates, in words (the ``estimand`` of the tidy metrics table)
METRIC_WORDS = {
    "mae": "mean absolute difference from the reference",
    "rmse": "root mean squared difference from the reference",
    "bias": "mean difference from the reference (rater minus reference)",
    "sd_difference": "standard deviation of the differences",
    "loa_low": "lower 95% limit of agreement (Bland-Altman)",
    "loa_high": "upper 95% limit of agreement (Bland-Altman)",
    "pearson": "Pearson correlation with the reference",
    "spearman": "Spearman correlation with the reference",
    "kendall_tau_b": "Kendall's tau-b with the reference",
    "ccc": "Lin's concordance correlation with the reference",
    "icc_a1": "ICC(A,1), absolute agreement with the reference",
}


#: the multiplicity family of the pairs table, in words (its ``family`` column)
PAIRS_FAMILY = "Holm over every judge pair and metric of a dimension"
#: sign patterns of the pairs' sign-flip tests (more than 14 clusters)
PAIR_FLIPS = 9999


@dataclass(frozen=True, repr=False)
class ScoreStudyResult(TablesToDict, Result):
    """Scores against gold, experts against each other, and reliability within roles.

    ``metrics``: one row per dimension × rater × metric — ``dimension, rater, role,
    reference, metric, estimate, se, ci_low, ci_high, level, ci_method, n``.
    ``reliability``: ``dimension, role, form, estimate, ci_low, ci_high, level, ci_method, n,
    raters``. ``not_applicable`` maps each part that did not run to one sentence saying why.
    ``wide(name, dimension)`` returns these; ``table(name)`` the tidy long tables of the result
    contract; ``plot()`` draws each rater's metrics, a panel per metric (one dimension: pass
    ``where={"dimension": ...}``).
    """

    TABLES = TABLES
    PLOTS = {"metrics": ("forest_plot", "metrics", {"row": "rater", "panel": "estimand",
                                                     "xlabel": "estimate"})}  # fmt: skip
    DICT_KEYS = ("settings", "headline", "not_applicable", *TABLES)

    metrics: pd.DataFrame
    reliability: pd.DataFrame
    headline: dict[str, str]
    not_applicable: dict[str, str]
    settings: dict[str, Any] = field(default_factory=dict)
    pairs: pd.DataFrame = field(default_factory=pd.DataFrame)

    def wide(self, name: str = "metrics", dimension: str | None = None) -> pd.DataFrame:
        """One of the analysis' wide tables (optionally one dimension's rows); :meth:`table`
        gives the same numbers as tidy long tables."""
        if name not in TABLES:
            raise ValueError(f"table must be one of {TABLES}, got {name!r}")
        t = getattr(self, name)
        if dimension is not None and not t.empty:
            t = t[t["dimension"] == dimension]
        return t.reset_index(drop=True)

    def _table(self, name: str) -> pd.DataFrame:
        level = float(self.settings.get("confidence_level", 0.95))
        if name == "reliability":
            r = self.reliability
            r = r.assign(_what="reliability within the role: " + r["form"].astype(str))
            return long_table(
                r,
                ["role", "dimension", "form"],
                [Quantity("_what", "estimate", n_unit="items", estimand_column=True)],
                confidence_level=level,
                warning="note",
                extra=["raters", "items_with_missing_rating"],
            )
        if name == "pairs":
            # one estimand for every metric: Holm's family spans the metrics of a dimension
            return long_table(
                self.pairs,
                ["dimension", "judge_a", "judge_b", "metric"],
                [
                    Quantity(
                        "difference of the metric against gold (first judge minus second)",
                        "difference",
                        ci_method="method",
                        n_unit="items",
                        test="method",
                        p_value="p_value",
                        p_adjusted="p_holm",
                    )
                ],  # fmt: skip
                confidence_level=level,
                family=str(self.settings.get("pairs_family", "")),
                family_by=["dimension"],
                extra=["estimate_a", "estimate_b", "n_clusters"],
            )
        m = self.metrics
        m = m.assign(_what=m["metric"].map(lambda k: METRIC_WORDS.get(k, k)))
        return long_table(
            m,
            ["rater", "dimension", "role", "reference"],
            [Quantity("_what", "estimate", n_unit="items", estimand_column=True)],
            confidence_level=level,
            extra=["metric", "se"],
        )

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """Per dimension (``dimension`` only, else every one): the judge closest to the
        reference (:meth:`closest_findings`), then its judge pairs (:meth:`pair_findings`)."""
        dims = [dimension] if dimension is not None else list(self.settings.get("dimensions", []))
        out: list[Finding] = []
        for d in dims:
            if len(self.wide("metrics", d)):
                out += self.closest_findings(d, names=names, markup=markup)
            out += [Finding(p) for p in self.pair_findings(d)]
        return out

    def closest_findings(
        self, dimension: str, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """The judge closest to the reference on ``dimension``
        (:func:`medjudge.analyses.score_text.closest_judge_finding`)."""
        return closest_judge_finding(self, dimension, names=names, markup=markup)

    def summary(self) -> str:
        """The one-line ``repr``, the headline sentence of each dimension, the findings, then
        what did not run and why."""
        heads = [
            self.headline[d] for d in self.settings.get("dimensions", []) if d in self.headline
        ]
        missing = [f"not computed: {k}: {v}" for k, v in self.not_applicable.items()]
        return "\n".join([repr(self), *heads, *self.findings(), *missing])

    def tables_text(self, *, width: int = 100) -> str:
        """Every dimension as terminal text (:func:`~.score_text.score_tables_text`)."""
        return score_tables_text(self, width=width)

    def pair_findings(self, dimension: str) -> list[str]:
        """The judge pairs of ``dimension`` in one sentence: how many pairs differ in each
        metric at the Holm-adjusted level, with the test and the family named from the table
        (``[]`` without pairs)."""
        return pair_sentence(self.pairs, self.settings, dimension)

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"ScoreStudyResult({len(s.get('dimensions', []))} score dimensions; "
            f"{len(s.get('judges', []))} judges, {len(s.get('experts', []))} experts; "
            f"intervals {s.get('interval')}, B={s.get('n_resamples')}, seed={s.get('seed')})"
        )


def _plan(
    plans: dict[Any, SharedDraws], n: int, n_resamples: int, seed: int, clusters: np.ndarray | None
) -> SharedDraws:
    """The study's resample counts for ``n`` items in ``clusters``: one plan, drawn once, for
    every rater, statistic and dimension on such items (a fresh plan would draw the same
    counts from the same seed)."""
    key = (n, None if clusters is None else (clusters.dtype.str, clusters.tobytes()))
    if key not in plans:
        plans[key] = SharedDraws(n, n_resamples, seed, clusters=clusters)
    return plans[key]


def _rows_for(
    dimension: str,
    names: list[str],
    role: str,
    reference: str,
    X: np.ndarray,
    y: np.ndarray,
    clusters: np.ndarray | None,
    *,
    n_resamples: int,
    seed: int,
    confidence_level: float,
    interval: str,
    plans: dict[Any, SharedDraws] | None = None,
    metrics: tuple[str, ...] = METRIC_ORDER,
) -> list[dict[str, Any]]:
    """``metrics`` of each column of ``X`` against ``y`` (items already restricted), every
    statistic on the same resample counts (``plans``: the study's, by items and clusters)."""
    plan = _plan(plans if plans is not None else {}, y.size, n_resamples, seed, clusters)
    unit = "clusters" if clusters is not None else "items"
    bmeth = f"bootstrap-bca ({unit}, B={n_resamples}, seed={seed})"
    est_all = bootstrap_raters(X, y, plan, confidence_level, bmeth)
    if {"spearman", "kendall_tau_b"} & set(metrics):
        rk = rank_replicates(y, X, plan, confidence_level=confidence_level, method="bca")
        for j, est in enumerate(est_all):
            for k, coef in enumerate(("spearman", "kendall_tau_b")):
                est[coef] = (
                    float(rk["estimate"][j, k]), float(rk["se"][j, k]), float(rk["low"][j, k]),
                    float(rk["high"][j, k]), bmeth,
                )  # fmt: skip
    rows = []
    for j, nm in enumerate(names):
        x = X[:, j]
        ok = ~(np.isnan(x) | np.isnan(y))
        est = est_all[j]
        if interval == "analytic":
            ba = bland_altman(x, y, confidence_level=confidence_level)
            for key in ("bias", "loa_low", "loa_high"):
                e = ba[key]
                est[key] = (e.estimate, e.se, e.ci_low, e.ci_high, e.ci_method)
            for key, e in (
                ("ccc", lin_ccc(x, y, confidence_level=confidence_level)),
                ("pearson", pearson_interval(x, y, confidence_level=confidence_level)),
            ):
                est[key] = (e.estimate, e.se, e.ci_low, e.ci_high, e.ci_method)
            ic = {
                e.name: e
                for e in icc(
                    np.c_[x, y],
                    ci="analytic",
                    confidence_level=confidence_level,
                    clusters=clusters,
                )  # fmt: skip
            }["ICC2"]
            est["icc_a1"] = (ic.estimate, ic.se, ic.ci_low, ic.ci_high, ic.ci_method)
        flat = constant_side(x, y)
        for metric in metrics:
            e, s, a, b, meth = est[metric]
            note = ""
            if not np.isfinite(e):  # not defined: NaN with its reason, never a number
                e, s, a, b = math.nan, math.nan, math.nan, math.nan
                note = f"not defined: {flat}" if flat else "not defined: too few paired scores"
            rows.append(
                {
                    "dimension": dimension,
                    "rater": nm,
                    "role": role,
                    "reference": reference,
                    "metric": metric,
                    "estimate": e,
                    "se": s,
                    "ci_low": a,
                    "ci_high": b,
                    "level": confidence_level,
                    "ci_method": meth,
                    "n": int(ok.sum()),
                    "note": note,
                }
            )
    return rows


#: what a constant rater is scored on (its correlations are undefined)
BASELINE_METRICS = ("mae", "rmse", "bias")


def _baseline_rows(
    dimension: str, scale: Any, y: np.ndarray, clusters: np.ndarray | None, kw: dict[str, Any]
) -> list[dict[str, Any]]:
    """Error of the constant raters (always the mean gold score; always the scale's midpoint)."""
    import warnings

    consts = {"always the mean gold score": float(np.mean(y))}
    if scale.low is not None and scale.high is not None:
        consts["always the scale midpoint"] = (float(scale.low) + float(scale.high)) / 2
    X = np.column_stack([np.full(y.size, v) for v in consts.values()])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # a constant has no variance: its association metrics are undefined and dropped
        warnings.simplefilter("ignore", RuntimeWarning)
        return _rows_for(
            dimension, list(consts), "baseline", "gold", X, y, clusters, **kw,
            metrics=tuple(m for m in METRIC_ORDER if m in BASELINE_METRICS),
        )  # fmt: skip


def _judge_rows(
    study: Study, d: str, judges: list[str], items: list[str], y: np.ndarray,
    cl: np.ndarray | None, kw: dict[str, Any],
) -> tuple[list[dict[str, Any]], pd.DataFrame]:  # fmt: skip
    """The judges' metric rows against gold ``y`` on ``items`` and their pairs table."""
    X = study.matrix(d, raters=judges, items=items).values
    pairs = judge_pairs_table(
        d, judges, X, np.asarray(y, dtype=float), cl, confidence_level=kw["confidence_level"],
        permutation=Permutation(PAIR_FLIPS, seed=kw["seed"]),
    )  # fmt: skip
    return _rows_for(d, judges, "judge", "gold", X, y, cl, **kw), pairs


def _expert_rows(
    study: Study, d: str, experts: list[str], clusters: np.ndarray | None, kw: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each named expert against the mean of the other experts (items with both)."""
    rows: list[dict[str, Any]] = []
    M = study.matrix(d, raters=experts).values
    for e, name in enumerate(experts):
        others = np.delete(M, e, axis=1)
        n_o = np.isfinite(others).sum(1)
        with np.errstate(invalid="ignore"):
            ref = np.where(n_o > 0, np.nansum(others, 1) / np.maximum(n_o, 1), np.nan)
        keep = np.isfinite(ref) & np.isfinite(M[:, e])
        if keep.sum() < 3:
            continue
        cl = None if clusters is None else clusters[keep]
        rows += _rows_for(
            d, [name], "expert", "mean of the other experts", M[keep, e : e + 1], ref[keep],
            cl, **kw,
        )  # fmt: skip
    return rows


def _reliability(
    study: Study,
    dimension: str,
    role: str,
    confidence_level: float,
    cluster_of: pd.Series | None = None,
) -> list[dict[str, Any]]:
    """ICC rows of one role; with clusters the intervals keep them (the cluster jackknife of
    :func:`~medjudge.stats.agreement.icc`; the F intervals assume independent items)."""
    m = study.matrix(dimension, role=role)
    if m.values.shape[1] < 2:
        return []
    exch = role in getattr(study, "exchangeable", ())
    forms = ("ICC1",) if exch else ("ICC1", "ICC2", "ICC2k")
    cl = None if cluster_of is None else cluster_of.loc[list(m.items)].to_numpy()
    res = {
        e.name: e
        for e in icc(m.values, ci="analytic", confidence_level=confidence_level, clusters=cl)
    }
    out = []
    for f in forms:
        e = res[f]
        out.append(
            {
                "dimension": dimension,
                "role": role,
                "form": f"{f} = {e.extra['mcgraw_wong']}",
                "estimate": e.estimate,
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
                "level": confidence_level,
                "ci_method": e.ci_method,
                "n": e.n,
                "raters": int(m.values.shape[1]),
                "items_with_missing_rating": int(e.excluded.get("items_with_missing_rating", 0)),
                # why the estimate is missing (no variance), empty when it is defined
                "note": e.extra.get("not_defined", ""),
            }
        )
    return out


def score_study(
    study: Study,
    *,
    gold: str = "auto",
    cluster: str | None = "auto",
    dimensions: list[str] | None = None,
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    interval: str = "bootstrap",
    baselines: bool = False,
    alpha: float = 0.05,
    progress: Callable[[int, int, str], None] | None = None,
) -> ScoreStudyResult:
    """Everything that applies to the interval/ratio dimensions of a study.

    Parameters
    ----------
    study : the study; only its interval/ratio dimensions are used.
    gold : gold method (``auto``: supplied gold, else the study's rule, else the experts' mean).
    cluster : item attribute to cluster-resample by (``auto``: the study's declared cluster
        column, else image_id/case_id/…; ``none``).
    bootstrap : the shared bootstrap (Bootstrap). confidence_level : coverage of every interval.
    interval : ``bootstrap`` (BCa, cluster-aware) or ``analytic`` (closed forms, independent
        items) for bias, limits of agreement, Pearson, CCC and ICC.
    alpha : level of the judge pairs' tests in the findings (the pairs table holds every
        p-value and its Holm adjustment within the dimension).
    baselines : also score two constant raters against gold (role ``baseline``): always the
        mean gold score and always the scale's midpoint (when the scale has both ends) — the
        error a judge must beat; only MAE, RMSE and bias (a constant has no association).
    progress : called as ``progress(done, total, dimension)`` before each dimension (the
        command line's progress display); ``None``: silent.

    Returns
    -------
    ScoreStudyResult

    References
    ----------
    Bland & Altman (1986) Lancet i:307-310; (1999) Stat Methods Med Res 8:135-160. Lin (1989)
    Biometrics 45:255-268; (2000) 56:324-325. Shrout & Fleiss (1979) Psychol Bull 86:420-428;
    McGraw & Wong (1996) Psychol Methods 1:30-46. Efron (1987) JASA 82:171-185.

    Examples
    --------
    >>> from medjudge.data.model import Study
    >>> from medjudge.data.scale import Scale
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(1, 10, 30)
    >>> rows = [(f"i{i}", r, role, "q", float(np.clip(round(t + rng.normal(0, sd)), 1, 10)))
    ...         for i, t in enumerate(truth)
    ...         for r, role, sd in (("e1", "expert", 1), ("e2", "expert", 1), ("m", "judge", 2))]
    >>> st = Study(pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"]),
    ...            pd.DataFrame({"item": [f"i{i}" for i in range(30)]}),
    ...            {"q": Scale("interval", low=1, high=10)},
    ...            gold_table=pd.DataFrame({"item": [f"i{i}" for i in range(30)], "dimension": "q",
    ...                                     "value": np.round(truth, 1)}))
    >>> from medjudge import Bootstrap
    >>> res = score_study(st, bootstrap=Bootstrap(200))
    >>> sorted(set(res.table()["metric"])) == sorted(METRIC_ORDER)
    True
    """
    boot = Bootstrap() if bootstrap is None else as_bootstrap(bootstrap)
    n_resamples, seed = boot.n_resamples, boot.seed
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level}")
    if int(n_resamples) < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    n_resamples, seed = int(n_resamples), int(seed)
    dims = list(dimensions) if dimensions else list(study.dimensions)
    unknown = [d for d in dims if d not in study.scales]
    if unknown:
        raise ValueError(f"unknown dimension {unknown[0]!r}; have {study.dimensions}")
    dims = [d for d in dims if not study.scales[d].is_categorical]
    if not dims:
        raise ValueError("no interval or ratio dimension: a score study needs numeric scores")
    clusters, cluster_col = cluster_ids(study, cluster)
    cluster_of = None if clusters is None else pd.Series(clusters, index=study.item_ids)
    judges, experts = list(study.judges), list(study.experts)

    def exch(role: str) -> bool:  # rater ids of the role are slots, not persons
        return role in getattr(study, "exchangeable", ())

    # plans: the resample counts of each set of items, drawn once
    kw = {"n_resamples": n_resamples, "seed": seed, "confidence_level": confidence_level,
          "interval": interval, "plans": {}}  # fmt: skip
    metrics: list[dict[str, Any]] = []
    reliability: list[dict[str, Any]] = []
    pairs: list[pd.DataFrame] = []
    headline: dict[str, str] = {}
    na: dict[str, str] = {}
    gold_rule: dict[str, str] = {}
    for done, d in enumerate(dims):
        if progress is not None:
            progress(done, len(dims), d)
        if judges:
            try:
                g = study.gold(d, gold)  # type: ignore[arg-type]
            except ValueError as exc:
                g = None
                na[f"{d}: judges against gold"] = f"no gold score can be derived ({exc})"
            if g is not None:
                gold_rule[d] = g.rule
                has = np.isfinite(g.codes)
                items = [it for it, h in zip(g.items, has, strict=True) if h]
                if len(items) < 3:
                    na[f"{d}: judges against gold"] = f"only {len(items)} item(s) have a gold score"
                else:
                    cl = None if cluster_of is None else cluster_of.loc[items].to_numpy()
                    rows, p = _judge_rows(study, d, judges, items, g.codes[has], cl, kw)
                    metrics += rows + (_baseline_rows(d, study.scales[d], g.codes[has], cl, kw)
                                       if baselines else [])  # fmt: skip
                    pairs += [p] if len(p) else []
        else:
            na[f"{d}: judges against gold"] = "the study has no judges"
        if len(experts) >= 2 and not exch("expert"):
            metrics += _expert_rows(study, d, experts, clusters, kw)
        elif len(experts) >= 2:
            na[f"{d}: each expert against the others"] = (
                "the experts are exchangeable (rater ids are slots), so no expert can be "
                "compared with the others as a person"
            )
        else:
            na[f"{d}: each expert against the others"] = f"the study has {len(experts)} expert(s)"
        for role in ("expert", "judge"):
            if len(study.raters(role)) >= 2:
                reliability += _reliability(study, d, role, confidence_level, cluster_of)
        headline[d] = _headline(d, pd.DataFrame(metrics), confidence_level)
    settings = {
        "dimensions": dims,
        "judges": judges,
        "experts": experts,
        "gold": gold_rule,
        "cluster": cluster_col or "none (items independent)",
        "interval": interval,
        "n_resamples": n_resamples,
        "seed": seed,
        "confidence_level": confidence_level,
        "pairs_family": PAIRS_FAMILY,
        "alpha": alpha,
        "pair_flips": PAIR_FLIPS,
    }
    return ScoreStudyResult(
        pd.DataFrame(metrics), pd.DataFrame(reliability), headline, na, settings,
        pd.concat(pairs, ignore_index=True) if pairs else pd.DataFrame(columns=PAIR_COLUMNS),
    )  # fmt: skip


def _headline(dimension: str, metrics: pd.DataFrame, confidence_level: float) -> str:
    if metrics.empty:
        return f"{dimension}: no rater could be compared with a reference score."
    m = metrics[(metrics["dimension"] == dimension) & (metrics["role"] == "judge")]
    if m.empty:
        return f"{dimension}: no judge could be compared with gold."
    mae = m[m["metric"] == "mae"].sort_values("estimate")
    best = mae.iloc[0]
    ccc = m[(m["metric"] == "ccc") & (m["rater"] == best["rater"])].iloc[0]
    bias = m[(m["metric"] == "bias") & (m["rater"] == best["rater"])].iloc[0]
    lvl = f"{round(100 * confidence_level)}%"
    s = (
        f"{dimension}: the judge closest to gold is {best['rater']} (MAE {best['estimate']:.2f}, "
        f"{lvl} CI {best['ci_low']:.2f}–{best['ci_high']:.2f}; CCC {ccc['estimate']:.2f}; "
        f"bias {bias['estimate']:+.2f}, {lvl} CI {bias['ci_low']:+.2f} to {bias['ci_high']:+.2f})."
    )
    base = metrics[(metrics["dimension"] == dimension) & (metrics["role"] == "baseline")]
    base = base[base["metric"] == "mae"].sort_values(["estimate", "rater"])
    if len(base):
        b = base.iloc[0]
        closer = b["estimate"] < best["estimate"]
        s += (
            f" The constant baseline {b['rater']!r} has MAE {b['estimate']:.2f} ({lvl} CI "
            f"{b['ci_low']:.2f}–{b['ci_high']:.2f}): "
            + (
                "closer to gold than every judge."
                if closer
                else "farther from gold than this judge."
            )
        )
    ex = metrics[(metrics["dimension"] == dimension) & (metrics["role"] == "expert")]
    ex = ex[ex["metric"] == "mae"]
    if len(ex):
        s += (
            f" Experts against the mean of the others: MAE {ex['estimate'].min():.2f}–"
            f"{ex['estimate'].max():.2f}."
        )
    return s
