"""Length-controlled accuracy of a judge: regression adjustment for the answer-length difference.

For item ``i`` let ``y_i`` = 1 if the judge picked the gold-preferred answer (0 otherwise) and
``delta_i`` = length of the gold-preferred answer minus length of the other answer. As in the
length-controlled AlpacaEval win rate (Dubois, Galambosi, Liang & Hashimoto 2024, "Length-
controlled AlpacaEval: a simple way to debias automatic evaluators", arXiv:2404.04475, Sec. 3,
eq. 2, which uses ``tanh(len_diff / std(len_diff))``), fit the logistic GLM

    logit P(y_i = 1) = beta_0 + beta_1 tanh(delta_i / s),   s = sd(delta)

and report

* ``lc_accuracy = expit(beta_0)``: the accuracy predicted when both answers have the same
  length (the length term switched off);
* ``length_effect = beta_1``: log-odds of a correct verdict per unit of the length term; 0 for
  a judge whose correctness does not depend on which answer is longer. Test ``beta_1 = 0``.

Standard errors are cluster-robust (sandwich with clusters such as images or instructions;
Liang & Zeger 1986; statsmodels ``GLM.fit(cov_type="cluster")`` with its small-sample
correction), so several items per cluster are not counted as independent; without clusters,
HC0. Intervals are Wald on the log-odds scale, transformed.

A caveat stated in the report: ``beta_1`` measures the association of correctness with the
length difference; if the hard items are also those with small length differences, a
length-neutral judge shows an effect. Read the judge's effect against the experts'
(each expert against the gold) where the study has several experts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit
from scipy.stats import norm

__all__ = ["LengthControlled", "length_controlled_accuracy", "cluster_robust_glm"]


@dataclass(frozen=True)
class LengthControlled:
    """Result of :func:`length_controlled_accuracy` (all floats; counts as ints)."""

    accuracy: float
    lc_accuracy: float
    lc_ci_low: float
    lc_ci_high: float
    length_effect: float
    effect_se: float
    effect_ci_low: float
    effect_ci_high: float
    pvalue: float
    n: int
    n_clusters: int
    scale: float
    confidence_level: float

    def to_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def _cluster_codes(clusters: np.ndarray | None, n: int) -> np.ndarray | None:
    if clusters is None:
        return None
    c = np.asarray(clusters)
    if c.shape != (n,):
        raise ValueError(f"clusters must have shape ({n},), got {c.shape}")
    return np.unique(c.astype(str), return_inverse=True)[1].ravel()


def cluster_robust_glm(
    y: np.ndarray,
    x: np.ndarray,
    clusters: np.ndarray | None,
    family: str = "binomial",
) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients and cluster-robust covariance of a GLM (statsmodels).

    ``family="binomial"`` (logit link) or ``"gaussian"`` (identity link: a linear probability
    model whose coefficients are differences of means). Returns ``(params, cov)``.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1., 0, 1, 1, 0, 1]); x = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    >>> b, v = cluster_robust_glm(y, x, None, "gaussian")
    >>> np.round(b, 4).tolist()
    [0.6667, 0.0]
    """
    # the GLM alone: statsmodels.api would import all of statsmodels (0.4 s more)
    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM

    fam = {"binomial": families.Binomial(), "gaussian": families.Gaussian()}[family]
    model = GLM(np.asarray(y, dtype=float), np.asarray(x, dtype=float), family=fam)
    codes = _cluster_codes(clusters, len(y))
    if codes is None:
        res = model.fit(cov_type="HC0")
    else:
        res = model.fit(cov_type="cluster", cov_kwds={"groups": codes})
    return np.asarray(res.params), np.asarray(res.cov_params())


def length_controlled_accuracy(
    correct: np.ndarray,
    length_difference: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    confidence_level: float = 0.95,
) -> LengthControlled:
    """Length-controlled accuracy and the length effect of one judge (see module docstring).

    Parameters
    ----------
    correct : ``(n,)`` 1 = judge picked the gold-preferred answer, 0 = not, NaN = excluded
        (no verdict, no gold, or a tie in the gold — the caller counts them).
    length_difference : ``(n,)`` length of the gold-preferred answer minus the other's.
    clusters : ``(n,)`` cluster labels (e.g. image id); None = items independent.
    confidence_level : coverage of the intervals.

    Returns
    -------
    LengthControlled

    References
    ----------
    Dubois, Y. et al. (2024). Length-controlled AlpacaEval. arXiv:2404.04475, eq. 2.
    Liang, K.-Y. & Zeger, S. L. (1986). Biometrika 73:13–22 (sandwich covariance).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = rng.normal(0, 100, 400)
    >>> y = (rng.random(400) < 0.7).astype(float)
    >>> r = length_controlled_accuracy(y, d)
    >>> r.lc_ci_low < 0.7 < r.lc_ci_high, r.pvalue > 0.05
    (True, True)
    """
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level}")
    y = np.asarray(correct, dtype=float)
    d = np.asarray(length_difference, dtype=float)
    if y.shape != d.shape or y.ndim != 1:
        raise ValueError("correct and length_difference must be 1-d arrays of one length")
    ok = ~np.isnan(y) & np.isfinite(d)
    if np.any(~np.isin(y[ok], (0.0, 1.0))):
        raise ValueError("correct must be 0, 1 or NaN")
    cl = None if clusters is None else np.asarray(clusters)[ok]
    if cl is not None and np.asarray(clusters).shape != y.shape:
        raise ValueError(f"clusters must have shape {y.shape}")
    y, d = y[ok], d[ok]
    n = int(y.size)
    n_cl = n if cl is None else int(np.unique(cl.astype(str)).size)
    nan = float("nan")
    s = float(np.std(d, ddof=1)) if n > 1 else 0.0
    acc = float(y.mean()) if n else nan
    if n < 3 or s == 0.0 or y.min() == y.max():
        return LengthControlled(
            acc, nan, nan, nan, nan, nan, nan, nan, nan, n, n_cl, s, confidence_level
        )
    x = np.column_stack([np.ones(n), np.tanh(d / s)])
    b, v = cluster_robust_glm(y, x, cl, "binomial")
    se = np.sqrt(np.diag(v))
    z = norm.ppf(0.5 + confidence_level / 2)
    p = float(2 * norm.sf(abs(b[1] / se[1]))) if se[1] > 0 else nan
    return LengthControlled(
        acc,
        float(expit(b[0])),
        float(expit(b[0] - z * se[0])),
        float(expit(b[0] + z * se[0])),
        float(b[1]),
        float(se[1]),
        float(b[1] - z * se[1]),
        float(b[1] + z * se[1]),
        p,
        n,
        n_cl,
        s,
        confidence_level,
    )
