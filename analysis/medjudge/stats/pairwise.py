"""Every pair of judges, per dimension, in one tidy table (:func:`all_pairs`).

Per pair: both accuracies, the difference with its interval (Tango's score interval or the
(cluster) paired bootstrap on one shared weight matrix), the discordant counts, McNemar's test
(clustered with ``clusters=``) and Holm (1979) within a family / Benjamini–Hochberg (1995)
across the table — 496 pairs for 32 judges in a few matrix products.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from scipy.special import chdtrc

from medjudge.stats.accuracy import POLICIES, Policy, _as_2d, _jackknife_accuracy, apply_policy
from medjudge.stats.mcnemar import (
    McNemarMethod,
    _clustered_mcnemar_matrix,
    mcnemar_pvalue,
    pairwise_counts,
)
from medjudge.stats.multiplicity import add_multiplicity, check_method
from medjudge.stats.paired_intervals import clustered_score_interval, paired_difference_interval
from medjudge.stats.resampling import Bootstrap, as_bootstrap, bootstrap_interval, bootstrap_se

from .._validation import CONFIDENCE_LEVEL, check_choice, check_labels, check_names, check_numbers

PairCI = Literal[
    "auto",
    "clustered-score",
    "bootstrap-percentile",
    "bootstrap-bca",
    "tango",
    "newcombe",
    "wald",
]

__all__ = ["all_pairs", "add_decidability"]

#: the ``test`` of a pair without any item both judges answered with a usable verdict
NOT_TESTED = "not tested: no item that both judges answered with a usable verdict"

#: storage type of the bootstrap replicates of the pairwise differences
BOOT_DTYPE = np.float32


def _as_3d(
    outcome: np.ndarray | dict, dimensions: Sequence[str] | None
) -> tuple[np.ndarray, list[str]]:
    if isinstance(outcome, dict):
        dims = list(outcome)
        arr = np.stack([_as_2d(outcome[d]) for d in dims])
        return arr, dims
    y = check_numbers("outcome", outcome, "an items x judges array of 0/1 outcomes, NaN invalid")
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
) -> pd.DataFrame:
    """Every pair of judges, per dimension, in one tidy table.

    ``outcome``: ``(n_items, n_judges)``, ``(n_dims, n_items, n_judges)`` or a dict
    ``{dimension: (n_items, n_judges)}``. Per pair ``(a, b)`` (``a`` before ``b`` in ``judges``):

    - ``accuracy_a``, ``accuracy_b``, ``difference = accuracy_a - accuracy_b`` (each judge's
      own accuracy under ``policy``), ``ci_low``, ``ci_high`` (``ci``: ``"auto"`` = Tango's
      score interval from the paired 2x2 table for binary outcomes on independent items, the
      paired bootstrap percentile interval on shared resamples for policy ``half`` without
      clusters, and with ``clusters`` the inverted clustered McNemar test
      (``"clustered-score"``, :func:`~medjudge.stats.paired_intervals.clustered_score_interval`:
      the interval excludes 0 exactly when the clustered McNemar p is below ``1 - level``;
      the cluster bootstrap it replaces excluded 0 in 8% of null pairs with 12 images while
      the test rejected 3.7%, docs/calibration.md); or name one: ``clustered-score``,
      ``bootstrap-percentile``, ``bootstrap-bca``, ``tango``, ``newcombe``, ``wald``). Under ``exclude`` every number of
      a pair — the two accuracies, their difference, its interval and the test — uses one item
      set, the items both judges answered (``n_common``);
    - ``b`` (a right, b wrong), ``c`` (a wrong, b right), ``discordant``, ``n_common``,
      ``odds_ratio = b/c`` (conditional odds ratio);
    - McNemar ``statistic``/``pvalue`` (``test``; with ``clusters`` the clustered McNemar of
      Durkalski et al. 2003), then ``p_holm`` within each ``family`` (default: per
      dimension) and ``p_fdr_bh`` across the whole table;
    - whether the test *can* decide (:func:`add_decidability`): ``n_units`` (clusters with a
      common item, or common items), ``min_attainable_p`` (the smallest p-value the test can
      reach with them), ``min_attainable_p_holm`` (times the family size: the smallest
      Holm-adjusted p any pair of the family can reach), ``can_decide`` and ``warning`` (a
      sentence when it cannot).

    All judges and dimensions share one weight matrix (``weights``, or drawn from
    ``bootstrap`` and ``clusters``), so the cost is a few matrix products. Bootstrap
    replicates of the differences are held as float32 (:data:`BOOT_DTYPE`: differences of
    accuracies, whose 1e-7 relative precision is far below the Monte Carlo error).

    Parameters
    ----------
    outcome : ndarray or dict
        Correctness, 1/0, NaN for an unusable verdict, ``inf`` for an item the judge was not
        given (see above for the shapes).
    judges : sequence of str, optional
        Column names (default ``judge_0`` …).
    dimensions : sequence of str, optional
        Names of the outcome slices (a dict brings its own).
    policy : {"wrong", "exclude", "half"}, default "wrong"
        What an unusable verdict counts as.
    test : {"midp", "exact", "asymptotic", "asymptotic-cc"}, default "midp"
        McNemar's variant on independent items (clusters: always the clustered test).
    ci : str, default "auto"
        The interval of the difference (see above).
    clusters : ndarray, optional
        One cluster label per item.
    bootstrap : Bootstrap, optional
        Replicates and seed of the bootstrap intervals (default 2,000, seed 0).
    confidence_level : float, default 0.95
        Coverage of every interval.
    weights : ndarray, optional
        A precomputed ``(B, n_items)`` resample-weight matrix shared with other tables.
    family : sequence of str, default ("dimension",)
        Table columns whose values form one Holm family.
    within, across : str
        Multiplicity methods within a family (default Holm) and across the table (default
        Benjamini–Hochberg).

    Returns
    -------
    DataFrame
        One row per pair and dimension with the columns listed above.

    References
    ----------
    McNemar, Q. (1947). Psychometrika 12:153-157. Fagerland, M. W., Lydersen, S. & Laake, P.
    (2013). BMC Med Res Methodol 13:91 (mid-p). Tango, T. (1998). Stat Med 17:891-908.
    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. & Rust, P. F. (2003). Analysis of
    clustered matched-pair data. Stat Med 22. Holm, S. (1979). Scand J Statist 6:65-70.
    Benjamini, Y. & Hochberg, Y. (1995). JRSS B 57:289-300.

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
    if clusters is not None:
        check_labels("clusters", clusters, n)
    ci = _default_interval(policy, clusters is not None) if ci == "auto" else ci
    w, boot_all = None, None
    if ci.startswith("bootstrap"):
        # the plan (or an array ``weights``) gives ``W @ X`` without holding ``W``
        w = weights if weights is not None else boot.plan(n, clusters=clusters)
        boot_all = _resampled_accuracies(y3, policy, w)
    frames = [
        _pair_frame(
            dims[d], y3[d], judges, policy=policy, test=test, ci=ci, clusters=clusters, w=w,
            boot=None if boot_all is None else boot_all[:, d * j : (d + 1) * j], level=level,
        )
        for d in range(n_dim)
    ]  # fmt: skip
    table = pd.concat(frames, ignore_index=True)
    table = add_multiplicity(table, p_col="pvalue", family=family, within=within, across=across)
    return add_decidability(table, family=family, alpha=1.0 - level, method=within)


def _default_interval(policy: Policy, clustered: bool) -> str:
    """The interval of ``ci="auto"``: the defaults that covered in docs/inference.md — the
    inverted clustered McNemar for clustered items, Tango's score interval for binary outcomes
    on independent items (the paired bootstrap percentile interval under-covers at small n and
    high accuracy), the paired bootstrap percentile when outcomes are not binary (``half``)."""
    if clustered:
        return "clustered-score"
    return "tango" if policy != "half" else "bootstrap-percentile"


def _resampled_accuracies(y3: np.ndarray, policy: Policy, w: Any) -> np.ndarray:
    """Every judge's accuracy in every resample, ``(B, n_dimensions * n_judges)``, as
    :data:`BOOT_DTYPE`: one product (one pass over the replicates) for all dimensions."""
    n_dim, _, j = y3.shape
    ys = [apply_policy(y3[d], policy) for d in range(n_dim)]
    z = w @ np.concatenate([np.concatenate([m * y, m], axis=1) for y, m in ys], axis=1)
    z = z.reshape(z.shape[0], n_dim, 2, j)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot_all = (z[:, :, 0] / z[:, :, 1]).reshape(z.shape[0], n_dim * j)
    return boot_all.astype(BOOT_DTYPE, copy=False)


def _pair_frame(
    dimension: str,
    y0: np.ndarray,
    judges: list[str],
    *,
    policy: Policy,
    test: McNemarMethod,
    ci: str,
    clusters: np.ndarray | None,
    w: Any,
    boot: np.ndarray | None,
    level: float,
) -> pd.DataFrame:
    """Every pair of judges on one dimension (``y0``: items x judges): accuracies, difference
    and its interval, discordant counts and McNemar's test, before multiplicity."""
    ii, jj = np.triu_indices(len(judges), 1)
    y, m = apply_policy(y0, policy)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = (m * y).sum(0) / m.sum(0)
    cnt = pairwise_counts(y0, policy)
    bm, cm = cnt["better"][ii, jj], cnt["better"][jj, ii]
    acc_a, acc_b = acc[ii], acc[jj]
    mab = None
    if not np.all(m == 1.0):  # excluded invalid verdicts or items not given
        # one item set per pair: the items both judges count (estimate, interval and test)
        mab = m[:, ii] * m[:, jj]
        nab = mab.sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            acc_a = (mab * y[:, ii]).sum(0) / nab
            acc_b = (mab * y[:, jj]).sum(0) / nab
    t = _pair_tests(y, m, cnt, ii, jj, clusters, test)
    diff = acc_a - acc_b
    if boot is not None:
        lo, hi, se, ci_name = _bootstrap_pair_interval(
            diff, y, m, mab, ii, jj, w, boot, clusters, ci.split("-")[1], level
        )
    elif ci == "clustered-score":
        if clusters is None:
            raise ValueError("ci: 'clustered-score' is not allowed without clusters")
        s_c, n_c = t["s_c"], t["n_c"]
        lo, hi = clustered_score_interval(s_c, n_c, level)
        nn = n_c.sum(0)
        g_p = np.maximum(t["n_units"], 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.sqrt(g_p / (g_p - 1.0) * ((s_c - n_c * diff) ** 2).sum(0)) / nn
        ci_name = "inverted clustered McNemar (Durkalski score interval)"
    else:
        n11, n22 = cnt["both_right"][ii, jj], cnt["both_wrong"][ii, jj]
        lo, hi = paired_difference_interval(n11, bm, cm, n22, level, ci)
        nn = n11 + bm + cm + n22
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.sqrt(np.maximum((bm + cm) - (bm - cm) ** 2 / nn, 0.0)) / nn
        ci_name = ci
    with np.errstate(invalid="ignore", divide="ignore"):
        oratio = bm / cm
    names = np.asarray(judges, dtype=object)
    return pd.DataFrame(
        {
            "dimension": dimension, "judge_a": names[ii], "judge_b": names[jj],
            "accuracy_a": acc_a, "accuracy_b": acc_b, "difference": diff, "se": se,
            "ci_low": lo, "ci_high": hi, "ci_method": ci_name, "level": level,
            "b": bm.astype(int), "c": cm.astype(int), "discordant": (bm + cm).astype(int),
            "n_common": cnt["n_common"][ii, jj].astype(int), "odds_ratio": oratio,
            "test": t["test"], "statistic": t["statistic"], "pvalue": t["pvalue"],
            "n_units": t["n_units"].astype(int), "unit": t["unit"],
            "min_attainable_p": t["min_p"], "policy": policy,
        }
    )  # fmt: skip


def _pair_tests(
    y: np.ndarray,
    m: np.ndarray,
    cnt: dict[str, np.ndarray],
    ii: np.ndarray,
    jj: np.ndarray,
    clusters: np.ndarray | None,
    test: McNemarMethod,
) -> dict[str, Any]:
    """McNemar's test of every pair (clustered: Durkalski's), the units it rests on and the
    smallest p-value it can reach with them; a pair with no common item is not tested."""
    if clusters is not None:
        stat_m, p_m = _clustered_mcnemar_matrix(y, m, clusters)
        stat, p = stat_m[ii, jj], p_m[ii, jj]
        test_name = "McNemar clustered (Durkalski 2003)"
        s_c, n_c = _cluster_pair_sums(y, m, clusters, ii, jj)
        n_units = (n_c > 0).sum(0)
        # Durkalski's X² = (sum s_c)^2 / sum s_c^2 <= #{c: s_c != 0} (Cauchy-Schwarz),
        # reached when every cluster has the same difference
        min_p = chdtrc(1, n_units.astype(float))
        unit = "clusters"
    else:
        bm, cm = cnt["better"][ii, jj], cnt["better"][jj, ii]
        stat, p = mcnemar_pvalue(bm, cm, test)
        test_name = f"McNemar {test}"
        s_c = n_c = None
        n_units = cnt["n_common"][ii, jj]
        # the most extreme table: every common item discordant in one direction
        min_p = np.where(n_units > 0, mcnemar_pvalue(n_units, 0 * n_units, test)[1], 1.0)
        unit = "items"
    # a pair with no item in common is not tested (McNemar of an empty table is no p = 1)
    none_common = cnt["n_common"][ii, jj] == 0
    return {
        "statistic": np.where(none_common, np.nan, np.asarray(stat, dtype=float)),
        "pvalue": np.where(none_common, np.nan, np.asarray(p, dtype=float)),
        "test": np.where(none_common, NOT_TESTED, test_name),
        "n_units": n_units, "min_p": min_p, "unit": unit, "s_c": s_c, "n_c": n_c,
    }  # fmt: skip


def _bootstrap_pair_interval(
    diff: np.ndarray,
    y: np.ndarray,
    m: np.ndarray,
    mab: np.ndarray | None,
    ii: np.ndarray,
    jj: np.ndarray,
    w: Any,
    boot: np.ndarray,
    clusters: np.ndarray | None,
    kind: str,
    level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """The paired (cluster) bootstrap interval of every pair's difference on shared resamples:
    ``(ci_low, ci_high, se, ci_method)``.

    With a common item set per pair (``mab``) the resampled differences are recomputed on
    those items; otherwise they are the differences of the judges' resampled accuracies
    (``boot``), whose SE comes from the judges' bootstrap covariance.
    """
    cl = "cluster " if clusters is not None else ""
    if mab is not None:
        # paired bootstrap on each pair's common items (same resamples for every pair)
        zd = w @ np.concatenate([mab * (y[:, ii] - y[:, jj]), mab], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            bd = zd[:, : ii.size] / zd[:, ii.size :]
        bd = bd.astype(BOOT_DTYPE, copy=False)
        jack = _jackknife_pair_common(y, mab, ii, jj, clusters) if kind == "bca" else None
        lo, hi = bootstrap_interval(diff, bd, confidence_level=level, method=kind, jack=jack)
        ci_name = f"{cl}paired bootstrap {kind} (B={w.shape[0]}; items both answered)"
        return lo, hi, bootstrap_se(bd), ci_name
    # all pairwise differences as one product with a +1/-1 contrast matrix (exact: each output
    # is 1*a - 1*b plus zeros), much faster than fancy indexing
    if np.isnan(boot).any():  # NaN * 0 would poison every difference
        bd = boot[:, ii] - boot[:, jj]
    else:
        contrast = np.zeros((boot.shape[1], ii.size), dtype=boot.dtype)
        contrast[ii, np.arange(ii.size)] = 1.0
        contrast[jj, np.arange(ii.size)] = -1.0
        bd = boot @ contrast
    jack = None
    if kind == "bca":
        ja = _jackknife_accuracy(y, m, clusters)
        jack = ja[:, ii] - ja[:, jj]
    lo, hi = bootstrap_interval(diff, bd, confidence_level=level, method=kind, jack=jack)
    # SE of every difference from the judges' bootstrap covariance (no pass over bd)
    if np.isnan(boot).any():
        se = bootstrap_se(bd)
    else:
        cov = np.atleast_2d(np.cov(boot, rowvar=False, dtype=np.float64))  # 1 judge
        se = np.sqrt(np.maximum(np.diag(cov)[ii] + np.diag(cov)[jj] - 2 * cov[ii, jj], 0.0))
    return lo, hi, se, f"{cl}paired bootstrap {kind} (B={w.shape[0]})"


def _cluster_pair_sums(
    y: np.ndarray, m: np.ndarray, clusters: np.ndarray, ii: np.ndarray, jj: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums of paired differences and common-item counts, ``(G, n_pairs)`` each."""
    cc = pd.factorize(np.asarray(clusters))[0]
    g = int(cc.max()) + 1 if cc.size else 0
    if np.all(m == 1.0):
        c = np.zeros((g, y.shape[1]))
        np.add.at(c, cc, y)
        sizes = np.bincount(cc, minlength=g).astype(float)
        return c[:, ii] - c[:, jj], np.repeat(sizes[:, None], ii.size, 1)
    s = np.zeros((g, ii.size))
    n = np.zeros((g, ii.size))
    ym = y * m
    for k, (a, b) in enumerate(zip(ii, jj, strict=True)):
        s[:, k] = np.bincount(cc, ym[:, a] * m[:, b] - m[:, a] * ym[:, b], g)
        n[:, k] = np.bincount(cc, m[:, a] * m[:, b], g)
    return s, n


def add_decidability(
    table: pd.DataFrame,
    *,
    family: Sequence[str] | None = ("dimension",),
    alpha: float = 0.05,
    method: str = "holm",
) -> pd.DataFrame:
    """Say, per pair, whether its test can reach significance after the family's adjustment.

    ``min_attainable_p`` (from :func:`all_pairs`) is the smallest p-value the pair's test can
    give with its ``n_units`` clusters (clustered McNemar: ``chi²_1.sf(G)``, as Durkalski's
    statistic cannot exceed the number of clusters) or common items (McNemar: every item
    discordant one way). A pair is first in its Holm (or Bonferroni) family at best, so the
    smallest adjusted p it can reach is ``min(1, m * min_attainable_p)`` with ``m`` the number
    of tests in its family (``min_attainable_p_holm``). ``can_decide`` is
    ``min_attainable_p_holm < alpha``; where it is False, ``warning`` says so in words, so a
    non-significant pair is not read as two tied judges. Other adjustments (``fdr_bh``) are
    bounded the same way (BH's smallest adjusted p is also ``m * p`` at best).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"dimension": ["d"] * 6, "n_units": 4, "unit": "clusters",
    ...                   "min_attainable_p": 0.0455})
    >>> add_decidability(t)["warning"].iloc[0]
    'with 4 clusters this pair cannot show a difference after holm over 6 pairs (smallest attainable adjusted p 0.273 >= 0.05)'
    """
    t = table.copy()
    fam = [c for c in (family or ()) if c in t.columns]
    ok = t["min_attainable_p"].notna()
    if fam:
        size = t.assign(_ok=ok).groupby(fam, sort=False)["_ok"].transform("sum")
    else:
        size = pd.Series(int(ok.sum()), index=t.index)
    t["family_size"] = size.astype(int)
    t["min_attainable_p_holm"] = np.minimum(1.0, size.to_numpy() * t["min_attainable_p"])
    t["can_decide"] = t["min_attainable_p_holm"] < alpha
    t["warning"] = [
        ""
        if cd
        else (
            f"with {int(u)} {un} this pair cannot show a difference after {method} over "
            f"{int(m)} pair{'s' if m != 1 else ''} (smallest attainable adjusted p "
            f"{pa:.3g} >= {alpha:.3g})"
        )
        for cd, u, un, m, pa in zip(
            t["can_decide"], t["n_units"], t["unit"], size, t["min_attainable_p_holm"], strict=True
        )
    ]
    return t
