"""Scores against a reference on an interval/ratio scale: error, correlation, concordance and
Bland–Altman limits of agreement — array kernels.

Every statistic here is a function of weighted per-item sums, so :func:`score_agreement_core`
evaluates all of them for a ``(B, n)`` matrix of bootstrap resample counts in one pass (the
shared resampling engine, :mod:`medjudge.stats.resampling`; cluster bootstrap when items
cluster). With ``d_i = x_i - y_i`` (judge minus reference) and weights ``w_i`` (``N = sum w``):

* bias ``dbar = sum w d / N``; MAE ``sum w |d| / N``; RMSE ``sqrt(sum w d^2 / N)``;
* SD of the differences ``s = sqrt(sum w (d - dbar)^2 / (N - 1))`` and the 95% limits of
  agreement ``dbar -/+ z s`` (Bland & Altman 1986, Lancet i:307-310, p. 308);
* Pearson ``r = s_xy / (s_x s_y)``;
* Lin's (1989) concordance correlation ``rho_c = 2 s_xy / (s_x^2 + s_y^2 + (xbar - ybar)^2)``
  with moments divided by ``N`` (Lin 1989, Biometrics 45:255-268, eq. 2 with sample moments).

Analytic intervals (independent items):

* :func:`bland_altman` — bias ``dbar -/+ t_{n-1} s / sqrt(n)``; each limit ``-/+ t_{n-1} SE``
  with ``SE = s sqrt(1/n + z^2 / (2 (n - 1)))`` (Bland & Altman 1999, Stat Methods Med Res
  8:135-160, sec. 2.3), approximately ``sqrt(3 s^2 / n)`` (Bland & Altman 1986, p. 310).
* :func:`lin_ccc` — Fisher's ``Z = atanh(rho_c)`` with Lin's (1989, p. 258; corrected in Lin
  2000, Biometrics 56:324-325) variance
  ``sigma_Z^2 = [(1 - r^2) rho_c^2 / ((1 - rho_c^2) r^2) + 2 rho_c^3 (1 - rho_c) u^2 /
  (r (1 - rho_c^2)^2) - rho_c^4 u^4 / (2 r^2 (1 - rho_c^2)^2)] / (n - 2)``,
  ``u = (xbar - ybar) / sqrt(s_x s_y)``.
* :func:`pearson_interval` — Fisher's z, ``atanh(r) -/+ z / sqrt(n - 3)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .agreement.icc import icc_a1_against, icc_core
from .resampling import BLOCK_BYTES, ResamplePlan, bootstrap_interval, bootstrap_se
from .results import Estimate

SCORE_STATISTICS: tuple[str, ...] = (
    "mae",
    "rmse",
    "bias",
    "sd_difference",
    "loa_low",
    "loa_high",
    "pearson",
    "ccc",
)

__all__ = [
    "SCORE_STATISTICS",
    "score_agreement_core",
    "score_agreement_many",
    "bland_altman",
    "lin_ccc",
    "pearson_interval",
]


#: a variance below this fraction of the mean square is rounding residue: the scores are constant
_FLAT = 1e-12


def constant_side(x: np.ndarray, y: np.ndarray) -> str:
    """Why a correlation of ``x`` (the rater) with ``y`` (the reference) is not defined — one
    side gives every item the same score — or ``""`` when both vary (NaN pairs ignored).

    >>> constant_side(np.array([5.0, 5.0, 5.0]), np.array([1.0, 2.0, 3.0]))
    'the rater gives every item the same score (5)'
    """
    ok = ~(np.isnan(x) | np.isnan(y))
    xs, ys = x[ok], y[ok]
    if xs.size and np.all(xs == xs[0]):
        return f"the rater gives every item the same score ({xs[0]:g})"
    if ys.size and np.all(ys == ys[0]):
        return f"the reference is the same on every item ({ys[0]:g})"
    return ""


def _pair(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-D of the same length, got {x.shape} and {y.shape}")
    if np.isinf(x).any() or np.isinf(y).any():
        raise ValueError("scores must be finite (use NaN for missing)")
    return x, y


def score_agreement_core(
    x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, *, z: float = 1.959963984540054
) -> np.ndarray:
    """All of :data:`SCORE_STATISTICS` for scores ``x`` against reference ``y`` under item
    weights ``w`` (``(n,)`` or ``(B, n)``); pairs with a NaN are given weight 0.

    Returns shape ``(8,)`` (``w`` None or 1-D) or ``(B, 8)``, in the order of
    :data:`SCORE_STATISTICS`. ``z`` sets the limits of agreement (``dbar -/+ z s``).

    Examples
    --------
    >>> np.round(score_agreement_core([1, 2, 3, 4], [1, 2, 3, 5]), 4).tolist()
    [0.25, 0.5, -0.25, 0.5, -1.23, 0.73, 0.9827, 0.9286]
    """
    x, y = _pair(x, y)
    ok = ~(np.isnan(x) | np.isnan(y))
    x0, y0 = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    W = np.ones((1, x.size)) if w is None else np.asarray(w, dtype=float)
    squeeze = W.ndim == 1 or w is None
    W = np.atleast_2d(W) * ok[None, :]
    d = x0 - y0
    with np.errstate(invalid="ignore", divide="ignore"):
        n = W.sum(1)
        mx, my = (W @ x0) / n, (W @ y0) / n
        dbar = mx - my
        sxx = (W @ x0**2) / n - mx**2
        syy = (W @ y0**2) / n - my**2
        sxy = (W @ (x0 * y0)) / n - mx * my
        sxx, syy = np.maximum(sxx, 0.0), np.maximum(syy, 0.0)
        sdd = np.maximum((W @ d**2) / n - dbar**2, 0.0)
        sd = np.sqrt(sdd * n / (n - 1))
        out = np.stack(
            [
                (W @ np.abs(d)) / n,
                np.sqrt((W @ d**2) / n),
                dbar,
                sd,
                dbar - z * sd,
                dbar + z * sd,
                # a constant side (no variance, up to rounding) has no correlation: NaN, never
                # the +/-inf of a rounding residue divided by zero
                np.where(
                    (sxx > _FLAT * ((W @ x0**2) / n)) & (syy > _FLAT * ((W @ y0**2) / n)),
                    sxy / np.sqrt(sxx * syy),
                    np.nan,
                ),
                2 * sxy / (sxx + syy + dbar**2),
            ],
            axis=1,
        )
    return out[0] if squeeze else out


def score_agreement_many(
    X: np.ndarray, y: np.ndarray, W: np.ndarray, *, z: float = 1.959963984540054
) -> np.ndarray:
    """:func:`score_agreement_core` of every column of ``X`` (``(n, m)``, one rater a column)
    against ``y`` under each row of ``W`` (``(B, n)``): shape ``(B, m, 8)``.

    Every statistic is a function of eight weighted sums per rater (pairs with a NaN get
    weight 0): ``sum w``, ``sum w x``, ``sum w y``, ``sum w x^2``, ``sum w y^2``,
    ``sum w x y``, ``sum w |d|`` and ``sum w d^2``, so one matrix product ``W @ F`` gives them
    for all raters and resamples (a bootstrap of ``m`` raters reads ``W`` once, not ``8 m``
    times). The same numbers as :func:`score_agreement_core` up to the order of summation.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, np.nan], [4.0, 5.0]])
    >>> r = score_agreement_many(X, np.array([1.0, 2.0, 3.0, 5.0]), np.ones((1, 4)))
    >>> np.round(r[0, :, 0], 4).tolist()  # MAE of each column (the NaN pair dropped)
    [0.25, 0.3333]
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = ~(np.isnan(X) | np.isnan(y)[:, None])
    x0 = np.where(ok, X, 0.0)
    y0 = np.where(ok, y[:, None], 0.0)
    d = x0 - y0
    F = np.concatenate([ok.astype(float), x0, y0, x0**2, y0**2, x0 * y0, np.abs(d), d**2], 1)
    m = X.shape[1]
    sums = (W @ F).reshape(-1, 8, m)  # W: weights, or a plan that forms W @ F itself
    n, sx, sy, sx2, sy2, sxy2, sad, sd2 = np.moveaxis(sums, 1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = sx / n, sy / n
        dbar = mx - my
        sxx = np.maximum(sx2 / n - mx**2, 0.0)
        syy = np.maximum(sy2 / n - my**2, 0.0)
        sxy = sxy2 / n - mx * my
        sd = np.sqrt(np.maximum(sd2 / n - dbar**2, 0.0) * n / (n - 1))
        flat = (sxx <= _FLAT * (sx2 / n)) | (syy <= _FLAT * (sy2 / n))
        return np.stack(
            [
                sad / n,
                np.sqrt(sd2 / n),
                dbar,
                sd,
                dbar - z * sd,
                dbar + z * sd,
                np.where(flat, np.nan, sxy / np.sqrt(sxx * syy)),
                2 * sxy / (sxx + syy + dbar**2),
            ],
            axis=-1,
        )


#: a replicate within this relative distance of the estimate equals it (rounding residue of
#: the summation order; with discrete scores a resample often has exactly the estimate's value)
_TIE = 1e-12


class SharedDraws(ResamplePlan):
    """A :class:`~medjudge.stats.resampling.ResamplePlan` that keeps the resample counts it
    draws, so that every product of a score study on the same items (each rater's sums, the
    ICC sums, the rank tables, every dimension) reads them instead of drawing them again.

    The counts are the plan's own, block for block (the same stream with the same block
    rows), so every number equals the plan's. They are kept only when they fit in
    :data:`~medjudge.stats.resampling.BLOCK_BYTES` (else drawn for each product, as the plan
    does), read-only.

    Examples
    --------
    >>> plan = SharedDraws(5, 20, seed=3)
    >>> X = np.arange(10.0).reshape(5, 2)
    >>> bool(np.array_equal(plan @ X, ResamplePlan(5, 20, seed=3) @ X))
    True
    >>> len(plan.__dict__["_drawn"])  # kept for the next product
    1
    """

    def count_blocks(self, rows: int | None = None):  # noqa: ANN201 - as the plan's
        """The plan's ``(rows, counts)`` blocks, drawn the first time they are asked for."""
        n_clusters = self.cluster_jackknife().n_clusters
        key = rows or self._block_rows(n_clusters)
        drawn = self.__dict__.setdefault("_drawn", {})
        if key not in drawn:
            if self.n_resamples * n_clusters * 8 > BLOCK_BYTES or len(drawn) >= 2:
                yield from super().count_blocks(rows)
                return
            blocks = list(super().count_blocks(rows))
            for _, counts in blocks:
                counts.flags.writeable = False
            drawn[key] = blocks
        yield from drawn[key]

    def transposed_counts(self) -> np.ndarray | None:
        """All the resample counts as one C-ordered ``(n_clusters, B)`` array (kept; None when
        the counts are not kept): for products ``S @ counts.T`` with a sparse ``S``."""
        if "_transposed" not in self.__dict__:
            blocks = list(self.count_blocks())
            t = None
            if self.__dict__.get("_drawn"):  # kept: small enough to hold
                t = np.ascontiguousarray(np.concatenate([c for _, c in blocks], axis=0).T)
                t.flags.writeable = False
            self.__dict__["_transposed"] = t
        return self.__dict__["_transposed"]


def bootstrap_raters(
    X: np.ndarray, y: np.ndarray, plan: ResamplePlan, confidence_level: float, method: str
) -> list[dict[str, tuple]]:
    """BCa intervals of :data:`SCORE_STATISTICS` and ICC(A,1) for every column of ``X``
    against ``y``: all columns and statistics on the same resamples, in one product with the
    resample weights ``W`` and one with the jackknife weights ``J``. The estimates are those of
    :func:`score_agreement_core` and :func:`~medjudge.stats.agreement.icc.icc_core`; a
    replicate equal to its estimate up to rounding counts as a tie in BCa's bias correction."""
    m = X.shape[1]
    theta = np.empty((m, len(SCORE_STATISTICS) + 1))
    for j in range(m):
        theta[j, :-1] = score_agreement_core(X[:, j], y)
        with np.errstate(all="ignore"):
            theta[j, -1] = icc_core(np.c_[X[:, j], y], form="ICC2")
    theta[~np.isfinite(theta)] = np.nan

    def stat(w: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [score_agreement_many(X, y, w), icc_a1_against(X, y, w)[:, :, None]], axis=2
        )

    boot, jack = stat(plan), stat(plan.cluster_jackknife())
    with np.errstate(invalid="ignore"):
        tie = np.abs(boot - theta) <= _TIE * np.maximum(np.abs(theta), 1.0)
        boot = np.where(tie, theta, boot)
        lo, hi = bootstrap_interval(
            theta, boot, confidence_level=confidence_level, method="bca", jack=jack
        )
    se = bootstrap_se(boot)
    names = (*SCORE_STATISTICS, "icc_a1")
    return [
        {
            s: (float(theta[j, k]), float(se[j, k]), float(lo[j, k]), float(hi[j, k]), method)
            for k, s in enumerate(names)
        }
        for j in range(m)
    ]


def bland_altman(
    x: np.ndarray,
    y: np.ndarray,
    *,
    confidence_level: float = 0.95,
    loa: float = 0.95,
    z: float | None = None,
    se_method: str = "1999",
) -> dict[str, Estimate]:
    """Bland–Altman bias and limits of agreement of ``x - y`` with their intervals.

    ``loa`` sets the limits ``dbar -/+ z_{(1+loa)/2} s`` (1.96 for 95%); the interval of each
    limit is ``limit -/+ t_{n-1} s sqrt(1/n + z^2/(2(n-1)))`` (Bland & Altman 1999, sec. 2.3),
    the bias interval ``dbar -/+ t_{n-1} s/sqrt(n)``. ``se_method="1986"`` uses the
    approximation ``SE = sqrt(3 s^2 / n)`` of Bland & Altman (1986, p. 310); ``z`` overrides the
    multiplier of ``s`` (the 1986 paper used 2). Pairs with a NaN are dropped (counted).
    Returns ``{"bias": ..., "loa_low": ..., "loa_high": ...}`` (each an :class:`Estimate`;
    ``extra["sd_difference"]``).

    References
    ----------
    Bland J.M., Altman D.G. (1986) Statistical methods for assessing agreement between two
    methods of clinical measurement. Lancet i:307-310. Bland J.M., Altman D.G. (1999)
    Measuring agreement in method comparison studies. Stat Methods Med Res 8:135-160.

    Examples
    --------
    >>> r = bland_altman([10, 12, 11, 14, 13], [11, 11, 12, 12, 12])
    >>> round(r["bias"].estimate, 3), round(r["loa_low"].estimate, 3)
    (0.4, -2.23)
    """
    x, y = _pair(x, y)
    if not 0 < confidence_level < 1 or not 0 < loa < 1:
        raise ValueError(
            f"confidence_level and loa must lie in (0, 1), got {confidence_level} and {loa}"
        )
    ok = ~(np.isnan(x) | np.isnan(y))
    d = (x - y)[ok]
    n = int(d.size)
    excluded = {"pairs_with_missing_score": int((~ok).sum())} if (~ok).any() else {}
    if se_method not in ("1999", "1986"):
        raise ValueError(f"se_method must be '1999' or '1986', got {se_method!r}")
    z = float(stats.norm.ppf(0.5 + loa / 2)) if z is None else float(z)
    if n < 2:
        nan = math.nan
        return {
            k: Estimate(k, nan, n=n, excluded=excluded, level=confidence_level)
            for k in ("bias", "loa_low", "loa_high")
        }
    dbar, s = float(d.mean()), float(d.std(ddof=1))
    t = float(stats.t.ppf(0.5 + confidence_level / 2, n - 1))
    se_b = s / math.sqrt(n)
    if se_method == "1999":
        se_l = s * math.sqrt(1.0 / n + z**2 / (2.0 * (n - 1)))
    else:
        se_l = math.sqrt(3.0 * s**2 / n)
    extra = {"sd_difference": s, "z": z, "t": t}
    meth = f"t (Bland & Altman {se_method})"
    out = {"bias": Estimate("bias", dbar, se_b, dbar - t * se_b, dbar + t * se_b, meth,
                            confidence_level, n, excluded, extra)}  # fmt: skip
    for name, lim in (("loa_low", dbar - z * s), ("loa_high", dbar + z * s)):
        out[name] = Estimate(
            name, lim, se_l, lim - t * se_l, lim + t * se_l, meth, confidence_level, n,
            excluded, extra,
        )  # fmt: skip
    return out


def lin_ccc(x: np.ndarray, y: np.ndarray, *, confidence_level: float = 0.95) -> Estimate:
    """Lin's (1989) concordance correlation coefficient with its Z-transform interval.

    ``rho_c = 2 s_xy / (s_x^2 + s_y^2 + (xbar - ybar)^2)`` (moments with divisor ``n``); the
    interval is ``tanh(atanh(rho_c) -/+ z sigma_Z)`` with Lin's variance (module docstring).
    ``extra`` holds Pearson's ``r`` (precision) and the bias correction ``C_b = rho_c / r``
    (accuracy).

    Examples
    --------
    >>> e = lin_ccc([1, 2, 3, 4, 5], [1.1, 2.3, 2.9, 4.2, 5.1])
    >>> round(e.estimate, 4), round(e.extra["pearson"], 4)
    (0.992, 0.9956)
    """
    x, y = _pair(x, y)
    ok = ~(np.isnan(x) | np.isnan(y))
    xs, ys = x[ok], y[ok]
    n = int(xs.size)
    excluded = {"pairs_with_missing_score": int((~ok).sum())} if (~ok).any() else {}
    if n < 3:
        return Estimate("ccc", math.nan, n=n, excluded=excluded, level=confidence_level)
    mx, my = xs.mean(), ys.mean()
    sx2, sy2 = xs.var(), ys.var()
    sxy = float(((xs - mx) * (ys - my)).mean())
    rc = 2 * sxy / (sx2 + sy2 + (mx - my) ** 2)
    r = sxy / math.sqrt(sx2 * sy2) if sx2 > 0 and sy2 > 0 else math.nan
    extra = {"pearson": r, "c_b": rc / r if r else math.nan}
    if not np.isfinite(r) or abs(rc) >= 1 or r == 0:
        return Estimate(
            "ccc", float(rc), n=n, excluded=excluded, extra=extra, level=confidence_level
        )
    u2 = (mx - my) ** 2 / math.sqrt(sx2 * sy2)
    var_z = (
        (1 - r**2) * rc**2 / ((1 - rc**2) * r**2)
        + 2 * rc**3 * (1 - rc) * u2 / (r * (1 - rc**2) ** 2)
        - rc**4 * u2**2 / (2 * r**2 * (1 - rc**2) ** 2)
    ) / (n - 2)
    se_z = math.sqrt(max(var_z, 0.0))
    zq = float(stats.norm.ppf(0.5 + confidence_level / 2))
    zr = math.atanh(rc)
    return Estimate(
        "ccc",
        float(rc),
        se_z,
        math.tanh(zr - zq * se_z),
        math.tanh(zr + zq * se_z),
        "Z-transform (Lin 1989, 2000)",
        confidence_level,
        n,
        excluded,
        {**extra, "se_z": se_z},
    )


def pearson_interval(x: np.ndarray, y: np.ndarray, *, confidence_level: float = 0.95) -> Estimate:
    """Pearson's r with Fisher's z interval ``tanh(atanh(r) -/+ z_{1-a/2} / sqrt(n - 3))``.

    Examples
    --------
    >>> e = pearson_interval([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5])
    >>> round(e.estimate, 4), round(e.ci_low, 4)
    (0.8286, 0.0519)
    """
    x, y = _pair(x, y)
    ok = ~(np.isnan(x) | np.isnan(y))
    n = int(ok.sum())
    if n < 4:
        return Estimate("pearson", math.nan, n=n, level=confidence_level,
                        extra={"not_defined": f"not defined: {n} paired scores (4 needed)"})  # fmt: skip
    flat = constant_side(x[ok], y[ok])
    if flat:
        return Estimate("pearson", math.nan, n=n, level=confidence_level,
                        extra={"not_defined": f"not defined: {flat}"})  # fmt: skip
    r = float(np.corrcoef(x[ok], y[ok])[0, 1])
    zq = float(stats.norm.ppf(0.5 + confidence_level / 2))
    se = 1 / math.sqrt(n - 3)
    zr = math.atanh(min(max(r, -1 + 1e-15), 1 - 1e-15))
    return Estimate(
        "pearson", r, se, math.tanh(zr - zq * se), math.tanh(zr + zq * se),
        "Fisher z", confidence_level, n,
    )  # fmt: skip
