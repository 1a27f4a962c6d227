"""Misclassification correction of a prevalence: the Rogan–Gladen estimator.

:func:`rogan_gladen` corrects the judge's positive rate for its sensitivity and specificity
(Rogan & Gladen 1978), with a delta-method (Wilson-centred) or parametric bootstrap interval
that carries the uncertainty of all three proportions.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from medjudge._validation import with_former
from medjudge.stats.ppi.linearisation import _level, _z
from medjudge.stats.resampling import Bootstrap
from medjudge.stats.results import Estimate

#: the parametric bootstrap's settings unless ``bootstrap=`` says otherwise
DEFAULT_BOOTSTRAP = Bootstrap(n_resamples=4000, seed=0)

__all__ = ["rogan_gladen"]


def _adj(x: float, m: float, z: float) -> float:
    """Wilson-centre proportion ``(x + z^2/2)/(m + z^2)`` used only inside variances."""
    return (x + z * z / 2) / (m + z * z)


def rogan_gladen(
    positive: int,
    n: int,
    true_positive: int,
    n_positive: int,
    true_negative: int,
    n_negative: int,
    *,
    confidence_level: float = 0.95,
    method: Literal["delta", "bootstrap"] = "delta",
    bootstrap: Bootstrap | None = None,
    **former: Any,
) -> Estimate:
    """Rogan–Gladen prevalence corrected for the judge's sensitivity and specificity.

    With ``p`` the judge's positive rate on the items of interest and ``Se``, ``Sp`` estimated on
    labelled items (``true_positive`` of ``n_positive`` gold positives called positive,
    ``true_negative`` of ``n_negative`` gold negatives called negative)::

        pi_hat = (p + Sp - 1) / (Se + Sp - 1)         (Rogan & Gladen 1978, eq. 1)

    truncated to ``[0, 1]``. The three proportions are independent, so the delta method gives
    (Greenland 1988; Reiczigel, Földi & Ózsvári 2010)::

        Var(pi_hat) = [Var(p) + pi^2 Var(Se) + (1 - pi)^2 Var(Sp)] / (Se + Sp - 1)^2

    ``method="delta"`` evaluates the binomial variances at Wilson-centred proportions
    ``(x + z^2/2)/(m + z^2)`` so that a perfect observed Se or Sp does not claim zero
    uncertainty; ``"bootstrap"`` draws the three counts from binomials at the observed
    proportions and takes percentiles of the truncated estimate (``bootstrap``: its replicates
    and seed, default :data:`DEFAULT_BOOTSTRAP` = 4,000 from seed 0; the former
    ``n_resamples=``/``seed=`` still work with a DeprecationWarning). Both intervals are
    truncated to ``[0, 1]``; their coverage is measured in ``benchmarks/calibration/ppi.py``.

    Raises ValueError when ``Se + Sp <= 1`` (a judge no better than chance carries no information
    about prevalence).

    References
    ----------
    Rogan & Gladen (1978), Am J Epidemiol 107:71-76; Greenland (1988), Stat Med 7:745-757
    (variance of the corrected estimate); Reiczigel, Földi & Ózsvári (2010), Epidemiol Infect
    138:1674-1678.

    Examples
    --------
    >>> est = rogan_gladen(300, 1000, 90, 100, 180, 200)
    >>> round(est.estimate, 4)
    0.25
    """
    ints = {
        "positive": positive,
        "n": n,
        "true_positive": true_positive,
        "n_positive": n_positive,
        "true_negative": true_negative,
        "n_negative": n_negative,
    }
    for k, v in ints.items():
        if not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{k} must be a non-negative integer count, got {v!r}")
    for x, m, xn, mn in (
        (positive, n, "positive", "n"),
        (true_positive, n_positive, "true_positive", "n_positive"),
        (true_negative, n_negative, "true_negative", "n_negative"),
    ):
        if m < 1 or x > m:
            raise ValueError(f"{xn}={x} must be between 0 and {mn}={m}, and {mn} >= 1")
    if method not in ("delta", "bootstrap"):
        raise ValueError(f"method must be 'delta' or 'bootstrap', got {method!r}")
    boot = with_former("rogan_gladen", "bootstrap", bootstrap, former, DEFAULT_BOOTSTRAP,
                       {"n_resamples": "n_resamples", "seed": "seed"})  # fmt: skip
    boot.interval("percentile", ("percentile",))
    n_resamples, seed = boot.n_resamples, boot.seed
    z = _z(confidence_level)
    p, se_, sp = positive / n, true_positive / n_positive, true_negative / n_negative
    J = se_ + sp - 1
    if J <= 0:
        raise ValueError(
            f"sensitivity + specificity - 1 = {J:.3f} <= 0: the judge is no better than chance, "
            "so its positive rate says nothing about prevalence"
        )
    raw = (p + sp - 1) / J
    pi = float(np.clip(raw, 0, 1))
    if method == "delta":
        pa = _adj(positive, n, z)
        sea = _adj(true_positive, n_positive, z)
        spa = _adj(true_negative, n_negative, z)
        var = (
            pa * (1 - pa) / n
            + pi**2 * sea * (1 - sea) / n_positive
            + (1 - pi) ** 2 * spa * (1 - spa) / n_negative
        ) / J**2
        sd = math.sqrt(var)
        lo, hi = max(0.0, raw - z * sd), min(1.0, raw + z * sd)
        lo, hi = min(lo, pi), max(hi, pi)
        extra: dict[str, Any] = {}
    else:
        rng = np.random.default_rng(seed)
        pb = rng.binomial(n, p, n_resamples) / n
        seb = rng.binomial(n_positive, se_, n_resamples) / n_positive
        spb = rng.binomial(n_negative, sp, n_resamples) / n_negative
        Jb = seb + spb - 1
        with np.errstate(divide="ignore", invalid="ignore"):
            pib = np.where(Jb > 0, np.clip((pb + spb - 1) / Jb, 0, 1), np.nan)
        bad = int(np.isnan(pib).sum())
        pib = pib[~np.isnan(pib)]
        a = (1 - _level(confidence_level)) / 2
        lo, hi = (float(v) for v in np.quantile(pib, [a, 1 - a]))
        sd = float(np.std(pib, ddof=1))
        extra = {"n_resamples": n_resamples, "seed": seed, "resamples_without_information": bad}
    return Estimate(
        name="rogan_gladen_prevalence",
        estimate=pi,
        se=sd,
        ci_low=lo,
        ci_high=hi,
        ci_method="Rogan-Gladen, "
        + (
            "delta method (Wilson-centred variances)"
            if method == "delta"
            else "parametric bootstrap percentile"
        ),
        level=_level(confidence_level),
        n=n,
        extra={
            "judge_positive_rate": p,
            "sensitivity": se_,
            "specificity": sp,
            "youden_j": J,
            "uncorrected": raw,
            "n_positive": n_positive,
            "n_negative": n_negative,
            **extra,
        },
    )
