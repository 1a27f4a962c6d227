"""Prediction-powered inference (PPI, PPI++) for a mean or proportion of the gold label.

Setting: ``n`` *labelled* items carry the gold label ``Y`` and a judge prediction ``f``; ``N``
*unlabelled* items carry only ``f``. The labelled items must be a random sample of all items
(missing completely at random) — that is what makes every estimator here unbiased. The judge may
be arbitrarily wrong: its errors are measured on the labelled items and removed.

Estimator (Angelopoulos et al. 2023, eq. 2; PPI++ with power tuning ``lam``, Angelopoulos,
Duchi & Zrnic 2023, eq. 4 and Example 6.1)::

    theta_hat(lam) = lam * mean_U(f) + mean_L(Y - lam * f)

``lam = 1`` is PPI, ``lam = 0`` the classical expert-only mean, and the power-tuned value
(PPI++) is the plug-in minimiser of the variance, clipped to ``[0, 1]``::

    lam_hat = Cov_L(Y, f) / ((1 + n/N) Var_{L+U}(f))

Variance: ``theta_hat`` is a sum of per-item contributions
``psi_i = (r_i - mean_L r)/n`` (labelled, ``r = Y - lam f``) and
``psi_j = lam (f_j - mean_U f)/N`` (unlabelled). Without clusters
``Var = sum psi^2`` — exactly ppi-python's ``ppi_mean_ci`` (ddof 0, normal quantile). With
clusters (several questions per image, several items per patient), contributions are summed
within each cluster first, whether the cluster's items are labelled, unlabelled or both, and
``Var = G/(G-1) sum_c (sum_{i in c} psi_i)^2`` (Liang & Zeger 1986 with the usual small-sample
factor, ``G`` clusters); the tuned ``lam`` then minimises this clustered variance.

Also here: the paired difference of two means on the same items, stratified PPI (Fisch et al.
2024) with per-stratum ``lam``, cross-fitted PPI for several judges (pick the best judge or
combine them without using any labelled item twice; Zrnic & Candès 2024), and the Rogan–Gladen
prevalence correction with an interval that carries the uncertainty of the judge's positive
rate *and* of its sensitivity and specificity.

References
----------
Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023). Prediction-powered inference. Science
382:669-674 (eq. 2 and Theorem 1: the mean).
Angelopoulos, Duchi & Zrnic (2023). PPI++: Efficient prediction-powered inference.
arXiv:2311.01453 (Sec. 2, eq. 4; Example 6.1: the optimal ``lam`` for a mean).
Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen (2024). Stratified prediction-powered inference
for hybrid language model evaluation. NeurIPS 2024 (Sec. 3, eq. 8).
Zrnic & Candès (2024). Cross-prediction-powered inference. PNAS 121(15):e2322083121 (eq. 3-4).
Rogan & Gladen (1978). Estimating prevalence from the results of a screening test. Am J
Epidemiol 107:71-76.
Liang & Zeger (1986). Longitudinal data analysis using generalized linear models. Biometrika
73:13-22 (cluster-robust variance).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from scipy.special import ndtri, stdtrit

from medjudge.stats.results import Estimate

__all__ = [
    "ppi_mean",
    "ppi_proportion",
    "classical_mean",
    "ppi_paired_difference",
    "ppi_mean_stratified",
    "ppi_mean_crossfit",
    "rogan_gladen",
    "tuned_lambda",
]

Combine = Literal["select", "combine"]
Interval = Literal["t", "normal"]


# ---------------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------------
def _vec(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(
            f"{name} has {int((~np.isfinite(a)).sum())} missing/non-finite value(s); "
            "decide how to treat them before calling (e.g. an invalid verdict as its own value)"
        )
    return a


def _level(confidence_level: float) -> float:
    c = float(confidence_level)
    if not 0 < c < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    return c


def _z(confidence_level: float) -> float:
    return float(ndtri(0.5 + _level(confidence_level) / 2))


def _clusters(c: Any, n: int, name: str) -> np.ndarray | None:
    if c is None:
        return None
    a = np.asarray(c).astype(str)
    if a.shape != (n,):
        raise ValueError(f"{name} must have one cluster id per item ({n}), got shape {a.shape}")
    return a


def _check_lam(lam: float | None) -> None:
    if lam is not None and not (isinstance(lam, (int, float)) and math.isfinite(lam)):
        raise ValueError(f"lam must be a finite number or None (power-tuned), got {lam!r}")


# ---------------------------------------------------------------------------------------------
# the linearisation shared by every estimator
# ---------------------------------------------------------------------------------------------
def _cluster_sums(
    contrib: np.ndarray, cl: np.ndarray | None, clu: np.ndarray | None
) -> tuple[np.ndarray, int]:
    """Sum item contributions (labelled then unlabelled, possibly a (m, k) matrix) by cluster."""
    if cl is None:
        return contrib, contrib.shape[0]
    ids = np.concatenate([cl, clu])
    _, inv = np.unique(ids, return_inverse=True)
    G = int(inv.max()) + 1
    if contrib.ndim == 1:
        return np.bincount(inv, weights=contrib, minlength=G), G
    return np.stack(
        [np.bincount(inv, weights=contrib[:, k], minlength=G) for k in range(contrib.shape[1])],
        axis=1,
    ), G


def _variance(psi: np.ndarray, cl: np.ndarray | None, clu: np.ndarray | None) -> tuple[float, int]:
    s, G = _cluster_sums(psi, cl, clu)
    v = float(np.sum(s**2))
    if cl is not None:
        if G < 2:
            return math.nan, G
        v *= G / (G - 1)
    return v, G


def _check_interval(interval: str) -> None:
    if interval not in ("t", "normal"):
        raise ValueError(
            f"interval must be 't' (small-sample, default) or 'normal' (ppi-python's), "
            f"got {interval!r}"
        )


def _quantile(confidence_level: float, df: float) -> float:
    """Two-sided quantile: normal when ``df`` is infinite, else Student t with ``df``."""
    p = 0.5 + _level(confidence_level) / 2
    return float(ndtri(p)) if not math.isfinite(df) else float(stdtrit(df, p))


def _spread(
    psi: np.ndarray,
    parts: np.ndarray,
    losses: dict[int, int],
    cl: np.ndarray | None,
    clu: np.ndarray | None,
    interval: str,
) -> tuple[float, float, int]:
    """Variance, degrees of freedom and number of clusters of a sum of item contributions.

    ``interval="normal"``: the plain (cluster-)summed variance of :func:`_variance` (ppi-python's
    convention, ddof 0) with infinite degrees of freedom.

    ``interval="t"``: the contributions fall into independent *samples* ``k`` (labelled,
    unlabelled; per stratum for stratified PPI), sample ``k`` with ``G_k`` clusters (items when
    unclustered) and ``d_k`` estimated parameters (1 for a mean; 2 when ``lam`` is tuned on the
    same labels, as for a regression estimator — Cochran 1977, Sec. 7.3). Each sample's
    contributions are scaled by ``sqrt(G_k/(G_k - d_k))`` (the unbiased ``n - 1`` divisor for a
    mean; CR1 for clusters, Cameron & Miller 2015, Sec. VI) before cluster-summing, and the
    degrees of freedom are Satterthwaite's (1946)::

        df = (sum_k V_k)^2 / sum_k V_k^2 / (G_k - d_k)

    with ``V_k`` sample ``k``'s corrected variance. For the classical mean this is the textbook
    ``t_{n-1}`` interval with ``s^2/n``.
    """
    if interval == "normal":
        var, G = _variance(psi, cl, clu)
        return var, math.inf, G
    if cl is None:
        inv = np.arange(psi.size)
    else:
        _, inv = np.unique(np.concatenate([cl, clu]), return_inverse=True)
    G = int(inv.max()) + 1 if inv.size else 0
    scaled = psi.astype(float).copy()
    comps: list[tuple[float, int]] = []
    for k, loss in losses.items():
        m = parts == k
        if not m.any():
            continue
        Gk = int(np.count_nonzero(np.bincount(inv[m])))
        d = min(loss, Gk - 1)
        if d > 0:
            scaled[m] *= math.sqrt(Gk / (Gk - d))
        vk = float(np.sum(np.bincount(inv[m], weights=scaled[m]) ** 2))
        comps.append((vk, max(Gk - d, 1)))
    var = float(np.sum(np.bincount(inv, weights=scaled, minlength=G) ** 2))
    if cl is not None and G < 2:
        return math.nan, math.nan, G
    den = sum(v * v / dfk for v, dfk in comps if v > 0)
    df = sum(v for v, _ in comps) ** 2 / den if den > 0 else math.inf
    return var, df, G


def _method_suffix(interval: str, df: float) -> str:
    if interval == "normal":
        return ", normal"
    return ", small-sample t" + (f" (df {df:.1f})" if math.isfinite(df) else " (df inf)")


def _contributions(
    y: np.ndarray, f: np.ndarray, fu: np.ndarray, lam: float, wl: float = 1.0, wu: float = 1.0
) -> np.ndarray:
    """Per-item influence contributions of ``theta_hat(lam)`` (labelled first, then unlabelled)."""
    n, N = y.size, fu.size
    r = y - lam * f
    return np.concatenate([wl * (r - r.mean()) / n, wu * lam * (fu - fu.mean()) / N])


def tuned_lambda(
    y: Any,
    yhat: Any,
    yhat_unlabeled: Any,
    *,
    clusters: Any = None,
    clusters_unlabeled: Any = None,
    clip: bool = True,
) -> float:
    """Power-tuning parameter of PPI++ for a mean.

    Without clusters (Angelopoulos, Duchi & Zrnic 2023, Example 6.1; ppi-python's formula)::

        lam = Cov_L(Y, f) / ((1 + n/N) Var_{L+U}(f))

    with ``Cov`` over the labelled items (divisor n) and ``Var`` over all predictions (divisor
    n + N - 1). With clusters, ``lam = -sum_c a_c b_c / sum_c a_c^2`` minimises the clustered
    variance, where ``b_c`` and ``a_c`` are the cluster sums of the contributions of ``Y`` and of
    ``f`` (unlabelled minus labelled). Clipped to ``[0, 1]`` when ``clip``.

    Examples
    --------
    >>> round(tuned_lambda([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 0, 1, 0]), 4)
    0.27
    """
    y, f, fu = _vec(y, "y"), _vec(yhat, "yhat"), _vec(yhat_unlabeled, "yhat_unlabeled")
    n, N = y.size, fu.size
    cl = _clusters(clusters, n, "clusters")
    clu = _clusters(clusters_unlabeled, N, "clusters_unlabeled")
    if (cl is None) != (clu is None):
        raise ValueError("give clusters for both the labelled and the unlabelled items, or neither")
    if cl is None:
        cov = float(np.mean((y - y.mean()) * (f - f.mean())))
        var = float(np.var(np.concatenate([f, fu]), ddof=1))
        lam = cov / ((1 + n / N) * var) if var > 0 else 0.0
    else:
        b, _ = _cluster_sums(np.concatenate([(y - y.mean()) / n, np.zeros(N)]), cl, clu)
        a, _ = _cluster_sums(np.concatenate([-(f - f.mean()) / n, (fu - fu.mean()) / N]), cl, clu)
        den = float(np.sum(a * a))
        lam = -float(np.sum(a * b)) / den if den > 0 else 0.0
    return float(np.clip(lam, 0.0, 1.0)) if clip else float(lam)


def _check_sets(y: Any, yhat: Any, yhat_unlabeled: Any) -> tuple[np.ndarray, ...]:
    y, f, fu = _vec(y, "y"), _vec(yhat, "yhat"), _vec(yhat_unlabeled, "yhat_unlabeled")
    if f.size != y.size:
        raise ValueError(
            f"yhat must have one prediction per labelled item ({y.size}), got {f.size}"
        )
    if y.size < 2:
        raise ValueError(f"need at least 2 labelled items, got {y.size}")
    if fu.size < 1:
        raise ValueError("need at least 1 unlabelled item (yhat_unlabeled is empty)")
    return y, f, fu


def ppi_mean(
    y: Any,
    yhat: Any,
    yhat_unlabeled: Any,
    *,
    lam: float | None = None,
    clusters: Any = None,
    clusters_unlabeled: Any = None,
    confidence_level: float = 0.95,
    interval: Interval = "t",
) -> Estimate:
    """Prediction-powered estimate and interval for the mean of the gold label.

    ``theta_hat = lam mean_U(f) + mean_L(Y - lam f)``; ``lam=None`` tunes ``lam`` (PPI++,
    :func:`tuned_lambda`), ``lam=1`` is PPI, ``lam=0`` the classical mean. The interval is
    ``theta_hat -/+ q sqrt(Var)`` with the (cluster-)summed contributions of the module docstring.

    ``interval="t"`` (default) is the small-sample interval: each sample's (labelled,
    unlabelled) contributions carry the unbiased divisor (``n - 1``; ``n - 2`` when ``lam`` is
    tuned on the same labels, as for a regression estimator; per cluster when clustered) and
    ``q`` is a Student t quantile with Satterthwaite degrees of freedom (see :func:`_spread`).
    ``interval="normal"`` is the asymptotic interval, identical to ppi-python's ``ppi_mean_ci``.

    Parameters
    ----------
    y : gold labels of the ``n`` labelled items (0/1 for a proportion, or scores).
    yhat : judge predictions for the same labelled items.
    yhat_unlabeled : judge predictions for the ``N`` unlabelled items.
    lam : power-tuning parameter; None = tuned (PPI++).
    clusters, clusters_unlabeled : cluster id per labelled / unlabelled item (optional).
    confidence_level : coverage of the interval.
    interval : ``"t"`` (small-sample, default) or ``"normal"`` (ppi-python's).

    Returns
    -------
    Estimate
        ``extra`` holds ``lam``, ``df``, ``n_labelled``, ``n_unlabelled``, ``n_clusters``, the classical
        (``lam = 0``) variance ``var_classical`` and ``effective_n`` = ``n Var_classical /
        Var`` (the number of expert labels the classical mean would need for the same variance).

    References
    ----------
    Angelopoulos et al. (2023), Science 382:669, eq. 2; Angelopoulos, Duchi & Zrnic (2023),
    arXiv:2311.01453, eq. 4 and Example 6.1; Cochran (1977), Sampling Techniques, 3rd ed.,
    Sec. 7.3 (regression estimator, ``n - 2``); Satterthwaite (1946), Biometrics Bulletin
    2:110-114; Cameron & Miller (2015), J Hum Resour 50:317-372, Sec. VI (CR1, t with G - 1).

    Examples
    --------
    >>> est = ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 0, 1, 0], lam=1.0, interval="normal")
    >>> round(est.estimate, 4), round(est.se, 4)
    (0.75, 0.2976)
    >>> est = ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 0, 1, 0], lam=1.0)
    >>> round(est.se, 4), round(est.extra["df"], 2)
    (0.3354, 7.02)
    """
    y, f, fu = _check_sets(y, yhat, yhat_unlabeled)
    _check_lam(lam)
    _check_interval(interval)
    _level(confidence_level)
    n, N = y.size, fu.size
    cl = _clusters(clusters, n, "clusters")
    clu = _clusters(clusters_unlabeled, N, "clusters_unlabeled")
    if (cl is None) != (clu is None):
        raise ValueError("give clusters for both the labelled and the unlabelled items, or neither")
    tuned = lam is None
    lam_v = tuned_lambda(y, f, fu, clusters=cl, clusters_unlabeled=clu) if tuned else float(lam)
    est = lam_v * float(fu.mean()) + float(np.mean(y - lam_v * f))
    parts = np.r_[np.zeros(n, int), np.ones(N, int)]
    losses = {0: 2 if tuned else 1, 1: 1}
    var, df, G = _spread(_contributions(y, f, fu, lam_v), parts, losses, cl, clu, interval)
    var0, _, _ = _spread(_contributions(y, f, fu, 0.0), parts, {0: 1, 1: 1}, cl, clu, interval)
    se = math.sqrt(var) if np.isfinite(var) else math.nan
    z = _quantile(confidence_level, df) if np.isfinite(var) else math.nan
    method = (
        "PPI++ (power-tuned)" if tuned else ("classical" if lam_v == 0 else f"PPI (lam={lam_v:g})")
    )
    return Estimate(
        name="ppi_mean",
        estimate=est,
        se=se,
        ci_low=est - z * se,
        ci_high=est + z * se,
        ci_method=method
        + (", cluster-robust" if cl is not None else "")
        + _method_suffix(interval, df),
        level=_level(confidence_level),
        n=n,
        extra={
            "lam": lam_v,
            "df": df,
            "interval": interval,
            "n_labelled": n,
            "n_unlabelled": N,
            "n_clusters": G if cl is not None else None,
            "var_classical": var0,
            "effective_n": n * var0 / var if var > 0 else math.nan,
        },
    )


def ppi_proportion(
    y: Any,
    yhat: Any,
    yhat_unlabeled: Any,
    *,
    lam: float | None = None,
    clusters: Any = None,
    clusters_unlabeled: Any = None,
    confidence_level: float = 0.95,
    interval: Interval = "t",
) -> Estimate:
    """:func:`ppi_mean` for a proportion: ``y`` must be 0/1; ``yhat`` may be 0/1 or a probability.

    Examples
    --------
    >>> round(ppi_proportion([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 0, 1, 0], lam=1).estimate, 3)
    0.75
    """
    yy = _vec(y, "y")
    if not np.all((yy == 0) | (yy == 1)):
        raise ValueError("y must be 0/1 for a proportion; use ppi_mean for scores")
    for name, v in (("yhat", yhat), ("yhat_unlabeled", yhat_unlabeled)):
        a = _vec(v, name)
        if np.any((a < 0) | (a > 1)):
            raise ValueError(f"{name} must lie in [0, 1] for a proportion")
    out = ppi_mean(
        yy,
        yhat,
        yhat_unlabeled,
        lam=lam,
        clusters=clusters,
        clusters_unlabeled=clusters_unlabeled,
        confidence_level=confidence_level,
        interval=interval,
    )
    return _renamed(out, "ppi_proportion")


def _renamed(e: Estimate, name: str, **extra: Any) -> Estimate:
    return Estimate(
        name=name,
        estimate=e.estimate,
        se=e.se,
        ci_low=e.ci_low,
        ci_high=e.ci_high,
        ci_method=e.ci_method,
        level=e.level,
        n=e.n,
        excluded=dict(e.excluded),
        extra={**e.extra, **extra},
    )


def classical_mean(
    y: Any, *, clusters: Any = None, confidence_level: float = 0.95, interval: Interval = "t"
) -> Estimate:
    """Expert-only mean with its interval (the ``lam = 0`` member of the PPI family).

    ``interval="t"`` (default): ``ybar -/+ t_{n-1} s/sqrt(n)`` with ``s^2`` the unbiased sample
    variance, or with clusters ``Var = G/(G-1) sum_c (sum_{i in c} (y_i - ybar)/n)^2`` (CR1) and
    ``t_{G-1}`` (Cameron & Miller 2015, Sec. VI) — the same small-sample rules as
    :func:`ppi_mean`, so PPI-versus-experts width ratios compare like with like.
    ``interval="normal"``: ``Var = sum_i ((y_i - ybar)/n)^2`` (ddof 0) and the normal quantile,
    as ppi-python's ``classical_mean_ci``.

    Examples
    --------
    >>> est = classical_mean([1, 0, 1, 1], interval="normal")
    >>> round(est.estimate, 2), round(est.se, 4)
    (0.75, 0.2165)
    >>> est = classical_mean([1, 0, 1, 1])   # s/sqrt(n) = 0.5/2, t_3 = 3.182
    >>> round(est.se, 4), round(est.ci_high - est.estimate, 4)
    (0.25, 0.7956)
    """
    y = _vec(y, "y")
    if y.size < 2:
        raise ValueError(f"need at least 2 labelled items, got {y.size}")
    _check_interval(interval)
    _level(confidence_level)
    cl = _clusters(clusters, y.size, "clusters")
    var, df, G = _spread(
        (y - y.mean()) / y.size,
        np.zeros(y.size, int),
        {0: 1},
        cl,
        None if cl is None else np.array([], str),
        interval,
    )
    se = math.sqrt(var) if np.isfinite(var) else math.nan
    z = _quantile(confidence_level, df) if np.isfinite(var) else math.nan
    m = float(y.mean())
    return Estimate(
        name="classical_mean",
        estimate=m,
        se=se,
        ci_low=m - z * se,
        ci_high=m + z * se,
        ci_method="classical"
        + (", cluster-robust" if cl is not None else "")
        + _method_suffix(interval, df),
        level=_level(confidence_level),
        n=y.size,
        extra={"n_clusters": G if cl is not None else None, "df": df, "interval": interval},
    )


def ppi_paired_difference(
    y_a: Any,
    y_b: Any,
    yhat_a: Any,
    yhat_b: Any,
    yhat_unlabeled_a: Any,
    yhat_unlabeled_b: Any,
    *,
    lam: float | None = None,
    clusters: Any = None,
    clusters_unlabeled: Any = None,
    confidence_level: float = 0.95,
    interval: Interval = "t",
) -> Estimate:
    """PPI for ``E[Y_a] - E[Y_b]`` measured on the same items (paired).

    The difference is a mean of ``D = Y_a - Y_b`` with prediction ``f_a - f_b``, so
    :func:`ppi_mean` applies with one ``lam`` for the difference (PPI++ tunes it for the
    difference, not for each mean). Use it for "true win rate of A minus that of B" or for two
    conditions rated on the same items.

    Examples
    --------
    >>> est = ppi_paired_difference([1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 1, 1], [0, 1, 0, 0],
    ...                             [1, 0, 1], [0, 1, 0], lam=1.0)
    >>> round(est.estimate, 4)
    0.0833
    """
    arrs = [
        _vec(v, k)
        for k, v in (
            ("y_a", y_a),
            ("y_b", y_b),
            ("yhat_a", yhat_a),
            ("yhat_b", yhat_b),
            ("yhat_unlabeled_a", yhat_unlabeled_a),
            ("yhat_unlabeled_b", yhat_unlabeled_b),
        )
    ]
    if not (arrs[0].size == arrs[1].size == arrs[2].size == arrs[3].size):
        raise ValueError("y_a, y_b, yhat_a and yhat_b must have the same length (paired items)")
    if arrs[4].size != arrs[5].size:
        raise ValueError("yhat_unlabeled_a and yhat_unlabeled_b must have the same length")
    out = ppi_mean(
        arrs[0] - arrs[1],
        arrs[2] - arrs[3],
        arrs[4] - arrs[5],
        lam=lam,
        clusters=clusters,
        clusters_unlabeled=clusters_unlabeled,
        confidence_level=confidence_level,
        interval=interval,
    )
    return _renamed(out, "ppi_paired_difference")


def _pooled_lambda(
    y: np.ndarray,
    f: np.ndarray,
    fu: np.ndarray,
    s: np.ndarray,
    su: np.ndarray,
    levels: list[str],
    cl: np.ndarray | None,
    clu: np.ndarray | None,
) -> float:
    """One power-tuning ``lam`` for every stratum: the minimiser of the stratified estimator's
    variance (weights ``w_h``), clipped to ``[0, 1]``.

    Without clusters, ``lam = sum_h a_h Cov_h(Y, f) / sum_h a_h (1 + n_h/N_h) Var_h(f)`` with
    ``a_h = w_h^2 / n_h`` (``Cov`` over the stratum's labelled items, ``Var`` over all its
    predictions: :func:`tuned_lambda`'s formula, to which it reduces for one stratum). With
    clusters, ``-sum_c A_c B_c / sum_c A_c^2`` over cluster sums of the weighted contributions
    (:func:`tuned_lambda`'s clustered form). A ``lam`` per stratum, tuned on the ~n/H labelled
    items of each stratum, is noisy and its noise is selected towards small variances: at
    n = 50 with two strata it under-covered (0.934 against 0.95; docs/calibration.md).
    """
    n, N = y.size, fu.size
    wts = {h: ((s == h).sum() + (su == h).sum()) / (n + N) for h in levels}
    if cl is None:
        num = den = 0.0
        for h in levels:
            il, iu = s == h, su == h
            nh, Nh = int(il.sum()), int(iu.sum())
            a = wts[h] ** 2 / nh
            yl, fl = y[il], f[il]
            num += a * float(np.mean((yl - yl.mean()) * (fl - fl.mean())))
            fall = np.concatenate([fl, fu[iu]])
            var = float(np.var(fall, ddof=1)) if fall.size > 1 else 0.0
            den += a * (1 + nh / Nh) * var
        lam = num / den if den > 0 else 0.0
    else:
        b = np.zeros(n + N)
        a = np.zeros(n + N)
        for h in levels:
            il, iu = s == h, su == h
            c0 = _contributions(y[il], f[il], fu[iu], 0.0, wts[h], wts[h])
            c1 = _contributions(y[il], f[il], fu[iu], 1.0, wts[h], wts[h])
            idx = np.r_[np.flatnonzero(il), n + np.flatnonzero(iu)]
            b[idx] = c0
            a[idx] = c1 - c0
        B, _ = _cluster_sums(b, cl, clu)
        A, _ = _cluster_sums(a, cl, clu)
        d = float(np.sum(A * A))
        lam = -float(np.sum(A * B)) / d if d > 0 else 0.0
    return float(np.clip(lam, 0.0, 1.0))


def ppi_mean_stratified(
    y: Any,
    yhat: Any,
    yhat_unlabeled: Any,
    strata: Any,
    strata_unlabeled: Any,
    *,
    lam: float | None = None,
    clusters: Any = None,
    clusters_unlabeled: Any = None,
    confidence_level: float = 0.95,
    interval: Interval = "t",
) -> tuple[Estimate, dict[str, Estimate]]:
    """Stratified PPI: per-stratum PPI(++) estimates combined with the strata's shares of items.

    ``theta_hat = sum_h w_h theta_hat_h`` with ``w_h = (n_h + N_h)/(n + N)`` (the stratum's share
    of all items, labelled or not) and ``theta_hat_h`` the PPI estimate in stratum ``h``. With
    ``lam=None`` one ``lam`` is power-tuned for all strata (:func:`_pooled_lambda`: the minimiser
    of the stratified variance; Fisch et al. 2024, eq. 8, tune one per stratum, which is too
    noisy with ~25 labelled items per stratum — it under-covered at n = 50). Its variance
    is that of the weighted contributions, summed within clusters when clusters cross strata.
    The variance adds the term of the stratum shares ``w_h``, which are estimated from the
    sample too (``sum_h theta_h (w_h - W_h)``, contributions ``(theta_h - theta)/(n + N)`` per
    item). Every stratum needs at least 2 labelled and 1 unlabelled item. With ``interval="t"`` each
    stratum's labelled and unlabelled items are separate samples of :func:`_spread` (own
    small-sample divisor; ``n_h - 2`` when ``lam_h`` is tuned) and the degrees of freedom are
    Satterthwaite's over all ``2H`` samples (Cochran 1977, Sec. 5.4).

    Returns
    -------
    (overall, per_stratum)
        The combined estimate (``extra['weights']``, ``extra['lam']`` per stratum) and a dict of
        per-stratum :class:`Estimate` (each a plain :func:`ppi_mean` within the stratum).

    Examples
    --------
    >>> y = [1, 0, 1, 1, 0, 0]; f = [1, 0, 1, 0, 0, 1]; s = list("aaabbb")
    >>> fu = [1, 1, 0, 0]; su = list("abab")
    >>> overall, per = ppi_mean_stratified(y, f, fu, s, su, lam=1.0)
    >>> round(overall.estimate, 4), sorted(per)
    (0.5, ['a', 'b'])
    """
    y, f, fu = _check_sets(y, yhat, yhat_unlabeled)
    _check_lam(lam)
    _check_interval(interval)
    _level(confidence_level)
    n, N = y.size, fu.size
    s = np.asarray([str(v) for v in np.asarray(strata).ravel()], dtype=object)
    su = np.asarray([str(v) for v in np.asarray(strata_unlabeled).ravel()], dtype=object)
    if s.shape != (n,) or su.shape != (N,):
        raise ValueError("strata and strata_unlabeled need one stratum per item")
    cl = _clusters(clusters, n, "clusters")
    clu = _clusters(clusters_unlabeled, N, "clusters_unlabeled")
    if (cl is None) != (clu is None):
        raise ValueError("give clusters for both the labelled and the unlabelled items, or neither")
    levels = sorted(set(s) | set(su))
    for h in levels:
        il, iu = s == h, su == h
        if il.sum() < 2 or iu.sum() < 1:
            raise ValueError(
                f"stratum {h!r} has {int(il.sum())} labelled and {int(iu.sum())} unlabelled "
                "item(s); stratified PPI needs >= 2 and >= 1 (merge small strata)"
            )
    lam_used = lam if lam is not None else _pooled_lambda(y, f, fu, s, su, levels, cl, clu)
    psi_l = np.zeros(n)
    psi_u = np.zeros(N)
    est = 0.0
    per: dict[str, Estimate] = {}
    weights: dict[str, float] = {}
    lams: dict[str, float] = {}
    for h in levels:
        il, iu = s == h, su == h
        e = ppi_mean(
            y[il],
            f[il],
            fu[iu],
            lam=lam_used,
            clusters=None if cl is None else cl[il],
            clusters_unlabeled=None if clu is None else clu[iu],
            confidence_level=confidence_level,
            interval=interval,
        )
        per[h] = e
        w = (il.sum() + iu.sum()) / (n + N)
        weights[h] = float(w)
        lams[h] = e.extra["lam"]
        est += w * e.estimate
        c = _contributions(y[il], f[il], fu[iu], e.extra["lam"])
        psi_l[il] = w * c[: il.sum()]
        psi_u[iu] = w * c[il.sum() :]
    code = {h: i for i, h in enumerate(levels)}
    parts = np.r_[[2 * code[h] for h in s], [2 * code[h] + 1 for h in su]].astype(int)
    losses = {
        2 * i + j: (2 if lam is None and j == 0 else 1) for i in code.values() for j in (0, 1)
    }
    var, df, G = _spread(np.concatenate([psi_l, psi_u]), parts, losses, cl, clu, interval)
    psi0 = np.zeros(n)
    for h in levels:
        il = s == h
        w = weights[h]
        psi0[il] = w * (y[il] - y[il].mean()) / il.sum()
    losses0 = {k: 1 for k in losses}
    var0, _, _ = _spread(np.concatenate([psi0, np.zeros(N)]), parts, losses0, cl, clu, interval)
    # The weights w_h are the strata's shares among these n + N items, themselves a sample: the
    # stratum composition varies too. Its term, sum_h theta_h * (w_h - W_h), has per-item
    # contributions (theta_h(i) - theta) / (n + N) (zero sum). Without it the interval targets
    # the mean at the observed composition and under-covers the population mean once the
    # within-stratum variance is small (n >= 200: 0.943 in docs/calibration.md).
    th = {h: per[h].estimate for h in levels}
    comp = np.r_[[th[h] - est for h in s], [th[h] - est for h in su]] / (n + N)
    var_w, _, _ = _spread(comp, np.zeros(n + N, dtype=int), {0: 1}, cl, clu, interval)
    var, var0 = var + var_w, var0 + var_w
    se = math.sqrt(var) if np.isfinite(var) else math.nan
    z = _quantile(confidence_level, df) if np.isfinite(var) else math.nan
    overall = Estimate(
        name="ppi_mean_stratified",
        estimate=float(est),
        se=se,
        ci_low=est - z * se,
        ci_high=est + z * se,
        ci_method=("PPI++ (one power-tuned lam)" if lam is None else f"PPI (lam={lam:g})")
        + ", stratified"
        + (", cluster-robust" if cl is not None else "")
        + _method_suffix(interval, df),
        level=_level(confidence_level),
        n=n,
        extra={
            "df": df,
            "interval": interval,
            "weights": weights,
            "lam": lams,
            "lam_pooled": float(lam_used),
            "n_labelled": n,
            "n_unlabelled": N,
            "n_strata": len(levels),
            "n_clusters": G if cl is not None else None,
            "var_classical": var0,
            "effective_n": n * var0 / var if var > 0 else math.nan,
        },
    )
    return overall, per


# ---------------------------------------------------------------------------------------------
# several judges: cross-fitting
# ---------------------------------------------------------------------------------------------
def _fold_ids(n: int, n_folds: int, groups: np.ndarray | None, seed: int) -> np.ndarray:
    """Fold of each labelled item; all items of a cluster share a fold (seeded permutation)."""
    keys = np.arange(n).astype(str) if groups is None else groups
    uniq, inv = np.unique(keys, return_inverse=True)
    if uniq.size < n_folds:
        raise ValueError(
            f"n_folds={n_folds} exceeds the {uniq.size} labelled cluster(s)/item(s); use fewer folds"
        )
    perm = np.random.default_rng(seed).permutation(uniq.size)
    fold_of_key = np.empty(uniq.size, dtype=int)
    fold_of_key[perm] = np.arange(uniq.size) % n_folds
    return fold_of_key[inv]


def _fit_weights(y: np.ndarray, F: np.ndarray, ratio: float, combine: Combine) -> np.ndarray:
    """Linear weights ``w`` for the prediction ``F @ w`` learnt on training items only.

    ``combine``: the multivariate PPI++ weights ``Sigma_FF^{-1} Sigma_Fy / (1 + ratio)`` (the
    control-variate optimum; pseudo-inverse when judges are collinear). ``select``: the single
    judge whose tuned ``lam_k`` gives the smallest PPI++ variance factor
    ``Var(Y - lam_k f_k) + ratio lam_k^2 Var(f_k)``.
    """
    K = F.shape[1]
    Fc = F - F.mean(axis=0)
    yc = y - y.mean()
    sff = Fc.T @ Fc / y.size
    sfy = Fc.T @ yc / y.size
    if combine == "combine":
        return np.linalg.pinv(sff) @ sfy / (1 + ratio)
    best, best_v, best_lam = 0, math.inf, 0.0
    for k in range(K):
        vk = sff[k, k]
        lam = float(np.clip(sfy[k] / ((1 + ratio) * vk), 0, 1)) if vk > 0 else 0.0
        v = float(np.var(yc - lam * Fc[:, k]) + ratio * lam * lam * vk)
        if v < best_v - 1e-15:
            best, best_v, best_lam = k, v, lam
    w = np.zeros(K)
    w[best] = best_lam
    return w


def ppi_mean_crossfit(
    y: Any,
    yhat: Any,
    yhat_unlabeled: Any,
    *,
    combine: Combine = "select",
    n_folds: int = 10,
    clusters: Any = None,
    clusters_unlabeled: Any = None,
    seed: int = 0,
    confidence_level: float = 0.95,
    interval: Interval = "t",
) -> Estimate:
    """Cross-fitted PPI with several judges: pick or combine them without double-dipping.

    The labelled items are split into ``n_folds`` folds (whole clusters per fold). For fold
    ``j``, linear weights ``w_j`` over the judges are learnt on the *other* folds (``select``:
    the best single judge with its tuned ``lam``; ``combine``: the multivariate PPI++ weights),
    and (Zrnic & Candès 2024, eq. 3)::

        theta_hat = mean_U( (1/J) sum_j F w_j ) + mean_L( Y_i - F_i w_{j(i)} )

    Every labelled item is thus corrected by a rule that never saw it, so the selection is
    accounted for. Variance: contributions of ``Y - F w_{j(i)}`` (labelled) and of the averaged
    prediction (unlabelled), cluster-summed as in :func:`ppi_mean` — ppi-python's
    ``crossppi_mean_ci`` without clusters when ``interval="normal"``; the default ``"t"`` applies
    the small-sample rules of :func:`ppi_mean` (the weights are learnt out of fold, so each
    sample loses one degree of freedom for its mean only).

    Parameters
    ----------
    yhat, yhat_unlabeled : ``(n, K)`` and ``(N, K)`` predictions of ``K`` judges.
    combine : ``"select"`` or ``"combine"``.
    n_folds : number of folds (>= 2).
    seed : seeds the fold assignment (a permutation of the sorted cluster/item keys).

    Returns
    -------
    Estimate
        ``extra['weights']`` is the ``(n_folds, K)`` weight matrix; ``extra['selected']`` counts,
        per judge, in how many folds it was chosen (``select``).

    References
    ----------
    Zrnic & Candès (2024), PNAS 121:e2322083121, eq. 3-4.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 60).astype(float)
    >>> F = np.column_stack([np.where(rng.random(60) < .9, y, 1 - y), rng.integers(0, 2, 60)])
    >>> Fu = rng.integers(0, 2, (200, 2)).astype(float)
    >>> est = ppi_mean_crossfit(y, F, Fu, n_folds=5)
    >>> est.extra["selected"]
    [5, 0]
    """
    if combine not in ("select", "combine"):
        raise ValueError(f"combine must be 'select' or 'combine', got {combine!r}")
    if not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}")
    y = _vec(y, "y")
    F = np.asarray(yhat, dtype=float)
    Fu = np.asarray(yhat_unlabeled, dtype=float)
    if F.ndim == 1:
        F = F[:, None]
    if Fu.ndim == 1:
        Fu = Fu[:, None]
    if F.shape[0] != y.size or Fu.ndim != 2 or Fu.shape[1] != F.shape[1]:
        raise ValueError(
            f"yhat must be (n, K) = ({y.size}, K) and yhat_unlabeled (N, K); got {F.shape}, {Fu.shape}"
        )
    if not (np.all(np.isfinite(F)) and np.all(np.isfinite(Fu))):
        raise ValueError("yhat/yhat_unlabeled have missing values; code invalid verdicts first")
    if Fu.shape[0] < 1:
        raise ValueError("need at least 1 unlabelled item")
    _check_interval(interval)
    _level(confidence_level)
    n, N = y.size, Fu.shape[0]
    cl = _clusters(clusters, n, "clusters")
    clu = _clusters(clusters_unlabeled, N, "clusters_unlabeled")
    if (cl is None) != (clu is None):
        raise ValueError("give clusters for both the labelled and the unlabelled items, or neither")
    folds = _fold_ids(n, n_folds, cl, seed)
    W = np.zeros((n_folds, F.shape[1]))
    g_oof = np.empty(n)
    for j in range(n_folds):
        tr = folds != j
        W[j] = _fit_weights(y[tr], F[tr], n / N, combine)
        g_oof[~tr] = F[~tr] @ W[j]
    g_u = Fu @ W.mean(axis=0)  # average of the fold rules (linear, so average the weights)
    r = y - g_oof
    est = float(g_u.mean() + r.mean())
    psi = np.concatenate([(r - r.mean()) / n, (g_u - g_u.mean()) / N])
    parts = np.r_[np.zeros(n, int), np.ones(N, int)]
    var, df, G = _spread(psi, parts, {0: 1, 1: 1}, cl, clu, interval)
    psi0 = np.concatenate([(y - y.mean()) / n, np.zeros(N)])
    var0, _, _ = _spread(psi0, parts, {0: 1, 1: 1}, cl, clu, interval)
    se = math.sqrt(var) if np.isfinite(var) else math.nan
    z = _quantile(confidence_level, df) if np.isfinite(var) else math.nan
    return Estimate(
        name="ppi_mean_crossfit",
        estimate=est,
        se=se,
        ci_low=est - z * se,
        ci_high=est + z * se,
        ci_method=f"cross-fitted PPI ({combine}, {n_folds} folds)"
        + (", cluster-robust" if cl is not None else "")
        + _method_suffix(interval, df),
        level=_level(confidence_level),
        n=n,
        extra={
            "df": df,
            "interval": interval,
            "weights": W.tolist(),
            "selected": [int(v) for v in (W != 0).sum(axis=0)] if combine == "select" else None,
            "n_labelled": n,
            "n_unlabelled": N,
            "n_clusters": G if cl is not None else None,
            "var_classical": var0,
            "effective_n": n * var0 / var if var > 0 else math.nan,
            "seed": seed,
        },
    )


# ---------------------------------------------------------------------------------------------
# misclassification correction
# ---------------------------------------------------------------------------------------------
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
    n_resamples: int = 4000,
    seed: int = 0,
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
    proportions and takes percentiles of the truncated estimate. Both intervals are truncated to
    ``[0, 1]``; their coverage is measured in ``benchmarks/calibration/ppi.py``.

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
