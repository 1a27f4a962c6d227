"""Every pair of judges, per dimension, in one tidy table (:func:`all_pairs`).

Per pair: both accuracies, the difference with its interval (Tango's score interval or the
(cluster) paired bootstrap on one shared weight matrix), the discordant counts, McNemar's test
(clustered with ``clusters=``) and Holm (1979) within a family / Benjamini–Hochberg (1995)
across the table — 496 pairs for 32 judges in a few matrix products.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np
import pandas as pd

from medjudge.stats.accuracy import (
    POLICIES,
    Policy,
    _as_2d,
    _jackknife_accuracy,
    apply_policy,
    bootstrap_accuracy,
)
from medjudge.stats.mcnemar import (
    McNemarMethod,
    _clustered_mcnemar_matrix,
    mcnemar_pvalue,
    pairwise_counts,
)
from medjudge.stats.multiplicity import add_multiplicity
from medjudge.stats.paired_intervals import paired_difference_interval
from medjudge.stats.resampling import Bootstrap, as_bootstrap, bootstrap_interval, bootstrap_se

PairCI = Literal["auto", "bootstrap-percentile", "bootstrap-bca", "tango", "newcombe", "wald"]

__all__ = ["all_pairs"]


def _as_3d(
    outcome: np.ndarray | dict, dimensions: Sequence[str] | None
) -> tuple[np.ndarray, list[str]]:
    if isinstance(outcome, dict):
        dims = list(outcome)
        arr = np.stack([_as_2d(outcome[d]) for d in dims])
        return arr, dims
    y = np.asarray(outcome, dtype=float)
    if y.ndim == 2:
        y = y[None]
    if y.ndim != 3:
        raise ValueError(
            f"outcome: an array of shape {y.shape} is not allowed ((n_items, n_judges) or "
            "(n_dimensions, n_items, n_judges))"
        )
    dims = (
        list(dimensions)
        if dimensions is not None
        else ([""] if y.shape[0] == 1 else [f"dim_{i}" for i in range(y.shape[0])])
    )
    if len(dims) != y.shape[0]:
        raise ValueError(
            f"dimensions: {len(dims)} names is not allowed (one per outcome slice: {y.shape[0]})"
        )
    return y, dims


def _jackknife_pair_common(
    y: np.ndarray, mab: np.ndarray, ii: np.ndarray, jj: np.ndarray, clusters: np.ndarray | None
) -> np.ndarray:
    """Leave-one-out (item or cluster) differences on each pair's common items, for BCa."""
    dvals = mab * (y[:, ii] - y[:, jj])
    if clusters is None:
        g = np.arange(y.shape[0])
    else:
        g = pd.factorize(np.asarray(clusters))[0]
    ng = int(g.max()) + 1
    s_d = np.zeros((ng, ii.size))
    s_m = np.zeros((ng, ii.size))
    np.add.at(s_d, g, np.nan_to_num(dvals))
    np.add.at(s_m, g, mab)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (s_d.sum(0) - s_d) / (s_m.sum(0) - s_m)


def all_pairs(
    outcome: np.ndarray | dict,
    judges: Sequence[str] | None = None,
    *,
    dimensions: Sequence[str] | None = None,
    policy: Policy = "wrong",
    test: McNemarMethod = "midp",
    ci: PairCI = "auto",
    clusters: np.ndarray | None = None,
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    weights: np.ndarray | None = None,
    family: Sequence[str] = ("dimension",),
    within: str = "holm",
    across: str = "fdr_bh",
    boot_dtype: type = np.float32,
) -> pd.DataFrame:
    """Every pair of judges, per dimension, in one tidy table.

    ``outcome``: ``(n_items, n_judges)``, ``(n_dims, n_items, n_judges)`` or a dict
    ``{dimension: (n_items, n_judges)}``. Per pair ``(a, b)`` (``a`` before ``b`` in ``judges``):

    - ``accuracy_a``, ``accuracy_b``, ``difference = accuracy_a - accuracy_b`` (each judge's
      own accuracy under ``policy``), ``ci_low``, ``ci_high`` (``ci``: ``"auto"`` = Tango's
      score interval from the paired 2x2 table for binary outcomes on independent items, the
      (cluster) paired bootstrap percentile interval on shared resamples otherwise — the
      choices that covered in docs/inference.md; or name one: ``bootstrap-percentile``,
      ``bootstrap-bca``, ``tango``, ``newcombe``, ``wald``). Under ``exclude`` every number of
      a pair — the two accuracies, their difference, its interval and the test — uses one item
      set, the items both judges answered (``n_common``);
    - ``b`` (a right, b wrong), ``c`` (a wrong, b right), ``discordant``, ``n_common``,
      ``odds_ratio = b/c`` (conditional odds ratio);
    - McNemar ``statistic``/``pvalue`` (``test``; with ``clusters`` the clustered McNemar of
      Durkalski et al. 2003), then ``p_holm`` within each ``family`` (default: per
      dimension) and ``p_fdr_bh`` across the whole table.

    All judges and dimensions share one weight matrix (``weights``, or drawn from
    ``bootstrap`` and ``clusters``), so the cost is a few matrix products. Bootstrap
    replicates of the differences are held as ``boot_dtype`` (float32 by default: the
    replicates are differences of accuracies, and float32's 1e-7 relative precision is far
    below the Monte Carlo error; it halves memory and sort time).

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> rng = np.random.default_rng(1)
    >>> y = (rng.random((300, 3)) < [0.9, 0.8, 0.6]).astype(float)
    >>> t = mj.all_pairs(y, ['a', 'b', 'c'])
    >>> t[['judge_a', 'judge_b', 'difference']].round(3).values.tolist()
    [['a', 'b', 0.103], ['a', 'c', 0.313], ['b', 'c', 0.21]]
    """
    from .._validation import CONFIDENCE_LEVEL, check_choice, check_names
    from .multiplicity import check_method

    check_choice("policy", policy, POLICIES)
    check_choice("test", test, get_args(McNemarMethod))
    check_choice("ci", ci, get_args(PairCI))
    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    boot = as_bootstrap(bootstrap)
    if ci.startswith("bootstrap-"):
        boot.interval(ci.split("-")[1], allowed=(ci.split("-")[1],))
    else:
        boot.interval("percentile", allowed=("percentile",))
    check_names("family", family, ("dimension", "judge_a", "judge_b"), "a list of table columns")
    check_method("within", within)
    check_method("across", across)
    check_choice("boot_dtype", boot_dtype, (np.float32, np.float64))
    if dimensions is not None and (
        isinstance(dimensions, str) or not isinstance(dimensions, list | tuple)
    ):
        raise ValueError(f"dimensions: {dimensions!r} is not allowed (a list of names)")
    y3, dims = _as_3d(outcome, dimensions)
    n_dim, n, j = y3.shape
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(j)]
    if len(judges) != j:
        raise ValueError(
            f"judges: {len(judges)} names is not allowed (one per outcome column: {j})"
        )
    if clusters is not None and np.shape(clusters) != (n,):
        raise ValueError(
            f"clusters: {np.shape(clusters)} labels is not allowed (one label per item: {n})"
        )
    ii, jj = np.triu_indices(j, 1)
    if ci == "auto":
        # the defaults that covered in docs/inference.md: Tango's score interval for binary
        # outcomes on independent items (the paired bootstrap percentile interval under-covers
        # at small n and high accuracy); the cluster bootstrap when items are clustered or
        # outcomes are not binary (policy "half")
        ci = "tango" if clusters is None and policy != "half" else "bootstrap-percentile"
    boot_kind = ci.split("-")[1] if ci.startswith("bootstrap") else None
    w = None
    if boot_kind is not None:
        w = weights if weights is not None else boot.plan(n, clusters=clusters).weights()
        w = np.asarray(w)
        # one product for all dimensions and judges
        ys = [apply_policy(y3[d], policy) for d in range(n_dim)]
        if all(np.all(m == 1.0) for _, m in ys):
            stacked = np.concatenate([y for y, _ in ys], axis=1)
            boot_all = (w @ stacked) / w.sum(1, keepdims=True)
        else:
            boot_all = np.concatenate(
                [bootstrap_accuracy(y3[d], policy=policy, weights=w) for d in range(n_dim)], axis=1
            )
        boot_all = boot_all.astype(boot_dtype, copy=False)
    frames = []
    for d in range(n_dim):
        y, m = apply_policy(y3[d], policy)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = (m * y).sum(0) / m.sum(0)
        cnt = pairwise_counts(y3[d], policy)
        bm, cm = cnt["better"][ii, jj], cnt["better"][jj, ii]
        acc_a, acc_b = acc[ii], acc[jj]
        common = not np.all(m == 1.0)  # excluded invalid verdicts or items not given
        if common:
            # one item set per pair: the items both judges count (estimate, interval and test)
            mab = m[:, ii] * m[:, jj]
            nab = mab.sum(0)
            with np.errstate(invalid="ignore", divide="ignore"):
                acc_a = (mab * y[:, ii]).sum(0) / nab
                acc_b = (mab * y[:, jj]).sum(0) / nab
        if clusters is not None:
            stat_m, p_m = _clustered_mcnemar_matrix(y, m, clusters)
            stat, p = stat_m[ii, jj], p_m[ii, jj]
            test_name = "McNemar clustered (Durkalski 2003)"
        else:
            stat, p = mcnemar_pvalue(bm, cm, test)
            test_name = f"McNemar {test}"
        diff = acc_a - acc_b
        if boot_kind is not None and common:
            # paired bootstrap on each pair's common items (same resamples for every pair)
            with np.errstate(invalid="ignore", divide="ignore"):
                bd = (w @ (mab * (y[:, ii] - y[:, jj]))) / (w @ mab)
            bd = bd.astype(boot_dtype, copy=False)
            jack = None
            if boot_kind == "bca":
                ja = _jackknife_pair_common(y, mab, ii, jj, clusters)
                jack = ja
            lo, hi = bootstrap_interval(diff, bd, level=level, method=boot_kind, jack=jack)
            se = bootstrap_se(bd)
            ci_name = f"{'cluster ' if clusters is not None else ''}paired bootstrap {boot_kind} (B={w.shape[0]}; items both answered)"
        elif boot_kind is not None:
            boot = boot_all[:, d * j : (d + 1) * j]
            # all pairwise differences as one product with a +1/-1 contrast matrix (exact:
            # each output is 1*a - 1*b plus zeros), much faster than fancy indexing
            if np.isnan(boot).any():  # NaN * 0 would poison every difference
                bd = boot[:, ii] - boot[:, jj]
            else:
                contrast = np.zeros((j, ii.size), dtype=boot.dtype)
                contrast[ii, np.arange(ii.size)] = 1.0
                contrast[jj, np.arange(ii.size)] = -1.0
                bd = boot @ contrast
            jack = None
            if boot_kind == "bca":
                ja = _jackknife_accuracy(y, m, clusters)
                jack = ja[:, ii] - ja[:, jj]
            lo, hi = bootstrap_interval(diff, bd, level=level, method=boot_kind, jack=jack)
            # SE of every difference from the judges' bootstrap covariance (no pass over bd)
            if np.isnan(boot).any():
                se = bootstrap_se(bd)
            else:
                cov = np.atleast_2d(np.cov(boot, rowvar=False, dtype=np.float64))  # 1 judge
                se = np.sqrt(np.maximum(np.diag(cov)[ii] + np.diag(cov)[jj] - 2 * cov[ii, jj], 0.0))
            ci_name = f"{'cluster ' if clusters is not None else ''}paired bootstrap {boot_kind} (B={w.shape[0]})"
        else:
            n11, n22 = cnt["both_right"][ii, jj], cnt["both_wrong"][ii, jj]
            lo, hi = paired_difference_interval(n11, bm, cm, n22, level, ci)
            nn = n11 + bm + cm + n22
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.sqrt(np.maximum((bm + cm) - (bm - cm) ** 2 / nn, 0.0)) / nn
            ci_name = ci
        with np.errstate(invalid="ignore", divide="ignore"):
            oratio = bm / cm
        frames.append(
            pd.DataFrame(
                {
                    "dimension": dims[d],
                    "judge_a": np.asarray(judges, dtype=object)[ii],
                    "judge_b": np.asarray(judges, dtype=object)[jj],
                    "accuracy_a": acc_a,
                    "accuracy_b": acc_b,
                    "difference": diff,
                    "se": se,
                    "ci_low": lo,
                    "ci_high": hi,
                    "ci_method": ci_name,
                    "level": level,
                    "b": bm.astype(int),
                    "c": cm.astype(int),
                    "discordant": (bm + cm).astype(int),
                    "n_common": cnt["n_common"][ii, jj].astype(int),
                    "odds_ratio": oratio,
                    "test": test_name,
                    "statistic": stat,
                    "pvalue": p,
                    "policy": policy,
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)
    return add_multiplicity(table, p_col="pvalue", family=family, within=within, across=across)
