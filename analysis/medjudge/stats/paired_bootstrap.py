"""Paired bootstrap of the difference between two judges on shared resamples.

:func:`paired_bootstrap` (difference of accuracies, or of Cohen's kappa with gold, with a
bootstrap p-value; clusters resampled whole) and :func:`cohen_kappa_weighted`, Cohen's kappa
with gold under resample weights.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from medjudge.stats.accuracy import (
    POLICIES,
    Policy,
    _as_2d,
    _jackknife_accuracy,
    apply_policy,
    bootstrap_accuracy,
)
from medjudge.stats.resampling import (
    Bootstrap,
    Restricted,
    as_bootstrap,
    as_weights,
    bootstrap_interval,
    bootstrap_se,
)
from medjudge.stats.results import Estimate

from .._validation import CONFIDENCE_LEVEL, check_choice, check_labels, check_numbers

__all__ = ["paired_bootstrap", "cohen_kappa_weighted"]


def cohen_kappa_weighted(
    pred: np.ndarray, gold: np.ndarray, weights: np.ndarray, categories: np.ndarray | None = None
) -> np.ndarray:
    """Cohen's (1960) kappa of each judge with the gold labels under resample weights.

    ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o = sum_i w_i [pred_i = gold_i] / sum_i w_i``,
    ``p_e = sum_k p_k(pred) p_k(gold)`` with weighted marginal proportions. Invalid (NaN)
    predictions count as disagreement and belong to no category. ``weights``: ``(B, n)``;
    returns ``(B, J)``.
    """
    pr = _as_2d(pred)
    g = np.asarray(gold, dtype=float)
    w = as_weights(weights)
    cats = np.unique(g[~np.isnan(g)]) if categories is None else np.asarray(categories, dtype=float)
    j = pr.shape[1]
    # every weighted sum in one product (one pass over the replicates of a plan)
    cols = [np.ones((g.size, 1)), (pr == g[:, None]).astype(float)]
    for k in cats:
        cols += [(pr == k).astype(float), (g == k).astype(float)[:, None]]
    z = w @ np.concatenate(cols, axis=1)
    tot = z[:, :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        po = z[:, 1 : 1 + j] / tot
        pe = np.zeros_like(po)
        for c in range(len(cats)):
            at = 1 + j + c * (j + 1)
            pe += (z[:, at : at + j] / tot) * (z[:, at + j] / tot[:, 0])[:, None]
        return (po - pe) / (1.0 - pe)


def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    *,
    gold: np.ndarray | None = None,
    statistic: Literal["accuracy", "kappa"] = "accuracy",
    policy: Policy = "wrong",
    clusters: np.ndarray | None = None,
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
) -> Estimate:
    """Paired bootstrap interval for the difference ``stat(a) - stat(b)`` of two judges.

    ``bootstrap.method`` defaults to ``percentile`` for accuracy and ``bca`` for kappa (the choices that
    covered best in docs/inference.md; for an accuracy difference on independent items at small
    n prefer Tango's score interval, :func:`medjudge.stats.paired_intervals.paired_difference_ci`).

    Both judges are evaluated on the *same* resamples (rows of the engine's weight matrix),
    so the interval reflects the correlation between them. ``statistic="accuracy"``: ``a`` and
    ``b`` are outcome vectors (1/0/NaN). ``statistic="kappa"``: ``a`` and ``b`` are predicted
    category codes and ``gold`` the gold codes; the statistic is Cohen's kappa with gold.
    With ``clusters`` whole clusters are resampled. The Estimate's ``extra`` holds the p-value
    of the bootstrap test (twice the smaller tail of the replicates around 0, Efron &
    Tibshirani 1993, sec. 16.4 style percentile test) and the resampling settings.

    Parameters
    ----------
    a, b : array_like of float, shape (n_items,)
        The two judges, one value per item in the same item order. ``statistic="accuracy"``:
        outcomes 1 (correct), 0 (wrong), NaN (invalid verdict). ``statistic="kappa"``:
        predicted category codes, NaN for an invalid verdict.
    gold : array_like of float, shape (n_items,), optional
        Gold category codes; required for ``statistic="kappa"``, unused for accuracy.
    statistic : {"accuracy", "kappa"}, default "accuracy"
        What is compared: accuracy, or Cohen's kappa of each judge with ``gold``.
    policy : {"wrong", "exclude", "half"}, default "wrong"
        Invalid verdicts (NaN): counted wrong, left out (for kappa: the items where either
        judge is invalid), or counted as half correct (accuracy only; kappa treats ``"half"``
        as ``"wrong"``).
    clusters : array_like, shape (n_items,), optional
        One label per item: items sharing a label (a case, an image) are resampled together.
    bootstrap : Bootstrap, optional
        Resampling settings; default ``Bootstrap()`` (2,000 resamples, seed 0; interval
        ``percentile`` for accuracy and ``bca`` for kappa unless ``method`` is set).
    confidence_level : float, default 0.95
        Coverage of the interval.

    Returns
    -------
    Estimate
        ``name`` ``"accuracy_difference"`` or ``"kappa_difference"``; ``estimate`` is
        ``stat(a) - stat(b)`` on the full data, ``se`` the bootstrap standard error,
        ``ci_low``/``ci_high`` at ``level``, ``ci_method`` e.g. ``"paired bootstrap
        percentile"`` (prefixed ``cluster`` with clusters), ``n`` items; ``extra`` holds
        ``estimate_a``, ``estimate_b``, ``p_bootstrap``, ``B``, ``seed`` and ``policy``.

    References
    ----------
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap. Chapman & Hall
    (paired resampling; the percentile test, sec. 16.4).
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82:171-185 (BCa).
    Cohen, J. (1960). A coefficient of agreement for nominal scales. EPM 20:37-46.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> rng = np.random.default_rng(0)
    >>> a = (rng.random(200) < 0.8).astype(float)
    >>> b = (rng.random(200) < 0.7).astype(float)
    >>> e = mj.paired_bootstrap(a, b, bootstrap=mj.Bootstrap(500))
    >>> round(e.estimate, 3), bool(e.ci_low < e.estimate < e.ci_high)
    (0.075, True)
    """

    check_choice("statistic", statistic, ("accuracy", "kappa"))
    check_choice("policy", policy, POLICIES)
    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    boot = as_bootstrap(bootstrap)
    method = boot.interval("bca" if statistic == "kappa" else "percentile")
    n_resamples, seed = boot.n_resamples, boot.seed
    a = check_numbers("a", a, "a 1-d array of outcomes or codes, NaN invalid")
    b = check_numbers("b", b, "a 1-d array of outcomes or codes, NaN invalid")
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(
            f"b: {b.shape[0] if b.ndim == 1 else b.shape} values is not allowed (one per item, "
            f"like a: {a.shape[0] if a.ndim == 1 else a.shape})"
        )
    n = a.shape[0]
    if clusters is not None:
        check_labels("clusters", clusters, n)
    plan = boot.plan(n, clusters=clusters)
    w = plan
    if statistic == "accuracy":
        y = np.column_stack([a, b])
        boot = bootstrap_accuracy(y, policy=policy, weights=w)
        yy, mm = apply_policy(y, policy)
        full = (mm * yy).sum(0) / mm.sum(0)
        jack = _jackknife_accuracy(yy, mm, clusters) if method == "bca" else None
    elif statistic == "kappa":
        if gold is None:
            raise ValueError("statistic='kappa' needs gold=")
        pr = np.column_stack([a, b])
        if policy == "exclude":
            keep = ~np.isnan(pr).any(1)
            pr, gold_k = pr[keep], np.asarray(gold, float)[keep]
            w = plan.restrict(keep)
            jw = Restricted(plan.cluster_jackknife(), np.flatnonzero(keep))
        else:
            gold_k = np.asarray(gold, float)
            jw = plan.cluster_jackknife()
        boot = cohen_kappa_weighted(pr, gold_k, w)
        full = cohen_kappa_weighted(pr, gold_k, np.ones((1, pr.shape[0])))[0]
        jack = cohen_kappa_weighted(pr, gold_k, jw) if method == "bca" else None
    else:
        raise ValueError(f"unknown statistic {statistic!r}")
    d_boot = boot[:, 0] - boot[:, 1]
    d = full[0] - full[1]
    d_jack = None if jack is None else jack[:, 0] - jack[:, 1]
    lo, hi = bootstrap_interval(d, d_boot, confidence_level=level, method=method, jack=d_jack)
    valid = d_boot[~np.isnan(d_boot)]
    p = min(1.0, 2 * min(np.mean(valid <= 0), np.mean(valid >= 0))) if valid.size else np.nan
    return Estimate(
        name=f"{statistic}_difference",
        estimate=float(d),
        se=float(bootstrap_se(d_boot)),
        ci_low=float(lo),
        ci_high=float(hi),
        ci_method=f"{'cluster ' if clusters is not None else ''}paired bootstrap {method}",
        level=level,
        n=int(n),
        extra={
            "estimate_a": float(full[0]),
            "estimate_b": float(full[1]),
            "p_bootstrap": float(p),
            "B": n_resamples,
            "seed": seed,
            "policy": policy,
        },
    )
