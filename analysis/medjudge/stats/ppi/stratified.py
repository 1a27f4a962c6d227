"""Stratified PPI: per-stratum estimates combined with the strata's shares of items.

:func:`ppi_mean_stratified` (Fisch et al. 2024, with one power-tuned ``lam`` for all strata,
:func:`_pooled_lambda`, and the sampling variance of the strata's shares included).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from medjudge.stats.ppi.linearisation import (
    Interval,
    _check_interval,
    _check_lam,
    _check_sets,
    _cluster_sums,
    _contributions,
    _design,
    _estimate,
    _level,
    _spread,
)
from medjudge.stats.ppi.mean import ppi_mean
from medjudge.stats.results import Estimate

__all__ = ["ppi_mean_stratified"]


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
    d = _design(n, N, clusters, clusters_unlabeled, confidence_level, interval)
    cl, clu = d.cl, d.clu
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
    method = "PPI++ (one power-tuned lam)" if lam is None else f"PPI (lam={lam:g})"
    overall = _estimate(
        "ppi_mean_stratified",
        method + ", stratified",
        est,
        (var, df, G),
        d,
        var0,
        weights=weights,
        lam=lams,
        lam_pooled=float(lam_used),
        n_strata=len(levels),
    )
    return overall, per
