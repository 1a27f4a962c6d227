"""Kendall's coefficient of concordance W, tie-corrected, with its chi-square test.

For ``n`` objects (items) ranked by ``m`` judges (raters), with ``R_i`` the sum of the ranks
(mid-ranks for ties) of item ``i`` and ``S = sum_i (R_i - m (n+1)/2)^2``,

    W = 12 S / (m^2 (n^3 - n) - m sum_j T_j),   T_j = sum_g (t_g^3 - t_g)

over the tie groups ``g`` of judge ``j`` (Kendall & Babington Smith 1939; Kendall & Gibbons
1990, ch. 6). Test of no concordance: ``chi2 = m (n - 1) W`` with ``n - 1`` df (large-sample
approximation). Items with a missing rating are excluded (listwise).

Item weights: a weight ``c`` makes an item appear ``c`` times, i.e. ``c`` tied copies; weighted
mid-ranks ``sum_{x_l < x_i} w_l + (sum_{x_l = x_i} w_l + 1) / 2`` reproduce the ranks of the
duplicated data exactly, so the bootstrap is vectorised over resamples.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._lazy import stats
from ..resampling import Bootstrap
from ..results import Estimate
from .bootstrap import check_ci, resampling, resolve_ci
from .coding import as_ratings, finish, from_rating_matrix, item_weights


def _w_stat(X: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W, n, m) for complete ``X`` (n_items, m) under item weights ``W`` (k, n_items)."""
    n_items, m = X.shape
    N = W.sum(axis=1)
    R = np.zeros((W.shape[0], n_items))
    T = np.zeros(W.shape[0])
    for j in range(m):
        u, inv = np.unique(X[:, j], return_inverse=True)
        G = np.zeros((n_items, u.size))
        G[np.arange(n_items), inv] = 1.0
        t = W @ G  # weighted size of each tie group (k, n_u)
        below = np.cumsum(t, axis=1) - t
        mid = below + (t + 1) / 2
        R += mid[:, inv]
        T += (t**3 - t).sum(axis=1)
    Rbar = m * (N + 1) / 2
    S = (W * (R - Rbar[:, None]) ** 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        Wc = 12 * S / (m**2 * (N**3 - N) - m * T)
    return Wc, N, np.full_like(N, m)


def kendall_w_core(X: Any, w: np.ndarray | None = None) -> np.ndarray | float:
    """Tie-corrected Kendall's W of the complete rows of ``X`` (items x raters)."""
    X = as_ratings(X)
    ok = ~np.isnan(X).any(axis=1)
    W, batched = item_weights(w, X.shape[0])
    return finish(_w_stat(X[ok], W[:, ok])[0], batched)


def kendall_w(
    X: Any,
    *,
    ci: str | None = None,
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    clusters: Any = None,
) -> Estimate:
    """Kendall's W (tie-corrected) with the chi-square test in ``extra`` (``chi2``, ``df``,
    ``p_value``); ``ci="bootstrap"`` adds an item-level bootstrap interval (there is no
    standard analytic interval for W, so ``ci="analytic"`` gives none).

    ``W = 12 S / (m^2 (n^3 - n) - m T)`` for ``m`` raters ranking ``n`` items, ``S`` the sum of
    squared deviations of the rank sums and ``T`` the tie correction; ``chi2 = m (n-1) W`` on
    ``n-1`` df (Kendall & Babington Smith 1939; Siegel & Castellan 1988, sec. 9.4).

    Parameters
    ----------
    X : array_like, shape (n_items, n_raters)
        Scores or ranks; items with a missing rating are excluded and counted.
    ci : {None, "bootstrap", "analytic", "auto"}, default None
        ``"bootstrap"``: an item-level (or cluster-level) bootstrap interval; ``"auto"``: the
        bootstrap below 100 complete items, none from 100 on; None or ``"analytic"``: no
        interval (W has no standard analytic one), the chi-square test only.
    confidence_level : float, default 0.95
        Coverage of the bootstrap interval (reported as ``level``).
    bootstrap : Bootstrap, optional
        Its resamples, seed and interval method (BCa by default).
    clusters : array_like, optional
        One label per item (row): the bootstrap resamples items sharing a label together.

    Returns
    -------
    Estimate

    References
    ----------
    Kendall, M. G. & Babington Smith, B. (1939). The problem of m rankings. Annals of
    Mathematical Statistics 10:275-287.
    Siegel, S. & Castellan, N. J. (1988). Nonparametric Statistics for the Behavioral Sciences,
    2nd ed., sec. 9.4.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> X = np.array([[1, 2, 1], [2, 1, 2], [3, 3, 3], [4, 4, 4]])
    >>> round(mj.kendall_w(X).estimate, 3)
    0.911
    """
    ci = check_ci(ci)
    X = as_ratings(from_rating_matrix(X, {}, ()))  # a study's matrix: its (ordered) codes
    if X.shape[1] < 2:
        raise ValueError("Kendall's W needs at least two raters (columns)")
    ok = ~np.isnan(X).any(axis=1)
    rs = resampling(bootstrap, clusters, X.shape[0], confidence_level)
    n = int(ok.sum())
    ci = resolve_ci(ci, n)
    m = X.shape[1]
    w_hat = float(_w_stat(X[ok], np.ones((1, n)))[0][0]) if n >= 2 else math.nan
    chi2 = m * (n - 1) * w_hat
    extra = {"chi2": chi2, "df": n - 1, "p_value": float(stats.chi2.sf(chi2, n - 1)), "raters": m}
    excluded = {"items_with_missing_rating": int((~ok).sum())} if (~ok).any() else {}
    if ci == "bootstrap":

        def stat(W: np.ndarray) -> np.ndarray:
            return _w_stat(X[ok], W[:, ok])[0]

        return rs.estimate("kendall_w", stat, X.shape[0], n=n, extra=extra, excluded=excluded)
    level = rs.confidence_level
    return Estimate("kendall_w", w_hat, level=level, n=n, excluded=excluded, extra=extra)
