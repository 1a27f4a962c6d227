"""Judge evaluation of a whole study: the tables the CLI and the reports present.

:func:`evaluate_judges` joins the data model to the estimators: for every dimension it takes the
``items × judges`` outcomes against an explicitly derived gold, draws **one** resample-weight
matrix shared by every judge and dimension (cluster bootstrap by image/case when the items carry
a cluster id), and returns the leaderboard with intervals and rank intervals, all pairwise
comparisons (McNemar mid-p + paired bootstrap, Holm within each dimension, Benjamini–Hochberg
across the grid), the invalid-verdict policy sensitivity, trivial baselines and the expert
ceiling (each physician against the majority of the others).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import ALPHA, CONFIDENCE_LEVEL, check_choice
from ..data.gold import majority_gold
from ..data.model import Study
from ..data.outcomes import NOT_ASSIGNED_STATUS, judge_matrix
from ..engine.choose import read_study
from ..stats.accuracy import (
    NOT_ASSIGNED,
    Policy,
    apply_policy,
    classification_metrics,
    policy_sensitivity,
    trivial_baselines,
)
from ..stats.multiplicity import add_multiplicity
from ..stats.pairwise import add_decidability, all_pairs
from ..stats.ranking import groups_from_pairs, leaderboard
from ..stats.resampling import Bootstrap, ResamplePlan, as_bootstrap
from ._arguments import check_dimensions, check_policy
from ._findings import PLAIN, Finding, Markup, Names
from ._result import Result
from ._tables import TablesToDict, with_adjusted
from .design import resolve_clusters
from .evaluation_tables import evaluation_summary, evaluation_table
from .evaluation_text import evaluation_findings


@dataclass(frozen=True, repr=False)
class JudgeEvaluation(TablesToDict, Result):
    """Every table of a judge evaluation, plus the settings that produced them.

    The attributes ``leaderboard``, ``pairs``, ``sensitivity``, ``classification``,
    ``baselines`` and ``expert_ceiling`` are the analysis' wide tables; ``table(name)`` gives
    each as a tidy long table (:mod:`medjudge.analyses._result`), ``plot("forest" | "ranks")``
    draws the leaderboard, ``plot("pairs")`` the pairwise differences (each pair in both
    triangles of the matrix) and ``plot("sensitivity")`` the accuracy under each
    invalid-verdict policy (one dimension each), ``findings()`` and ``summary()`` state it in
    words.
    """

    TABLES = (
        "leaderboard", "pairs", "sensitivity", "classification", "baselines", "expert_ceiling",
    )  # fmt: skip
    PLOTS = {
        "forest": ("forest_plot", "leaderboard", {}),
        "ranks": ("rank_interval_plot", "leaderboard", {}),
        "pairs": ("pairwise_matrix", "pairs", {"p": "p_adjusted", "p_label": "adjusted p"}),
        "sensitivity": ("position_bias_plot", "sensitivity", {
            "group": "estimand", "reference": None, "xlabel": "accuracy",
            "legend_title": "policy"}),
    }  # fmt: skip
    DICT_KEYS = ("settings", "excluded", *TABLES)

    leaderboard: pd.DataFrame
    pairs: pd.DataFrame
    sensitivity: pd.DataFrame
    classification: pd.DataFrame
    baselines: pd.DataFrame
    expert_ceiling: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    excluded: dict[str, dict[str, int]] = field(default_factory=dict)

    def _table(self, name: str) -> pd.DataFrame:
        return evaluation_table(self, name)

    def baseline_by_dimension(self) -> dict[str, float]:
        """Trivial baseline per dimension: the best constant judge (``always-<class>``), whose
        accuracy is the prevalence of the majority gold class."""
        b = self.baselines
        const = b[b["judge"].astype(str).str.startswith("always-")]
        return {
            str(d): float(g["accuracy"].max()) for d, g in const.groupby("dimension", sort=False)
        }

    def ceiling_by_dimension(self) -> dict[str, float]:
        """Expert ceiling per dimension: the mean over experts of each expert's accuracy against
        the strict majority of the other experts (:func:`expert_ceiling`); ``{}`` without one."""
        c = self.expert_ceiling
        return {str(d): float(g["accuracy"].mean()) for d, g in c.groupby("dimension", sort=False)}

    def _plot_options(self, kind: str, data: pd.DataFrame, options: Any) -> dict[str, Any]:
        if kind == "forest":
            return {"baseline": self.baseline_by_dimension(),
                    "ceiling": self.ceiling_by_dimension() or None, **options}  # fmt: skip
        if data["dimension"].nunique() > 1:
            raise ValueError(
                f"plot({kind!r}) draws one dimension: pass "
                "where={'dimension': ...} (one of "
                + ", ".join(map(str, dict.fromkeys(data["dimension"])))
                + ")"
            )
        if kind == "pairs":  # significance at the evaluation's own alpha unless given
            return {"alpha": float(self.settings["alpha"]), **options}
        return dict(options)

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """Per dimension (``dimension`` only, else every one): the most accurate judge with its
        interval, rank set and lead, how many others the pairwise decisions cannot tell apart
        from it, how many pairs differ (tests, family and α as decided) and the largest effect
        of the invalid-verdict policy; the report's leaderboard, pairwise and sensitivity
        sentences (:mod:`medjudge.analyses.evaluation_text`)."""
        return evaluation_findings(self, dimension, names=names, markup=markup)

    def summary(self, *, width: int = 100) -> str:
        """The terminal text (``medjudge compare``): the one-line ``repr``, then per dimension
        the leaderboard, baselines and expert ceiling, then the pairwise tests at the
        evaluation's alpha in its multiplicity family; tables ``width`` wide."""
        return repr(self) + "\n" + evaluation_summary(self, width)

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"JudgeEvaluation({len(s.get('judges', []))} judges x {len(s.get('dimensions', []))} "
            f"dimensions, {len(self.pairs)} pairwise tests, B={s.get('n_resamples')}, "
            f"level={s.get('level')}, cluster={s.get('cluster')!r})"
        )


def cluster_ids(study: Study, cluster: str | None = "auto") -> tuple[np.ndarray | None, str | None]:
    """Cluster labels per item and the column they come from
    (:func:`medjudge.analyses.design.resolve_clusters`)."""
    c = resolve_clusters(study, cluster)
    return c.labels, c.column if c.labels is not None else None


def expert_ceiling(
    study: Study,
    dimension: str,
    *,
    judges: list[str] | None = None,
    order: str | None = None,
    policy: Policy = "wrong",
) -> pd.DataFrame:
    """The human ceiling, like for like: experts and judges on the same items and the same gold.

    For expert ``e`` the reference is the strict majority of the *other* experts (leave-one-out;
    items where they split have no reference and are counted in ``n_no_gold``). On exactly the
    items where that reference exists and ``e`` gave a label, the table reports ``e``'s accuracy
    (``accuracy``) and the judges' mean accuracy against the **same** reference
    (``judges_accuracy``; invalid verdicts under ``policy``), and ``gap = accuracy -
    judges_accuracy``. Comparing the expert's leave-one-out accuracy with the judges' accuracy
    against *all* experts is not like for like: items that are hard for everyone lower the
    former more than the latter, and in simulation with judges exactly as good as the experts
    the gap came out at several points (docs/calibration.md, "Expert ceiling").
    """
    cols = [
        "dimension",
        "expert",
        "accuracy",
        "judges_accuracy",
        "gap",
        "n",
        "n_no_gold",
        "reference",
    ]
    if len(study.experts) < 3 or "expert" in study.exchangeable:
        # exchangeable annotation slots are not persons: no per-expert ceiling
        return pd.DataFrame(columns=cols)
    m = study.matrix(dimension, role="expert")
    k = len(study.scales[dimension].categories)
    judges = judges if judges is not None else study.judges
    jm = None
    if judges:
        codes, st, _ = judge_matrix(study, dimension, list(judges), order)
        jm = np.where(st == NOT_ASSIGNED_STATUS, NOT_ASSIGNED, codes)
    rows = []
    for e, name in enumerate(m.raters):
        others = np.delete(m.values, e, axis=1)
        g, _ = majority_gold(others, k)
        own = m.values[:, e]
        ok = np.isfinite(g) & np.isfinite(own)
        acc = float((own[ok] == g[ok]).mean()) if ok.any() else np.nan
        jacc = np.nan
        if jm is not None and ok.any():
            with np.errstate(invalid="ignore"):
                out = np.where(
                    np.isnan(jm[ok]) | np.isinf(jm[ok]),
                    jm[ok],  # NaN: no usable verdict (policy); inf: not given (left out)
                    (jm[ok] == g[ok][:, None]).astype(float),
                )
            y, w = apply_policy(out, policy)
            jacc = float(np.nanmean((w * y).sum(0) / w.sum(0)))
        rows.append(
            {
                "dimension": dimension,
                "expert": name,
                "accuracy": acc,
                "judges_accuracy": jacc,
                "gap": acc - jacc,
                "n": int(ok.sum()),
                "n_no_gold": int((~np.isfinite(g)).sum()),
                "reference": "majority of the other experts (same items for expert and judges)",
            }
        )
    return pd.DataFrame(rows, columns=cols)


def _pairs(
    outcomes: dict[str, Any],
    judges: list[str],
    cl_for: Any,
    shared_w: ResamplePlan | None,
    *,
    policy: Policy,
    bootstrap: Bootstrap,
    confidence_level: float,
) -> pd.DataFrame:
    """All pairs of judges in every dimension (:func:`all_pairs`), on the shared resamples
    ``shared_w`` when every dimension has the same gold items.

    When the item sets differ, each dimension is compared on its own items with its own
    cluster labels (the clustered McNemar and the cluster bootstrap stay clustered: dropping
    the clusters here gave a 9-10% type I error in simulation), resamples drawn from the same
    seed; the multiplicity columns are then recomputed over the concatenated table exactly as
    :func:`all_pairs` does for a common item set (Holm within each dimension,
    Benjamini-Hochberg across the table).
    """
    if shared_w is not None:
        first = next(iter(outcomes.values()))
        return all_pairs(
            {d: o.outcome for d, o in outcomes.items()}, judges, dimensions=list(outcomes),
            policy=policy, clusters=cl_for(first), bootstrap=bootstrap,
            confidence_level=confidence_level, weights=shared_w,
        )  # fmt: skip
    each = Bootstrap(bootstrap.n_resamples, bootstrap.seed, scheme=bootstrap.scheme)
    frames = [
        all_pairs(
            {d: o.outcome}, judges, dimensions=[d], policy=policy, clusters=cl_for(o),
            bootstrap=each, confidence_level=confidence_level,
        )
        for d, o in outcomes.items()
    ]  # fmt: skip
    table = pd.concat(frames, ignore_index=True)
    adjusted = [c for c in table.columns if c.startswith("p_")]
    return add_multiplicity(table.drop(columns=adjusted), p_col="pvalue")


FAMILIES = ("table", "dimension")


def _with_decision(
    board: pd.DataFrame, pairs: pd.DataFrame, alpha: float, family: str
) -> pd.DataFrame:
    """The leaderboard's decision columns: the ``alpha`` and family its letters and rank sets
    come from, and ``n_indistinguishable`` (judges whose pair with this one was tested and is
    not significant, counted from the pairs table, never from the letters)."""
    out = board.copy()
    d = out["dimension"].iloc[0]
    p = pairs[pairs["dimension"] == d]
    tied = p[p["p_holm"].notna() & ~p["significant"]]  # tested and not significant
    same = pd.concat([tied["judge_a"], tied["judge_b"]]).value_counts()
    out["n_indistinguishable"] = [int(same.get(j, 0)) for j in out["judge"]]
    out["alpha"] = float(alpha)
    out["family"] = family
    out["family_size"] = int(p["family_size"].iloc[0]) if len(p) else 0
    return out


def holm_family(
    pairs: pd.DataFrame, family: str = "table", alpha: float = 0.05
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Holm-adjust ``pairs["pvalue"]`` over the stated family; return the table and its label.

    ``table``: one family, every row shown together (the familywise error rate then holds over
    the whole grid); ``dimension``: one family per dimension. ``p_fdr_bh`` (Benjamini-Hochberg
    over the table) is kept as the exploratory column. Every row gets the decision's threshold
    and family: ``alpha``, ``family`` (the family's words) and ``family_size`` (tests in the
    row's family), and ``significant`` (``p_holm < alpha``).
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    t = pairs.copy()
    n_tests = int(t["pvalue"].notna().sum())
    with_adjusted(t, within=None if family == "table" else "dimension", p_holm="holm")
    if family == "table":
        sizes = [n_tests]
    else:
        sizes = [int(s.notna().sum()) for _, s in t.groupby("dimension", sort=False)["pvalue"]]
    if "min_attainable_p" in t.columns:
        # can this pair's test reach significance at the decisions' alpha in this family?
        t = add_decidability(
            t, family=() if family == "table" else ("dimension",), alpha=alpha, method="holm"
        )
    label = {
        "family": family,
        "method": "holm",
        "n_tests": n_tests,
        "n_families": len(sizes),
        "description": (
            (
                f"Holm over all {n_tests} pairwise tests shown together (every pair of judges "
                "in every dimension)"
                if n_tests > 1
                else "the one pairwise test (no multiplicity adjustment needed)"
                if n_tests == 1
                else "no pairwise tests (fewer than two judges with verdicts)"
            )
            if family == "table"
            else f"Holm within each dimension ({len(sizes)} "
            f"{'family' if len(sizes) == 1 else 'families'} of "
            f"{'' if len(set(sizes)) <= 1 else 'up to '}{max(sizes, default=0)} pairwise tests)"
        ),
    }
    t["alpha"] = float(alpha)
    t["family"] = label["description"]
    if family == "table":
        t["family_size"] = n_tests
    else:
        t["family_size"] = t.groupby("dimension", sort=False)["pvalue"].transform("count")
    t["significant"] = t["p_holm"] < alpha
    return t, label


def evaluate_judges(
    study: Study | str | Path,
    *,
    engine: str = "auto",
    mapping: Any = None,
    policy: Policy = "wrong",
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    cluster: str | None = "auto",
    gold: str = "auto",
    order: str | None = None,
    dimensions: list[str] | None = None,
    family: str = "table",
    alpha: float = 0.05,
) -> JudgeEvaluation:
    """Leaderboards, pairwise tests, sensitivity, baselines and the expert ceiling for a study.

    Parameters
    ----------
    study : Study or path
        Judges' verdicts and expert labels (gold per item x dimension is derived or supplied),
        or a bundle folder or table to read (:func:`medjudge.engine.choose.read_study`).
    engine : {"auto", "memory", "duckdb", "spark"}, default "auto"
        For a path: load it in memory, or reduce it next to the data to the study's item x
        rater matrices; every number below is then computed by the same code, so the result
        is the same on every engine (``auto`` decides by the table's size).
    mapping : TableMapping, str or Path, optional
        For a table: its column mapping (a ``TableMapping`` or a TOML file).
    policy : {"wrong", "exclude", "half"}, default "wrong"
        What an invalid (unparseable) verdict counts as.
    bootstrap : Bootstrap, optional
        Resampling of items (or clusters) for the rank sets and paired intervals; percentile
        intervals (``method`` None or ``"percentile"``). Default ``Bootstrap()``: 2,000
        replicates, seed 0.
    confidence_level : float, default 0.95
        Coverage of every interval (reported as ``level``).
    cluster : str or None, default "auto"
        Items sharing this column's value are resampled and tested together; ``"auto"`` uses
        the study's declared cluster, None treats items as independent.
    gold : str, default "auto"
        Gold rule (``"auto"``: supplied gold, else the strict expert majority).
    order, dimensions
        Presentation order to evaluate and dimensions to include (default: all).
    family : {"table", "dimension"}, default "table"
        Multiplicity family of the pairwise tests' ``p_holm``: every pair of every dimension
        shown together (the grid a reader scans) or Holm within each dimension.
        ``settings["multiplicity"]`` names the family, the method and the number of tests.
    alpha : float, default 0.05
        Threshold of every decision (significant pairs, letters, rank sets, ``can_decide``):
        a pair differs when its Holm-adjusted p is below ``alpha``. It is a setting of its own,
        not ``1 - confidence_level``: intervals are reported at ``confidence_level``, decisions
        at ``alpha``, and both are recorded (``settings["alpha"]``; the ``alpha``, ``family``
        and ``family_size`` columns of ``pairs`` and ``leaderboard``).

    Returns
    -------
    JudgeEvaluation
        ``leaderboard`` (accuracy with clustered intervals, rank sets, letters), ``pairs``
        (paired differences, McNemar tests, Holm), ``sensitivity``, ``classification``,
        ``baselines``, ``ceiling``, ``settings`` and ``excluded`` counts.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J.
    Statist. 6:65-70.
    Durkalski, V. L. et al. (2003). Analysis of clustered matched-pair data. Statistics in
    Medicine 22:2417-2428 (clustered McNemar).

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, 12 judges, 3 experts
    >>> ev = mj.evaluate_judges(study, bootstrap=mj.Bootstrap(200))
    >>> ev.settings['multiplicity']['family'], len(ev.leaderboard) == len(study.judges) * len(study.dimensions)
    ('table', True)
    """
    study = read_study(study, mapping, engine=engine)
    boot = as_bootstrap(bootstrap)
    boot.interval("percentile", allowed=("percentile",))
    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    alpha = ALPHA.check("alpha", alpha)
    check_policy(policy)
    check_choice("family", family, ("table", "dimension"))
    dims = check_dimensions(study, dimensions)
    scores = [d for d in dims if not study.scales[d].is_categorical]
    if scores:
        raise ValueError(
            f"dimensions: {', '.join(map(str, scores))} hold scores, not categories; "
            "evaluate_judges compares categorical verdicts with the gold (score dimensions: "
            "score_study, or 'medjudge compare')"
        )
    clusters, cluster_col = cluster_ids(study, cluster)
    outcomes = {d: study.outcomes(d, gold=study.gold(d, gold), order=order) for d in dims}
    cluster_of = None if clusters is None else pd.Series(clusters, index=study.item_ids)

    def cl_for(o: Any) -> np.ndarray | None:
        return None if cluster_of is None else cluster_of.loc[o.items].to_numpy()

    # one weight matrix shared by every judge and dimension (items with gold are the same set
    # across dimensions only if gold is complete; otherwise draw per dimension from the same seed)
    same_items = len({tuple(o.items) for o in outcomes.values()}) == 1
    first = next(iter(outcomes.values()))
    shared_w = boot.plan(len(first.items), clusters=cl_for(first)) if same_items else None
    tables = [
        _dimension_tables(study, d, o, cl_for(o), shared_w, boot, policy, level, order)
        for d, o in outcomes.items()
    ]
    pairs = _pairs(
        outcomes, study.judges, cl_for, shared_w, policy=policy, bootstrap=boot,
        confidence_level=level,
    )  # fmt: skip
    pairs, multiplicity = holm_family(pairs, family, alpha)
    # letters and top set from the very decisions the pairs table shows (its family, its alpha)
    fam = multiplicity["description"]
    boards = [
        _with_decision(
            groups_from_pairs(b, pairs[pairs["dimension"] == b["dimension"].iloc[0]], alpha=alpha, family=fam),
            pairs, alpha, fam,
        )
        if len(b)
        else b
        for b in (t[0] for t in tables)
    ]  # fmt: skip
    settings = {
        "policy": policy,
        "multiplicity": multiplicity,
        "seed": boot.seed,
        "n_resamples": boot.n_resamples,
        "level": level,
        "alpha": alpha,
        "gold": first.gold_method,
        "cluster": cluster_col or "none (item bootstrap)",
        "order": first.order or "single order",
        "dimensions": dims,
        "judges": study.judges,
        "n_items_with_gold": {d: len(o.items) for d, o in outcomes.items()},
        "item_sets": "one item set for all dimensions"
        if same_items
        else "each dimension on its own items with gold (clusters kept per dimension)",
    }
    return JudgeEvaluation(
        pd.concat(boards, ignore_index=True),
        pairs,
        *(pd.concat([t[k] for t in tables], ignore_index=True) for k in range(1, 5)),
        settings,
        {d: o.excluded for d, o in outcomes.items()},
    )


def _dimension_tables(
    study: Study,
    d: str,
    o: Any,
    cl: np.ndarray | None,
    shared_w: ResamplePlan | None,
    boot: Bootstrap,
    policy: Policy,
    level: float,
    order: str | None,
) -> tuple[pd.DataFrame, ...]:
    """One dimension's leaderboard (before its decisions), sensitivity to the invalid-verdict
    policy, classification metrics, trivial baselines and expert ceiling, on its gold items."""
    judges = study.judges
    w = shared_w if shared_w is not None else boot.plan(len(o.items), clusters=cl)
    lb = leaderboard(
        o.outcome, judges, policy=policy, clusters=cl,
        bootstrap=boot, confidence_level=level, weights=w,
    )  # fmt: skip
    cats, labels = list(range(len(o.scale.categories))), list(o.scale.categories)
    sens = policy_sensitivity(o.outcome, judges, clusters=cl, confidence_level=level)
    cls = classification_metrics(
        o.pred, o.gold, judges, categories=cats, labels=labels, policy=policy
    )
    base = trivial_baselines(o.gold, categories=cats, labels=labels, confidence_level=level)
    for t in (lb, sens, cls, base):
        t.insert(0, "dimension", d)
    return lb, sens, cls, base, expert_ceiling(study, d, judges=judges, order=order, policy=policy)
