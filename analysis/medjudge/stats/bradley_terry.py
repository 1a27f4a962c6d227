"""Bradley–Terry strengths of answer models from pairwise verdicts (array kernels).

Each comparison ``c`` puts model ``a_c`` (answer 1) against model ``b_c`` (answer 2) with an
outcome ``y_c``: 1 = answer 1 preferred, 0 = answer 2 preferred, 0.5 = tie, NaN = no verdict.

Model (Bradley & Terry 1952; Zermelo 1929)::

    P(i beats j) = exp(theta_i) / (exp(theta_i) + exp(theta_j)) = expit(theta_i - theta_j)

Ties
    ``ties="half"`` (default, as FastChat's arena MLE and AlpacaEval) counts a tie as half a win
    for each side: the log-likelihood is ``sum_ij w_ij log expit(theta_i - theta_j)`` with
    ``w_ij`` = wins of i over j + half the ties. ``ties="davidson"`` (Davidson 1970, JASA
    65:317–328, eq. 2.1) gives ties their own probability::

        P(i > j) = pi_i / D,  P(tie) = nu sqrt(pi_i pi_j) / D,  D = pi_i + pi_j + nu sqrt(pi_i pi_j)

    with ``pi = exp(theta)``, ``nu = exp(eta) >= 0``.

Both are multinomial logits per unordered pair with linear predictors ``theta_i``, ``theta_j``
(and ``eta + (theta_i + theta_j)/2`` for a tie), fitted here by Newton's method with step
halving, vectorised over a batch of count tables (all bootstrap resamples at once). Strengths
are on the log (natural) scale and centred to mean 0 (``theta = C phi`` with ``C`` an
orthonormal basis of the sum-zero space). The MLE exists iff the directed "has won or tied
against" graph is strongly connected (Ford 1957, Amer. Math. Monthly 64:28–33); otherwise the
strengths are NaN and ``converged`` is False.

Elo scale (FastChat / Chatbot Arena, Chiang et al. 2024): ``elo = 1000 + 400 theta / ln 10``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, logsumexp

from .resampling import as_weights as _weights

__all__ = [
    "BradleyTerryFit",
    "ELO_BASE",
    "ELO_SCALE",
    "comparison_counts",
    "bradley_terry",
    "bradley_terry_comparisons",
    "win_probability",
    "to_elo",
]

Ties = Literal["half", "davidson"]
ELO_SCALE = 400.0
ELO_BASE = 1000.0


@dataclass(frozen=True)
class BradleyTerryFit:
    """Fitted strengths (log scale, mean 0) for a batch of count tables.

    Attributes
    ----------
    strength : ``(..., K)`` strengths ``theta`` (NaN where the MLE does not exist).
    tie_parameter : ``(...)`` Davidson's ``nu`` (NaN for ``ties="half"``).
    converged : ``(...)`` bool.
    iterations : Newton iterations used (the batch maximum).
    loglik : ``(...)`` maximised log-likelihood.
    ties : ``"half"`` or ``"davidson"``.
    """

    strength: np.ndarray
    tie_parameter: np.ndarray
    converged: np.ndarray
    iterations: int
    loglik: np.ndarray
    ties: str


def comparison_counts(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    n_models: int,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted win and tie counts of every ordered pair of models.

    ``wins[..., i, j]`` = (weighted) number of comparisons won by ``i`` against ``j``;
    ``ties[..., i, j]`` (symmetric) = tied comparisons of ``i`` and ``j``. ``weights`` of shape
    ``(R, n)`` (bootstrap resamples) give ``(R, K, K)`` tables. Comparisons with a NaN outcome
    are skipped (the caller counts them).

    Examples
    --------
    >>> import numpy as np
    >>> w, t = comparison_counts(np.array([0, 0, 1]), np.array([1, 2, 2]),
    ...                          np.array([1.0, 0.5, 0.0]), 3)
    >>> w.tolist(), float(t[0, 2])
    ([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], 1.0)
    """
    a = np.asarray(first, dtype=int)
    b = np.asarray(second, dtype=int)
    y = np.asarray(outcome, dtype=float)
    if not (a.shape == b.shape == y.shape) or a.ndim != 1:
        raise ValueError("first, second and outcome must be 1-d arrays of one length")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n_models):
        raise ValueError(f"model indices must lie in 0..{n_models - 1}")
    if np.any(a == b):
        raise ValueError("a comparison of a model with itself is not allowed")
    ok = ~np.isnan(y)
    if np.any(~np.isin(y[ok], (0.0, 0.5, 1.0))):
        raise ValueError("outcome must be 1 (first wins), 0 (second wins), 0.5 (tie) or NaN")
    single = weights is None
    w = np.ones((1, a.size)) if single else _weights(weights)
    if len(w.shape) != 2 or w.shape[1] != a.size:
        raise ValueError(f"weights must have shape (R, {a.size}), got {w.shape}")
    k2 = n_models * n_models
    win1 = ok & (y == 1.0)
    win2 = ok & (y == 0.0)
    tie = ok & (y == 0.5)
    # design: each comparison adds to at most two cells of the flattened K x K table
    cells = np.zeros((a.size, k2))
    cells[np.flatnonzero(win1), (a * n_models + b)[win1]] += 1.0
    cells[np.flatnonzero(win2), (b * n_models + a)[win2]] += 1.0
    tcells = np.zeros((a.size, k2))
    tcells[np.flatnonzero(tie), (a * n_models + b)[tie]] += 1.0
    tcells[np.flatnonzero(tie), (b * n_models + a)[tie]] += 1.0
    wins = (w @ cells).reshape(-1, n_models, n_models)
    ties = (w @ tcells).reshape(-1, n_models, n_models)
    if single:
        return wins[0], ties[0]
    return wins, ties


def _contrast(k: int) -> np.ndarray:
    """Orthonormal ``K x (K-1)`` basis of ``{x : sum(x) = 0}`` (Helmert)."""
    c = np.zeros((k, k - 1))
    for j in range(1, k):
        c[:j, j - 1] = 1.0
        c[j, j - 1] = -float(j)
        c[:, j - 1] /= np.sqrt(j * (j + 1))
    return c


def _exists(wins: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """MLE existence per table: the 'won or tied against' digraph is strongly connected."""
    flat = wins.reshape(-1, *wins.shape[-2:])
    tflat = ties.reshape(-1, *ties.shape[-2:])
    out = np.empty(flat.shape[0], dtype=bool)
    for r in range(flat.shape[0]):
        graph = (flat[r] + tflat[r]) > 0
        # an edge j -> i when i beat j: every model can be reached from every other
        n, _ = connected_components(graph.T, directed=True, connection="strong")
        out[r] = n == 1
    return out.reshape(wins.shape[:-2])


def bradley_terry(
    wins: np.ndarray,
    ties: np.ndarray | None = None,
    *,
    method: Ties = "half",
    tol: float = 1e-10,
    max_iter: int = 200,
) -> BradleyTerryFit:
    """Maximum-likelihood Bradley–Terry strengths from win (and tie) tables.

    Parameters
    ----------
    wins : ``(..., K, K)``; ``wins[..., i, j]`` = times ``i`` beat ``j`` (weighted counts allowed).
    ties : ``(..., K, K)`` symmetric tie counts, or None (no ties).
    method : ``"half"``: a tie is half a win for each side (log-likelihood
        ``sum_ij (w_ij + t_ij/2) log expit(theta_i - theta_j)``); ``"davidson"``: Davidson (1970)
        tie model, with tie parameter ``nu`` estimated.
    tol : convergence criterion on the largest Newton step.
    max_iter : Newton iteration limit.

    Returns
    -------
    BradleyTerryFit
        ``strength`` on the natural-log scale, centred to mean 0 per table.

    References
    ----------
    Bradley, R. A. & Terry, M. E. (1952). Biometrika 39:324–345, eq. (1).
    Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in paired
    comparison experiments. JASA 65:317–328, eq. (2.1).
    Hunter, D. R. (2004). MM algorithms for generalized Bradley–Terry models. Ann. Statist.
    32:384–406 (existence condition, Assumption 1).

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 2], [1, 0, 2], [1, 1, 0]], dtype=float)
    >>> fit = bradley_terry(w)
    >>> np.round(fit.strength, 4).tolist(), bool(fit.converged)
    ([0.6303, -0.1511, -0.4792], True)
    >>> float(np.round(fit.strength.sum(), 12))
    0.0
    """
    if method not in ("half", "davidson"):
        raise ValueError(f"method must be 'half' or 'davidson', not {method!r}")
    w = np.asarray(wins, dtype=float)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2] or w.shape[-1] < 2:
        raise ValueError(f"wins must have shape (..., K, K) with K >= 2, got {w.shape}")
    t = np.zeros_like(w) if ties is None else np.asarray(ties, dtype=float)
    if t.shape != w.shape:
        raise ValueError(f"ties must have the shape of wins {w.shape}, got {t.shape}")
    if np.any(w < 0) or np.any(t < 0) or not (np.isfinite(w).all() and np.isfinite(t).all()):
        raise ValueError("wins and ties must be finite and non-negative")
    batch = w.shape[:-2]
    k = w.shape[-1]
    w = w.reshape(-1, k, k)
    t = t.reshape(-1, k, k)
    iu, ju = np.triu_indices(k, 1)
    n_i = w[:, iu, ju]  # i beats j
    n_j = w[:, ju, iu]  # j beats i
    n_t = t[:, iu, ju]  # ties
    davidson = method == "davidson"
    if not davidson:
        n_i, n_j, n_t = n_i + 0.5 * n_t, n_j + 0.5 * n_t, np.zeros_like(n_t)
    exists = _exists(w, t)
    if davidson:
        exists &= n_t.sum(1) > 0  # nu = 0 on the boundary when nobody ties
    # design per pair and outcome, on the reduced parameters (phi, eta)
    c = _contrast(k)
    p_dim = k - 1 + (1 if davidson else 0)
    x = np.zeros((iu.size, 3, p_dim))
    x[:, 0, : k - 1] = c[iu]
    x[:, 1, : k - 1] = c[ju]
    if davidson:
        x[:, 2, : k - 1] = 0.5 * (c[iu] + c[ju])
        x[:, 2, -1] = 1.0
    counts = np.stack([n_i, n_j, n_t], axis=-1)  # (R, P, 3)
    n_pair = counts.sum(-1)
    n_out = 3 if davidson else 2
    x = x[:, :n_out]
    counts = counts[..., :n_out]

    def loglik(par: np.ndarray, rows: np.ndarray) -> np.ndarray:
        eta = np.einsum("pod,rd->rpo", x, par)
        lp = eta - logsumexp(eta, axis=-1, keepdims=True)
        return np.sum(counts[rows] * lp, axis=(1, 2))

    r = w.shape[0]
    par = np.zeros((r, p_dim))
    if davidson:
        tot = n_pair.sum(1)
        par[:, -1] = np.log(np.maximum(n_t.sum(1), 1e-12) / np.maximum(tot, 1e-12)) + np.log(2.0)
    active = exists.copy()
    ll = loglik(par, np.arange(w.shape[0]))
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - iterations reported
        if not active.any():
            break
        ra = np.flatnonzero(active)
        eta = np.einsum("pod,rd->rpo", x, par[ra])
        prob = np.exp(eta - logsumexp(eta, axis=-1, keepdims=True))
        resid = counts[ra] - n_pair[ra][..., None] * prob
        grad = np.einsum("rpo,pod->rd", resid, x)
        xbar = np.einsum("rpo,pod->rpd", prob, x)
        info = np.einsum("rp,rpo,pod,poe->rde", n_pair[ra], prob, x, x) - np.einsum(
            "rp,rpd,rpe->rde", n_pair[ra], xbar, xbar
        )
        try:
            step = np.linalg.solve(info, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            step = np.stack(
                [np.linalg.lstsq(m, g, rcond=None)[0] for m, g in zip(info, grad, strict=True)]
            )
        scale = np.ones(ra.size)
        new = par[ra] + step
        new_ll = loglik(new, ra)
        for _ in range(40):  # step halving keeps the likelihood increasing
            bad = ~(new_ll >= ll[ra] - 1e-12 * np.abs(ll[ra]))
            if not bad.any():
                break
            scale[bad] /= 2.0
            new[bad] = par[ra][bad] + scale[bad, None] * step[bad]
            new_ll[bad] = loglik(new[bad], ra[bad])
        par[ra] = new
        ll[ra] = new_ll
        done = np.max(np.abs(scale[:, None] * step), axis=1) < tol
        active[ra[done]] = False
    converged = exists & ~active
    theta = par[:, : k - 1] @ c.T
    theta[~converged] = np.nan
    nu = np.exp(par[:, -1]) if davidson else np.full(r, np.nan)
    nu = np.where(converged, nu, np.nan)
    ll = np.where(converged, ll, np.nan)
    return BradleyTerryFit(
        theta.reshape(*batch, k),
        nu.reshape(batch),
        converged.reshape(batch),
        it,
        ll.reshape(batch),
        method,
    )


def bradley_terry_comparisons(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    n_models: int,
    *,
    method: Ties = "half",
    weights: np.ndarray | None = None,
) -> BradleyTerryFit:
    """Bradley–Terry fit straight from comparisons (see :func:`comparison_counts`).

    Examples
    --------
    >>> import numpy as np
    >>> fit = bradley_terry_comparisons(np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0]),
    ...                                 np.array([1.0, 1.0, 1.0, 0.5]), 2)
    >>> np.round(fit.strength, 6).tolist()   # 2.5 wins of 4: theta_0 - theta_1 = log(2.5/1.5)
    [0.255413, -0.255413]
    """
    wins, ties = comparison_counts(first, second, outcome, n_models, weights)
    return bradley_terry(wins, ties, method=method)


def win_probability(
    strength: np.ndarray, tie_parameter: np.ndarray | float | None = None
) -> np.ndarray:
    """``P(i beats j)`` for every ordered pair: ``(..., K, K)``.

    Without a tie parameter: ``expit(theta_i - theta_j)``. With Davidson's ``nu``: the
    probability of a strict win ``pi_i / (pi_i + pi_j + nu sqrt(pi_i pi_j))``. Diagonal NaN.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(win_probability(np.array([0.5, -0.5])), 4).tolist()
    [[nan, 0.7311], [0.2689, nan]]
    """
    th = np.asarray(strength, dtype=float)
    d = th[..., :, None] - th[..., None, :]
    if tie_parameter is None or np.all(np.isnan(np.asarray(tie_parameter, dtype=float))):
        p = expit(d)
    else:
        nu = np.asarray(tie_parameter, dtype=float)[..., None, None]
        # divide numerator and denominator by pi_i: 1 / (1 + exp(-d) + nu exp(-d/2))
        p = 1.0 / (1.0 + np.exp(-d) + nu * np.exp(-d / 2.0))
    k = th.shape[-1]
    p = np.array(p, dtype=float)
    p[..., np.arange(k), np.arange(k)] = np.nan
    return p


def to_elo(strength: np.ndarray | float) -> np.ndarray:
    """Elo-style rating ``1000 + 400 theta / ln(10)`` (FastChat's ``compute_mle_elo`` scale).

    Examples
    --------
    >>> float(to_elo(np.log(10.0)))
    1400.0
    """
    return ELO_BASE + ELO_SCALE * np.asarray(strength, dtype=float) / np.log(10.0)
