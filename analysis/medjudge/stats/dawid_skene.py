"""Dawid & Skene (1979) latent-class model: annotator confusion matrices and item posteriors.

Model (Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer
error-rates using the EM algorithm. *Applied Statistics* 28(1):20-28): every item ``i`` has an
unobserved true class ``T_i`` with prior ``pi_k = P(T_i = k)``; annotator ``r`` reports class
``l`` for an item of true class ``k`` with probability ``theta_rkl`` (row ``k`` of annotator
``r``'s confusion matrix), independently of the other annotators given ``T_i``. The likelihood of
the observed labels ``x_ir`` (missing labels simply do not enter the product) is

    L(pi, theta) = prod_i sum_k pi_k prod_{r observed on i} theta_{r k x_ir}.

EM alternates

* E-step (Bayes' rule): ``P(T_i = k | x_i) = pi_k prod_r theta_{r k x_ir} / sum_k' (...)``;
* M-step: ``theta_rkl = sum_i T_ik 1[x_ir = l] / sum_i T_ik 1[r rated i]`` and
  ``pi_k = sum_i T_ik / n`` (with ``smoothing = a > 0``: ``(counts + a) / (total + q a)``, the
  posterior mode under a symmetric Dirichlet(1 + a) prior — EM then maximises the penalised
  log-likelihood ``log L + a sum log theta + a sum log pi``, which is what the trace reports).

Each EM step cannot decrease the (penalised) log-likelihood (Dempster, Laird & Rubin 1977), so
the reported trace is non-decreasing up to rounding. Initialisation: ``"majority"`` (default;
``T_ik`` = share of the item's labels in class ``k``, as in Dawid & Skene's paper) or
``"random"`` (Dirichlet(1) posteriors from a seeded generator). Items nobody labelled get the
prior as posterior and no label (counted in ``excluded``).

Identifiability and label anchoring. A latent-class model with conditionally
independent raters is identified (up to a permutation of the classes) only with at least three
raters whose labels overlap (Kruskal 1977; Allman, Matias & Rhodes 2009, Ann. Statist.
37:3099-3132); with two raters many parameter sets give the same likelihood, so the fit refuses
with one line when fewer than three raters labelled anything or no item carries three labels.
The permutation is then fixed by the data: after EM the latent classes are relabelled to agree
best with the majority vote (Hungarian assignment on the class x majority-label table), and
the rater-averaged confusion matrix must be diagonally dominant (``P(says k | truth k)`` the
largest entry of its row) — otherwise the fit refuses (``require_dominance=True``) rather than
report accuracies of 0.17 where the same likelihood gives 0.85. Random starts therefore land on
the same labelling as the majority start.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from scipy.special import logsumexp

from .._validation import SEED, IntRange, RealRange, check_choice, check_numbers
from .agreement.coding import check_codes
from .results import Presentable

Init = Literal["majority", "random"]
_TINY = 1e-300  # floor inside log(): a zero probability contributes ~ -690, not -inf


@dataclass(frozen=True, repr=False)
class DawidSkeneResult(Presentable):
    """Fitted Dawid–Skene model.

    Attributes
    ----------
    posteriors : ``(n_items, q)`` item posteriors ``P(T_i = k | labels)`` (Bayes' rule at the
        fitted parameters).
    labels : ``(n_items,)`` most probable class code (NaN for items without any label).
    confusion : ``(n_raters, q, q)``; ``confusion[r, k, l] = P(rater r says l | truth k)``.
    priors : ``(q,)`` class priors.
    log_likelihood : trace of the (penalised) log-likelihood after every M-step.
    n_iter, converged : iterations run and whether the tolerance was reached.
    """

    posteriors: np.ndarray
    labels: np.ndarray
    confusion: np.ndarray
    priors: np.ndarray
    log_likelihood: list[float]
    n_iter: int
    converged: bool
    categories: np.ndarray
    raters: list[str]
    items: list[str]
    init: str
    seed: int
    smoothing: float
    tol: float
    excluded: dict[str, int] = field(default_factory=dict)

    @property
    def accuracy(self) -> np.ndarray:
        """Each rater's model-implied accuracy ``sum_k pi_k theta_rkk``."""
        return np.einsum("k,rkk->r", self.priors, self.confusion)

    @property
    def sensitivity(self) -> np.ndarray:
        """Per rater and class, ``theta_rkk = P(says k | truth k)`` — shape ``(n_raters, q)``."""
        return np.einsum("rkk->rk", self.confusion)

    def rater_table(self, labels: list[str] | None = None) -> pd.DataFrame:
        """One row per rater: model accuracy and per-class sensitivity (the diagonal)."""
        df = pd.DataFrame({"rater": self.raters, "accuracy": self.accuracy})
        names = labels or [_fmt(c) for c in self.categories]
        for j, name in enumerate(names):
            df[f"p_correct_given_{name}"] = self.sensitivity[:, j]
        return df

    def max_posterior(self) -> np.ndarray:
        return self.posteriors.max(axis=1)

    def to_frame(self) -> pd.DataFrame:
        """One row per rater: model accuracy and per-class sensitivity."""
        return self.rater_table()

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary (see :meth:`summary`)."""
        return self.summary()

    def __repr__(self) -> str:
        return (
            f"DawidSkeneResult({len(self.raters)} raters, {len(self.items)} items, "
            f"{self.categories.size} classes, {'converged' if self.converged else 'NOT converged'}"
            f" after {self.n_iter} iterations, init={self.init!r}, seed={self.seed})"
        )

    def summary(self, labels: list[str] | None = None) -> dict[str, Any]:
        """Small JSON-able summary (no per-item arrays); ``labels`` name the category codes."""
        names = labels or [_fmt(c) for c in self.categories]
        return {
            "method": "Dawid-Skene EM (1979)",
            "init": self.init,
            "seed": self.seed,
            "smoothing": self.smoothing,
            "n_iter": self.n_iter,
            "converged": self.converged,
            "tol": self.tol,
            "log_likelihood_first": self.log_likelihood[0] if self.log_likelihood else math.nan,
            "log_likelihood_final": self.log_likelihood[-1] if self.log_likelihood else math.nan,
            "priors": {c: float(p) for c, p in zip(names, self.priors, strict=True)},
            "raters": self.rater_table(names).to_dict(orient="records"),
            "excluded": dict(self.excluded),
        }


def _fmt(c: float) -> str:
    return str(int(c)) if float(c).is_integer() else str(c)


def _one_hot(X: np.ndarray, cats: np.ndarray) -> np.ndarray:
    """``(n, R, q)`` indicators, zero where missing."""
    return (X[:, :, None] == cats[None, None, :]).astype(float)


def _m_step(Y: np.ndarray, T: np.ndarray, a: float) -> tuple[np.ndarray, np.ndarray]:
    q = T.shape[1]
    counts = np.einsum("ik,irl->rkl", T, Y) + a
    tot = counts.sum(axis=2, keepdims=True)
    # a (rater, class) cell with no information: uniform row (counted by the caller)
    theta = np.where(tot > 0, counts / np.where(tot > 0, tot, 1.0), 1.0 / q)
    pi = (T.sum(axis=0) + a) / (T.shape[0] + q * a)
    return theta, pi


def _e_step(
    Y: np.ndarray, theta: np.ndarray, pi: np.ndarray
) -> tuple[np.ndarray, float, np.ndarray]:
    """Posteriors, log-likelihood and per-item log evidence at parameters ``(theta, pi)``."""
    log_theta = np.log(np.maximum(theta, _TINY))
    joint = np.log(np.maximum(pi, _TINY))[None, :] + np.einsum("irl,rkl->ik", Y, log_theta)
    evidence = logsumexp(joint, axis=1)
    post = np.exp(joint - evidence[:, None])
    return post, float(evidence.sum()), evidence


def dawid_skene(
    X: Any,
    *,
    categories: np.ndarray | list[float] | None = None,
    raters: list[str] | None = None,
    items: list[str] | None = None,
    init: Init = "majority",
    seed: int = 0,
    max_iter: int = 500,
    tol: float = 1e-8,
    smoothing: float = 0.0,
    require_dominance: bool = True,
) -> DawidSkeneResult:
    """Fit the Dawid–Skene model to an ``items x raters`` code matrix (NaN = missing).

    Parameters
    ----------
    X : array_like or DataFrame, shape (n_items, n_raters)
        Ratings as category codes; NaN = not labelled.
    categories : sequence of float, optional
        All class codes (default: the observed ones). A class nobody used still gets a prior
        and a confusion row; a code outside ``categories`` is an error.
    raters : list of str, optional
        Names of the columns, kept in the result (default ``rater_0``, ``rater_1``, …).
    items : list of str, optional
        Names of the rows, kept in the result (default ``"0"``, ``"1"``, …).
    init : {"majority", "random"}, default "majority"
        Starting posteriors: the items' vote shares (as in Dawid & Skene's paper) or seeded
        Dirichlet(1) draws.
    seed : int, default 0
        Seed of the ``"random"`` start (unused with ``"majority"``).
    max_iter : int, default 500
        Most EM iterations.
    tol : float, default 1e-8
        Stop when the log-likelihood gain is below ``tol * (1 + |loglik|)``.
    smoothing : float, default 0.0
        Dirichlet pseudo-count ``a`` on every confusion cell and prior (0 = plain MLE).
    require_dominance : bool, default True
        Refuse (ValueError) when the anchored, rater-averaged confusion matrix is not
        diagonally dominant; ``False`` keeps the fit and records it in ``excluded``.

    Returns
    -------
    DawidSkeneResult
        ``posteriors`` (n_items x q), ``labels`` (most probable class, NaN for items nobody
        labelled), ``confusion`` (n_raters x q x q), ``priors``, the ``log_likelihood``
        trace, ``n_iter``, ``converged`` and the settings; ``accuracy``, ``sensitivity``,
        ``rater_table()`` and ``summary()`` derive from them;
        :func:`medjudge.analyses.dawid_skene.to_gold` turns the fit into an alternative gold.

    Raises
    ------
    ValueError
        The model is not identifiable (fewer than 3 raters with labels, or no item labelled
        by at least 3 raters), the fit is not diagonally dominant (with
        ``require_dominance=True``), or an argument is out of range.

    References
    ----------
    Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
    using the EM algorithm. Applied Statistics 28:20-28.
    Dempster, A. P., Laird, N. M. & Rubin, D. B. (1977). Maximum likelihood from incomplete
    data via the EM algorithm. JRSS B 39:1-38.
    Kruskal, J. B. (1977). Three-way arrays: rank and uniqueness of trilinear decompositions.
    Linear Algebra and its Applications 18:95-138 (identifiability with three raters).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 1, 0], [1, 1, 1], [0, 0, 1]] * 5)
    >>> fit = dawid_skene(X, init="random", seed=3)
    >>> fit.labels[:6].tolist()  # anchored to the majority whatever the start
    [0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    >>> dawid_skene(X[:, :2])
    Traceback (most recent call last):
    ...
    ValueError: Dawid-Skene is not identifiable with 2 raters: it needs at least 3 raters whose labels overlap on some item (Kruskal 1977); use majority or reference gold instead
    """

    check_choice("init", init, ("majority", "random"))
    SEED.check("seed", seed)
    IntRange(1, 10**7, what="count").check("max_iter", max_iter)
    RealRange(0.0, math.inf, open_low=False, what="tolerance").check("tol", tol)
    RealRange(0.0, math.inf, open_low=False, what="pseudo-count").check("smoothing", smoothing)
    check_choice("require_dominance", require_dominance, (True, False))

    A = check_numbers("X", X, "an items x raters array of category codes, NaN for missing")
    if A.ndim != 2:
        raise ValueError(f"X: an array of shape {A.shape} is not allowed (items x raters)")
    n, R = A.shape
    cats = np.unique(A[~np.isnan(A)]) if categories is None else np.asarray(categories, dtype=float)
    check_codes(A, cats)
    observed = ~np.isnan(A)
    _check_identifiable(observed, cats.size)
    Y = _one_hot(A, cats)
    labelled = observed.any(axis=1)
    T = _start(Y, labelled, init, seed)
    T, theta, pi, trace, it, converged = _em(Y, T, smoothing, max_iter, tol)
    T, theta, pi = _anchor_to_majority(Y, T, theta, pi, labelled)
    mean_conf = theta.mean(axis=0)
    dominant = bool(np.all(mean_conf.argmax(axis=1) == np.arange(cats.size)))
    if not dominant and require_dominance:
        raise ValueError(
            "Dawid-Skene fit is not diagonally dominant (the raters' averaged confusion matrix "
            f"{np.round(mean_conf, 2).tolist()} does not put most mass on the true class): the "
            "latent classes cannot be matched to the labels; use majority gold, or "
            "require_dominance=False to inspect the fit"
        )
    labels = np.where(labelled, cats[T.argmax(axis=1)], np.nan)
    rated = observed.sum(axis=0)
    excluded = {"items_without_labels": int((~labelled).sum())}
    if not dominant:
        excluded["not_diagonally_dominant"] = 1
    if (rated == 0).any():
        excluded["raters_without_labels"] = int((rated == 0).sum())
    return DawidSkeneResult(
        posteriors=T,
        labels=labels,
        confusion=theta,
        priors=pi,
        log_likelihood=trace,
        n_iter=it,
        converged=converged,
        categories=cats,
        raters=list(raters) if raters is not None else [f"rater_{j}" for j in range(R)],
        items=list(items) if items is not None else [str(i) for i in range(n)],
        init=init,
        seed=seed,
        smoothing=smoothing,
        tol=tol,
        excluded=excluded,
    )


def _check_identifiable(observed: np.ndarray, q: int) -> None:
    """Refuse a design the model cannot identify: < 2 classes, < 3 raters, or no item with 3
    labels (Kruskal 1977)."""
    if q < 2:
        raise ValueError("Dawid-Skene needs at least two categories")
    n_raters_used = int((observed.sum(axis=0) > 0).sum())
    if n_raters_used < 3:
        raise ValueError(
            f"Dawid-Skene is not identifiable with {n_raters_used} raters: it needs at least 3 "
            "raters whose labels overlap on some item (Kruskal 1977); use majority or reference "
            "gold instead"
        )
    if not (observed.sum(axis=1) >= 3).any():
        raise ValueError(
            "Dawid-Skene is not identifiable here: no item was labelled by 3 or more raters "
            "(Kruskal 1977); use majority or reference gold instead"
        )


def _start(Y: np.ndarray, labelled: np.ndarray, init: str, seed: int) -> np.ndarray:
    """Starting posteriors: vote shares (uniform for unlabelled items) or Dirichlet(1) draws."""
    n, _, q = Y.shape
    if init == "random":
        return np.random.default_rng(seed).dirichlet(np.ones(q), size=n)
    votes = Y.sum(axis=1)
    return np.where(
        labelled[:, None], votes / np.maximum(votes.sum(axis=1, keepdims=True), 1), 1.0 / q
    )


def _em(
    Y: np.ndarray, T: np.ndarray, smoothing: float, max_iter: int, tol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[float], int, bool]:
    """EM from posteriors ``T`` until the (penalised) log-likelihood gain is below
    ``tol * (1 + |loglik|)``: ``(T, confusion, priors, trace, n_iter, converged)``."""
    trace: list[float] = []
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - it is reported
        theta, pi = _m_step(Y, T, smoothing)
        T, ll, _ = _e_step(Y, theta, pi)
        if smoothing > 0:
            ll += smoothing * (
                np.log(np.maximum(theta, _TINY)).sum() + np.log(np.maximum(pi, _TINY)).sum()
            )
        trace.append(ll)
        if len(trace) >= 2 and abs(trace[-1] - trace[-2]) <= tol * (1.0 + abs(trace[-1])):
            return T, theta, pi, trace, it, True
    return T, theta, pi, trace, it, False


def _anchor_to_majority(
    Y: np.ndarray, T: np.ndarray, theta: np.ndarray, pi: np.ndarray, labelled: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relabel the latent classes to agree best with the majority vote (Hungarian matching)."""
    q = T.shape[1]
    maj = Y.sum(axis=1).argmax(axis=1)
    cross = np.zeros((q, q))
    np.add.at(cross, (T[labelled].argmax(axis=1), maj[labelled]), 1.0)
    _, perm = linear_sum_assignment(-cross)  # latent class k -> category perm[k]
    inv = np.argsort(perm)
    return T[:, inv], theta[:, inv, :], pi[inv]


def posterior_given(
    X: Any, confusion: np.ndarray, priors: np.ndarray, categories: np.ndarray
) -> np.ndarray:
    """Item posteriors by Bayes' rule at given parameters (the E-step, exposed for checks)."""
    A = np.asarray(X, dtype=float)
    return _e_step(_one_hot(A, np.asarray(categories, dtype=float)), confusion, priors)[0]
