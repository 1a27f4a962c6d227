"""Rank confidence sets and rank correlations from bootstrap replicates (array kernels).

Rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024, "Inference for ranks with
applications to mobility across neighbourhoods and academic achievement across countries",
Rev. Econ. Stud. 91:476–518, Sections 3.2–3.3). For estimates ``theta_1..K`` with bootstrap
replicates ``theta*``, let ``D_jk = theta_j - theta_k`` and ``s_jk`` the bootstrap standard
error of ``D_jk``. With the max-t critical value

    c = (1 - alpha) quantile over resamples of  max_{(j,k) in S} |D*_jk - D_jk| / s_jk

(``S`` = all pairs for *simultaneous* sets, all pairs involving ``j`` for a *marginal* set
for ``j``), model ``j``'s rank (1 = strongest) lies in

    [1 + #{k : D_kj - c s_jk > 0},  K - #{k : D_jk - c s_jk > 0}]

with asymptotic probability at least ``1 - alpha`` (for all models jointly when simultaneous).

Rank correlations between two strength vectors over the same models: Kendall's tau-b
(Kendall 1945, Biometrika 33:239–251) and Spearman's rho (Pearson correlation of mid-ranks),
vectorised over bootstrap rows so that the two rankings share every resample.

Judge leaderboards (ranks and letter groups from pairwise tests) are built in
:mod:`medjudge.stats.ranking`, which uses :func:`rank_confidence_sets`; this module works on
bootstrap replicates of any strengths (judges or answer models).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

__all__ = ["rank_confidence_sets", "kendall_tau_b", "spearman_rho", "rank_correlation"]


def rank_confidence_sets(
    estimate: np.ndarray,
    boot: np.ndarray,
    *,
    confidence_level: float = 0.95,
    simultaneous: bool = True,
) -> dict[str, np.ndarray]:
    """Confidence sets for the ranks of ``K`` strengths (1 = strongest) by bootstrap max-t.

    Parameters
    ----------
    estimate : ``(K,)`` point estimates.
    boot : ``(B, K)`` bootstrap replicates (rows with a NaN are dropped and counted).
    confidence_level : coverage of the sets (jointly over all models when ``simultaneous``).
    simultaneous : all ranks at once (True) or each model's rank on its own.

    Returns
    -------
    dict with ``rank`` (competition rank of the estimate), ``rank_low``, ``rank_high``
    (integer arrays), ``critical_value`` (per model; one value when simultaneous),
    ``better``/``worse`` (``K x K`` bool: ``better[j, k]`` = j significantly stronger than k),
    ``n_resamples_used``.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Rev. Econ. Stud.
    91(1):476–518, Section 3 (Algorithm 3.1 uses the same max-t statistic).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> est = np.array([1.0, 0.9, 0.0])
    >>> boot = est + 0.05 * rng.standard_normal((2000, 3))
    >>> s = rank_confidence_sets(est, boot)
    >>> s["rank_low"].tolist(), s["rank_high"].tolist()
    ([1, 1, 3], [2, 2, 3])
    """
    if not 0.0 < confidence_level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level}")
    est = np.asarray(estimate, dtype=float)
    b = np.asarray(boot, dtype=float)
    if est.ndim != 1 or b.ndim != 2 or b.shape[1] != est.size:
        raise ValueError(f"boot must have shape (B, {est.size}), got {b.shape}")
    if not np.isfinite(est).all():
        raise ValueError("estimate has NaN/inf entries; rank sets need every strength")
    b = b[np.isfinite(b).all(1)]
    k = est.size
    if b.shape[0] < 2:
        raise ValueError("fewer than 2 usable bootstrap replicates")
    d = est[:, None] - est[None, :]
    db = b[:, :, None] - b[:, None, :]
    se = db.std(axis=0, ddof=1)
    off = ~np.eye(k, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(db - d) / np.where(se > 0, se, np.inf)
    t = np.where(off, t, 0.0)
    if simultaneous:
        c = np.full(k, np.quantile(t.max(axis=(1, 2)), confidence_level))
    else:
        c = np.quantile(t.max(axis=2), confidence_level, axis=0)
    with np.errstate(invalid="ignore"):
        better = off & (d - c[:, None] * se > 0) & (se > 0)
        # with zero spread the difference is exact: any nonzero difference is decided
        better |= off & (se == 0) & (d > 0)
    # symmetric use: j better than k must be decided with j's (marginal) critical value, and k
    # worse than j with k's; for simultaneous sets the two coincide
    worse = better.T.copy()
    if not simultaneous:
        with np.errstate(invalid="ignore"):
            worse = off & (-d - c[:, None] * se > 0) | (off & (se == 0) & (d < 0))
    rank = 1 + (est[None, :] > est[:, None]).sum(1)
    return {
        "rank": rank.astype(int),
        "rank_low": (1 + worse.sum(1)).astype(int),
        "rank_high": (k - better.sum(1)).astype(int),
        "critical_value": c if not simultaneous else c[:1],
        "better": better,
        "worse": worse,
        "n_resamples_used": np.array(b.shape[0]),
    }


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between the last axes of ``x`` and ``y`` (broadcast over leading axes).

    ``tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2))`` with ``n0 = K(K-1)/2`` and ``n1``, ``n2`` the
    tied pairs in ``x`` and ``y`` (Kendall 1945). NaN if either vector is constant or has NaN.

    Examples
    --------
    >>> float(kendall_tau_b(np.array([1., 2, 3, 4]), np.array([1., 3, 2, 4])))
    0.6666666666666666
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    sx = np.sign(x[..., :, None] - x[..., None, :])
    sy = np.sign(y[..., :, None] - y[..., None, :])
    k = x.shape[-1]
    iu = np.triu_indices(k, 1)
    sx, sy = sx[..., iu[0], iu[1]], sy[..., iu[0], iu[1]]
    num = (sx * sy).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / np.sqrt((sx != 0).sum(-1) * (sy != 0).sum(-1))


def spearman_rho(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho between the last axes of ``x`` and ``y``: Pearson correlation of mid-ranks.

    Examples
    --------
    >>> float(spearman_rho(np.array([1., 2, 3, 4]), np.array([1., 3, 2, 4])))
    0.8
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    bad = np.isnan(x).any(-1) | np.isnan(y).any(-1)
    from scipy.stats import rankdata

    rx = rankdata(np.where(np.isnan(x), 0, x), axis=-1)
    ry = rankdata(np.where(np.isnan(y), 0, y), axis=-1)
    rx = rx - rx.mean(-1, keepdims=True)
    ry = ry - ry.mean(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (rx * ry).sum(-1) / np.sqrt((rx**2).sum(-1) * (ry**2).sum(-1))
    return np.where(bad, np.nan, r)


def rank_correlation(
    x: np.ndarray, y: np.ndarray, method: Literal["kendall", "spearman"] = "kendall"
) -> np.ndarray:
    """Kendall's tau-b or Spearman's rho between rankings (last axis), see the two kernels.

    Examples
    --------
    >>> import numpy as np
    >>> float(rank_correlation(np.array([3., 2, 1]), np.array([1., 2, 3]), "spearman"))
    -1.0
    """
    if method == "kendall":
        return kendall_tau_b(x, y)
    if method == "spearman":
        return spearman_rho(x, y)
    raise ValueError(f"method must be 'kendall' or 'spearman', not {method!r}")
