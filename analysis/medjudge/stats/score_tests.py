"""Paired tests for score-valued judges (Likert ratings, scores) on the same items.

:func:`sign_flip_test` and the vectorised :func:`sign_flip_pvalues` (paired permutation test,
exact for few units, clustered flips with ``clusters=``), :func:`invert_sign_flip` (the interval
that inverts a cluster sign-flip test of a mean), :func:`paired_score_difference` (MAE, RMSE,
bias and CCC of two judges against the same gold, clustered, interval and test) and
:func:`wilcoxon` (signed-rank, with the rank-biserial correlation; it tests symmetry of the
paired differences about 0, not equal MAE).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from medjudge._lazy import stats
from medjudge._validation import with_former
from medjudge.stats.resampling import Permutation
from medjudge.stats.results import TestResult

from .._validation import CONFIDENCE_LEVEL, check_choice, check_labels, check_numbers
from .groups import group_codes

__all__ = [
    "invert_sign_flip",
    "paired_score_difference",
    "sign_flip_pvalues",
    "sign_flip_test",
    "wilcoxon",
]


def _permutation(permutation: Permutation | None) -> Permutation:
    """``permutation`` checked, or ``Permutation(9999)`` (the sign-flip tests' default)."""
    if permutation is None:
        return Permutation(9999)
    if not isinstance(permutation, Permutation):
        raise ValueError(
            f"permutation: {permutation!r} is not allowed (a medjudge.Permutation, e.g. "
            "Permutation(n_resamples=9999, seed=0), or None)"
        )
    return permutation


def sign_flip_pvalues(
    diffs: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    permutation: Permutation | None = None,
    exact_max: int = 16,
) -> dict[str, np.ndarray]:
    """Two-sided sign-flip (paired permutation) test of ``E[d] = 0`` for each column of ``diffs``.

    Under H0 (exchangeability of the two judges within an item, or within a cluster) the
    cluster sums ``s_c = sum_{i in c} d_i`` are symmetric about 0, so ``T = sum_c s_c`` is
    compared with ``T* = sum_c e_c s_c`` for random signs ``e_c`` (Fisher 1935; Good 2005,
    ch. 3). With ``<= exact_max`` units all ``2^C`` sign vectors are enumerated (exact p);
    otherwise ``p = (1 + #{|T*| >= |T|}) / (B + 1)`` from ``permutation.n_resamples`` random
    sign vectors drawn from ``permutation.seed`` (default ``Permutation(9999)``), shared by all
    columns. NaN differences are dropped per column (treated as 0 in the sum).
    """
    perm = _permutation(permutation)
    n_resamples, seed = perm.n_resamples, perm.seed
    d = np.asarray(diffs, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    d = np.where(np.isnan(d), 0.0, d)
    if clusters is not None:
        _, cc = np.unique(np.asarray(clusters), return_inverse=True)
        s = np.zeros((int(cc.max()) + 1, d.shape[1]))
        np.add.at(s, cc.ravel(), d)
    else:
        s = d
    c = s.shape[0]
    t_obs = s.sum(0)
    tol = 1e-9 * np.maximum(np.abs(s).sum(0), 1.0)
    if c <= exact_max:
        signs = 1.0 - 2.0 * ((np.arange(2**c)[:, None] >> np.arange(c)) & 1)
        t = signs @ s
        p = np.mean(np.abs(t) >= np.abs(t_obs) - tol, axis=0)
        kind = "exact"
    else:
        rng = np.random.default_rng(seed)
        t_ge = np.zeros(d.shape[1])
        chunk = max(1, min(n_resamples, 2_000_000 // max(c, 1)))
        done = 0
        while done < n_resamples:
            k = min(chunk, n_resamples - done)
            signs = rng.choice(np.array([-1.0, 1.0]), size=(k, c))
            t_ge += np.sum(np.abs(signs @ s) >= np.abs(t_obs) - tol, axis=0)
            done += k
        p = (1.0 + t_ge) / (n_resamples + 1.0)
        kind = "monte-carlo"
    return {"statistic": t_obs, "pvalue": p, "n_units": np.asarray(c), "kind": np.asarray(kind)}


def sign_flip_test(
    x: np.ndarray,
    y: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    permutation: Permutation | None = None,
    exact_max: int = 16,
) -> TestResult:
    """Sign-flip permutation test for two score-valued judges on the same items.

    The statistic reported is the mean paired difference ``mean(x - y)`` over items where both
    are present; see :func:`sign_flip_pvalues` for the test (``permutation``: the random sign
    vectors, default ``Permutation(9999)``).
    """
    perm = _permutation(permutation)
    n_resamples, seed = perm.n_resamples, perm.seed
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    d = x - y
    ok = ~np.isnan(d)
    r = sign_flip_pvalues(
        d[ok],
        clusters=None if clusters is None else np.asarray(clusters)[ok],
        permutation=perm,
        exact_max=exact_max,
    )
    return TestResult(
        name="sign_flip",
        statistic=float(np.mean(d[ok])) if ok.any() else np.nan,
        pvalue=float(r["pvalue"][0]),
        method=f"sign-flip permutation ({r['kind']}{', clustered' if clusters is not None else ''})",
        n=int(ok.sum()),
        counts={"n_units": int(r["n_units"]), "n_excluded": int((~ok).sum())},
        extra={
            "B": n_resamples if str(r["kind"]) == "monte-carlo" else 2 ** int(r["n_units"]),
            "seed": seed,
        },
    )


def wilcoxon(
    x: np.ndarray, y: np.ndarray, *, zero_method: Literal["wilcox", "pratt", "zsplit"] = "wilcox"
) -> TestResult:
    """Wilcoxon (1945) signed-rank test of paired scores (``scipy.stats.wilcoxon``).

    What it tests: that the paired differences ``x - y`` are symmetric about 0 (items
    independent). It is not a test of equal MAE or equal mean error — two judges with the same
    MAE but differently shaped errors are rejected more often than the level (6.3% at 5% in
    docs/calibration.md), and it ignores clusters; for those questions use
    :func:`paired_score_difference`. Not for 0/1 outcomes (use McNemar). Effect size: matched-pairs rank-biserial correlation
    ``r = (W+ - W-) / (W+ + W-)`` (Kerby 2014).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    d = x - y
    ok = ~np.isnan(d)
    d = d[ok]
    res = stats.wilcoxon(d, zero_method=zero_method)
    nz = d[d != 0]
    r = stats.rankdata(np.abs(nz))
    wp, wm = r[nz > 0].sum(), r[nz < 0].sum()
    rbc = (wp - wm) / (wp + wm) if (wp + wm) > 0 else 0.0
    return TestResult(
        name="wilcoxon",
        statistic=float(res.statistic),
        pvalue=float(res.pvalue),
        method=f"Wilcoxon signed-rank ({zero_method})",
        n=int(ok.sum()),
        counts={"n_zero": int(np.sum(d == 0)), "n_excluded": int((~ok).sum())},
        extra={"rank_biserial": float(rbc)},
    )


#: up to this many clusters the sign-flip inversion enumerates every sign pattern
EXACT_FLIPS_UP_TO = 14
#: random sign patterns of the inversion beyond that, unless ``permutation=`` says otherwise
SIGN_FLIPS = Permutation(n_resamples=9999, seed=0)


def invert_sign_flip(
    sums: np.ndarray,
    sizes: np.ndarray,
    *,
    null: float = 0.0,
    bounds: tuple[float, float] = (-np.inf, np.inf),
    confidence_level: float = 0.95,
    permutation: Permutation | None = None,
    **former: Any,
) -> dict[str, float | int | str]:
    """Cluster sign-flip test of a mean and the interval that inverts it.

    Per cluster ``c`` the sum ``S_c`` of the item values and the number of items ``n_c``; the
    mean is ``theta = sum S_c / sum n_c``. For a hypothesised ``theta0`` the cluster terms
    ``d_c = S_c - theta0 n_c`` have mean 0 and the test compares ``|sum_c d_c|`` with
    ``|sum_c e_c d_c|`` over sign patterns ``e`` (all ``2^G`` when ``G <= 14`` — exact —
    else ``B`` random ones shared by every ``theta0``; p = (1 + #{>=}) / (B + 1), with ``B``
    and the seed from ``permutation``, default :data:`SIGN_FLIPS` = 9,999 from seed 0; the
    former ``n_flips=``/``seed=`` still work with a DeprecationWarning).
    ``p_value`` tests ``theta0 = null``; the interval is the set of ``theta0`` not rejected at
    ``1 - confidence_level`` (bisection on each side of ``theta`` within ``bounds``), so it
    excludes ``null`` exactly when ``p_value <= 1 - confidence_level``.

    References
    ----------
    Fisher, R. A. (1935). The Design of Experiments. Good, P. (2005). Permutation, Parametric
    and Bootstrap Tests of Hypotheses, 3rd ed., ch. 3 (confidence intervals by inversion).

    Examples
    --------
    >>> import numpy as np
    >>> r = invert_sign_flip(np.array([1.0, 2.0, -0.5, 1.5, 0.5]), np.ones(5))
    >>> round(r["estimate"], 2), round(r["p_value"], 4), r["n_clusters"]
    (0.9, 0.1875, 5)
    """
    perm = with_former("invert_sign_flip", "permutation", permutation, former, SIGN_FLIPS,
                       {"n_flips": "n_resamples", "seed": "seed"})  # fmt: skip
    n_flips, seed = perm.n_resamples, perm.seed
    S = np.asarray(sums, dtype=float)
    n = np.asarray(sizes, dtype=float)
    keep = n > 0
    S, n = S[keep], n[keep]
    g = int(S.size)
    nan = float("nan")
    if g == 0:
        return {"estimate": nan, "ci_low": nan, "ci_high": nan, "p_value": nan,
                "n_clusters": 0, "method": "not defined: no cluster"}  # fmt: skip
    exact = g <= EXACT_FLIPS_UP_TO
    if exact:
        signs = 1.0 - 2.0 * ((np.arange(2**g)[:, None] >> np.arange(g)[None, :]) & 1)
    else:
        rng = np.random.default_rng(seed)
        signs = np.vstack([np.ones((1, g)), 1.0 - 2.0 * rng.integers(0, 2, (n_flips, g))])
    alpha = 1 - confidence_level

    def pvalue(theta0: float) -> float:
        d = S - theta0 * n
        t = abs(d.sum())
        hits = float(np.sum(np.abs(signs @ d) >= t - 1e-9 * (1 + np.abs(d).sum())))
        return hits / signs.shape[0]

    est = float(S.sum() / n.sum())
    p_null = pvalue(null)
    span = max(float(np.abs(S / n).max() - np.abs(S / n).min()), 1e-12) + abs(est)

    def edge(inside: float, direction: float) -> float:
        bound = bounds[0] if direction < 0 else bounds[1]
        if 2.0 / signs.shape[0] > alpha:  # too few clusters: no value is ever rejected
            return float(bound)
        step = span
        outside = inside + direction * step
        for _ in range(60):  # walk out until the test rejects (or the bound)
            if pvalue(outside) <= alpha:
                break
            if (direction < 0 and outside <= bound) or (direction > 0 and outside >= bound):
                return float(bound)
            step *= 2
            outside = inside + direction * step
        else:
            return float(bound)
        if np.isfinite(bound):
            outside = max(outside, bound) if direction < 0 else min(outside, bound)
            if pvalue(outside) > alpha:
                return float(bound)
        for _ in range(30):
            mid = (inside + outside) / 2
            if pvalue(mid) > alpha:
                inside = mid
            else:
                outside = mid
        return inside

    lo, hi = edge(est, -1.0), edge(est, 1.0)
    if p_null > alpha and not lo <= null <= hi:
        lo, hi = min(lo, null), max(hi, null)
    elif p_null <= alpha and lo <= null <= hi:
        if est > null:
            lo = float(np.nextafter(null, np.inf))
        else:
            hi = float(np.nextafter(null, -np.inf))
    kind = "exact, all 2^G patterns" if exact else f"{n_flips} random patterns, seed {seed}"
    return {
        "estimate": est,
        "ci_low": float(lo),
        "ci_high": float(hi),
        "p_value": float(p_null),
        "n_clusters": g,
        "method": f"cluster sign-flip test ({kind}; {g} clusters), interval by inverting it",
    }


SCORE_METRICS = ("mae", "rmse", "bias", "ccc")


def _ccc(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Lin's CCC of ``x`` with ``y`` under item weights ``w`` (rows of weights)."""
    sw = w.sum(axis=1)
    mx, my = (w @ x) / sw, (w @ y) / sw
    vx = (w @ x**2) / sw - mx**2
    vy = (w @ y**2) / sw - my**2
    cxy = (w @ (x * y)) / sw - mx * my
    with np.errstate(invalid="ignore", divide="ignore"):
        return 2 * cxy / (vx + vy + (mx - my) ** 2)


def paired_score_difference(
    a: np.ndarray,
    b: np.ndarray,
    gold: np.ndarray,
    *,
    metric: str = "mae",
    clusters: np.ndarray | None = None,
    confidence_level: float = 0.95,
    permutation: Permutation | None = None,
) -> dict[str, float | int | str]:
    """Difference of an error or agreement metric between two score judges on the same items.

    ``metric(a, gold) - metric(b, gold)`` on the items where ``a``, ``b`` and ``gold`` are all
    present, with an interval and a test that keep the clusters (items of one image):

    * ``"mae"`` (``mean |a - g| - mean |b - g|``) and ``"bias"`` (``mean (a - g) - mean
      (b - g)``) are means of per-item differences: the cluster sign-flip test of 0 and the
      interval that inverts it (:func:`invert_sign_flip`), so they never disagree.
    * ``"rmse"`` and ``"ccc"`` are not means of per-item terms: the leave-one-cluster-out
      jackknife SE with t(G-1) gives the interval and the test (Wald t with the same SE).

    Unlike :func:`wilcoxon`, which tests symmetry of ``a - b``, this tests equal MAE (bias,
    RMSE, CCC); on 30 images with equal MAE and different error shapes it rejected at the
    level (docs/calibration.md, "Paired score comparisons").

    Parameters
    ----------
    a, b : array_like, shape (n,)
        The two judges' scores (NaN = missing).
    gold : array_like, shape (n,)
        The reference score.
    metric : {"mae", "rmse", "bias", "ccc"}
    clusters : array_like, optional
        One label per item; default: every item its own cluster.
    confidence_level : float, default 0.95
    permutation : Permutation, optional
        Random sign patterns drawn when there are more than 14 clusters (fewer: all
        ``2**G`` patterns), and their seed; default ``Permutation(9999, seed=0)``. Used by
        ``"mae"`` and ``"bias"`` only.

    Returns
    -------
    dict
        ``metric, estimate_a, estimate_b, difference, ci_low, ci_high, confidence_level,
        p_value,
        n, n_clusters, method``.

    References
    ----------
    Fisher, R. A. (1935). The Design of Experiments (the sign-flip randomisation test).
    Quenouille, M. H. (1956). Notes on bias in estimation. Biometrika 43:353-360 (jackknife).
    Lin, L. I.-K. (1989). A concordance correlation coefficient to evaluate reproducibility.
    Biometrics 45:255-268.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.array([1, 2, 3, 4, 5, 3, 2, 4.0])
    >>> a = g + np.array([0, 1, 0, -1, 0, 0, 1, 0]); b = g + np.array([1, 1, -1, -1, 0, 1, 1, 0])
    >>> r = paired_score_difference(a, b, g, metric="mae")
    >>> r["difference"], r["n_clusters"]
    (-0.375, 8)
    """

    check_choice("metric", metric, SCORE_METRICS)
    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    perm = _permutation(permutation)
    a, b, g = (
        np.asarray(check_numbers(k, v, "a 1-d array of scores, NaN for missing")).ravel()
        for k, v in (("a", a), ("b", b), ("gold", gold))
    )
    if not a.size == b.size == g.size:
        raise ValueError(
            f"a, b and gold: lengths {a.size}, {b.size} and {g.size} are not allowed (one "
            "score per item each)"
        )
    ok = ~(np.isnan(a) | np.isnan(b) | np.isnan(g))
    a, b, g = a[ok], b[ok], g[ok]
    n = int(ok.sum())
    if clusters is not None:
        clusters = np.asarray(check_labels("clusters", clusters, ok.size))
    cl = np.arange(n) if clusters is None else clusters[ok]
    codes, n_cl = group_codes(cl) if n else (np.zeros(0, int), 0)
    out: dict[str, float | int | str] = {"metric": metric, "n": n, "confidence_level": level}
    if metric in ("mae", "bias"):
        ea, eb = (np.abs(a - g), np.abs(b - g)) if metric == "mae" else (a - g, b - g)
        d = ea - eb
        r = invert_sign_flip(
            np.bincount(codes, weights=d, minlength=n_cl),
            np.bincount(codes, minlength=n_cl).astype(float),
            confidence_level=level, permutation=perm,
        )  # fmt: skip
        out.update(
            estimate_a=float(ea.mean()) if n else np.nan,
            estimate_b=float(eb.mean()) if n else np.nan,
            difference=r["estimate"], ci_low=r["ci_low"], ci_high=r["ci_high"],
            p_value=r["p_value"], n_clusters=r["n_clusters"], method=r["method"],
        )  # fmt: skip
        return out

    def stat(w: np.ndarray) -> np.ndarray:
        if metric == "rmse":
            sw = w.sum(axis=1)
            ra = np.sqrt((w @ (a - g) ** 2) / sw)
            rb = np.sqrt((w @ (b - g) ** 2) / sw)
            return np.stack([ra, rb], axis=1)
        return np.stack([_ccc(a, g, w), _ccc(b, g, w)], axis=1)

    full = stat(np.ones((1, n)))[0] if n else np.array([np.nan, np.nan])
    diff = float(full[0] - full[1])
    out.update(estimate_a=float(full[0]), estimate_b=float(full[1]), difference=diff,
               n_clusters=int(n_cl))  # fmt: skip
    if n_cl < 2:
        out.update(ci_low=np.nan, ci_high=np.nan, p_value=np.nan,
                   method="not defined: fewer than two clusters")  # fmt: skip
        return out
    J = np.ones((n_cl, n))
    J[codes, np.arange(n)] = 0.0
    t = stat(J)
    dj = t[:, 0] - t[:, 1]
    se = float(np.sqrt((n_cl - 1) / n_cl * np.sum((dj - dj.mean()) ** 2)))
    q = float(stats.t.ppf(0.5 + level / 2, n_cl - 1))
    p = float(2 * stats.t.sf(abs(diff) / se, n_cl - 1)) if se > 0 else np.nan
    out.update(
        ci_low=diff - q * se, ci_high=diff + q * se, p_value=p,
        method=f"cluster jackknife t ({n_cl} clusters, t df={n_cl - 1}), test and interval",
    )  # fmt: skip
    return out
