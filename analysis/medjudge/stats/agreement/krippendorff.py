"""Krippendorff's alpha at the nominal, ordinal, interval and ratio levels, missing data allowed.

Following Krippendorff (2011), "Computing Krippendorff's alpha-reliability" (Annenberg School
for Communication, Departmental Papers 43): units ``u`` with ``m_u >= 2`` values are pairable;
the coincidence matrix is ``o_ck = sum_u sum_{i != j} 1[v_ui = c, v_uj = k] / (m_u - 1)`` with
margins ``n_c`` and total ``n = sum_c n_c``, and

    alpha = 1 - (n - 1) * sum_ck o_ck delta2_ck / sum_ck n_c n_k delta2_ck

with the metric ``delta2``: nominal ``1[c != k]``; interval ``(c - k)^2``; ratio
``((c - k)/(c + k))^2``; ordinal ``(sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2``. The ordinal metric
equals ``(G_k - G_c)^2`` with the mid-cumulative frequencies ``G_c = sum_{g<=c} n_g - n_c/2``, so
ordinal alpha is interval alpha on ``G`` -- which depends on the (resampled) margins and is
recomputed for every bootstrap resample. The interval and ordinal levels use the identity
``sum_{i != j} (x_i - x_j)^2 = 2 (m sum x^2 - (sum x)^2)`` and need no ``q x q`` matrix, so
continuous scores with thousands of distinct values are cheap.

Item weights ``w`` multiply each unit's contribution to ``o`` and ``n_c`` (a weight of 2 =
the unit appears twice), which makes B bootstrap resamples one matrix product.

Analytic standard error: Gwet's linearisation for alpha (Gwet 2014, ch. 5; irrCAC
``krippen.alpha.raw``) with agreement weights ``1 - delta2 / max delta2`` (for the ordinal level
the metric from the full-data margins is held fixed), interval ``alpha -/+ t_{n-1} se``
(``n`` = units with at least one value), upper limit clipped at 1. Krippendorff himself
recommends a bootstrap (use ``ci="bootstrap"``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..resampling import Bootstrap
from ..results import Estimate
from .bootstrap import (
    analytic_estimate,
    check_ci,
    clustered_analytic,
    resampling,
    resolve_ci,
)
from .coding import (
    LEVELS,
    as_ratings,
    category_counts,
    finish,
    item_weights,
    resolve_categories,
    resolve_level,
)
from .conventions import agreement_input


class _AlphaPrep:
    """Per-unit sufficient statistics for alpha at one level (computed once per call)."""

    def __init__(
        self,
        X: Any,
        level: str,
        categories: Sequence[float] | np.ndarray | None,
        values: Sequence[float] | np.ndarray | None,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; use one of {LEVELS}")
        self.level = level
        self.X = X = as_ratings(X)
        self.m = (~np.isnan(X)).sum(axis=1).astype(float)
        self.pair = self.m >= 2
        pm = np.where(self.pair, self.m - 1.0, 1.0)
        self.n_units = X.shape[0]
        if level == "interval" and categories is None and values is None:
            # moments of the raw values: no category matrix needed
            V = np.where(np.isnan(X), 0.0, X)
            s1, s2 = V.sum(axis=1), (V**2).sum(axis=1)
            self.num = np.where(self.pair, 2 * (self.m * s2 - s1**2) / pm, 0.0)
            self.mom = np.stack([self.m, s1, s2], axis=1) * self.pair[:, None]
            return
        self.cats = resolve_categories(X, categories, values)
        if level == "ratio" and (self.cats.values < 0).any():
            raise ValueError("ratio-level alpha needs non-negative values")
        C = category_counts(X, self.cats) * self.pair[:, None]
        self.C = C
        self.pm = pm
        v = self.cats.values
        if level == "nominal":
            self.num = np.where(self.pair, (self.m**2 - (C**2).sum(axis=1)) / pm, 0.0)
        elif level == "interval":
            s1, s2 = C @ v, C @ v**2
            self.num = np.where(self.pair, 2 * (self.m * s2 - s1**2) / pm, 0.0)
        elif level == "ordinal" and self.cats.q <= 64:
            self._cc = (C[:, :, None] * C[:, None, :]).reshape(C.shape[0], -1) / pm[:, None]
        elif level == "ratio":
            self.delta = self._ratio_delta(v)
            self.num = np.where(self.pair, ((C @ self.delta) * C).sum(axis=1) / pm, 0.0)

    @staticmethod
    def _ratio_delta(v: np.ndarray) -> np.ndarray:
        s = v[:, None] + v[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = ((v[:, None] - v[None, :]) / np.where(s == 0, 1.0, s)) ** 2
        return np.where(s == 0, 0.0, d)

    def parts(self, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(observed, expected, n)`` with alpha = 1 - (n-1) observed / expected, per row of W."""
        lvl = self.level
        if lvl == "interval" and not hasattr(self, "cats"):
            M = W @ self.mom  # (k, 3): n, sum x, sum x^2
            n = M[:, 0]
            return W @ self.num, 2 * (n * M[:, 2] - M[:, 1] ** 2), n
        nc = W @ self.C  # (k, q)
        n = nc.sum(axis=1)
        if lvl == "nominal":
            return W @ self.num, n**2 - (nc**2).sum(axis=1), n
        if lvl == "interval":
            v = self.cats.values
            return W @ self.num, 2 * (n * (nc @ v**2) - (nc @ v) ** 2), n
        if lvl == "ratio":
            return W @ self.num, np.einsum("bk,kl,bl->b", nc, self.delta, nc), n
        # ordinal: interval metric on mid-cumulative frequencies G (k, q), which depend on W
        G = np.cumsum(nc, axis=1) - nc / 2
        exp = 2 * (n * (nc * G**2).sum(axis=1) - ((nc * G).sum(axis=1)) ** 2)
        q = nc.shape[1]
        if q <= 64:
            # sum_u w_u 2 (m_u sum G^2 - (sum G)^2) / (m_u - 1) written through the weighted
            # per-unit moments of the counts: O(k n q^2) as one matrix product
            a = W @ (self.C * (self.m / self.pm)[:, None])  # (k, q)
            M = (W @ self._cc).reshape(-1, q, q)  # sum_u w_u C_uc C_ud / (m_u - 1)
            obs = 2 * ((a * G**2).sum(axis=1) - np.einsum("bc,bcd,bd->b", G, M, G))
            return obs, exp, n
        A = self.C @ G.T  # (n_units, k): sum of G over a unit's values
        B2 = self.C @ (G**2).T
        f = 2 * (self.m[:, None] * B2 - A**2) / self.pm[:, None]
        obs = (W * np.where(self.pair[:, None], f, 0.0).T).sum(axis=1)
        return obs, exp, n

    def alpha(self, W: np.ndarray) -> np.ndarray:
        obs, exp, n = self.parts(W)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(exp > 0, 1.0 - (n - 1) * obs / np.where(exp > 0, exp, 1.0), np.nan)

    def delta_matrix(self) -> np.ndarray:
        """The q x q metric on the full data (for the linearised variance)."""
        v = self.cats.values
        if self.level == "nominal":
            return 1.0 - np.eye(v.size)
        if self.level == "interval":
            return (v[:, None] - v[None, :]) ** 2
        if self.level == "ratio":
            return self.delta
        nc = self.C.sum(axis=0)
        G = np.cumsum(nc) - nc / 2
        return (G[:, None] - G[None, :]) ** 2


def krippendorff_alpha_core(
    X: Any,
    w: np.ndarray | None = None,
    *,
    scale: str,
    categories: Sequence[float] | np.ndarray | None = None,
    values: Sequence[float] | np.ndarray | None = None,
) -> np.ndarray | float:
    """Krippendorff's alpha of ``X`` (units x coders, NaN = missing) under unit weights ``w``.

    ``scale`` is required (nominal / ordinal / interval / ratio): there is no silent default.
    Returns NaN when alpha is undefined (fewer than two distinct pairable values).
    """
    p = _AlphaPrep(X, scale, categories, values)
    W, batched = item_weights(w, p.n_units)
    return finish(p.alpha(W), batched)


def _linearized_se(p: _AlphaPrep) -> tuple[float, float]:
    """Gwet's (2014) linearised SE of alpha (irrCAC ``krippen.alpha.raw``); returns (se, pa)."""
    if not hasattr(p, "cats"):
        p = _AlphaPrep(p.X, p.level, np.unique(p.X[~np.isnan(p.X)]), None)
    D = p.delta_matrix()
    if D.max() <= 0:
        return math.nan, math.nan
    Wm = 1.0 - D / D.max()
    keep = p.pair
    C = p.C[keep]
    r = p.m[keep]
    n = int(keep.sum())
    if n < 2:
        return math.nan, math.nan
    rbar = r.mean()
    eps = 1.0 / r.sum()
    sumq = (C * (C @ Wm.T - 1.0)).sum(axis=1)
    pa1 = (sumq / (rbar * (r - 1))).sum() / n
    pa = (1 - eps) * pa1 + eps
    pi = (C / rbar).mean(axis=0)
    pe = float(pi @ Wm @ pi)
    alpha1 = (pa1 - pe) / (1 - pe)
    pa_i = sumq / (rbar * (r - 1)) - pa1 * (r - rbar) / rbar
    k_i = (pa_i - pe) / (1 - pe)
    pi_w = (Wm @ pi + Wm.T @ pi) / 2
    pe_i = (C @ pi_w) / rbar - pe * (r - rbar) / rbar
    x = k_i - 2 * (1 - alpha1) * (pe_i - pe) / (1 - pe)
    return float(np.sqrt(((x - alpha1) ** 2).sum() / (n * (n - 1)))), float(pa)


def _table_alpha_se(p: _AlphaPrep, Wm: np.ndarray) -> float:
    """``krippen2.table``'s SE from the two raters' ``q x q`` table, with agreement weights.

    With ``p_kl`` the table shares over ``n`` items, ``w_kl`` the agreement weights of the
    scale (``1 - delta²_kl / max delta²``: identity for nominal, quadratic for interval),
    ``pa' = sum w_kl p_kl``, ``pi_k = (p_k+ + p_+k)/2``, ``pe = sum w_kl pi_k pi_l``,
    ``alpha' = (pa' - pe)/(1 - pe)`` and ``pbar_k = ((W p_+.)_k + (W' p_.+)_k)/2``
    (Gwet 2014, ch. 5; irrCAC ``R/agree.coeff2.r``)::

        Var = [sum_kl p_kl (w_kl - (1 - alpha')(pbar_k + pbar_l))^2
               - (pa' - 2 (1 - alpha') pe)^2] / (n (1 - pe)^2)

    The weights enter every term, so the SE depends on the scale.
    """
    keep = p.pair
    C = p.C[keep]
    n = int(keep.sum())
    if n < 1 or not np.all(C.sum(1) == 2):
        return math.nan
    # each item holds two codes: recover the (unordered-in-C, so symmetric) pair per item
    q = C.shape[1]
    t = np.zeros((q, q))
    for row in C:
        idx = np.flatnonzero(row)
        a, b = (idx[0], idx[0]) if idx.size == 1 else (idx[0], idx[1])
        t[a, b] += 0.5
        t[b, a] += 0.5
    pkl = t / n
    pa0 = float((Wm * pkl).sum())
    pr, pc = pkl.sum(1), pkl.sum(0)
    pi = (pr + pc) / 2
    pe = float(pi @ Wm @ pi)
    a1 = (pa0 - pe) / (1 - pe)
    pb = (Wm @ pc + Wm.T @ pr) / 2
    s1 = float((pkl * (Wm - (1 - a1) * (pb[:, None] + pb[None, :])) ** 2).sum())
    var = (s1 - (pa0 - 2 * (1 - a1) * pe) ** 2) / (n * (1 - pe) ** 2)
    return float(np.sqrt(max(var, 0.0)))


def irrcac_alpha_se(X: np.ndarray, scale: Any, categories: Any, values: Any, layout: str) -> float:
    """Alpha's SE as irrCAC's README (2019) prints it (see :mod:`.conventions`).

    * ``layout="table"``: ``krippen2.table`` — the two-rater table variance with the scale's
      agreement weights (:func:`_table_alpha_se`, ``R/agree.coeff2.r``);
    * ``layout="counts"``: ``krippen.alpha.dist`` — per-item agreement
      ``pa_i = (1-eps)(pa'_i - pa'_v (r_i - rbar)/rbar) + eps``, ``x_i = alpha_i - (1 - alpha)
      (pe_i - pe)/(1 - pe)`` with ``pe_i = sum_k r_ik pibar_k / rbar - sum(pi)(r_i - rbar)/rbar``
      (``R/agree.coeff3.dist.r``);
    * ``layout="ratings"``: ``krippen.alpha.raw`` of the 2019 release — as the default but with
      ``pa_i`` centred at ``pa = (1-eps) pa' + eps`` instead of ``pa'``.
    """
    lvl, s_cats, s_vals = resolve_level(scale)
    p = _AlphaPrep(
        X, lvl, s_cats if categories is None else categories, s_vals if values is None else values
    )
    if not hasattr(p, "cats"):
        p = _AlphaPrep(p.X, p.level, np.unique(p.X[~np.isnan(p.X)]), None)
    D = p.delta_matrix()
    if D.max() <= 0:
        return math.nan
    if layout == "table":
        return _table_alpha_se(p, 1.0 - D / D.max())
    Wm = 1.0 - D / D.max()
    keep = p.pair
    C, r = p.C[keep], p.m[keep]
    n = int(keep.sum())
    if n < 2:
        return math.nan
    rbar, eps = r.mean(), 1.0 / r.sum()
    sumq = (C * (C @ Wm.T - 1.0)).sum(axis=1)
    pa1 = (sumq / (rbar * (r - 1))).sum() / n
    pa = (1 - eps) * pa1 + eps
    pi = (C / rbar).mean(axis=0)
    pe = float(pi @ Wm @ pi)
    pi_w = (Wm @ pi + Wm.T @ pi) / 2
    if layout == "counts":
        alpha = (pa - pe) / (1 - pe)
        pa_i = sumq / (rbar * (r - 1))
        pa_i = (1 - eps) * (pa_i - pa_i.mean() * (r - rbar) / rbar) + eps
        k_i = (pa_i - pe) / (1 - pe)
        pe_i = (C @ pi_w) / rbar - pi.sum() * (r - rbar) / rbar
        x = k_i - (1 - alpha) * (pe_i - pe) / (1 - pe)
        centre = alpha
    else:
        alpha1 = (pa1 - pe) / (1 - pe)
        pa_i = sumq / (rbar * (r - 1)) - pa * (r - rbar) / rbar
        k_i = (pa_i - pe) / (1 - pe)
        pe_i = (C @ pi_w) / rbar - pe * (r - rbar) / rbar
        x = k_i - 2 * (1 - alpha1) * (pe_i - pe) / (1 - pe)
        centre = alpha1
    return float(np.sqrt(((x - centre) ** 2).sum() / (n * (n - 1))))


@agreement_input(
    "alpha",
    irrcac_se=lambda X, kw, layout: irrcac_alpha_se(
        X, kw.get("scale"), kw.get("categories"), kw.get("values"), layout
    ),
)
def krippendorff_alpha(
    X: Any,
    *,
    scale: Any = None,
    categories: Sequence[float] | np.ndarray | None = None,
    values: Sequence[float] | np.ndarray | None = None,
    ci: str | None = "auto",
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    clusters: Any = None,
) -> Estimate:
    """Krippendorff's (2011) alpha with an analytic or bootstrap interval.

    Parameters
    ----------
    X : array_like or RatingMatrix, shape (n_units, n_coders)
        Units (items) x coders (raters), NaN = missing; ``study.matrix(...)`` brings its scale.
    scale : {"nominal", "ordinal", "interval", "ratio"} or Scale
        The measurement level, required unless ``X`` is a study's matrix: the krippendorff
        package defaults to interval, wrong for categorical data.
    categories, values : sequence of float, optional
        Codes and their numeric values (nominal/ordinal; optional otherwise).
    ci : {"auto", "analytic", "bootstrap", None}, default "auto"
        ``"auto"``: the bootstrap below 100 rated units, analytic from 100 on (see
        docs/calibration.md); ``"analytic"``: Gwet's linearisation, t with n-1 df.
    confidence_level : float, default 0.95
        Coverage of the interval.
    bootstrap : Bootstrap, optional
        Resampling settings (replicates, seed, interval method — BCa by default).
    clusters : array_like, optional
        One label per unit: units sharing a label are resampled together.

    Returns
    -------
    Estimate
        ``extra`` holds the ``scale``, observed and expected disagreement ``D_o``, ``D_e``.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for
    Communication, University of Pennsylvania (the coincidence-matrix formulas used here).
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 5 (variance).

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> X = np.array([[1, 1, np.nan], [2, 2, 2], [3, 3, 2], [1, 2, 1], [3, 3, 3]])
    >>> round(mj.krippendorff_alpha(X, scale='ordinal', ci=None).estimate, 3)
    0.793
    """
    ci = check_ci(ci)
    lvl, s_cats, s_vals = resolve_level(scale, "scale")
    categories = s_cats if categories is None else categories
    values = s_vals if values is None else values
    p = _AlphaPrep(X, lvl, categories, values)
    rs = resampling(bootstrap, clusters, p.n_units, confidence_level)
    ones = np.ones((1, p.n_units))
    a = float(p.alpha(ones)[0])
    obs, exp, npair = (float(v[0]) for v in p.parts(ones))
    rated = int((p.m >= 1).sum())
    ci = resolve_ci(ci, rated, clusters)
    extra: dict[str, Any] = {
        "scale": lvl,
        "pairable_values": npair,
        "pairable_units": int(p.pair.sum()),
        "D_o": obs / npair if npair else math.nan,
        "D_e": exp / (npair * (npair - 1)) if npair > 1 else math.nan,
    }
    if not np.isfinite(a):
        extra["undefined"] = "fewer than two distinct pairable values (expected disagreement 0)"
    excluded = {"units_without_values": p.n_units - rated} if rated < p.n_units else {}
    if ci == "bootstrap":
        return rs.estimate(
            "krippendorff_alpha", p.alpha, p.n_units, n=rated, extra=extra, excluded=excluded
        )
    if ci == "analytic" and rs.plan.clusters is not None:
        return clustered_analytic(
            "krippendorff_alpha", a, p.alpha, p.n_units, rs.plan.clusters, n=rated,
            confidence_level=rs.confidence_level, keep=p.m >= 1,
            extra=extra, excluded=excluded,
        )  # fmt: skip
    se = math.nan
    if ci == "analytic" and np.isfinite(a):
        se, pa = _linearized_se(p)
        extra["pa"] = pa
    return analytic_estimate(
        "krippendorff_alpha",
        a,
        se,
        n=rated,
        df=rated - 1,
        confidence_level=rs.confidence_level,
        method="analytic (Gwet 2014 linearisation, t df=n-1)" if ci == "analytic" else "",
        extra=extra,
        excluded=excluded,
    )
