"""Intraclass correlations: the six forms of Shrout & Fleiss (1979) / McGraw & Wong (1996).

From the two-way ANOVA of ``n`` targets (items) x ``k`` judges (raters) with complete data
(items with a missing rating are excluded and counted), mean squares ``MSR`` (rows/targets),
``MSC`` (columns/judges), ``MSE`` (residual) and ``MSW = (SSC + SSE) / (n (k-1))``:

=========  ==============  ==========================================================
form       McGraw & Wong   estimate
=========  ==============  ==========================================================
ICC(1,1)   ICC(1)          (MSR - MSW) / (MSR + (k-1) MSW)
ICC(2,1)   ICC(A,1)        (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n)
ICC(3,1)   ICC(C,1)        (MSR - MSE) / (MSR + (k-1) MSE)
ICC(1,k)   ICC(k)          (MSR - MSW) / MSR
ICC(2,k)   ICC(A,k)        (MSR - MSE) / (MSR + (MSC - MSE) / n)
ICC(3,k)   ICC(C,k)        (MSR - MSE) / MSR
=========  ==============  ==========================================================

F-based intervals (McGraw & Wong 1996, Table 7; Shrout & Fleiss 1979): with
``F_L = F0 / F_{1-a/2}(df1, df2)`` and ``F_U = F0 * F_{1-a/2}(df2, df1)``, single-measure
forms give ``((F_L - 1)/(F_L + k - 1), (F_U - 1)/(F_U + k - 1))`` and average-measure forms
``(1 - 1/F_L, 1 - 1/F_U)``; ICC(2,1) uses Satterthwaite's degrees of freedom ``v`` and
``F* = F_{1-a/2}(n-1, v)``, ``F** = F_{1-a/2}(v, n-1)``, and ICC(2,k) the Spearman–Brown step-up
of the ICC(2,1) limits (identical to McGraw & Wong's ICC(A,k) formula).

Item weights ``w`` enter the ANOVA sums of squares as frequency weights (``n = sum w``), so a
bootstrap of the targets is one vectorised call.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._lazy import stats
from ..groups import group_codes
from ..resampling import Bootstrap
from ..results import Estimate
from .bootstrap import check_ci, cluster_note, resampling
from .coding import as_ratings, finish, from_rating_matrix, item_weights

ICC_FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
MCGRAW_WONG = {
    "ICC1": "ICC(1)",
    "ICC2": "ICC(A,1)",
    "ICC3": "ICC(C,1)",
    "ICC1k": "ICC(k)",
    "ICC2k": "ICC(A,k)",
    "ICC3k": "ICC(C,k)",
}
SHROUT_FLEISS = {
    "ICC1": "ICC(1,1)",
    "ICC2": "ICC(2,1)",
    "ICC3": "ICC(3,1)",
    "ICC1k": "ICC(1,k)",
    "ICC2k": "ICC(2,k)",
    "ICC3k": "ICC(3,k)",
}


def _complete(X: Any) -> tuple[np.ndarray, np.ndarray]:
    X = as_ratings(X)
    if X.shape[1] < 2:
        raise ValueError("an ICC needs at least two raters (columns)")
    return X, ~np.isnan(X).any(axis=1)


def mean_squares(X: np.ndarray, W: np.ndarray) -> dict[str, np.ndarray]:
    """Weighted two-way ANOVA mean squares of complete rows of ``X`` for every row of ``W``.

    The sums of squares are differences of large sums: ``X`` is first shifted by its mean (they
    do not change), and a sum of squares below what rounding leaves behind — ``1e-12`` of the
    total, or the rounding of the scores themselves — is 0. Without that, constant scores gave
    ICCs such as 2.77 from rounding noise, and identical raters 0.9999999999999992.
    """
    k = X.shape[1]
    n = W.sum(axis=1)
    scale = float(np.abs(X).max()) if X.size else 0.0
    X = X - (X.mean() if X.size else 0.0)
    rows = X.mean(axis=1)
    grand = (W @ rows) / n
    cols = (W @ X) / n[:, None]  # (b, k)
    ss_tot = W @ (X**2).sum(axis=1) - n * k * grand**2
    ss_r = k * (W @ rows**2 - n * grand**2)
    ss_c = n * ((cols**2).sum(axis=1) - k * grand**2)
    ss_e = ss_tot - ss_r - ss_c
    floor = np.maximum(1e-12 * ss_tot, n * k * (64 * np.finfo(float).eps * scale) ** 2)
    ss_tot, ss_r, ss_c, ss_e = (np.where(ss <= floor, 0.0, ss) for ss in (ss_tot, ss_r, ss_c, ss_e))
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "n": n,
            "k": np.full_like(n, k),
            "msr": ss_r / (n - 1),
            "msc": ss_c / (k - 1),
            "mse": ss_e / ((n - 1) * (k - 1)),
            "msw": (ss_c + ss_e) / (n * (k - 1)),
        }


def _forms(ms: dict[str, np.ndarray]) -> np.ndarray:
    n, k = ms["n"], ms["k"]
    msr, msc, mse, msw = ms["msr"], ms["msc"], ms["mse"], ms["msw"]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack(
            [
                (msr - msw) / (msr + (k - 1) * msw),
                (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
                (msr - mse) / (msr + (k - 1) * mse),
                (msr - msw) / msr,
                (msr - mse) / (msr + (msc - mse) / n),
                (msr - mse) / msr,
            ],
            axis=-1,
        )


def icc_a1_against(X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """ICC(A,1) of each column of ``X`` (``(n, m)``) paired with ``y`` under each row of
    ``W`` (``(B, n)``): shape ``(B, m)``.

    The two-rater ANOVA of :func:`mean_squares` (rows with a NaN get weight 0, the scores
    shifted by their mean first, a sum of squares within rounding of 0 is 0) from five
    weighted sums per column — ``sum w``, ``sum w r``, ``sum w r^2``, ``sum w a``,
    ``sum w b`` and ``sum w (a^2 + b^2)`` with ``r = (a + b) / 2`` — so one matrix product
    serves every column and resample; the same numbers as :func:`icc_core` with
    ``form="ICC2"`` up to the order of summation.

    Examples
    --------
    >>> X = np.array([[9.0, 2], [6, 1], [8, 4], [7, 1], [10, 5], [6, 2]])
    >>> y = np.array([5.0, 3, 6, 2, 6, 4])
    >>> r = icc_a1_against(X, y, np.ones((1, 6)))[0]
    >>> bool(np.allclose(r, [icc_core(np.c_[X[:, j], y], form="ICC2") for j in range(2)]))
    True
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = ~(np.isnan(X) | np.isnan(y)[:, None])
    a = np.where(ok, X, 0.0)
    b = np.where(ok, y[:, None], 0.0)
    scale = np.maximum(np.abs(a).max(0), np.abs(b).max(0)) if a.size else np.zeros(X.shape[1])
    shift = (a.sum(0) + b.sum(0)) / (2 * max(a.shape[0], 1))
    a, b = (a - shift) * ok, (b - shift) * ok
    r = (a + b) / 2
    F = np.concatenate([ok.astype(float), r, r**2, a, b, a**2 + b**2], 1)
    m = X.shape[1]
    n, sr, sr2, sa, sb, sq = np.moveaxis((W @ F).reshape(-1, 6, m), 1, 0)
    k = 2
    with np.errstate(invalid="ignore", divide="ignore"):
        grand = sr / n
        ss_tot = sq - n * k * grand**2
        ss_r = k * (sr2 - n * grand**2)
        ss_c = n * ((sa / n) ** 2 + (sb / n) ** 2 - k * grand**2)
        ss_e = ss_tot - ss_r - ss_c
        floor = np.maximum(1e-12 * ss_tot, n * k * (64 * np.finfo(float).eps * scale) ** 2)
        ss_r, ss_c, ss_e = (np.where(ss <= floor, 0.0, ss) for ss in (ss_r, ss_c, ss_e))
        msr, msc, mse = ss_r / (n - 1), ss_c / (k - 1), ss_e / ((n - 1) * (k - 1))
        out = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    return np.where(np.isfinite(out), out, np.nan)


def icc_core(X: Any, w: np.ndarray | None = None, *, form: str | None = None) -> np.ndarray | float:
    """ICCs of the complete rows of ``X`` under item weights ``w``.

    ``form=None`` returns all six forms (last axis, order :data:`ICC_FORMS`); otherwise one.
    """
    X, ok = _complete(X)
    W, batched = item_weights(w, X.shape[0])
    out = _forms(mean_squares(X[ok], W[:, ok]))
    if form is not None:
        out = out[:, ICC_FORMS.index(form)]
        return finish(out, batched)
    return out if batched else out[0]


def _f_intervals(
    ms: dict[str, float], icc: np.ndarray, confidence: float
) -> list[tuple[float, float, float, float, float, float]]:
    """(F, df1, df2, p, low, high) for each form (McGraw & Wong 1996, Table 7).

    Without residual variance (``MSE = 0`` or ``MSW = 0``: every rater gives each target the
    same score, or differs by a constant) while the targets vary, ``F`` is infinite and the
    limits are their limits as the residual variance goes to 0: 1 for the forms whose estimate
    is 1, and for ICC(2,·) the formula's limits with Satterthwaite's ``v -> (k - 1)``. Without
    any variance the forms are not defined: NaN.
    """
    n, k = float(ms["n"]), float(ms["k"])
    msr, msc, mse, msw = (np.float64(ms[key]) for key in ("msr", "msc", "mse", "msw"))
    a = 1 - confidence
    df1, df1w, df2e = n - 1, n * (k - 1), (n - 1) * (k - 1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        f1 = msr / msw
        f3 = msr / mse
        f1l, f1u = f1 / stats.f.ppf(1 - a / 2, df1, df1w), f1 * stats.f.ppf(1 - a / 2, df1w, df1)
        f3l, f3u = f3 / stats.f.ppf(1 - a / 2, df1, df2e), f3 * stats.f.ppf(1 - a / 2, df2e, df1)
        # ICC(2,1): Satterthwaite df (McGraw & Wong 1996, Table 7, case 2A)
        r2 = icc[1]
        fj = msc / mse
        vn = df2e * (k * r2 * fj + n * (1 + (k - 1) * r2) - k * r2) ** 2
        vd = df1 * k**2 * r2**2 * fj**2 + (n * (1 + (k - 1) * r2) - k * r2) ** 2
        v = vn / vd
        if mse == 0 and msr > 0:
            v = df2e / df1  # its limit as MSE -> 0 (fj -> infinity)
        fs, fss = stats.f.ppf(1 - a / 2, n - 1, v), stats.f.ppf(1 - a / 2, v, n - 1)
        l2 = n * (msr - fs * mse) / (fs * (k * msc + (k * n - k - n) * mse) + n * msr)
        u2 = n * (fss * msr - mse) / (k * msc + (k * n - k - n) * mse + n * fss * msr)
        p1, p3 = stats.f.sf(f1, df1, df1w), stats.f.sf(f3, df1, df2e)

        def single(fl: float, fu: float) -> tuple[float, float]:
            if math.isinf(fl):  # F infinite: both limits tend to 1
                return 1.0, 1.0
            return (fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1)

        def average(fl: float, fu: float) -> tuple[float, float]:
            if math.isinf(fl):
                return 1.0, 1.0
            if fl == 0:  # no variance between targets: the average-measure form is not defined
                return math.nan, math.nan
            return 1 - 1 / fl, 1 - 1 / fu

        return [
            (f1, df1, df1w, p1, *single(f1l, f1u)),
            (f3, df1, df2e, p3, l2, u2),
            (f3, df1, df2e, p3, *single(f3l, f3u)),
            (f1, df1, df1w, p1, *average(f1l, f1u)),
            (f3, df1, df2e, p3, l2 * k / (1 + l2 * (k - 1)), u2 * k / (1 + u2 * (k - 1))),
            (f3, df1, df2e, p3, *average(f3l, f3u)),
        ]


def _no_variance_reason(ms: dict[str, float]) -> str:
    """Why a form is NaN: which variance is zero."""
    if ms["msr"] == 0 and ms["msw"] == 0:
        return "not defined: no variance (every score is the same)"
    if ms["msr"] == 0:
        return "not defined: no variance between targets (every target has the same mean)"
    return "not defined: no variance"


def _to_f_scale(vals: np.ndarray, k: int) -> np.ndarray:
    """``log F`` of each form: ``log((1 + (k-1) rho) / (1 - rho))`` for the single-measure
    forms, ``-log(1 - rho)`` for the average-measure ones (NaN outside their range).

    For ICC(1,1) and ICC(3,1) this is the log of the ANOVA F ratio (MSR/MSW, MSR/MSE), and the
    average forms are ``1 - 1/F``: the scale on which the ICC's sampling distribution is
    close to symmetric (Fisher's z for the intraclass correlation, doubled)."""
    single = np.arange(vals.shape[-1]) < 3
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.log((1 + (k - 1) * vals) / (1 - vals))
        a = -np.log(1 - vals)
    return np.where(single, s, a)


def _from_f_scale(z: np.ndarray, k: int) -> np.ndarray:
    """Inverse of :func:`_to_f_scale`."""
    single = np.arange(z.shape[-1]) < 3
    f = np.exp(z)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(single, (f - 1) / (f + k - 1), 1 - 1 / f)


def _cluster_intervals(
    Xz: np.ndarray, ok: np.ndarray, clusters: Any, vals: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Cluster-aware intervals of the six forms: the leave-one-cluster-out jackknife on the
    ``log F`` scale (:func:`_to_f_scale`), ``se^2 = (G-1)/G sum_g (z_(-g) - zbar)^2``, t with
    ``G-1`` df, limits transformed back. Returns (se on the ICC scale by the delta method,
    low, high, G)."""
    k = Xz.shape[1]
    codes, g_all = group_codes(np.asarray(clusters))
    used = np.flatnonzero(np.bincount(codes[ok], minlength=g_all) > 0)
    g = int(used.size)
    nan = np.full(6, np.nan)
    if g < 2:
        return nan, nan, nan, g
    J = np.ones((g, Xz.shape[0]))
    pos = np.full(g_all, -1)
    pos[used] = np.arange(g)
    item_pos = pos[codes]
    inside = item_pos >= 0
    J[item_pos[inside], np.flatnonzero(inside)] = 0.0
    zj = _to_f_scale(_forms(mean_squares(Xz, J * ok[None, :])), k)  # (G, 6)
    z = _to_f_scale(vals[None, :], k)[0]
    with np.errstate(invalid="ignore"):
        se_z = np.sqrt((g - 1) / g * ((zj - zj.mean(axis=0)) ** 2).sum(axis=0))
    q = stats.t.ppf(0.5 + confidence / 2, g - 1)
    lo = _from_f_scale((z - q * se_z)[None, :], k)[0]
    hi = _from_f_scale((z + q * se_z)[None, :], k)[0]
    eps = 1e-6  # delta method for the SE on the ICC scale
    up = _from_f_scale((z + eps)[None, :], k)[0]
    down = _from_f_scale((z - eps)[None, :], k)[0]
    return np.abs(up - down) / (2 * eps) * se_z, lo, hi, g


def icc(
    X: Any,
    *,
    ci: str | None = "analytic",
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    clusters: Any = None,
) -> list[Estimate]:
    """The six ICC forms with F-based (``ci="analytic"``) or bootstrap intervals.

    ``X`` is targets (items) x judges (raters) of interval/ratio scores. Rows with a missing
    rating are excluded (listwise, counted in ``excluded``), as in Shrout & Fleiss and
    pingouin. Each :class:`Estimate` is named ``ICC1`` … ``ICC3k`` with the Shrout–Fleiss and
    McGraw–Wong labels, the F test (``F``, ``df1``, ``df2``, ``p_value``) and the mean squares
    in ``extra``.

    Parameters
    ----------
    X : array_like, shape (n_targets, n_raters)
        Interval/ratio scores; rows with a missing rating are excluded and counted.
    ci : {"analytic", "bootstrap", None}, default "analytic"
        ``"analytic"``: F-based exact intervals (McGraw & Wong 1996, Table 7) for independent
        targets; with ``clusters`` the leave-one-cluster-out jackknife on the ``log F`` scale
        (t with ``G-1`` df, limits transformed back), since the F intervals assume independent
        targets (they covered 84-95% on 20-60 images x 2-6 targets, the cluster BCa 90-94%,
        the jackknife 93.9-95.5%; docs/calibration.md).
        ``"bootstrap"``: the (cluster) bootstrap.
    confidence_level : float, default 0.95
        Coverage of the intervals.
    bootstrap : Bootstrap, optional
        Resampling settings for ``ci="bootstrap"`` (BCa by default).
    clusters : array_like, optional
        One label per target (an image, a case): the intervals keep the clusters (see ``ci``);
        ``extra`` holds ``n_clusters`` and, below 30 clusters, a ``warning``.

    Returns
    -------
    list of Estimate
        ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k.

    References
    ----------
    Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
    reliability. Psychological Bulletin 86:420-428.
    McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
    coefficients. Psychological Methods 1:30-46.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> X = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> [(e.name, round(e.estimate, 2)) for e in mj.icc(X)][:3]
    [('ICC1', 0.17), ('ICC2', 0.29), ('ICC3', 0.71)]
    """
    ci = check_ci(ci)
    ci = "analytic" if ci == "auto" else ci  # the exact F intervals (McGraw & Wong 1996)
    X, ok = _complete(from_rating_matrix(X, {}, ()))
    rs = resampling(bootstrap, clusters, X.shape[0], confidence_level)
    confidence = rs.confidence_level
    excluded = {"items_with_missing_rating": int((~ok).sum())} if (~ok).any() else {}
    n = int(ok.sum())
    ms1 = {key: float(v[0]) for key, v in mean_squares(X[ok], np.ones((1, n))).items()}
    vals = _forms({key: np.array([v]) for key, v in ms1.items()})[0]
    # a form dividing by a zero variance (MSR = 0 in an average-measure form: -inf) is not
    # defined, like 0/0 (no variance at all): NaN, with the reason in ``extra``
    vals = np.where(np.isfinite(vals), vals, np.nan)
    # rows with a missing rating get weight 0 — and a 0 in place of the NaN, which would
    # otherwise make every resample (0 * NaN) and so the interval NaN
    Xz = np.where(ok[:, None], X, 0.0)
    fint = _f_intervals(ms1, vals, confidence) if n >= 2 else [(math.nan,) * 6] * 6
    if ci == "bootstrap":
        intervals = _bootstrap_intervals(Xz, ok, rs)
    elif ci == "analytic" and rs.plan.clusters is not None:
        intervals = _clustered(Xz, ok, rs.plan.clusters, vals, confidence)
    elif ci == "analytic":
        intervals = [
            (math.nan, min(f[4], 1.0), min(f[5], 1.0), "F-based (McGraw & Wong 1996)", {})
            for f in fint
        ]  # the limits are at most 1 (rounding only; NaN kept)
    else:
        intervals = [(math.nan, math.nan, math.nan, "", {})] * 6
    out = []
    for j, form in enumerate(ICC_FORMS):
        f, d1, d2, pv = fint[j][:4]
        extra = {
            "shrout_fleiss": SHROUT_FLEISS[form],
            "mcgraw_wong": MCGRAW_WONG[form],
            "F": float(f),
            "df1": float(d1),
            "df2": float(d2),
            "p_value": float(pv),
            "raters": X.shape[1],
            **{key: ms1[key] for key in ("msr", "msc", "mse", "msw")},
        }
        if math.isnan(vals[j]) and n >= 2:
            extra["not_defined"] = _no_variance_reason(ms1)
        se, lo, hi, method, more = intervals[j]
        extra.update(more)
        out.append(
            Estimate(form, float(vals[j]), se, lo, hi, method, confidence, n, excluded, extra)
        )
    return out


def _bootstrap_intervals(
    Xz: np.ndarray, ok: np.ndarray, rs: Any
) -> list[tuple[float, float, float, str, dict[str, Any]]]:
    """(se, low, high, method, extra) of the six forms from one (cluster) bootstrap: every
    form is evaluated on the same resamples in one call (they share the mean squares)."""

    def stat(W: np.ndarray) -> np.ndarray:
        return _forms(mean_squares(Xz, W * ok[None, :]))

    est = rs.estimates(ICC_FORMS, stat, Xz.shape[0], n=int(ok.sum()))
    keys = ("n_resamples", "seed", "boot_undefined")
    return [
        (e.se, e.ci_low, e.ci_high, e.ci_method, {k: e.extra[k] for k in keys if k in e.extra})
        for e in est
    ]


def _clustered(
    Xz: np.ndarray, ok: np.ndarray, clusters: Any, vals: np.ndarray, confidence: float
) -> list[tuple[float, float, float, str, dict[str, Any]]]:
    """(se, low, high, method, extra) of the six forms from the cluster jackknife on the
    ``log F`` scale (:func:`_cluster_intervals`)."""
    c_se, c_lo, c_hi, g = _cluster_intervals(Xz, ok, clusters, vals, confidence)
    method = f"cluster jackknife on the log F scale ({g} clusters, t df={g - 1})"
    extra = {"n_clusters": g, "df": g - 1, **cluster_note(g)}
    out = []
    for j in range(len(ICC_FORMS)):
        if np.isfinite(c_lo[j]) and np.isfinite(c_hi[j]):
            out.append((float(c_se[j]), float(c_lo[j]), float(min(c_hi[j], 1.0)), method, extra))
        else:
            out.append((math.nan, math.nan, math.nan, method, extra))
    return out
