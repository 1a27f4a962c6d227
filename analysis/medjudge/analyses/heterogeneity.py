"""heterogeneity: study-level part (moved from medjudge.stats.heterogeneity)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from medjudge.analyses._tables import with_adjusted
from medjudge.analyses.subgroup_results import Heterogeneity
from medjudge.analyses.subgroups import StackedOutcomes, stack_outcomes
from medjudge.data.model import Study
from medjudge.stats.accuracy import Policy
from medjudge.stats.heterogeneity import (
    ModelMethod,
    _cluster_permutation_p,
    _within_cluster_permutation_p,
    cochran_q_subgroups,
    homogeneity_chi2,
)
from medjudge.stats.intervals import z_value
from medjudge.stats.resampling import Permutation

from .._validation import ALPHA, CONFIDENCE_LEVEL
from ._arguments import check_policy
from .evaluation import cluster_ids
from .subgroup_rule import resolve_by


def heterogeneity_table(
    study: Study,
    by: str | Sequence[str] | None = None,
    *,
    judges: Sequence[str] | None = None,
    policy: Policy = "wrong",
    confidence_level: float = 0.95,
    cluster: str | None = "auto",
    permutation: Permutation | None = None,
    across: str | None = None,
    _stacked: StackedOutcomes | None = None,
    alpha: float | None = None,
) -> Heterogeneity:
    """Per judge x dimension: does accuracy differ across the groups of ``by``?

    The headline ``pvalue`` honours clusters. When items are clustered (several questions per
    image) and ``across`` is constant within each cluster (organ, department), it is a
    **cluster permutation test** of Pearson's chi-square: the groups are permuted over whole
    clusters (``bootstrap.n_resamples`` permutations with ``bootstrap.seed``; default 999,
    seed 0), p = (1 + #{X²* >= X²}) / (1 + B). Pearson's own
    p-value assumes independent items and over-rejects with clustered items; it is kept as
    ``p_pearson``. When ``across`` varies within clusters (question types inside an image) the
    headline permutes the groups *within* each cluster (a randomization test of "within an
    image, the attribute is unrelated to correctness", exact at high accuracy and with 0 or 1
    errors in a group; see ``_within_cluster_permutation_p``). Without clusters the headline
    is Pearson's chi-square. ``test`` names the test used in every row. Cochran's Q and I² (Higgins & Thompson 2002)
    are descriptive (no interval: the usual I² interval excluded 0 in 15% of null studies).
    ``p_holm`` adjusts within a judge (family stated in ``holm_family``), ``p_holm_all`` over
    every judge x dimension row (``holm_all_family``; the family of a statement such as "some
    judge is heterogeneous": with 4 judges, within-judge Holm flagged 11.5-19% of null
    studies), ``p_fdr_bh`` over the table.

    Parameters
    ----------
    study : Study
    by : str or list of one str, optional
        The item attribute whose groups are compared (``across`` in the text below). Default:
        the study's subgroup attribute by the one documented rule
        (:func:`medjudge.analyses.subgroups.default_subgroup_attributes`); an error naming
        ``by`` when it has none.
    judges : sequence of str, optional
        Judges to test (default: all).
    policy : {"wrong", "exclude", "half"}, default "wrong"
        What an unusable verdict counts as.
    confidence_level : float, default 0.95
        Coverage used by Cochran's Q computation (:func:`medjudge.stats.heterogeneity.
        cochran_q_subgroups`); the table's tests do not depend on it.
    cluster : str or None, default "auto"
        Clusters of items (:func:`medjudge.analyses.design.resolve_clusters`).
    permutation : Permutation, optional
        Number of random permutations and seed of the permutation tests (default
        ``Permutation()``: 999 permutations, seed 0).
    across : str, optional
        Former name of ``by`` (accepted with a DeprecationWarning).
    _stacked : StackedOutcomes, optional
        Private hand-over: the judges' outcomes stacked over dimensions, when the caller
        already has them (:func:`medjudge.analyses.subgroups.stack_outcomes`).
    alpha : float, optional
        The decision threshold of the findings (a Holm-adjusted p below it); default
        0.05 (a setting of its own, not ``1 - confidence_level``).

    Returns
    -------
    Heterogeneity
        The result contract (``table("tests")``, ``findings()``) over ``frame``, one row per
        judge x dimension: ``chi2, df, pvalue, test, p_pearson, Q, p_q, I2, min_accuracy,
        max_accuracy, n, policy, p_holm, p_fdr_bh, p_holm_all, holm_family,
        holm_all_family``.

    References
    ----------
    Pearson, K. (1900). Phil Mag 50:157-175. Cochran, W. G. (1954). Biometrics 10:101-129.
    Higgins, J. P. T. & Thompson, S. G. (2002). Stat Med 21:1539-1558. Good, P. (2005).
    Permutation, Parametric and Bootstrap Tests of Hypotheses, 3rd ed. (cluster permutation).

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, 12 judges, 3 experts
    >>> h = mj.heterogeneity_table(study, 'organ_system', permutation=mj.Permutation(99))
    >>> {'pvalue', 'test', 'p_pearson', 'I2'} <= set(h.columns)
    True
    """

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    if alpha is not None:
        alpha = float(ALPHA.check("alpha", alpha))
    check_policy(policy)
    across = resolve_by(study, by, extra=("dimension",), old=across, old_name="across", one=True)[0]
    b = _permutation(permutation)
    so = _stacked if _stacked is not None else stack_outcomes(study, judges=judges)
    y, m = _ym(so, policy)
    rows = so.rows
    _, cl_col = cluster_ids(study, cluster)
    groups = (
        [("(all)", np.arange(len(rows)))]
        if across == "dimension"
        else list(rows.groupby("dimension", sort=False).indices.items())
    )
    out = []
    for dim, idx in groups:
        codes, labels = pd.factorize(rows.iloc[idx][across], sort=True)
        onehot = np.zeros((len(idx), labels.size))
        onehot[np.arange(len(idx)), codes] = 1.0
        kk = onehot.T @ (m[idx] * y[idx])
        nn = onehot.T @ m[idx]
        clusters = (
            rows.iloc[idx][cl_col].astype(str)
            if cl_col is not None and across != "dimension"
            else None
        )
        perm_p, test = _headline_test(codes, labels.size, clusters, y[idx], m[idx], across, b)
        out += _judge_rows(so.judges, dim, across, kk, nn, perm_p, test, level, policy)
    t = pd.DataFrame(out)
    _adjust_families(t)
    return Heterogeneity(t, across, level, alpha)


def _permutation(permutation: Permutation | None) -> Permutation:
    """The given :class:`Permutation` (default 999, seed 0); anything else is refused."""
    b = Permutation() if permutation is None else permutation
    if not isinstance(b, Permutation):
        raise ValueError(
            f"permutation: {b!r} is not allowed (a medjudge.Permutation, e.g. "
            "Permutation(n_resamples=999, seed=0), or None)"
        )
    return b


def _headline_test(
    codes: np.ndarray,
    n_groups: int,
    clusters: pd.Series | None,
    y: np.ndarray,
    m: np.ndarray,
    across: str,
    b: Permutation,
) -> tuple[np.ndarray | None, str]:
    """The permutation p-value per judge (None: Pearson's own) and the test's name.

    Groups constant within clusters: whole clusters permuted; groups varying within clusters:
    groups permuted within each cluster; no clusters: Pearson's chi-square.
    """
    if clusters is None:
        return None, "Pearson chi-square (items independent)"
    cl_col = clusters.name
    ccodes = pd.factorize(clusters)[0]
    seed = int(b.seed)
    if (pd.Series(codes).groupby(ccodes).nunique() == 1).all():
        p = _cluster_permutation_p(codes, ccodes, m * y, m, n_groups, b.n_resamples, seed)
        return p, (
            f"cluster permutation of Pearson's chi-square ({cl_col}; "
            f"B={b.n_resamples}, seed {seed})"
        )
    p = _within_cluster_permutation_p(codes, ccodes, y, m, n_groups, b.n_resamples, seed)
    return p, (
        f"within-{cl_col} permutation of Pearson's chi-square ({across} varies "
        f"within {cl_col}; B={b.n_resamples}, seed {seed})"
    )


def _judge_rows(
    judges: Sequence[str],
    dim: str,
    across: str,
    kk: np.ndarray,
    nn: np.ndarray,
    perm_p: np.ndarray | None,
    test: str,
    level: float,
    policy: Policy,
) -> list[dict]:
    """One row per judge of a dimension: Pearson, Cochran's Q, I² and the headline p-value
    from the group successes ``kk`` and sizes ``nn`` (groups x judges)."""
    out = []
    for j, judge in enumerate(judges):
        chi = homogeneity_chi2(kk[:, j], nn[:, j])
        q = cochran_q_subgroups(kk[:, j], nn[:, j], level)
        acc = kk[:, j] / np.where(nn[:, j] > 0, nn[:, j], np.nan)
        out.append(
            {
                "judge": judge,
                "dimension": dim,
                "across": across,
                "groups": chi.counts["groups"],
                "chi2": chi.statistic,
                "df": chi.df,
                "pvalue": chi.pvalue if perm_p is None else perm_p[j],
                "test": test,
                "p_pearson": chi.pvalue,
                "Q": q.statistic,
                "p_q": q.pvalue,
                "I2": q.extra["I2"],
                "min_accuracy": np.nanmin(acc),
                "max_accuracy": np.nanmax(acc),
                "n": int(nn[:, j].sum()),
                "policy": policy,
            }
        )
    return out


def _adjust_families(t: pd.DataFrame) -> None:
    """Holm within a judge, Holm over every judge x dimension (the family of "some judge is
    heterogeneous") and BH over the table, each family stated in a column."""
    with_adjusted(t, within="judge", p_holm="holm")
    with_adjusted(t, p_fdr_bh="fdr_bh")
    with_adjusted(t, p_holm_all="holm")
    if len(t):
        m_all = int(t["pvalue"].notna().sum())
        per = t.groupby("judge")["pvalue"].transform(lambda p: int(p.notna().sum()))
        t["holm_family"] = [f"within judge ({int(k)} dimensions)" for k in per]
        t["holm_all_family"] = f"all judges x dimensions ({m_all} tests)"


def _ym(so: StackedOutcomes, policy: Policy) -> tuple[np.ndarray, np.ndarray]:
    """Values and inclusion mask after the policy, inside the judges' design."""
    r = so.resolved(policy)
    return np.nan_to_num(r), (~np.isnan(r)).astype(float)


def _dummies(
    frame: pd.DataFrame, terms: Sequence[str]
) -> tuple[np.ndarray, list[str], dict[str, list[int]]]:
    """Treatment-coded design (intercept + one block per term; first sorted level = reference)."""
    cols, names, blocks = [np.ones(len(frame))], ["Intercept"], {}
    for t in terms:
        codes, labels = pd.factorize(frame[t].astype(str), sort=True)
        blocks[t] = []
        for lv in range(1, labels.size):
            cols.append((codes == lv).astype(float))
            names.append(f"{t}[{labels[lv]}]")
            blocks[t].append(len(names) - 1)
    return np.column_stack(cols), names, blocks


def _fit(y: np.ndarray, x: np.ndarray, groups: np.ndarray, method: ModelMethod):
    import statsmodels.api as sm  # ~0.5 s to import: only when a model is fitted

    fam = sm.families.Binomial()
    if method == "gee":
        return sm.GEE(
            y, x, groups=groups, family=fam, cov_struct=sm.cov_struct.Exchangeable()
        ).fit()
    if method == "glm-cluster":
        return sm.GLM(y, x, family=fam).fit(cov_type="cluster", cov_kwds={"groups": groups})
    raise ValueError(f"unknown model method {method!r}; use 'gee' or 'glm-cluster'")


def _wald(params: np.ndarray, cov: np.ndarray, idx: list[int]) -> tuple[float, int, float]:
    """Joint Wald chi-square ``b' V^-1 b`` of the coefficients ``idx``."""
    b = params[idx]
    v = cov[np.ix_(idx, idx)]
    w = float(b @ np.linalg.solve(v, b))
    return w, len(idx), float(stats.chi2.sf(w, len(idx)))


#: a level of the tested attribute needs this many items to enter the group-effect test
MIN_LEVEL_ITEMS = 2


def _untestable_levels(level: np.ndarray, y: np.ndarray, groups: np.ndarray) -> dict[str, str]:
    """Levels a logistic group-effect test cannot use, with why: fewer than
    :data:`MIN_LEVEL_ITEMS` items, or every counted verdict right (or every one wrong)."""
    out: dict[str, str] = {}
    for v in np.unique(level):
        at = level == v
        n_items = int(np.unique(groups[at]).size)
        if n_items < MIN_LEVEL_ITEMS:
            out[str(v)] = f"{n_items} item"
        elif np.all(y[at] == 1):
            out[str(v)] = "every verdict right: complete separation"
        elif np.all(y[at] == 0):
            out[str(v)] = "every verdict wrong: complete separation"
    return out


def _excluded_note(excluded: dict[str, str]) -> str:
    """``excluded from the test: z (1 item), w (every verdict right)``, or ``""``."""
    if not excluded:
        return ""
    shown = [f"{k} ({v})" for k, v in sorted(excluded.items())]
    return "excluded from the test: " + ", ".join(shown[:5]) + (", …" if len(shown) > 5 else "")


def organ_effect_tests(
    study: Study,
    by: str | Sequence[str] | None = None,
    *,
    adjust_for: Sequence[str] = ("dimension",),
    judges: Sequence[str] | None = None,
    policy: Literal["wrong", "exclude"] = "wrong",
    method: ModelMethod = "glm-cluster",
    alpha: float = 0.05,
    across: str | None = None,
    _stacked: StackedOutcomes | None = None,
) -> pd.DataFrame:
    """Per judge: ``logit P(correct) ~ C(across) + C(adjust_for…)``; joint robust Wald test of ``across``.

    Rows are (item, dimension) outcomes with gold; groups = item (GEE exchangeable, or GLM with
    cluster-robust SEs — the default: same robust Wald statistic to within 1% on the demo, 4x
    faster). ``flag`` = Holm-adjusted p (over judges) < ``alpha``. Also reports the
    range of the ``across`` coefficients (log odds ratios vs the reference level). ``by``: one
    item attribute (default and the deprecated ``across=`` as in :func:`heterogeneity_table`).
    """
    across = resolve_by(study, by, old=across, old_name="across", one=True)[0]
    so = _stacked if _stacked is not None else stack_outcomes(study, judges=judges)
    rows = so.rows
    terms = [across] + [t for t in adjust_for if t != across and rows[t].nunique() > 1]
    x, names, blocks = _dummies(rows, terms)
    groups = pd.factorize(rows["item"])[0]
    y_all, m_all = _ym(so, policy)
    out = []
    level_all = rows[across].astype(str).to_numpy()
    for j, judge in enumerate(so.judges):
        keep = m_all[:, j] > 0
        # levels the test cannot use are excluded, and the row says which: a level with fewer
        # than MIN_LEVEL_ITEMS items, or (quasi-)complete separation — every counted verdict
        # of the level right, or every one wrong — where the log-odds are infinite and the
        # Wald statistic an artefact (one item decided a "significant" group effect)
        excluded = _untestable_levels(level_all[keep], y_all[keep, j], groups[keep])
        if excluded:
            keep = keep & ~np.isin(level_all, list(excluded))
        # levels this judge never saw (e.g. subsets outside its design) have all-zero dummies
        cols = np.flatnonzero((x[keep] != 0).any(0))
        blk = [int(np.searchsorted(cols, c)) for c in blocks[across] if c in set(cols)]
        row = {
            "judge": judge,
            "across": across,
            "adjusted_for": ",".join(terms[1:]),
            "n_rows": int(keep.sum()),
            "n_items": int(np.unique(groups[keep]).size),
            "method": method,
            "policy": policy,
        }
        note = _excluded_note(excluded)
        if len(blk) == 0 or keep.sum() <= len(cols) or np.unique(level_all[keep]).size < 2:
            out.append(
                {
                    **row,
                    "wald_chi2": np.nan,
                    "df": 0,
                    "pvalue": np.nan,
                    "note": "not tested: fewer than 2 levels left to compare"
                    + (f" ({note})" if note else ""),
                }
            )
            continue
        try:
            res = _fit(y_all[keep, j], x[np.ix_(keep, cols)], groups[keep], method)
            params, cov = np.asarray(res.params), np.asarray(res.cov_params())
            w, df, p = _wald(params, cov, blk)
        except (np.linalg.LinAlgError, ValueError) as e:  # separation / singular robust covariance
            out.append(
                {
                    **row,
                    "wald_chi2": np.nan,
                    "df": len(blk),
                    "pvalue": np.nan,
                    "note": f"fit failed: {e}",
                }
            )
            continue
        eff = params[blk]
        out.append(
            {
                **row,
                "wald_chi2": w,
                "df": df,
                "pvalue": p,
                "min_log_or": float(eff.min()),
                "max_log_or": float(eff.max()),
                "note": note,
            }
        )
    t = with_adjusted(pd.DataFrame(out), p_holm="holm")
    t["flag"] = t["p_holm"] < alpha
    t["test"] = "logistic, robust Wald"
    t["adjustment"] = "Holm over judges"  # of p_holm
    return t


def correctness_model(
    study: Study,
    terms: Sequence[str] | None = None,
    interactions: Sequence[tuple[str, str]] | None = None,
    *,
    by: str | None = None,
    judges: Sequence[str] | None = None,
    policy: Literal["wrong", "exclude"] = "wrong",
    method: ModelMethod = "glm-cluster",
    confidence_level: float = 0.95,
    _stacked: StackedOutcomes | None = None,
) -> pd.DataFrame:
    """Logistic model of correctness over all judges as a tidy coefficient table.

    Long data: one row per (item, dimension, judge) with a resolved outcome; treatment coding
    (first sorted level is the reference); ``interactions`` adds products of the two terms'
    dummies. Groups = item for GEE / the cluster-robust covariance. Columns: ``term, estimate
    (log odds), se, z, pvalue, ci_low, ci_high, odds_ratio, p_holm, p_fdr_bh`` plus a ``joint``
    row per term/interaction block (robust Wald chi-square).

    ``terms`` defaults to ``("judge", by, "dimension")`` and ``interactions`` to
    ``(("judge", by),)``, where ``by`` is one item attribute (default: the study's subgroup
    attribute by the one documented rule,
    :func:`medjudge.analyses.subgroups.default_subgroup_attributes`; an error naming ``by`` when
    the items have none). No column name is a default.
    """
    if terms is None or interactions is None:
        attr = resolve_by(study, by, one=True)[0]
        terms = ("judge", attr, "dimension") if terms is None else terms
        interactions = (("judge", attr),) if interactions is None else interactions
    so = _stacked if _stacked is not None else stack_outcomes(study, judges=judges)
    y, m = _ym(so, policy)
    n_rows, n_j = y.shape
    long = so.rows.loc[np.repeat(np.arange(n_rows), n_j)].reset_index(drop=True)
    long["judge"] = np.tile(np.asarray(so.judges, dtype=object), n_rows)
    yy, keep = y.ravel(), m.ravel() > 0
    long, yy = long[keep].reset_index(drop=True), yy[keep]
    x, names, blocks = _dummies(long, list(terms))
    for a, b in interactions:
        for ia in blocks[a]:
            for ib in blocks[b]:
                x = np.column_stack([x, x[:, ia] * x[:, ib]])
                names.append(f"{names[ia]}:{names[ib]}")
                blocks.setdefault(f"{a}:{b}", []).append(len(names) - 1)
    groups = pd.factorize(long["item"])[0]
    res = _fit(yy, x, groups, method)
    params, cov = np.asarray(res.params), np.asarray(res.cov_params())
    se = np.sqrt(np.diag(cov))
    z = z_value(confidence_level)
    with np.errstate(invalid="ignore", divide="ignore"):
        zs = params / se
    t = pd.DataFrame(
        {
            "term": names,
            "estimate": params,
            "se": se,
            "z": zs,
            "pvalue": 2 * stats.norm.sf(np.abs(zs)),
            "ci_low": params - z * se,
            "ci_high": params + z * se,
            "odds_ratio": np.exp(params),
        }
    )
    with_adjusted(t, p_holm="holm", p_fdr_bh="fdr_bh")
    joint = []
    for blk, idx in blocks.items():
        if idx:
            w, df, p = _wald(params, cov, idx)
            joint.append(
                {
                    "term": f"joint:{blk}",
                    "estimate": np.nan,
                    "se": np.nan,
                    "z": w,
                    "pvalue": p,
                    "df": df,
                }
            )
    t = pd.concat([t, pd.DataFrame(joint)], ignore_index=True)
    t["method"] = (
        f"{method} (groups = item, n_items = {np.unique(groups).size}, n_rows = {len(yy)})"
    )
    return t


def cell_grid(
    study: Study,
    by: str | Sequence[str] | None = None,
    *,
    judges: Sequence[str] | None = None,
    policy: Policy = "wrong",
    alpha: float = 0.05,
    across: str | None = None,
    _stacked: StackedOutcomes | None = None,
) -> pd.DataFrame:
    """Each judge x dimension x ``across`` cell against the rest of the dimension (Fisher exact).

    ``p_holm`` adjusts within a judge (the 6 x 13 grid), ``p_fdr_bh`` over every cell of every
    judge; ``flag`` = ``p_holm < alpha``. ``difference = accuracy(cell) - accuracy(rest)``.
    Under the ``half`` policy counts are rounded to integers for the exact test. ``by``: one
    item attribute (default and the deprecated ``across=`` as in :func:`heterogeneity_table`).
    """
    across = resolve_by(study, by, old=across, old_name="across", one=True)[0]
    so = _stacked if _stacked is not None else stack_outcomes(study, judges=judges)
    y, m = _ym(so, policy)
    rows = so.rows
    out = []
    for dim, idx in rows.groupby("dimension", sort=False).indices.items():
        sub = rows.iloc[idx]
        codes, labels = pd.factorize(sub[across], sort=True)
        onehot = np.zeros((len(idx), labels.size))
        onehot[np.arange(len(idx)), codes] = 1.0
        kk, nn = onehot.T @ (m[idx] * y[idx]), onehot.T @ m[idx]
        kt, nt = kk.sum(0), nn.sum(0)
        for j, judge in enumerate(so.judges):
            for g, lab in enumerate(labels):
                k1, n1 = round(kk[g, j]), round(nn[g, j])
                k2, n2 = round(kt[j] - kk[g, j]), round(nt[j] - nn[g, j])
                if n1 == 0 or n2 == 0:
                    continue
                _, p = stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]])
                out.append(
                    {
                        "judge": judge,
                        "dimension": dim,
                        across: lab,
                        "n": n1,
                        "accuracy": k1 / n1,
                        "accuracy_rest": k2 / n2,
                        "difference": k1 / n1 - k2 / n2,
                        "pvalue": float(p),
                    }
                )
    t = pd.DataFrame(out)
    with_adjusted(t, within="judge", p_holm="holm")
    with_adjusted(t, p_fdr_bh="fdr_bh")
    t["flag"] = t["p_holm"] < alpha
    t["test"] = "Fisher exact, cell vs rest of dimension"
    return t
