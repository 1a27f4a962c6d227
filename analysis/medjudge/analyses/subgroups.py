"""Subgroup breakdowns: accuracy (and expert agreement) per cell of any item attributes.

A *cell* is a combination of values of the ``by`` keys: item attributes (``organ_system``,
``department``, ``modality_type`` …), ``dimension`` and, always, ``judge``. Each cell gets the
accuracy with its interval from :func:`medjudge.stats.accuracy.judge_accuracy` (Wilson by
default; with ``cluster=`` the Wilson interval at the Korn–Graubard effective sample size from
the cluster-robust SE, Miller 2024), ``n`` and ``n_invalid``. A cell with fewer than
:data:`~medjudge.analyses.subgroup_intervals.POOL_BELOW` clusters takes its design effect from the judge's intra-cluster correlation
pooled over all cells (:func:`medjudge.stats.intervals.pooled_icc`): its own variance, from a
handful of clusters, gave intervals that covered 98-99.5% (docs/calibration.md, "Subgroup
intervals in small clustered cells").

When ``dimension`` is *not* a key and the study has several dimensions, the outcomes of all
dimensions are pooled (one row per item x dimension) and the SE is clustered by item (or by the
``cluster`` attribute), because the six verdicts on an item are not independent.

**Small cells.** A cell is flagged ``small`` when ``n < min_n`` (default 30) *or* the interval
half-width ``(ci_high - ci_low)/2 > max_half_width`` (default 0.15): such a cell cannot
distinguish a 60% judge from a 85% one, so its estimate should not be read on its own.

Which judge is best *within* a subgroup (:func:`best_judge_by_subgroup`) uses the all-pairs
machinery of :mod:`medjudge.stats.pairwise` (McNemar mid-p, Tango interval) on the items
of the cell, Holm within the cell and Benjamini–Hochberg across cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from medjudge.analyses._tables import with_adjusted
from medjudge.data.model import Study
from medjudge.data.outcomes import NOT_ASSIGNED_STATUS
from medjudge.stats.accuracy import AccuracyMethod, Policy, apply_policy, judge_accuracy
from medjudge.stats.agreement import COEFFICIENTS
from medjudge.stats.pairwise import all_pairs

from .._validation import CONFIDENCE_LEVEL
from .._validation import MAX_HALF_WIDTH as HALF_WIDTH_RANGE
from .._validation import MIN_N as MIN_N_RANGE
from ._arguments import check_dimensions, check_policy
from .design import resolve_clusters
from .evaluation import cluster_ids
from .subgroup_intervals import borrow_correlation, pooled_correlation
from .subgroup_results import SubgroupAccuracy
from .subgroup_rule import (  # noqa: F401 - the rule, re-exported where it was defined
    MAX_SUBGROUPS,
    MIN_ITEMS_PER_SUBGROUP,
    RULE_TEXT,
    default_subgroup_attributes,
    resolve_by,
    subgroup_candidates,
)

__all__ = [
    "MIN_N",
    "MAX_HALF_WIDTH",
    "SMALL_RULE",
    "small_cells",
    "StackedOutcomes",
    "stack_outcomes",
    "subgroup_accuracy",
    "subgroup_agreement",
    "best_judge_by_subgroup",
]

MIN_N = 30
MAX_HALF_WIDTH = 0.15
SMALL_RULE = "small = n < {min_n} or interval half-width > {hw}"


def small_cells(
    n: np.ndarray,
    ci_low: np.ndarray,
    ci_high: np.ndarray,
    *,
    min_n: int = MIN_N,
    max_half_width: float = MAX_HALF_WIDTH,
) -> np.ndarray:
    """Boolean flag per cell: ``n < min_n`` or ``(ci_high - ci_low)/2 > max_half_width`` (or no CI)."""
    n = np.asarray(n, dtype=float)
    hw = (np.asarray(ci_high, dtype=float) - np.asarray(ci_low, dtype=float)) / 2.0
    with np.errstate(invalid="ignore"):
        return (n < min_n) | ~(hw <= max_half_width)


@dataclass(frozen=True)
class StackedOutcomes:
    """Judge correctness stacked over dimensions: ``outcome`` is ``(rows, judges)``; ``rows``
    holds ``item``, ``dimension`` and the item attributes of each row."""

    outcome: np.ndarray
    rows: pd.DataFrame
    judges: list[str]
    excluded: dict[str, int]
    gold_method: str
    design: np.ndarray | None = None

    def resolved(self, policy: Policy = "wrong") -> np.ndarray:
        """Outcomes with the invalid-verdict policy applied *inside the design*: NaN where the
        judge has no verdict row at all (the item was never given to it, e.g. LLMBar's
        Processed subsets for some evaluators) or where ``exclude`` drops an unusable verdict;
        otherwise 1/0 (0.5 for ``half``). A ``missing`` status row (a judge skipped an item it
        was given) is in the design and follows the policy."""
        y, m = apply_policy(self.outcome, policy)
        out = np.where(m > 0, y, np.nan)
        if self.design is not None:
            out = np.where(self.design, out, np.nan)
        return out

    def n_invalid(self) -> np.ndarray:
        """Unusable verdicts inside the design, per row x judge (bool)."""
        bad = np.isnan(self.outcome)
        return bad & self.design if self.design is not None else bad


def stack_outcomes(
    study: Study,
    *,
    dimensions: Sequence[str] | None = None,
    judges: Sequence[str] | None = None,
    order: str | None = None,
) -> StackedOutcomes:
    """Correctness of every judge on every (item, dimension) with gold, with the item attributes."""
    dims = list(dimensions) if dimensions is not None else study.dimensions
    attrs = study.items.set_index("item")
    ys, frames, excluded, methods = [], [], {}, set()
    js = list(judges) if judges is not None else None
    designs = []
    item_pos = pd.Index(study.item_ids)
    for dim in dims:
        o = study.outcomes(dim, judges=js, order=order)
        js = o.judges
        ys.append(o.outcome)
        # the judge has a verdict row for the item (in the order evaluated, if one is)
        status = study._status_matrix(dim, js, o.order)[item_pos.get_indexer(o.items)]
        designs.append(status != NOT_ASSIGNED_STATUS)
        f = attrs.reindex(o.items).reset_index()
        f.insert(1, "dimension", dim)
        f["gold_code"] = o.gold
        frames.append(f)
        methods.add(o.gold_method)
        for k, v in o.excluded.items():
            excluded[f"{dim}:{k}"] = int(v)
    return StackedOutcomes(
        np.vstack(ys),
        pd.concat(frames, ignore_index=True),
        list(js or []),
        excluded,
        "/".join(sorted(methods)),
        np.vstack(designs),
    )


def _cells(rows: pd.DataFrame, keys: list[str]) -> list[tuple[tuple, np.ndarray]]:
    if not keys:
        return [((), np.arange(len(rows)))]
    missing = [k for k in keys if k not in rows.columns]
    if missing:
        raise KeyError(
            f"unknown breakdown key(s) {missing}; item attributes: "
            f"{[c for c in rows.columns if c not in ('gold_code',)]}"
        )
    out = []
    for key, idx in rows.groupby(keys, sort=True, dropna=False).indices.items():
        out.append(((key,) if not isinstance(key, tuple) else key, np.asarray(idx)))
    return out


def subgroup_accuracy(
    study: Study,
    by: str | Sequence[str] | None = None,
    *,
    judges: Sequence[str] | None = None,
    dimensions: Sequence[str] | None = None,
    policy: Policy = "wrong",
    cluster: str | None = "auto",
    method: AccuracyMethod = "wilson",
    confidence_level: float = 0.95,
    min_n: int = MIN_N,
    max_half_width: float = MAX_HALF_WIDTH,
    order: str | None = None,
    _stacked: StackedOutcomes | None = None,
) -> SubgroupAccuracy:
    """Accuracy of every judge in every cell of ``by``: one tidy row per judge x cell.

    Columns: ``judge``, the ``by`` keys, ``accuracy, se, ci_low, ci_high, ci_method, n,
    n_invalid, n_clusters, policy, small, rule, cluster`` (the column resampled together, or
    ``item``/``none``) and ``n_unit`` (what ``n`` counts: items, or verdicts when pooled).
    ``judge`` in ``by`` is accepted (it is always a key). ``cluster="auto"`` uses the study's clusters
    (:func:`medjudge.analyses.design.resolve_clusters`); pooling over dimensions (``dimension``
    not in ``by``) clusters by item when there are none.

    Parameters
    ----------
    study : Study
        The study (judges' verdicts and a gold per item and dimension).
    by : str or sequence of str, optional
        The keys of a cell: a column name or a list of names (item attributes, ``dimension``
        and/or ``judge``). Default: the study's subgroup attribute by the one documented rule
        (:func:`default_subgroup_attributes`); an error naming ``by`` when it has none.
    judges : sequence of str, optional
        The judges to include (default: all).
    dimensions : sequence of str, optional
        The dimensions to include (default: all); pooled unless ``dimension`` is in ``by``.
    policy : {"wrong", "exclude", "half"}, default "wrong"
        Invalid verdicts count as wrong, are left out, or count as half correct.
    cluster : str or None, default "auto"
        The item attribute whose values are resampled together (cluster-robust SE);
        ``"auto"``: the study's declared or detected clusters; None: items are independent
        (pooled dimensions are then still clustered by item).
    method : {"wilson", "clopper-pearson", "wald", "bootstrap-percentile", "bootstrap-bca"}, \
default "wilson"
        Interval of each cell's accuracy (:func:`medjudge.judge_accuracy`); with clusters at
        the Korn–Graubard effective n, or in a small cell at ``n / deff`` with the judge's
        pooled correlation (:mod:`medjudge.analyses.subgroup_intervals`).
    confidence_level : float, default 0.95
        Coverage of the intervals.
    min_n : int, default 30
        A cell with fewer units is flagged ``small``.
    max_half_width : float, default 0.15
        A cell whose interval half-width exceeds this is flagged ``small``.
    order : str, optional
        Use only the verdicts given in this presentation order (e.g. ``"AB"``); default: as
        :meth:`Study.outcomes` chooses. An order no judge verdict has is an error.
    _stacked : StackedOutcomes, optional
        Private hand-over: precomputed :func:`medjudge.analyses.subgroups.stack_outcomes` of
        the same study, judges, dimensions and order (default: computed here).

    Returns
    -------
    SubgroupAccuracy
        The result contract (``table("cells")``, ``plot("heatmap")``, ``findings()``) over
        ``frame``, one row per judge x cell, columns ``judge``, the ``by`` keys, ``accuracy``, ``se``,
        ``ci_low``, ``ci_high``, ``ci_method``, ``level``, ``n``, ``n_invalid``,
        ``n_not_assigned``, ``n_clusters``, ``policy``, ``aggregation``, ``small``, ``rule``
        (the small-cell rule in words), ``gold`` (how the gold was derived), ``cluster``,
        ``n_unit``, ``pooled_dimensions``, ``icc_pooled`` and ``design_effect``.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
    JASA 22:209-212.
    Korn, E. L. & Graubard, B. I. (1998). Survey Methodology 24:193-201. Miller, E. (2024).
    Adding error bars to evals. arXiv:2411.00640, appendix A. Kish, L. (1965). Survey
    Sampling, sec. 5.4 (design effect).

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, 12 judges, 3 experts
    >>> t = mj.subgroup_accuracy(study, ('organ_system',))
    >>> {'judge', 'organ_system', 'accuracy', 'ci_low', 'ci_high', 'small'} <= set(t.columns)
    True
    >>> ax = t.plot("heatmap")  # one cell per row of t.table("cells")
    """

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    check_policy(policy)
    MIN_N_RANGE.check("min_n", min_n)
    HALF_WIDTH_RANGE.check("max_half_width", max_half_width)
    if dimensions is not None:
        check_dimensions(study, dimensions)
    by = resolve_by(study, by, extra=("dimension", "judge"))

    clusters = resolve_clusters(study, cluster)
    cluster = clusters.column if clusters.labels is not None else None
    keys = [k for k in by if k != "judge"]
    so = (
        _stacked
        if _stacked is not None
        else stack_outcomes(study, dimensions=dimensions, judges=judges, order=order)
    )
    rows = so.rows
    pooled = "dimension" not in keys and rows["dimension"].nunique() > 1
    if cluster is not None:
        cl_all = rows[cluster].astype(str).to_numpy()
    elif pooled:
        cl_all = rows["item"].astype(str).to_numpy()
    else:
        cl_all = None
    frames = []
    res, bad = so.resolved(policy), so.n_invalid()
    cells = list(_cells(rows, keys))
    pool = pooled_correlation(res, cells, cl_all, method)
    for key, idx in cells:
        cl = cl_all[idx] if cl_all is not None else None
        # the policy is already applied inside the design; 'exclude' only drops non-design cells
        t = judge_accuracy(
            res[idx], so.judges, policy="exclude", clusters=cl, method=method,
            confidence_level=level,
        )  # fmt: skip
        if pool is not None:
            borrow_correlation(t, res[idx], cl, pool, len(cells), method, level)
        t["n_invalid"] = bad[idx].sum(0)
        t["policy"] = policy
        t = t[t["n"] > 0]
        for k, v in reversed(list(zip(keys, key, strict=True))):
            t.insert(1, k, v)
        frames.append(t)
    out = pd.concat(frames, ignore_index=True)
    out["small"] = small_cells(
        out["n"], out["ci_low"], out["ci_high"], min_n=min_n, max_half_width=max_half_width
    )
    out["rule"] = SMALL_RULE.format(min_n=min_n, hw=max_half_width)
    out["gold"] = so.gold_method
    # what the intervals resample and test together, and what n counts
    out["cluster"] = cluster if cluster is not None else ("item" if pooled else "none")
    out["n_unit"] = "verdicts (item x dimension)" if pooled else "items"
    if pooled:
        out["pooled_dimensions"] = int(rows["dimension"].nunique())
    return SubgroupAccuracy(out, tuple(keys), level)


def subgroup_agreement(
    study: Study,
    by: str | Sequence[str] | None = None,
    *,
    coefficient: str = "fleiss_kappa",
    role: str = "expert",
    dimensions: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    min_n: int = MIN_N,
    max_half_width: float = MAX_HALF_WIDTH,
) -> pd.DataFrame:
    """Chance-corrected agreement among the raters of ``role`` per dimension x cell of ``by``.

    Uses the coefficients of :mod:`medjudge.stats.agreement` (analytic intervals; Gwet 2014
    linearisation for the Fleiss family). ``by`` holds item attributes (``dimension`` is always
    a key here: agreement is never pooled over dimensions). Same small-cell rule as accuracy,
    half-width taken from the coefficient's interval.
    """

    fn = COEFFICIENTS[coefficient]
    by = resolve_by(study, by, extra=("dimension", "judge"))
    keys = [k for k in by if k not in ("dimension", "judge")]
    attrs = study.items
    rows = []
    for dim in dimensions or study.dimensions:
        m = study.matrix(dim, role=role)
        if m.values.shape[1] < 2:
            continue
        cats = np.arange(len(m.scale.categories), dtype=float) if m.scale.is_categorical else None
        for key, idx in _cells(attrs, keys):
            X = m.values[idx]
            X = X[(~np.isnan(X)).sum(1) >= 2]
            if X.shape[0] < 2:
                continue
            kw = {"categories": cats} if cats is not None else {}
            e = fn(X, confidence_level=confidence_level, **kw)
            r = {
                "dimension": dim,
                **dict(zip(keys, key, strict=True)),
                "coefficient": coefficient,
                "role": role,
                "estimate": e.estimate,
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
                "ci_method": e.ci_method,
                "n": int(X.shape[0]),
                "n_raters": int(X.shape[1]),
            }
            rows.append(r)
    out = pd.DataFrame(rows)
    if len(out):
        out["small"] = small_cells(
            out["n"], out["ci_low"], out["ci_high"], min_n=min_n, max_half_width=max_half_width
        )
        out["rule"] = SMALL_RULE.format(min_n=min_n, hw=max_half_width)
    return out


def best_judge_by_subgroup(
    study: Study,
    by: str | Sequence[str] | None = None,
    *,
    dimensions: Sequence[str] | None = None,
    judges: Sequence[str] | None = None,
    policy: Policy = "wrong",
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    cluster: str | None = "auto",
    _stacked: StackedOutcomes | None = None,
) -> pd.DataFrame:
    """Best judge within each cell (``dimension`` is always a key), with a confidence set for it.

    Picking the judge with the highest accuracy and then testing it against the others as if it
    had been chosen in advance flags "worse than the best" far too often (10-18% of cells when
    all judges are equally good). Instead each cell gets a **confidence set for the best judge**:
    every pair of judges is compared on the items both answered (clustered McNemar when items
    cluster), Holm over all pairs of the cell, and a judge leaves the set only when another
    judge is significantly more accurate (:func:`_best_set`). The best judge stays in the set
    with probability >= ``1 - alpha``; with all judges equally good every judge stays in
    >= ``1 - alpha`` of cells (docs/calibration.md).

    Columns: the cell keys, ``n``, ``best`` (highest accuracy), ``runner_up`` with the
    difference, its Tango interval and McNemar mid-p on the items both answered (descriptive:
    the pair is chosen from the data), ``best_set`` (comma-separated, best first),
    ``n_in_best_set``, ``excluded_from_best_set`` (judges shown to be worse than the best
    ones), ``best_set_method``; ``p_fdr_bh`` adjusts best-vs-runner-up over cells.
    ``min_attainable_p_holm``, ``can_decide`` and ``warning`` say whether any pair of the cell
    could reach significance after the cell's Holm adjustment with its clusters (or items)
    (:func:`medjudge.stats.pairwise.add_decidability`): where it cannot, a best set holding
    every judge is no evidence that the judges are tied.
    """

    by = resolve_by(study, by, extra=("dimension", "judge"))
    keys = ["dimension"] + [k for k in by if k not in ("dimension", "judge")]
    so = (
        _stacked
        if _stacked is not None
        else stack_outcomes(study, dimensions=dimensions, judges=judges)
    )
    _, cl_col = cluster_ids(study, cluster)
    cl_all = None if cl_col is None else so.rows[cl_col].astype(str).to_numpy()
    test = "clustered McNemar (Durkalski 2003)" if cl_col else "McNemar mid-p"
    method = (
        f"judges not significantly less accurate than another judge ({test} on the items both "
        f"answered, Holm over all pairs of the cell, alpha {alpha:g})"
    )
    rows = []
    resolved = so.resolved(policy)
    for key, idx in _cells(so.rows, keys):
        y = resolved[idx]
        present = ~np.isnan(y).all(0)  # judges that were given this cell's items
        if present.sum() < 2:
            continue
        names = [j for j, p in zip(so.judges, present, strict=True) if p]
        yc = y[:, present]
        with np.errstate(invalid="ignore", divide="ignore"):
            pairs = all_pairs(
                yc,
                names,
                policy="exclude",
                ci="tango",
                confidence_level=confidence_level,
                family=(),
                within="holm",
            )
            m = ~np.isnan(yc)
            acc_all = np.nansum(yc, 0) / m.sum(0)
        order = sorted(range(len(names)), key=lambda t: (-acc_all[t], names[t]))
        best, second = names[order[0]], names[order[1]]
        cl = None if cl_all is None else cl_all[idx]
        with np.errstate(invalid="ignore", divide="ignore"):
            in_set, n_tests, cell_pairs = _best_set(yc, names, cl, alpha)
        pr = pairs[
            ((pairs["judge_a"] == best) & (pairs["judge_b"] == second))
            | ((pairs["judge_a"] == second) & (pairs["judge_b"] == best))
        ].iloc[0]
        sign = 1.0 if pr["judge_a"] == best else -1.0
        lo, hi = sorted((sign * pr["ci_low"], sign * pr["ci_high"]))
        members = [names[t] for t in order if in_set[t]]
        out_of = [names[t] for t in order if not in_set[t]]
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "n": int(len(idx)),
                "best": best,
                "accuracy_best": acc_all[order[0]],
                "runner_up": second,
                "accuracy_runner_up": acc_all[order[1]],
                "difference": sign * float(pr["difference"]),
                "n_common": int(pr["n_common"]),
                "ci_low": lo,
                "ci_high": hi,
                "ci_method": "tango",
                "pvalue": float(pr["pvalue"]),
                "test": "McNemar mid-p, best vs runner-up (descriptive: the pair is chosen from the data)",
                "best_set": ",".join(members),
                "n_in_best_set": len(members),
                "excluded_from_best_set": ",".join(out_of),
                "best_set_method": method,
                "family_size": n_tests,
                # can any pair of this cell reach significance after Holm?
                "min_attainable_p_holm": float(cell_pairs["min_attainable_p_holm"].min()),
                "can_decide": bool(cell_pairs["can_decide"].any()),
                "warning": ""
                if cell_pairs["can_decide"].any()
                else cell_pairs["warning"].iloc[0].replace("this pair", "this cell")
                + "; the best set keeps every judge whatever the data",
            }
        )
    return with_adjusted(pd.DataFrame(rows), p_fdr_bh="fdr_bh")


def _best_set(
    y: np.ndarray,
    names: list[str],
    clusters: np.ndarray | None,
    alpha: float,
) -> tuple[np.ndarray, int, pd.DataFrame]:
    """Which judges can be best, the number of tests in the cell's family, and its pairs.

    Every pair of judges is tested on the items both answered (McNemar mid-p; with clusters the
    clustered McNemar of Durkalski et al. 2003) and the p-values are Holm-adjusted over all
    pairs of the cell. A judge leaves the set only when some other judge is significantly more
    accurate. The truly best judge can only leave through a false rejection, so it stays in the
    set with probability >= 1 - alpha (Holm's familywise error bound); with all judges equal,
    every judge stays in >= 1 - alpha of cells (Hsu 1996, ch. 4, subset selection by multiple
    comparisons with the best, here with all pairs).
    """
    pairs = all_pairs(
        y,
        names,
        policy="exclude",
        ci="tango" if clusters is None else "clustered-score",
        clusters=clusters,
        family=(),
        within="holm",
        confidence_level=1.0 - alpha,
    )
    in_set = np.ones(len(names), dtype=bool)
    pos = {n: i for i, n in enumerate(names)}
    for a, b, d, p in zip(
        pairs["judge_a"], pairs["judge_b"], pairs["difference"], pairs["p_holm"], strict=True
    ):
        if p == p and p < alpha and d != 0:
            in_set[pos[b] if d > 0 else pos[a]] = False
    return in_set, len(pairs), pairs
