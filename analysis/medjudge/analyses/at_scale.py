"""Judge evaluation of verdict sets of any size: reduce next to the data, resample small.

:func:`evaluate_at_scale` sends one reduction to an engine (DuckDB embedded by default, or
Apache Spark) through :func:`medjudge.engine.reduce.reduce_verdicts`, receives per-cluster count
patterns, and computes — from those integers only — every judge's accuracy with a
cluster-robust SE and Poisson cluster-bootstrap interval, and every pair of judges' paired
difference with its interval and McNemar test (mid-p, or clustered after Durkalski et al. 2003),
adjusted for multiplicity over the whole table (Holm; ``family="dimension"`` adjusts within each
dimension). The bootstrap weights are keyed by the patterns themselves, so the same data and seed
give bit-identical numbers on either engine, with any partitioning and any row order.

Examples
--------
>>> import pandas as pd
>>> from medjudge.analyses.at_scale import evaluate_at_scale
>>> rows = []
>>> for i in range(40):
...     gold = "A" if i % 3 else "B"
...     rows += [(f"q{i}", "e1", "expert", gold), (f"q{i}", "e2", "expert", gold),
...              (f"q{i}", "j1", "judge", gold if i % 4 else "A"),
...              (f"q{i}", "j2", "judge", "A")]
>>> df = pd.DataFrame(rows, columns=["item", "rater", "role", "value"]).assign(dimension="overall")
>>> from medjudge import Bootstrap
>>> res = evaluate_at_scale(df, bootstrap=Bootstrap(200, seed=1))
>>> [(r.judge, r.accuracy) for r in res.leaderboard.itertuples()]  # 36/40 and 26/40
[('j1', 0.9), ('j2', 0.65)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from medjudge.stats.resampling import Bootstrap, as_bootstrap

from ..data.model import Study
from ..data.tables import TableMapping
from ..engine.reduce import ENGINES, Patterns, ReducedStudy, reduce_verdicts
from ..stats.accuracy import NOT_ASSIGNED
from ..stats.pattern_inference import POLICY_CHOICES, evaluate_patterns
from ._tables import TablesToDict
from .subgroups import StackedOutcomes

Family = Literal["table", "dimension"]
FAMILIES: tuple[str, ...] = ("table", "dimension")

__all__ = [
    "accuracy_table_at_scale",
    "ItemsView",
    "ScaleEvaluation",
    "evaluate_at_scale",
    "reduce_study",
    "stack_at_scale",
]


@dataclass(frozen=True)
class ScaleEvaluation(TablesToDict):
    """Leaderboard and pairwise table of :func:`evaluate_at_scale`, with settings and counts."""

    DICT_KEYS = ("settings", "excluded", "notes", "leaderboard", "pairs")

    leaderboard: pd.DataFrame
    pairs: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    excluded: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        dims = self.leaderboard["dimension"].nunique() if len(self.leaderboard) else 0
        return (
            f"ScaleEvaluation({len(self.leaderboard)} judge rows over {dims} dimension(s), "
            f"{len(self.pairs)} pairs; engine={self.settings.get('engine')}, "
            f"B={self.settings.get('n_resamples')}, seed={self.settings.get('seed')})"
        )


def _validate(policy: str, confidence_level: float, n_resamples: int, family: str, engine: str):
    if policy not in POLICY_CHOICES:
        raise ValueError(f"policy must be one of {', '.join(POLICY_CHOICES)}; got {policy!r}")
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level}")
    if not 1 <= int(n_resamples) <= 1_000_000:
        raise ValueError(f"n_resamples must be between 1 and 1000000, got {n_resamples}")
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}; got {family!r}")
    if engine not in (*ENGINES, "memory"):
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")


def reduce_study(
    study: Study,
    *,
    cluster: str | None = "auto",
    gold: str = "auto",
    order: str | None = None,
    dimensions: list[str] | None = None,
) -> ReducedStudy:
    """The per-cluster patterns of a study loaded in memory (pandas/numpy, no engine).

    The same integers as :func:`medjudge.engine.reduce.reduce_verdicts` on the table the study
    was loaded from, computed independently from :meth:`Study.outcomes
    <medjudge.data.model.Study.outcomes>` (the in-memory path's correctness matrix) and the
    judge design (``a``: the judge has a verdict row for the item — an item outside it is
    neither wrong nor invalid); usable verdicts ``v`` and correct ones ``c`` per cluster, over
    the items with gold that some judge was given. Score dimensions are skipped, with the
    reason, as by the engine.

    Examples
    --------
    >>> import medjudge as mj
    >>> red = reduce_study(mj.datasets.example())
    >>> red.engine, sorted(red.dimensions)[:1]
    ('memory', ['accuracy'])
    """
    from .evaluation import cluster_ids

    dims = list(dimensions) if dimensions else list(study.dimensions)
    cl, cl_name = cluster_ids(study, cluster)
    ids = np.asarray(study.item_ids, dtype=object)
    cl_of = dict(zip(ids, cl if cl is not None else ids, strict=True))
    out: dict[str, Patterns] = {}
    excluded: dict[str, dict[str, int]] = {}
    skipped: dict[str, str] = {}
    method = None
    r = study.ratings
    for dim in dims:
        scale = study.scales[dim]
        if not scale.is_categorical:
            skipped[dim] = (
                f"{scale.level} scale: score dimensions are analysed by the in-memory path "
                "(--engine memory)"
            )
            continue
        g = study.gold(dim, gold)
        method = g.method
        o = study.outcomes(dim, gold=g, order=order)
        rated = set(
            r.loc[(r["dimension"] == dim).to_numpy() & (r["role"] == "judge").to_numpy(), "rater"]
        )
        keep = sorted(
            (j for j, nm in enumerate(o.judges) if nm in rated), key=lambda j: o.judges[j]
        )
        names = [o.judges[j] for j in keep]
        # the judge design: which (item, judge) has a verdict row in this dimension (and order)
        sub = r[(r["dimension"] == dim).to_numpy() & (r["role"] == "judge").to_numpy()]
        if o.order is not None:
            sub = sub[sub["order"] == o.order]
        pres = pd.crosstab(sub["item"].astype(str), sub["rater"].astype(str)) > 0
        design = pres.reindex(index=list(map(str, o.items)), columns=names, fill_value=False)
        design = design.to_numpy(dtype=bool)
        judged = design.any(axis=1)  # items no judge was given carry no information
        y = np.where(design, o.outcome[:, keep], np.nan)[judged]
        design = design[judged]
        items = [it for it, keep_it in zip(o.items, judged, strict=True) if keep_it]
        excluded[dim] = {"items_with_gold": len(o.items), **o.excluded}
        if not names or not items:
            continue
        codes, inv = np.unique(np.asarray([str(cl_of[i]) for i in items]), return_inverse=True)
        G = len(codes)
        n = np.bincount(inv, minlength=G)
        a = np.zeros((G, len(names)), dtype=np.int64)
        v = np.zeros((G, len(names)), dtype=np.int64)
        c = np.zeros((G, len(names)), dtype=np.int64)
        np.add.at(a, inv, design.astype(np.int64))
        np.add.at(v, inv, np.isfinite(y).astype(np.int64))
        np.add.at(c, inv, (y == 1).astype(np.int64))
        m = np.concatenate([n[:, None], a, v, c], 1).astype(np.int64)
        rows, k = np.unique(m, axis=0, return_counts=True)  # sorted rows, as the engine sorts
        J = len(names)
        out[dim] = Patterns(
            dimension=dim, judges=names, assigned=rows[:, 1 : 1 + J],
            valid=rows[:, 1 + J : 1 + 2 * J], correct=rows[:, 1 + 2 * J :],
            multiplicity=k.astype(np.int64), items=rows[:, 0],
        )  # fmt: skip
    return ReducedStudy(
        dimensions=out,
        excluded=excluded,
        engine="memory",
        cluster=cl_name,
        n_rows=len(r),
        settings={"gold": method, "order": order},
        skipped=skipped,
    )


def evaluate_at_scale(
    source: str | Path | pd.DataFrame | ReducedStudy | Study,
    *,
    engine: Literal["duckdb", "spark"] = "duckdb",
    cluster: str | None = "auto",
    policy: Literal["wrong", "exclude", "half"] = "wrong",
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    family: Family = "table",
    partitions: int | None = None,
    mapping: TableMapping | None = None,
    gold: Literal["auto", "supplied", "majority"] = "auto",
    order: str | None = None,
    dimensions: list[str] | None = None,
) -> ScaleEvaluation:
    """Accuracy and all pairwise comparisons of the judges, computed from per-cluster patterns.

    Parameters
    ----------
    source : path, DataFrame or ReducedStudy
        A long verdict table (Parquet file or folder, CSV/TSV, DataFrame) with columns ``item,
        rater, role, dimension, value`` (+ ``cluster``), or an already reduced study.
    engine : {"duckdb", "spark"}
        Where the reduction runs (identical results).
    cluster : str or None, default "auto"
        Column grouping items (image, case, patient). ``"auto"``: the cluster the mapping
        declares, else the first of image_id, case_id, patient_id, cluster among the item
        attributes; ``None`` or ``"none"``: every item its own cluster.
    policy : {"wrong", "exclude", "half"}
        Invalid (empty) judge verdicts count as wrong, are excluded, or get half credit.
    confidence_level : float
        Coverage of every interval.
    bootstrap : Bootstrap, optional
        Poisson cluster-bootstrap replicates (drawn in blocks; memory stays bounded) and the
        seed of the counter-based weights (default 1,000 replicates, seed 0).
    family : {"table", "dimension"}
        Holm adjustment over every pair shown (all dimensions), or within each dimension.
    partitions : int, optional
        Spark only: repartition the input first (the numbers do not depend on it).
    mapping : TableMapping, optional
        How to read a table in any layout (:mod:`medjudge.engine.projection`); without it the
        table has the canonical columns.
    gold : {"auto", "supplied", "majority"}
        Gold per item × dimension: the mapping's gold column (``auto`` when it names one) or
        the strict majority of the experts.
    order : str, optional
        Presentation order of the judges' verdicts when several were recorded (default AB).
    dimensions : list of str, optional
        Restrict to these dimensions.

    Returns
    -------
    ScaleEvaluation
        ``leaderboard`` (dimension, judge, accuracy, se, ci_low, ci_high, level, ci_method,
        n_items, n_clusters) and ``pairs`` (dimension, judge_1, judge_2, difference, ci_low,
        ci_high, level, n_items, test, statistic, p_value, p_adjusted, family, n_tests).

    References
    ----------
    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. & Rust, P. F. (2003). Analysis of clustered
    matched-pair data. Statistics in Medicine 22:2465-2476.
    Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary matched-pairs
    data: mid-p and asymptotic are better than exact conditional. BMC Med Res Methodol 13:91.
    Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using Poisson
    frequencies. Comput Methods Programs Biomed 83:57-62.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand J Stat 6:65-70.
    """
    boot = Bootstrap(1000) if bootstrap is None else as_bootstrap(bootstrap)
    n_resamples, seed = boot.n_resamples, boot.seed
    _validate(policy, confidence_level, n_resamples, family, engine)
    if isinstance(source, ReducedStudy):
        red = source
    elif isinstance(source, Study):
        red = reduce_study(
            source, cluster=cluster, gold=gold, order=order,
            dimensions=dimensions,
        )  # fmt: skip
    else:
        red = reduce_verdicts(
            source, engine=engine, cluster=cluster, partitions=partitions, mapping=mapping,
            gold=gold, order=order, dimensions=dimensions,
        )  # fmt: skip
    lb_frames: list[pd.DataFrame] = []
    pair_frames: list[pd.DataFrame] = []
    notes: dict[str, str] = {d: f"not run: {why}" for d, why in red.skipped.items()}
    for dim, pat in sorted(red.dimensions.items()):
        acc, pr = evaluate_patterns(
            pat.assigned, pat.valid, pat.correct, pat.multiplicity, items=pat.items,
            policy=policy, confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        )  # fmt: skip
        if pat.judges:  # one row per judge: the columns of ``acc``, renamed and typed
            cols = {"accuracy": "estimate", "se": "se", "ci_low": "ci_low", "ci_high": "ci_high"}
            lb_frames.append(
                pd.DataFrame(
                    {
                        "dimension": dim,
                        "judge": list(pat.judges),
                        **{c: np.asarray(acc[k], dtype=float) for c, k in cols.items()},
                        "level": float(confidence_level),
                        "ci_method": [str(m) for m in acc["ci_method"]],
                        "n_items": np.asarray(acc["n_items"], dtype=float),
                        "n_clusters": np.asarray(acc["n_clusters"]).astype(int),
                    }
                )
            )
        if len(pat.judges) < 2:
            continue
        if pr is None:
            notes[dim] = (
                "pairwise comparisons need single-item clusters or a complete design (every judge "
                "given every item of every cluster; not with policy 'exclude')"
            )
            continue
        names = np.asarray(pat.judges, dtype=object)
        pair_frames.append(
            pd.DataFrame(
                {
                    "dimension": dim,
                    "judge_1": names[pr["i"]],
                    "judge_2": names[pr["j"]],
                    "difference": pr["difference"],
                    "ci_low": pr["ci_low"],
                    "ci_high": pr["ci_high"],
                    "level": float(confidence_level),
                    "n_items": pr["n_items"],
                    "test": pr["test"],
                    "statistic": pr["statistic"],
                    "p_value": pr["p_value"],
                }
            )
        )
    leaderboard = pd.concat(lb_frames, ignore_index=True) if lb_frames else pd.DataFrame()
    if leaderboard.empty:
        leaderboard = pd.DataFrame(columns=["dimension", "judge", "accuracy", "ci_low", "ci_high"])
    pairs = pd.concat(pair_frames, ignore_index=True) if pair_frames else pd.DataFrame()
    if not pairs.empty:
        groups = [np.arange(len(pairs))] if family == "table" else [
            np.flatnonzero(pairs["dimension"].to_numpy() == d) for d in pairs["dimension"].unique()
        ]  # fmt: skip
        adj = np.empty(len(pairs))
        n_tests = np.empty(len(pairs), dtype=int)
        for idx in groups:
            adj[idx] = multipletests(pairs["p_value"].to_numpy()[idx], method="holm")[1]
            n_tests[idx] = idx.size
        pairs["p_adjusted"] = adj
        pairs["family"] = family
        pairs["n_tests"] = n_tests
    settings = {
        "engine": red.engine,
        "cluster": red.cluster or "none (each item its own cluster)",
        "policy": policy,
        "confidence_level": float(confidence_level),
        "n_resamples": int(n_resamples),
        "seed": int(seed),
        "bootstrap": "Poisson cluster bootstrap, counter-based weights keyed by cluster pattern",
        "multiplicity": f"Holm over {family!r}",
        "rows": red.n_rows,
        **red.settings,
    }
    return ScaleEvaluation(
        leaderboard=leaderboard, pairs=pairs, settings=settings, excluded=red.excluded, notes=notes
    )


@dataclass(frozen=True)
class ItemsView:
    """What the subgroup analyses read from a study besides its outcomes: the items (with their
    attributes), the dimensions and the declared cluster column — for a table reduced next to
    the data, where no :class:`~medjudge.data.model.Study` with every verdict row is built."""

    items: pd.DataFrame
    dimensions: list[str]
    cluster: str | None = None
    order: str | None = None
    swapped: frozenset = frozenset()


def stack_at_scale(
    source: str | Path,
    *,
    mapping: TableMapping,
    engine: Literal["duckdb", "spark"] = "duckdb",
    cluster: str | None = "auto",
    gold: Literal["auto", "supplied", "majority"] = "auto",
    order: str | None = None,
    dimensions: list[str] | None = None,
) -> tuple[ItemsView, StackedOutcomes]:
    """Judge outcomes stacked over dimensions, reduced next to the data (one row per item).

    The same :class:`~medjudge.analyses.subgroups.StackedOutcomes` as
    :func:`~medjudge.analyses.subgroups.stack_outcomes` builds from a loaded study — outcome
    1/0/NaN per (item, dimension) × judge, the judge design (which items each judge was
    given), the item attributes and the gold codes — with items in the study's natural order
    and judges sorted by name. :func:`subgroup_accuracy`, :func:`heterogeneity_table`,
    :func:`organ_effect_tests` and :func:`best_judge_by_subgroup` take it as ``stacked=`` with
    the returned :class:`ItemsView` as ``study``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from medjudge.data.tables import TableMapping
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "v.csv"
    >>> _ = p.write_text("q,who,v,g\\n1,a,A,A\\n1,b,B,A\\n2,a,B,B\\n2,b,B,B\\n")
    >>> m = TableMapping.from_dict({"item": "q", "rater": "who", "value": "v", "gold": "g",
    ...                             "role": "judge"})
    >>> view, so = stack_at_scale(p, mapping=m)
    >>> so.judges, so.outcome.tolist()
    (['a', 'b'], [[1.0, 0.0], [1.0, 1.0]])
    """
    from ..data.model import natural_order
    from ..engine.reduce import item_outcomes

    io = item_outcomes(
        source, mapping=mapping, engine=engine, cluster=cluster, gold=gold, order=order,
        dimensions=dimensions,
    )  # fmt: skip
    df = io.frame
    dims = [d for d in io.scales if d not in io.skipped and (not dimensions or d in dimensions)]
    nj = len(io.judges)
    # the in-memory study's natural item order, computed once over the distinct items
    codes, uniq = pd.factorize(df["item"].astype(str))
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[natural_order(list(uniq))] = np.arange(len(uniq))
    item_rank = rank[codes]
    dim_of = df["dimension"].astype(str).to_numpy()
    a_all = df[[f"a{j}" for j in range(nj)]].to_numpy(dtype=np.int32)
    v_all = df[[f"v{j}" for j in range(nj)]].to_numpy(dtype=np.int32)
    c_all = df[[f"c{j}" for j in range(nj)]].to_numpy(dtype=np.int32)
    ys, designs, frames = [], [], []
    for dim in dims:
        idx = np.flatnonzero(dim_of == dim)
        idx = idx[np.argsort(item_rank[idx], kind="stable")]
        a, v, c = a_all[idx], v_all[idx], c_all[idx]
        y = np.where(v > 0, c.astype(float), np.nan)
        ys.append(np.where(a > 0, y, NOT_ASSIGNED))  # outside the judge design
        designs.append(a > 0)
        f = pd.DataFrame({"item": uniq[codes[idx]]})
        for at in io.attributes:
            f[at] = df[f"attr__{at}"].astype(str).to_numpy()[idx]
        f.insert(1, "dimension", dim)
        labels = df["gold_label"].astype(str).to_numpy()[idx]
        f["gold_code"] = io.scales[dim].encode(labels.tolist())
        frames.append(f)
    del a_all, v_all, c_all
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    first = rows.drop(columns=["dimension", "gold_code"]).drop_duplicates("item")
    items = first.assign(_r=rank[pd.Index(uniq).get_indexer(first["item"])]).sort_values("_r")
    items = items.drop(columns="_r").reset_index(drop=True)
    so = StackedOutcomes(
        np.vstack(ys) if ys else np.zeros((0, nj)),
        rows,
        list(io.judges),
        dict(io.excluded),
        io.gold_method,
        np.vstack(designs) if designs else np.zeros((0, nj), dtype=bool),
    )
    view = ItemsView(
        items=items, dimensions=dims, cluster=io.cluster, order=io.order, swapped=io.swapped
    )
    return view, so


def accuracy_table_at_scale(
    view: ItemsView, stacked: StackedOutcomes, confidence_level: float = 0.95
) -> pd.DataFrame:
    """:func:`~medjudge.analyses.policies.accuracy_table` from outcomes reduced next to the data.

    The same rows and numbers (Wilson intervals at the effective sample size of the cluster
    design, :func:`~medjudge.stats.accuracy.policy_sensitivity`), from the stacked outcomes
    of :func:`stack_at_scale` instead of a loaded study.
    """
    from ..stats.accuracy import policy_sensitivity
    from .evaluation import cluster_ids
    from .policies import policy_rows

    clusters, col = cluster_ids(view)  # type: ignore[arg-type]
    rows = []
    dim_of = stacked.rows["dimension"].to_numpy()
    for dim in view.dimensions:
        idx = dim_of == dim
        cl = None if clusters is None else stacked.rows.loc[idx, col].astype(str).to_numpy()
        sens = policy_sensitivity(
            stacked.outcome[idx], list(stacked.judges), clusters=cl,
            confidence_level=confidence_level,
        )  # fmt: skip
        orders = [view.order or ("AB" if (dim, j) in view.swapped else "") for j in stacked.judges]
        rows += policy_rows(sens, dim, stacked.gold_method, orders, confidence_level)
    return pd.DataFrame(rows)
