"""Self-preference: does a judge favour answers written by its own model family?

Items are those where exactly one of the two answers comes from the judge's family and the gold
prefers one answer (gold ties excluded, counted by the caller). With ``y_i`` = 1 if the judge
picked the gold-preferred answer and ``own_i`` = 1 if the gold-preferred answer is the judge's
own family's, the self-preference effect is the accuracy gap

    delta = P(y = 1 | own = 1) - P(y = 1 | own = 0),

estimated as the slope of the linear probability model ``y ~ 1 + own`` (the difference of the
two accuracies) with a cluster-robust (sandwich) standard error, Wald interval and z test.

Why the accuracy gap and not "how often the judge picks its own answer": if the judge picks
its own family's answer with probability ``lambda`` and otherwise is right with probability
``p`` independently of authorship, then ``P(y|own=1) = lambda + (1-lambda) p`` and
``P(y|own=0) = (1-lambda) p``, so ``delta = lambda`` exactly, whatever ``p``; the raw rate of
own picks is attenuated towards 50% by ordinary errors (the same argument as the accuracy gap
for length bias in :mod:`medjudge.analyses.bias`; Panickssery, Bowman & Feng 2024, "LLM
evaluators recognize and favor their own generations", NeurIPS, measure self-preference
against human judgements in the same spirit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from medjudge.stats.length_control import cluster_robust_glm

__all__ = ["SelfPreference", "self_preference"]


@dataclass(frozen=True)
class SelfPreference:
    """Result of :func:`self_preference`."""

    effect: float
    se: float
    ci_low: float
    ci_high: float
    pvalue: float
    accuracy_gold_own: float
    accuracy_gold_other: float
    n_gold_own: int
    n_gold_other: int
    n_clusters: int
    confidence_level: float

    def to_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def self_preference(
    correct: np.ndarray,
    gold_is_own: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    confidence_level: float = 0.95,
) -> SelfPreference:
    """Self-preference effect (accuracy gap, see module docstring) with a cluster-robust interval.

    Parameters
    ----------
    correct : ``(n,)`` 1/0 correctness of the judge; NaN = excluded.
    gold_is_own : ``(n,)`` bool, the gold-preferred answer comes from the judge's family.
    clusters : ``(n,)`` cluster labels, or None (items independent: HC0).
    confidence_level : interval coverage.

    Returns
    -------
    SelfPreference
        ``effect`` = accuracy when the gold answer is the judge's own minus accuracy when it
        is the other model's; positive = the judge favours its own family.

    References
    ----------
    Liang, K.-Y. & Zeger, S. L. (1986). Biometrika 73:13–22 (cluster-robust covariance).
    Panickssery, A., Bowman, S. R. & Feng, S. (2024). LLM evaluators recognize and favor their
    own generations. NeurIPS 2024.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1., 1, 1, 0, 1, 0, 0, 1])
    >>> own = np.array([1, 1, 1, 1, 0, 0, 0, 0], dtype=bool)
    >>> r = self_preference(y, own)
    >>> round(r.effect, 6), r.accuracy_gold_own, r.accuracy_gold_other
    (0.25, 0.75, 0.5)
    """
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level}")
    y = np.asarray(correct, dtype=float)
    own = np.asarray(gold_is_own)
    if y.shape != own.shape or y.ndim != 1:
        raise ValueError("correct and gold_is_own must be 1-d arrays of one length")
    if clusters is not None and np.asarray(clusters).shape != y.shape:
        raise ValueError(f"clusters must have shape {y.shape}")
    ok = ~np.isnan(y)
    if np.any(~np.isin(y[ok], (0.0, 1.0))):
        raise ValueError("correct must be 0, 1 or NaN")
    y, own = y[ok], own[ok].astype(bool)
    cl = None if clusters is None else np.asarray(clusters)[ok]
    n1, n0 = int(own.sum()), int((~own).sum())
    a1 = float(y[own].mean()) if n1 else np.nan
    a0 = float(y[~own].mean()) if n0 else np.nan
    n_cl = y.size if cl is None else int(np.unique(cl.astype(str)).size)
    nan = float("nan")
    if n1 < 2 or n0 < 2:
        return SelfPreference(nan, nan, nan, nan, nan, a1, a0, n1, n0, n_cl, confidence_level)
    x = np.column_stack([np.ones(y.size), own.astype(float)])
    b, v = cluster_robust_glm(y, x, cl, "gaussian")
    se = float(np.sqrt(v[1, 1]))
    z = norm.ppf(0.5 + confidence_level / 2)
    eff = float(b[1])
    p = float(2 * norm.sf(abs(eff / se))) if se > 0 else (1.0 if eff == 0 else 0.0)
    return SelfPreference(
        eff, se, eff - z * se, eff + z * se, p, a1, a0, n1, n0, n_cl, confidence_level
    )
