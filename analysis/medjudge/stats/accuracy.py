"""Judge metrics against a derived gold label: accuracy, macro-F1, per-class recall, baselines.

Input (one dimension; the data model hands out exactly this):

- ``outcome``: float ``(n_items, n_judges)``; 1.0 correct, 0.0 wrong, NaN = invalid /
  unparseable / missing verdict. Items without gold are already removed upstream.
- ``pred``: ``(n_items, n_judges)`` category codes, NaN for invalid; ``gold``: ``(n_items,)``.

Invalid verdicts follow an explicit ``policy`` (DESIGN.md "nothing is dropped silently"):

- ``"wrong"``  NaN -> 0 (the Med-RewardBench rule: an unparseable verdict is a miss);
- ``"exclude"`` weight 0 for that judge on that item (each judge has its own denominator);
- ``"half"``   NaN -> 0.5 (a coin flip between two answers).

Aggregation is ``"micro"`` (mean over items) or ``"macro"`` (unweighted mean of subgroup
accuracies, e.g. over organ systems); the label is carried in every result row.

Intervals (defaults chosen by the coverage study in docs/inference.md):

- ``"wilson"`` (default): Wilson (1927) score interval at the Korn & Graubard (1998)
  effective sample size ``n_eff = p(1-p)/SE^2``, where SE is the linearised (and, with
  ``clusters``, cluster-robust; Miller 2024) standard error. Without clusters and with policy
  ``wrong`` this is exactly the textbook Wilson interval.
- ``"clopper-pearson"``: the same with Clopper–Pearson limits.
- ``"wald"``: ``p -+ z SE``.
- ``"bootstrap-percentile"`` / ``"bootstrap-bca"``: from the shared resampling engine
  (cluster bootstrap with ``clusters``; stratified by subgroup for macro aggregation).
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import pandas as pd

from medjudge._validation import CONFIDENCE_LEVEL, check_choice, check_labels, check_numbers
from medjudge.stats.groups import group_codes
from medjudge.stats.intervals import (
    clopper_pearson_interval,
    cr2_mean_se,
    effective_n,
    wilson_interval,
    z_value,
)
from medjudge.stats.resampling import (
    Bootstrap,
    ResamplePlan,
    as_bootstrap,
    as_weights,
    bootstrap_interval,
    bootstrap_se,
)

Policy = Literal["wrong", "exclude", "half"]
Aggregation = Literal["micro", "macro"]
AccuracyMethod = Literal[
    "wilson", "clopper-pearson", "wald", "bootstrap-percentile", "bootstrap-bca"
]
POLICIES: tuple[str, ...] = ("wrong", "exclude", "half")

__all__ = [
    "NOT_ASSIGNED",
    "POLICIES",
    "apply_policy",
    "accuracy_arrays",
    "bootstrap_accuracy",
    "judge_accuracy",
    "policy_sensitivity",
    "classification_metrics",
    "trivial_baselines",
]


def _as_2d(outcome: np.ndarray) -> np.ndarray:
    y = check_numbers("outcome", outcome, "an items x judges array of 0/1 outcomes, NaN invalid")
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2:
        raise ValueError(f"outcome must be (n_items, n_judges), got shape {y.shape}")
    return y


#: outcome (and prediction) code of an item the judge was never given: left out under every
#: invalid-verdict policy (NaN, an invalid verdict, follows the policy)
NOT_ASSIGNED = np.inf


def apply_policy(outcome: np.ndarray, policy: Policy = "wrong") -> tuple[np.ndarray, np.ndarray]:
    """Resolve invalid verdicts: return ``(values, mask)`` with no NaN in ``values``.

    ``mask`` is the per-(item, judge) inclusion weight: ones for ``wrong``/``half`` and 0 for
    invalid verdicts (NaN) under ``exclude``; 0 under every policy for items the judge was not
    given (:data:`NOT_ASSIGNED`, ``inf``).

    Examples
    --------
    >>> import numpy as np
    >>> y, m = apply_policy(np.array([[1.0], [np.nan], [np.inf]]), "wrong")
    >>> y.ravel().tolist(), m.ravel().tolist()
    ([1.0, 0.0, 0.0], [1.0, 1.0, 0.0])
    """
    y = _as_2d(outcome)
    bad = np.isnan(y)
    absent = np.isinf(y)
    given = (~absent).astype(float)
    if policy == "wrong":
        return np.where(bad | absent, 0.0, y), given
    if policy == "half":
        return np.where(absent, 0.0, np.where(bad, 0.5, y)), given
    if policy == "exclude":
        return np.where(bad | absent, 0.0, y), (~bad & ~absent).astype(float)
    raise ValueError(f"unknown invalid-verdict policy {policy!r}; use one of {POLICIES}")


def _group_codes(groups: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray]:
    if groups is None:
        return np.zeros(n, dtype=int), np.array(["all"], dtype=object)
    g = np.asarray(groups)
    if g.shape != (n,):
        raise ValueError(f"groups must have shape ({n},), got {g.shape}")
    labels, codes = np.unique(g.astype(str) if g.dtype == object else g, return_inverse=True)
    return codes.ravel(), labels


def accuracy_arrays(
    outcome: np.ndarray,
    *,
    policy: Policy = "wrong",
    groups: np.ndarray | None = None,
    aggregation: Aggregation = "micro",
    clusters: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Point accuracy and linearised (cluster-robust) SE per judge, vectorised.

    Micro: ``p = sum_i m_i y_i / sum_i m_i``. Macro over ``G`` groups:
    ``p = (1/G) sum_g p_g``. Both are smooth functions of weighted sums, so the SE is the
    delta-method/linearisation SE with influence values ``e_i`` (``e_i = m_i (y_i - p)/M`` for
    micro; ``e_i = m_i (y_i - p_g)/(G M_g)`` for macro), summed within clusters::

        Var(p) = C/(C-1) sum_c (sum_{i in c} e_i)^2          (Miller 2024, Appendix A)

    (without clusters ``Var(p) = sum_i e_i^2``, i.e. the binomial ``p(1-p)/n`` for micro).

    Returns arrays (length n_judges): ``estimate``, ``se``, ``n`` (items counted),
    ``n_invalid``, ``n_clusters`` (scalar) and ``n_groups``.
    """
    y, m = apply_policy(outcome, policy)
    n_items = y.shape[0]
    n_invalid = np.isnan(_as_2d(outcome)).sum(0)
    n_absent = np.isinf(_as_2d(outcome)).sum(0)
    codes, labels = _group_codes(groups if aggregation == "macro" else None, n_items)
    g = labels.size
    onehot = np.zeros((n_items, g))
    onehot[np.arange(n_items), codes] = 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        mg = onehot.T @ m  # (G, J) denominators per group
        pg = (onehot.T @ (m * y)) / mg  # (G, J)
        if aggregation == "macro":
            valid_g = mg > 0
            g_eff = valid_g.sum(0)
            est = np.nansum(np.where(valid_g, pg, 0.0), 0) / g_eff
            e = m * (y - pg[codes]) / (g_eff * mg[codes])
            e = np.where(m > 0, e, 0.0)
        elif aggregation == "micro":
            tot = m.sum(0)
            est = (m * y).sum(0) / tot
            e = m * (y - est) / tot
        else:
            raise ValueError(f"aggregation must be 'micro' or 'macro', got {aggregation!r}")
    if clusters is None:
        s = e
        c = (m > 0).sum(0)
    else:
        cc, n_cl = group_codes(clusters)
        s = np.zeros((n_cl, e.shape[1]))
        np.add.at(s, cc, e)
        cm = np.zeros_like(s)
        np.add.at(cm, cc, m)
        c = (cm > 0).sum(0)
    c = np.maximum(c, 2)
    # small-sample factor C/(C-1) only for clusters (Miller 2024); without clusters the
    # binomial variance p(1-p)/n is kept so that Wilson/CP are exactly the textbook intervals
    corr = c / (c - 1.0) if clusters is not None else 1.0
    se = np.sqrt(corr * (s**2).sum(0))
    return {
        "estimate": est,
        "se": se,
        "n": m.sum(0),
        "n_invalid": n_invalid,
        "n_not_assigned": n_absent,
        "n_clusters": c,
        "n_groups": np.full(y.shape[1], g),
    }


def bootstrap_accuracy(
    outcome: np.ndarray,
    *,
    policy: Policy = "wrong",
    groups: np.ndarray | None = None,
    aggregation: Aggregation = "micro",
    plan: ResamplePlan | None = None,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Bootstrap replicates of every judge's accuracy, shape ``(B, n_judges)``.

    Uses the shared weights ``W`` (``weights``: an array, or a :class:`ResamplePlan` or its
    cluster jackknife, which compute ``W @ X`` without holding ``W``; default ``plan``):
    micro ``W @ (m*y) / W @ m``; macro: the same per group, then averaged over groups. Every
    product is taken in one call (one pass over the replicates). All judges share ``W``, so
    differences of columns are paired bootstrap replicates.
    """
    y, m = apply_policy(outcome, policy)
    if weights is None:
        if plan is None:
            raise ValueError("give plan= or weights=")
        weights = plan
    w = as_weights(weights)
    J = y.shape[1]
    if aggregation == "micro":
        z = w @ np.concatenate([m * y, m], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return z[:, :J] / z[:, J:]
    codes, labels = _group_codes(groups, y.shape[0])
    cols = []
    for gi in range(labels.size):
        inside = (codes == gi)[:, None]
        cols += [inside * m * y, inside * m]
    z = (w @ np.concatenate(cols, axis=1)).reshape(-1, labels.size, 2, J)
    with np.errstate(invalid="ignore", divide="ignore"):
        pg = z[:, :, 0] / z[:, :, 1]
        ok = np.isfinite(pg)
        return np.where(ok, pg, 0.0).sum(1) / ok.sum(1)


def _jackknife_accuracy(y: np.ndarray, m: np.ndarray, clusters: np.ndarray | None) -> np.ndarray:
    """Leave-one-cluster-out micro accuracies, shape ``(G, n_judges)`` (closed form)."""
    if clusters is None:
        sy, sm = (m * y), m
    else:
        cc, n_cl = group_codes(clusters)
        sy = np.zeros((n_cl, y.shape[1]))
        sm = np.zeros_like(sy)
        np.add.at(sy, cc, m * y)
        np.add.at(sm, cc, m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((m * y).sum(0) - sy) / (m.sum(0) - sm)


def judge_accuracy(
    outcome: np.ndarray,
    judges: list[str] | None = None,
    *,
    policy: Policy = "wrong",
    groups: np.ndarray | None = None,
    aggregation: Aggregation = "micro",
    clusters: np.ndarray | None = None,
    method: AccuracyMethod = "wilson",
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    weights: np.ndarray | None = None,
) -> pd.DataFrame:
    """Accuracy of every judge with its interval: one tidy row per judge.

    Accuracy is ``sum_i c_ij / sum_i m_ij`` (``c`` correct, ``m`` counted verdicts under the
    invalid-verdict ``policy``); micro pools items, macro averages group accuracies. See the
    module docstring for the interval methods.

    Parameters
    ----------
    outcome : ndarray, shape (n_items, n_judges)
        1 correct, 0 wrong, NaN invalid verdict, ``inf`` (:data:`NOT_ASSIGNED`) an item the
        judge was not given (left out under every policy, counted in ``n_not_assigned``).
    judges : list of str, optional
        Column names (default ``judge_0`` ...).
    policy : {"wrong", "exclude", "half"}, default "wrong"
        An invalid verdict counts as wrong, is left out, or earns half credit.
    groups : ndarray, optional
        Group label per item (for ``aggregation="macro"``).
    aggregation : {"micro", "macro"}, default "micro"
    clusters : ndarray, optional
        Cluster label per item (a case, an image): cluster-robust SE and effective n for the
        score intervals, whole clusters resampled by the bootstrap.
    method : {"wilson", "clopper-pearson", "wald", "bootstrap-percentile", "bootstrap-bca"}
        The interval (Wilson 1927 by default).
    confidence_level : float, default 0.95
    bootstrap : Bootstrap, optional
        Replicates and seed of the bootstrap methods (default 2,000, seed 0); macro aggregation
        resamples within groups (strata).
    weights : ndarray, optional
        A precomputed ``(B, n_items)`` resample-weight matrix, so that several tables share the
        same resamples (advanced; overrides ``bootstrap``'s draws).

    Returns
    -------
    DataFrame
        ``judge, accuracy, se, ci_low, ci_high, ci_method, level, n, n_invalid,
        n_not_assigned, n_clusters, policy, aggregation``.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
    JASA 22:209-212.
    Korn, E. L. & Graubard, B. I. (1998). Confidence intervals for proportions with small
    expected number of positive counts estimated from survey data. Survey Methodology 24:193-201.
    Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640, appendix A.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> y = np.array([[1, 0], [1, 1], [0, 1], [1, np.nan], [1, 1]])
    >>> t = mj.judge_accuracy(y, ['a', 'b'])
    >>> t[['judge', 'accuracy', 'n', 'n_invalid']].values.tolist()
    [['a', 0.8, 5, 0], ['b', 0.6, 5, 1]]
    """
    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    check_choice("method", method, get_args(AccuracyMethod))
    check_choice("policy", policy, POLICIES)
    check_choice("aggregation", aggregation, ("micro", "macro"))
    b = as_bootstrap(bootstrap)
    if method.startswith("bootstrap-"):
        b.interval(method.split("-")[1], allowed=(method.split("-")[1],))
    y = _as_2d(outcome)
    for arg, labels in (("clusters", clusters), ("groups", groups)):
        if labels is not None:
            check_labels(arg, labels, y.shape[0])
    j = y.shape[1]
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(j)]
    if len(judges) != j:
        raise ValueError(
            f"judges: {len(judges)} names is not allowed (one per outcome column: {j})"
        )
    a = accuracy_arrays(y, policy=policy, groups=groups, aggregation=aggregation, clusters=clusters)
    p, se, n = a["estimate"], a["se"], a["n"]
    design = {"policy": policy, "groups": groups, "aggregation": aggregation, "clusters": clusters}
    if method in ("wilson", "clopper-pearson"):
        lo, hi, se, ci_method = _score_interval(method, y, a, level, **design)
    elif method == "wald":
        z = z_value(level)
        lo, hi = p - z * se, p + z * se
        ci_method = "wald"
    elif method in ("bootstrap-percentile", "bootstrap-bca"):
        kind = method.split("-")[1]
        lo, hi, se, ci_method = _bootstrap_accuracy_interval(
            kind, y, a, b, weights, level, **design
        )
    else:
        raise ValueError(f"unknown accuracy interval method {method!r}")
    return pd.DataFrame(
        {"judge": judges, "accuracy": p, "se": se, "ci_low": lo, "ci_high": hi,
         "ci_method": ci_method, "level": level, "n": n.astype(int),
         "n_invalid": a["n_invalid"].astype(int),
         "n_not_assigned": a["n_not_assigned"].astype(int),
         "n_clusters": np.broadcast_to(a["n_clusters"], (j,)).astype(int),
         "policy": policy, "aggregation": aggregation}
    )  # fmt: skip


def _score_interval(
    method: str,
    y: np.ndarray,
    a: dict[str, np.ndarray],
    level: float,
    *,
    policy: Policy,
    groups: np.ndarray | None,
    aggregation: str,
    clusters: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Wilson or Clopper-Pearson at Korn & Graubard's effective n for the accuracies ``a`` of
    :func:`accuracy_arrays`: ``(ci_low, ci_high, se, ci_method)``; clustered micro accuracy
    takes the bias-reduced CR2 variance (the returned ``se``) and its Bell-McCaffrey df."""
    p, se, n, df = a["estimate"], a["se"], a["n"], None
    if clusters is not None and aggregation == "micro":
        # few / unequal clusters: the bias-reduced CR2 variance and its Bell-McCaffrey df
        # in Korn & Graubard's effective n (CR1 with G - 1 df covered 93.75-94.3% with 12
        # images of 1-15 items; docs/calibration.md, "Few and unequal clusters")
        _, se, df, _ = cr2_mean_se(*apply_policy(y, policy), clusters)
    n_cl = a["n_clusters"] if clusters is not None else None
    ne = effective_n(p, se, n, n_clusters=n_cl, confidence_level=level, df=df)
    fn = wilson_interval if method == "wilson" else clopper_pearson_interval
    lo, hi = fn(p * ne, ne, level)
    if clusters is None and aggregation == "micro" and policy != "half":
        return lo, hi, se, method
    if df is not None:
        return lo, hi, se, f"{method} (effective n, CR2 variance, Bell-McCaffrey df)"
    return (
        lo,
        hi,
        se,
        f"{method} (effective n{', Korn-Graubard df' if clusters is not None else ''})",
    )


def _bootstrap_accuracy_interval(
    kind: str,
    y: np.ndarray,
    a: dict[str, np.ndarray],
    b: Bootstrap,
    weights: np.ndarray | None,
    level: float,
    *,
    policy: Policy,
    groups: np.ndarray | None,
    aggregation: Aggregation,
    clusters: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The (cluster; macro: stratified) bootstrap interval of every judge's accuracy ``a``, with
    a Clopper-Pearson fallback at the boundary: ``(ci_low, ci_high, se, ci_method per judge)``."""
    p = a["estimate"]
    plan = b.plan(y.shape[0], clusters=clusters, strata=groups if aggregation == "macro" else None)
    w = weights if weights is not None else plan
    boot = bootstrap_accuracy(y, policy=policy, groups=groups, aggregation=aggregation, weights=w)
    jack = None
    if kind == "bca" and aggregation == "micro":
        jack = _jackknife_accuracy(*apply_policy(y, policy), clusters)
    elif kind == "bca":
        jack = bootstrap_accuracy(
            y, policy=policy, groups=groups, aggregation="macro", weights=plan.cluster_jackknife()
        )
    lo, hi = bootstrap_interval(p, boot, confidence_level=level, method=kind, jack=jack)
    cl = "cluster " if clusters is not None else ""
    label = f"{cl}bootstrap {kind} (B={boot.shape[0]}, seed={b.seed})"
    # At an estimate of 0 or 1 every resample repeats it and the bootstrap interval
    # collapses to a point (63.9% coverage at n = 20, p = 0.95; docs/calibration.md). There
    # fall back to Clopper-Pearson at the effective n (G clusters when clustered: the design
    # effect cannot be estimated from a constant outcome) and name the fallback per row.
    edge = (p <= 0.0) | (p >= 1.0) | ~(hi > lo)
    edge &= np.isfinite(p)
    ci_method = np.full(p.shape[0], label, dtype=object)
    if edge.any():
        n_cl = a["n_clusters"] if clusters is not None else None
        ne = effective_n(p, np.zeros_like(p), a["n"], n_clusters=n_cl, confidence_level=level)
        cl_lo, cl_hi = clopper_pearson_interval(p * ne, ne, level)
        lo = np.where(edge, cl_lo, lo)
        hi = np.where(edge, cl_hi, hi)
        ci_method[edge] = "clopper-pearson fallback (estimate at the boundary; " + (
            "n = clusters)" if clusters is not None else "exact)"
        )
    return lo, hi, bootstrap_se(boot), ci_method


def policy_sensitivity(
    outcome: np.ndarray,
    judges: list[str] | None = None,
    **kwargs,
) -> pd.DataFrame:
    """The headline accuracy under all three invalid-verdict policies, one row per judge.

    Columns: ``judge, n_invalid, n_not_assigned, accuracy_wrong, ci_low_wrong, ci_high_wrong,
    ci_method_wrong, n_wrong, accuracy_exclude, ..., accuracy_half, ..., max_shift`` (largest absolute change of the point estimate
    between policies). ``kwargs`` go to :func:`judge_accuracy`.
    """
    kwargs.pop("policy", None)
    frames = {pol: judge_accuracy(outcome, judges, policy=pol, **kwargs) for pol in POLICIES}
    base = frames["wrong"][["judge", "n_invalid", "n_not_assigned", "aggregation"]].copy()
    for pol, f in frames.items():
        base[f"accuracy_{pol}"] = f["accuracy"].to_numpy()
        base[f"ci_low_{pol}"] = f["ci_low"].to_numpy()
        base[f"ci_high_{pol}"] = f["ci_high"].to_numpy()
        base[f"ci_method_{pol}"] = f["ci_method"].to_numpy()
        base[f"n_{pol}"] = f["n"].to_numpy()
    accs = base[[f"accuracy_{p}" for p in POLICIES]].to_numpy()
    base["max_shift"] = np.nanmax(accs, 1) - np.nanmin(accs, 1)
    return base


def classification_metrics(
    pred: np.ndarray,
    gold: np.ndarray,
    judges: list[str] | None = None,
    *,
    categories: list | np.ndarray | None = None,
    labels: list[str] | None = None,
    policy: Policy = "wrong",
) -> pd.DataFrame:
    """Per-class recall, precision, F1 and macro-F1 of every judge (vectorised over judges).

    For class ``k``: ``recall_k = TP_k / #(gold = k)``, ``precision_k = TP_k / #(pred = k)``,
    ``F1_k = 2 TP_k / (#(gold = k) + #(pred = k))``; macro-F1 is the unweighted mean of
    ``F1_k`` over classes (Sokolova & Lapalme 2009). Invalid predictions (NaN) are a miss of
    every class under ``wrong``/``half`` (they lower recall but never precision) and are
    dropped for that judge under ``exclude``. Balanced accuracy = mean recall.
    """
    pr = _as_2d(pred)
    g = np.asarray(gold, dtype=float)
    if g.shape != (pr.shape[0],):
        raise ValueError(f"gold must have shape ({pr.shape[0]},), got {g.shape}")
    cats = np.unique(g[~np.isnan(g)]) if categories is None else np.asarray(categories, dtype=float)
    names = (
        labels
        if labels is not None
        else [str(int(c)) if float(c).is_integer() else str(c) for c in cats]
    )
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(pr.shape[1])]
    keep = ~np.isinf(pr)  # an item the judge was not given counts for no class
    if policy == "exclude":
        keep &= ~np.isnan(pr)
    out = {"judge": judges}
    f1s, recs = [], []
    with np.errstate(invalid="ignore", divide="ignore"):
        for c, nm in zip(cats, names, strict=True):
            gk = (g == c)[:, None] & keep
            pk = (pr == c) & keep
            tp = (gk & pk).sum(0)
            rec = tp / gk.sum(0)
            prec = tp / pk.sum(0)
            f1 = 2 * tp / (gk.sum(0) + pk.sum(0))
            out[f"recall_{nm}"] = rec
            out[f"precision_{nm}"] = prec
            out[f"f1_{nm}"] = f1
            f1s.append(f1)
            recs.append(rec)
    out["macro_f1"] = np.nanmean(np.vstack(f1s), 0)
    out["balanced_accuracy"] = np.nanmean(np.vstack(recs), 0)
    out["n_invalid"] = np.isnan(pr).sum(0)
    out["policy"] = policy
    return pd.DataFrame(out)


def trivial_baselines(
    gold: np.ndarray,
    *,
    categories: list | np.ndarray | None = None,
    labels: list[str] | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Accuracy of the trivial judges, to be shown next to every real judge.

    - ``always-<k>``: predicts class ``k`` on every item; accuracy = prevalence of ``k``
      (Wilson interval) — e.g. always-A / always-B for pairwise preference.
    - ``prevalence-guess``: guesses class ``k`` at random with the gold prevalence;
      expected accuracy ``sum_k pi_k^2`` (the chance level that kappa corrects for).
    """
    g = np.asarray(gold, dtype=float)
    g = g[~np.isnan(g)]
    n = g.size
    cats = np.unique(g) if categories is None else np.asarray(categories, dtype=float)
    names = (
        labels
        if labels is not None
        else [str(int(c)) if float(c).is_integer() else str(c) for c in cats]
    )
    rows = []
    prev = []
    for c, nm in zip(cats, names, strict=True):
        k = int((g == c).sum())
        lo, hi = wilson_interval(k, n, confidence_level)
        prev.append(k / n if n else np.nan)
        rows.append(
            {
                "judge": f"always-{nm}",
                "accuracy": k / n if n else np.nan,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "n": n,
            }
        )
    pv = np.array(prev)
    rows.append(
        {
            "judge": "prevalence-guess",
            "accuracy": float(np.sum(pv**2)),
            "ci_low": np.nan,
            "ci_high": np.nan,
            "n": n,
        }
    )
    df = pd.DataFrame(rows)
    df["role"] = "baseline"
    df["level"] = confidence_level
    return df
