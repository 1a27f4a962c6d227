"""Judges against gold, fully: accuracy, Cohen's (weighted) kappa, confusion matrices, per-class
recall and precision, ordinal under-/over-calling, and the trivial baselines beside every judge.

:func:`judge_vs_gold` takes a study and, for every categorical dimension, its own gold (per item
and dimension, derived explicitly by :meth:`Study.gold`) and its own scale. The trivial
baselines — the majority class ("always-<class>") and, on scales with a tie category,
"always-tie" — are scored exactly like judges (same items, same intervals). Each judge is then
compared with the best baseline on the same items (paired): the accuracy difference with a
cluster-bootstrap interval from the shared resampling engine, and McNemar's test (mid-p,
Fagerland et al. 2013; clustered items: Durkalski et al. 2003), Holm-adjusted over the judges of
a dimension. The headline says plainly when no judge beats the baseline.

Intervals: accuracy — :func:`medjudge.stats.accuracy.judge_accuracy` (Wilson at the
Korn–Graubard effective n; cluster-robust); recall, precision, too low/too high — the same
Wilson construction per rate (:mod:`medjudge.stats.confusion`); kappa — cluster bootstrap (BCa,
Efron 1987) on resamples shared by all judges and baselines of a dimension.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from medjudge.stats.resampling import Bootstrap, as_bootstrap

from .._parallel import Workers, check_workers, map_workers
from ..data.model import Study
from ..stats.accuracy import POLICIES, apply_policy, judge_accuracy
from ..stats.confusion import (
    class_rates,
    confusion_counts,
    gold_kappa_core,
    ordinal_error_rates,
)
from ..stats.groups import group_codes
from ..stats.mcnemar import clustered_mcnemar, mcnemar
from ..stats.resampling import ResamplePlan, bootstrap_interval, bootstrap_se
from ._findings import PLAIN, Finding, Markup, Names
from ._result import Result
from ._tables import TablesToDict, with_adjusted
from .evaluation import cluster_ids
from .judge_vs_gold_tables import gold_table
from .judge_vs_gold_text import baseline_findings, gold_tables_text

KAPPA_WEIGHTS = ("identity", "linear", "quadratic")
NO_VERDICT = "(no verdict)"
TABLES = ("metrics", "classes", "confusion", "baseline_tests")


@dataclass(frozen=True)
class JudgeGoldResult(TablesToDict, Result):
    """Every judge (and trivial baseline) against gold, per dimension.

    The wide tables below (``wide(name, dimension)``; interval columns ``ci_low, ci_high,
    level``), as tidy long tables of the result contract with ``table(name)``; ``plot()``
    draws each judge's gain over the trivial baseline:

    ``metrics``
        one row per dimension × judge × metric (accuracy, kappa, too_low, too_high):
        ``estimate, se, ci_low, ci_high, level, ci_method, n, n_invalid, weights, role``.
    ``classes``
        per-class recall and precision: ``dimension, judge, role, class, metric, estimate,
        ci_low, ci_high, level, n, count``.
    ``confusion``
        ``dimension, judge, role, gold, predicted, count`` (predicted includes "(no verdict)").
    ``baseline_tests``
        each judge against the best baseline: ``difference`` in accuracy with its interval,
        McNemar ``statistic, pvalue, p_holm``, ``beats_baseline``.

    ``headline`` holds one plain sentence per dimension.
    """

    DICT_KEYS = ("settings", "excluded", "headline", *TABLES)
    TABLES = TABLES
    PLOTS = {
        "baseline_tests": ("forest_plot", "baseline_tests", {
            "baseline": 0.0, "baseline_label": "no gain over the trivial baseline",
            "xlabel": "accuracy minus the best trivial baseline's"}),
    }  # fmt: skip

    metrics: pd.DataFrame
    classes: pd.DataFrame
    confusion: pd.DataFrame
    baseline_tests: pd.DataFrame
    headline: dict[str, str]
    settings: dict[str, Any] = field(default_factory=dict)
    excluded: dict[str, dict[str, int]] = field(default_factory=dict)

    def wide(self, name: str = "metrics", dimension: str | None = None) -> pd.DataFrame:
        """One of the analysis' wide tables :data:`TABLES` (optionally one dimension's rows);
        :meth:`table` gives the same numbers as tidy long tables."""
        if name not in TABLES:
            raise ValueError(f"table must be one of {TABLES}, got {name!r}")
        t = getattr(self, name)
        if dimension is not None:
            if dimension not in self.settings.get("dimensions", []):
                raise ValueError(
                    f"dimension {dimension!r} is not in this result; have {self.settings['dimensions']}"
                )
            t = t[t["dimension"] == dimension]
        return t.reset_index(drop=True)

    def _table(self, name: str) -> pd.DataFrame:
        return gold_table(self, name)

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """Per dimension (``dimension`` only, else every one): how many judges beat the best
        trivial baseline in their paired tests against it, how many are below it, and the
        largest gain (:func:`medjudge.analyses.judge_vs_gold_text.baseline_findings`)."""
        dims = [dimension] if dimension is not None else list(self.settings.get("dimensions", []))
        return [f for d in dims for f in baseline_findings(self, d, names=names, markup=markup)]

    def summary(self) -> str:
        """The one-line ``repr``, the headline sentence of each dimension, then the findings."""
        heads = [
            self.headline[d] for d in self.settings.get("dimensions", []) if d in self.headline
        ]
        return "\n".join([repr(self), *heads, *self.findings()])

    def tables_text(self, *, width: int = 100) -> str:
        """The metrics of every dimension as terminal text (what ``medjudge compare`` prints)."""
        return gold_tables_text(self, width=width)

    def confusion_matrix(self, dimension: str, judge: str) -> pd.DataFrame:
        """The confusion matrix of one judge on one dimension (rows gold, columns predicted)."""
        t = self.confusion[
            (self.confusion["dimension"] == dimension) & (self.confusion["judge"] == judge)
        ]
        if t.empty:
            raise ValueError(f"no confusion matrix for judge {judge!r} on {dimension!r}")
        m = t.pivot(index="gold", columns="predicted", values="count")
        rows = list(dict.fromkeys(t["gold"]))
        cols = list(dict.fromkeys(t["predicted"]))
        return m.reindex(index=rows, columns=cols).astype(int)

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"JudgeGoldResult({len(s.get('judges', []))} judges × {len(s.get('dimensions', []))} "
            f"dimensions; gold {s.get('gold')}; policy {s.get('policy')}; "
            f"B={s.get('n_resamples')}, seed={s.get('seed')})"
        )


def _baseline_predictions(gold: np.ndarray, scale: Any) -> tuple[list[str], np.ndarray, str]:
    """Constant predictors: the majority class (ties: first in scale order) and always-tie."""
    q = len(scale.categories)
    counts = np.bincount(gold.astype(int), minlength=q)
    maj = int(np.argmax(counts))
    names = [f"always-{scale.categories[maj]} (majority)"]
    cols = [np.full(gold.size, float(maj))]
    if scale.tie is not None and scale.categories.index(scale.tie) != maj:
        names.append(f"always-{scale.tie} (tie)")
        cols.append(np.full(gold.size, float(scale.categories.index(scale.tie))))
    return names, np.column_stack(cols), names[0]


def _check_args(policy: str, kappa_weights: str, confidence_level: float, alpha: float) -> None:
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    if kappa_weights not in KAPPA_WEIGHTS:
        raise ValueError(f"kappa_weights must be one of {KAPPA_WEIGHTS}, got {kappa_weights!r}")
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")


def judge_vs_gold(
    study: Study,
    *,
    policy: str = "wrong",
    gold: str = "auto",
    cluster: str | None = "auto",
    order: str | None = None,
    dimensions: list[str] | None = None,
    kappa_weights: str = "linear",
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    workers: Workers = 1,
) -> JudgeGoldResult:
    """Every judge against gold on every categorical dimension, with trivial baselines beside.

    Parameters
    ----------
    study : the study (judges, gold per item × dimension, a scale per dimension).
    policy : invalid verdicts — ``wrong`` (a miss; the Med-RewardBench rule), ``exclude``
        (dropped for that judge) or ``half`` (half credit in accuracy; a miss elsewhere).
    gold : gold method passed to :meth:`Study.gold` (``auto``: the study's own).
    cluster : item attribute to cluster by (``auto``: the study's declared cluster column, else
        image_id/case_id/…; ``none``: items independent).
    kappa_weights : agreement weights for *ordinal* dimensions (``linear``: Cicchetti–Allison,
        ``quadratic``: Fleiss–Cohen); nominal dimensions always use identity weights.
    bootstrap : Bootstrap, optional
        The cluster bootstrap shared by all judges of a dimension (kappa and
        the paired accuracy difference).
    confidence_level : coverage of every interval. alpha : size of the baseline tests (Holm).
    workers : int or map-like callable, default 1
        How the dimensions are mapped (each has its own bootstrap plan and Holm family, so the
        results do not depend on it): ``1`` in order, an int > 1 that many threads, or a
        map-like callable such as ``multiprocessing.Pool(2).map`` (scipy's convention).

    Returns
    -------
    JudgeGoldResult

    References
    ----------
    Cohen (1960, 1968); Wilson (1927); Korn & Graubard (1998); Efron (1987); Fagerland,
    Lydersen & Laake (2013) BMC Med Res Methodol 13:91 (McNemar mid-p); Durkalski, Palesch,
    Lipsitz & Rust (2003) Stat Med 22:2465-2476 (clustered McNemar); Holm (1979).

    Examples
    --------
    >>> import medjudge as mj
    >>> from medjudge.data.model import Study
    >>> from medjudge.data.scale import Scale
    >>> rows = [(f"i{i}", r, role, "d", v) for i, (g, a) in enumerate(
    ...     [("x", "x"), ("x", "x"), ("y", "y"), ("x", "y"), ("y", "y"), ("x", "x")])
    ...     for r, role, v in (("e1", "expert", g), ("m", "judge", a))]
    >>> ratings = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    >>> st = Study(ratings, pd.DataFrame({"item": [f"i{i}" for i in range(6)]}),
    ...            {"d": Scale("nominal", ("x", "y"))})
    >>> res = judge_vs_gold(st, bootstrap=mj.Bootstrap(200), gold="reference", cluster="none")
    Traceback (most recent call last):
    ...
    ValueError: method='reference' needs reference=<rater>
    >>> res = judge_vs_gold(st, bootstrap=mj.Bootstrap(200), cluster="none")
    >>> res.wide().query("judge == 'm'")[["metric", "estimate"]].round(3).values.tolist()
    [['accuracy', 0.833], ['kappa', 0.667]]
    """
    boot = Bootstrap() if bootstrap is None else as_bootstrap(bootstrap)
    _check_args(policy, kappa_weights, confidence_level, alpha)
    if int(boot.n_resamples) < 1:
        raise ValueError(f"n_resamples must be >= 1, got {boot.n_resamples}")
    check_workers(workers)
    if not study.judges:
        raise ValueError("the study has no judges: nothing to compare with gold")
    dims = list(dimensions) if dimensions else list(study.dimensions)
    unknown = [d for d in dims if d not in study.scales]
    if unknown:
        raise ValueError(f"unknown dimension {unknown[0]!r}; have {study.dimensions}")
    dims = [d for d in dims if study.scales[d].is_categorical]
    if not dims:
        raise ValueError("no categorical dimension: judges against gold needs category labels")
    clusters, cluster_col = cluster_ids(study, cluster)
    # integer codes in sorted-label order: every clustered statistic below groups (and orders
    # its clusters) exactly as with the labels, without sorting text again per judge and class
    cluster_of = (
        None if clusters is None else pd.Series(group_codes(clusters)[0], index=study.item_ids)
    )
    opts = _Options(
        policy, kappa_weights, int(boot.n_resamples), int(boot.seed), confidence_level, alpha
    )

    def one(d: str) -> dict[str, Any]:
        o_all = study.outcomes(d, gold=study.gold(d, gold), order=order)
        return _dimension(d, study.scales[d], o_all, cluster_of, list(study.judges), opts)

    parts = map_workers(one, dims, workers)  # each dimension on its own
    by_dim = dict(zip(dims, parts, strict=True))
    tests = [p["tests"] for p in parts if p["tests"] is not None]
    return JudgeGoldResult(
        *(pd.DataFrame([row for p in parts for row in p[k]]) for k in TABLES[:3]),
        pd.concat(tests, ignore_index=True) if tests else pd.DataFrame(),
        {d: p["headline"] for d, p in by_dim.items()},
        _settings(study, dims, dimensions, by_dim, cluster_col, opts),
        {d: p["excluded"] for d, p in by_dim.items()},
    )


class _Options(NamedTuple):
    """The options every dimension and block of :func:`judge_vs_gold` is computed with."""

    policy: str
    kappa_weights: str
    n_resamples: int
    seed: int
    level: float
    alpha: float


def _settings(
    study: Study,
    dims: list[str],
    asked: list[str] | None,
    parts: dict[str, dict[str, Any]],
    cluster_col: str | None,
    opts: _Options,
) -> dict[str, Any]:
    """The result's ``settings``: what was computed, on which items, with which options."""
    not_assigned = {d: p.get("not_assigned", {}) for d, p in parts.items()}
    settings = {
        "policy": opts.policy,
        "policy_note": (
            "kappa, recall/precision and too low/high count a missing verdict as a miss"
            if opts.policy == "half"
            else ""
        ),
        "gold": {d: p["gold_method"] for d, p in parts.items()},
        "cluster": cluster_col or "none (items independent)",
        "kappa_weights": {d: _kappa_kind(study.scales[d], opts) for d in dims},
        "n_resamples": opts.n_resamples,
        "seed": opts.seed,
        "confidence_level": opts.level,
        "alpha": opts.alpha,
        "adjustment": "Holm",  # of p_holm, over the judges of a dimension
        "dimensions": dims,
        "judges": list(study.judges),
        "n_items_with_gold": {d: p["n_items"] for d, p in parts.items()},
        "scales": {d: study.scales[d].to_dict() for d in dims},
    }
    if any(not_assigned.values()):
        # items a judge was never given: left out of its estimates under every policy
        settings["not_assigned"] = {d: v for d, v in not_assigned.items() if v}
    skipped = [d for d in (asked or study.dimensions) if d not in dims]
    if skipped:
        settings["not_categorical"] = skipped
    return settings


def _kappa_kind(scale: Any, opts: _Options) -> str:
    """The agreement weights of a dimension: ``kappa_weights`` if ordinal, else identity."""
    return opts.kappa_weights if scale.kind == "ordinal" else "identity"


def _dimension(
    d: str, scale: Any, o_all: Any, cluster_of: pd.Series | None, judges: list[str], opts: _Options
) -> dict[str, Any]:
    """Everything of dimension ``d`` (independent of the other dimensions): each block of
    judges given the same items on those items, so that a judge and the baselines it is
    compared with are scored on the same items."""
    blocks = o_all.blocks()
    parts = [_block(d, scale, o, cluster_of, opts) for o in blocks]
    if len(parts) == 1:
        return parts[0]
    # the baselines once, on the largest item set; every judge's own comparison with the
    # best baseline (tests) is on its own items
    widest = max(range(len(blocks)), key=lambda k: len(blocks[k].items))
    out = dict(parts[widest])
    for key in TABLES[:3]:
        out[key] = [
            row
            for k, p in enumerate(parts)
            for row in p[key]
            if row.get("role") != "baseline" or k == widest
        ]
    tests = [p["tests"] for p in parts if p["tests"] is not None]
    if tests:
        tt = pd.concat(tests, ignore_index=True)
        tt = tt.set_index("judge").loc[[j for j in judges if j in set(tt["judge"])]]
        tt = tt.reset_index()
        with_adjusted(tt, p_holm="holm")
        tt["beats_baseline"] = (tt["difference"] > 0) & (tt["p_holm"] < opts.alpha)
        out["tests"] = tt
        wide = parts[widest]["tests"]
        out["headline"] = _headline(
            d, tt, str(wide["baseline"].iloc[0]), float(wide["baseline_accuracy"].iloc[0]),
            opts.alpha, opts.policy,
        ).replace(
            " of the items;",
            f" of the {len(blocks[widest].items):,} items (each judge is compared with it "
            "on the items it was given);",
            1,
        )  # fmt: skip
    out["n_items"] = len(o_all.items)
    out["not_assigned"] = {
        j: int(n) for j, n in zip(o_all.judges, o_all.n_not_assigned, strict=True) if n
    }
    return out


def _block(
    d: str, scale: Any, o: Any, cluster_of: pd.Series | None, opts: _Options
) -> dict[str, Any]:
    """Dimension ``d`` for judges that were all given the same items (``o``): every judge and
    trivial baseline scored on those items, and each judge tested against the best baseline."""
    part: dict[str, Any] = {
        "excluded": dict(o.excluded), "gold_method": o.gold_method, "n_items": len(o.items),
        "metrics": [], "classes": [], "confusion": [], "tests": None,
    }  # fmt: skip
    if len(o.items) < 2:
        part["headline"] = f"{d}: fewer than two items with gold ({len(o.items)}); not evaluated."
        return part
    cl = None if cluster_of is None else cluster_of.loc[o.items].to_numpy()
    g = o.gold.astype(float)
    base_names, base_pred, best = _baseline_predictions(g, scale)
    names = list(o.judges) + base_names
    roles = ["judge"] * len(o.judges) + ["baseline"] * len(base_names)
    pred = np.column_stack([o.pred, base_pred])
    outcome = np.where(np.isnan(pred), np.nan, (pred == g[:, None]).astype(float))
    # one cluster bootstrap shared by every judge and baseline of the block; the baseline
    # tests' sums are drawn in the kappas' pass over the replicates
    y, m = apply_policy(outcome, opts.policy)  # type: ignore[arg-type]
    plan = ResamplePlan(len(o.items), opts.n_resamples, opts.seed, clusters=cl)
    plan = plan.along(np.concatenate([y * m, m], axis=1))
    rows = [{"dimension": d, "judge": nm, "role": r} for nm, r in zip(names, roles, strict=True)]
    part["metrics"] = _agreement_rows(rows, g, pred, outcome, scale, cl, plan, opts)
    pol = "exclude" if opts.policy == "exclude" else "wrong"
    q = len(scale.categories)
    rates = class_rates(g, pred, q, clusters=cl, policy=pol, confidence_level=opts.level)  # type: ignore[arg-type]
    part["classes"] = [
        {**row, "class": cat, "metric": metric, "estimate": float(r["estimate"][j, k]),
         "ci_low": float(r["ci_low"][j, k]), "ci_high": float(r["ci_high"][j, k]),
         "level": opts.level, "n": int(r["n"][j, k]), "count": int(r["count"][j, k])}
        for metric, r in rates.items()
        for j, row in enumerate(rows)
        for k, cat in enumerate(scale.categories)
    ]  # fmt: skip
    cm = confusion_counts(g, pred, q)
    part["confusion"] = [
        {**row, "gold": gcat, "predicted": pcat, "count": int(cm[j, a, b])}
        for j, row in enumerate(rows)
        for a, gcat in enumerate(scale.categories)
        for b, pcat in enumerate([*scale.categories, NO_VERDICT])
    ]
    tt = _baseline_tests(d, outcome, list(o.judges), names.index(best), best, cl, plan, opts)
    part["tests"] = tt
    part["headline"] = _headline(
        d, tt, best, float(tt["baseline_accuracy"].iloc[0]), opts.alpha, opts.policy
    )
    return part


def _agreement_rows(
    rows: list[dict[str, Any]],
    g: np.ndarray,
    pred: np.ndarray,
    outcome: np.ndarray,
    scale: Any,
    cl: np.ndarray | None,
    plan: ResamplePlan,
    opts: _Options,
) -> list[dict[str, Any]]:
    """The ``metrics`` rows of one block: accuracy and kappa per judge and baseline, then on an
    ordinal scale the too-low and too-high rates."""
    level, pol = opts.level, ("exclude" if opts.policy == "exclude" else "wrong")
    names = [r["judge"] for r in rows]
    # accuracy (the leaderboard's interval), one call for judges and baselines
    acc = judge_accuracy(outcome, names, policy=opts.policy, clusters=cl, confidence_level=level)  # type: ignore[arg-type]
    acc = {**acc, "estimate": acc["accuracy"]}
    kind = _kappa_kind(scale, opts)
    kap = _block_kappa(g, pred, scale, kind, pol, plan, level)
    n_kap = (~np.isnan(pred)).sum(0) if opts.policy == "exclude" else np.full(len(rows), g.size)
    unit = "clusters" if cl is not None else "items"
    kmethod = f"bootstrap-bca ({unit}, B={opts.n_resamples}, seed={opts.seed})"
    n_invalid = np.isnan(pred).sum(0)

    def metric(name: str, r: Any, methods: Any, weights: str = "") -> list[dict[str, Any]]:
        return [
            {**row, "level": level, "metric": name, "estimate": float(r["estimate"][j]),
             "se": float(r["se"][j]), "ci_low": float(r["ci_low"][j]),
             "ci_high": float(r["ci_high"][j]), "ci_method": str(methods[j]),
             "n": int(r["n"][j]), "n_invalid": int(n_invalid[j]), "weights": weights}
            for j, row in enumerate(rows)
        ]  # fmt: skip

    pairs = zip(
        metric("accuracy", acc, acc["ci_method"].to_numpy()),
        metric("kappa", {**kap, "n": n_kap}, [kmethod] * len(rows), kind),
        strict=True,
    )
    out = [row for pair in pairs for row in pair]  # accuracy and kappa, judge by judge
    if scale.kind == "ordinal":
        err = ordinal_error_rates(
            g, pred, len(scale.categories), clusters=cl, policy=pol, confidence_level=level
        )  # type: ignore[arg-type]
        method = "wilson" if cl is None else "wilson (effective n, Korn-Graubard df)"
        out += [row for name, r in err.items() for row in metric(name, r, [method] * len(rows))]
    return out


def _block_kappa(
    g: np.ndarray, pred: np.ndarray, scale: Any, kind: str, pol: str, plan: Any, level: float
) -> dict[str, np.ndarray]:
    """Cohen's (weighted) kappa of every judge and baseline against gold with its cluster
    bootstrap BCa interval: ``estimate, se, ci_low, ci_high``, one entry per column of ``pred``.

    The bootstrap resamples (``plan``) are shared by all columns; BCa's acceleration comes from
    the cluster jackknife, computed without a clusters x items matrix.
    """
    q, values = len(scale.categories), scale.numeric_values()
    kap, kboot, kjack = (
        gold_kappa_core(g, pred, q, w, values=values, kind=kind, policy=pol)  # type: ignore[arg-type]
        for w in (None, plan, plan.cluster_jackknife())
    )
    with np.errstate(invalid="ignore"):
        lo, hi = bootstrap_interval(kap, kboot, confidence_level=level, method="bca", jack=kjack)
    return {"estimate": kap, "se": bootstrap_se(kboot), "ci_low": lo, "ci_high": hi}


def _baseline_tests(
    d: str,
    outcome: np.ndarray,
    judges: list[str],
    bi: int,
    best: str,
    cl: np.ndarray | None,
    plan: ResamplePlan,
    opts: _Options,
) -> pd.DataFrame:
    """Each judge against the best baseline (column ``bi``), paired on the same items: the
    accuracy difference with its paired bootstrap percentile interval (the block's resamples)
    and McNemar's test (mid-p; clustered: Durkalski), Holm-adjusted over the judges."""
    y, m = apply_policy(outcome, opts.policy)  # type: ignore[arg-type]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = plan @ np.concatenate([y * m, m], axis=1)
        accb = z[:, : y.shape[1]] / z[:, y.shape[1] :]
    diff_boot = accb[:, : len(judges)] - accb[:, [bi]]
    point = (y * m).sum(0) / m.sum(0)
    diff = point[: len(judges)] - point[bi]
    lo, hi = bootstrap_interval(diff, diff_boot, confidence_level=opts.level, method="percentile")
    unit = "clusters" if cl is not None else "items"
    rows = []
    for j, nm in enumerate(judges):
        yj = np.where(m[:, j] > 0, outcome[:, j], np.nan)
        if opts.policy != "exclude":
            yj = np.where(np.isnan(yj), 0.0, yj)
        yb = outcome[:, bi]
        t = clustered_mcnemar(yj, yb, cl) if cl is not None else mcnemar(yj, yb, "midp")
        rows.append(
            {"dimension": d, "judge": nm, "baseline": best, "accuracy": float(point[j]),
             "baseline_accuracy": float(point[bi]), "difference": float(diff[j]),
             "ci_low": float(lo[j]), "ci_high": float(hi[j]), "level": opts.level,
             "ci_method": f"paired bootstrap percentile ({unit}, B={opts.n_resamples}, seed={opts.seed})",
             "test": t.method, "statistic": float(t.statistic), "pvalue": float(t.pvalue),
             "b": int(t.counts["b"]), "c": int(t.counts["c"])}
        )  # fmt: skip
    tt = with_adjusted(pd.DataFrame(rows), p_holm="holm")
    tt["beats_baseline"] = (tt["difference"] > 0) & (tt["p_holm"] < opts.alpha)
    return tt


def _headline(
    dimension: str, tests: pd.DataFrame, baseline: str, base_acc: float, alpha: float, policy: str
) -> str:
    beat = tests[tests["beats_baseline"]]
    worse = tests[(tests["difference"] < 0) & (tests["p_holm"] < alpha)]
    head = f"{dimension}: the trivial baseline {baseline} is right on {base_acc:.3f} of the items"
    test = " / ".join(dict.fromkeys(tests["test"].astype(str)))  # the tests that ran
    if beat.empty:
        s = f"{head}; no judge beats it ({test}, Holm, at alpha {alpha:g}"
        s += f", invalid verdicts {policy})."
        if len(worse):
            s += f" {len(worse)} of {len(tests)} judges are significantly worse than it."
        return s
    best = beat.sort_values("difference", ascending=False).iloc[0]
    return (
        f"{head}; {len(beat)} of {len(tests)} judges beat it ({test}, Holm, at "
        f"alpha {alpha:g}); the largest gain is {best['judge']}'s "
        f"{best['difference']:+.3f} ({best['ci_low']:+.3f} to {best['ci_high']:+.3f})."
    )
