"""The one resampling engine: seeded resample-weight matrices and bootstrap intervals.

Design (see DESIGN.md): a seeded ``numpy.random.Generator`` draws a ``B x n_clusters`` matrix
of resample counts — plain (each item its own cluster), cluster (case / image / patient),
stratified (clusters resampled within strata, e.g. organ), or Poisson(1) counts (the
"Poisson bootstrap", Hanley & MacGibbon 2006, for data too large to hold one row per verdict).
The counts are expanded to a ``B x n_items`` weight matrix ``W``. Every statistic that is a
function of weighted per-item sums is then evaluated for all B resamples at once, e.g. the
accuracy of every judge is ``W @ correct / W.sum(1)``. All judges and dimensions share the same
``W``, so paired comparisons (differences of two statistics) are free.

Intervals (``bootstrap_interval``): percentile, basic, and BCa (Efron 1987, "Better bootstrap
confidence intervals", JASA 82:171-185) with the acceleration from the jackknife (leave one
*cluster* out, ``jackknife_weights``), vectorised over any trailing shape.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np

from .._validation import RESAMPLES, SEED, check_choice
from .bootstrap_intervals import bootstrap_interval, bootstrap_se, weighted_bootstrap
from .resampling_counts import Method, _codes, _draw_counts, jackknife_weights, resample_weights

# bootstrap_interval, bootstrap_se and weighted_bootstrap live in .bootstrap_intervals, the
# resample counts (resample_weights, jackknife_weights) in .resampling_counts; all are imported
# here for every caller of this module
__all__ = [
    "bootstrap_interval",
    "bootstrap_se",
    "jackknife_weights",
    "resample_weights",
    "weighted_bootstrap",
]

IntervalMethod = Literal["percentile", "basic", "bca"]


@dataclass(frozen=True)
class Bootstrap:
    """How to resample: the one settings object of every resampling analysis in medjudge.

    Every public function that resamples takes ``bootstrap=Bootstrap(...)`` (default: the
    settings below); nothing else configures resampling. *What* is resampled together — items
    of one case or image — is a property of the data, not of the settings: array functions take
    ``clusters=`` (one label per item), study analyses ``cluster=`` (a column), because
    clustering also changes the analytic intervals and tests, not only the bootstrap.

    Parameters
    ----------
    n_resamples : int
        Bootstrap replicates ``B`` (10 to 100,000; 2,000 by default — enough for 95% percentile
        limits with a Monte Carlo error of about 0.005 on the coverage scale, Efron &
        Tibshirani 1993, ch. 19).
    seed : int
        Seed of numpy's generator (``numpy.random.default_rng(seed)``); the same seed gives the
        same replicates and the same numbers.
    method : {None, "percentile", "basic", "bca"}
        Interval from the replicates: percentile, basic (reverse percentile) or BCa (Efron
        1987, with the jackknife acceleration over clusters). ``None`` (default) is each
        function's documented choice (BCa for agreement coefficients, percentile for accuracy
        and its differences).
    scheme : {"multinomial", "poisson"}
        Resample counts: multinomial (the classical bootstrap: ``n`` draws with replacement of
        clusters) or independent Poisson(1) counts per cluster (Hanley & MacGibbon 2006;
        Chamandy et al. 2012), which need no knowledge of ``n`` and suit data too large for one
        machine.

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82:171-185.
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
    Poisson frequencies. Computer Methods and Programs in Biomedicine 83:57-62.

    Examples
    --------
    >>> import medjudge as mj
    >>> mj.Bootstrap(n_resamples=500, seed=1)
    Bootstrap(n_resamples=500, seed=1, method=None, scheme='multinomial')
    >>> mj.Bootstrap(n_resamples=0)
    Traceback (most recent call last):
    ...
    ValueError: n_resamples: 0 is not allowed (number of resamples: an integer from 10 to 100000)
    """

    n_resamples: int = 2000
    seed: int = 0
    method: IntervalMethod | None = None
    scheme: Method = "multinomial"

    def __post_init__(self) -> None:

        object.__setattr__(self, "n_resamples", RESAMPLES.check("n_resamples", self.n_resamples))
        object.__setattr__(self, "seed", SEED.check("seed", self.seed))
        check_choice("method", self.method, (None, "percentile", "basic", "bca"))
        check_choice("scheme", self.scheme, ("multinomial", "poisson"))

    def interval(
        self, default: IntervalMethod, allowed: tuple[str, ...] | None = None
    ) -> IntervalMethod:
        """The interval method: :attr:`method`, or the calling function's ``default``.

        ``allowed`` lists the methods the calling function can draw; another ``method`` is
        refused with a message naming it (never silently replaced).
        """
        if allowed is not None and self.method is not None and self.method not in allowed:
            shown = ", ".join(repr(a) for a in (None, *allowed))
            raise ValueError(
                f"bootstrap.method: {self.method!r} is not allowed here (one of {shown})"
            )
        return self.method or default

    def plan(
        self,
        n_items: int,
        clusters: np.ndarray | None = None,
        strata: np.ndarray | None = None,
    ) -> ResamplePlan:
        """The :class:`ResamplePlan` of these settings for ``n_items`` items (internal use)."""
        return ResamplePlan(
            n_items, self.n_resamples, self.seed, clusters=clusters, strata=strata,
            method=self.scheme,
        )  # fmt: skip


@dataclass(frozen=True)
class Permutation:
    """How many random permutations a permutation test draws, and from which seed.

    Kept apart from :class:`Bootstrap`: a permutation test re-labels the data under the null
    (it gives a p-value), a bootstrap re-samples it (it gives an interval), and the two counts
    are chosen for different Monte Carlo errors.

    Parameters
    ----------
    n_resamples : int
        Random permutations ``B`` (10 to 100,000; 999 by default). The p-value is
        ``(1 + #{T* >= T}) / (B + 1)`` (Phipson & Smyth 2010), never 0, with a Monte Carlo
        standard error of about ``sqrt(p (1 - p) / B)`` (0.007 at p = 0.05 with B = 999).
    seed : int
        Seed of numpy's generator; the same seed gives the same permutations and p-values.

    References
    ----------
    Good, P. (2005). Permutation, Parametric and Bootstrap Tests of Hypotheses, 3rd ed.
    Springer. Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
    Statistical Applications in Genetics and Molecular Biology 9(1):39.

    Examples
    --------
    >>> import medjudge as mj
    >>> mj.Permutation(n_resamples=499, seed=3)
    Permutation(n_resamples=499, seed=3)
    >>> mj.Permutation(n_resamples=5)
    Traceback (most recent call last):
    ...
    ValueError: n_resamples: 5 is not allowed (number of resamples: an integer from 10 to 100000)
    """

    n_resamples: int = 999
    seed: int = 0

    def __post_init__(self) -> None:

        object.__setattr__(self, "n_resamples", RESAMPLES.check("n_resamples", self.n_resamples))
        object.__setattr__(self, "seed", SEED.check("seed", self.seed))


def as_bootstrap(bootstrap: Bootstrap | None, name: str = "bootstrap") -> Bootstrap:
    """``bootstrap`` checked, or the default :class:`Bootstrap` when it is None."""
    if bootstrap is None:
        return Bootstrap()
    if not isinstance(bootstrap, Bootstrap):
        raise ValueError(
            f"{name}: {bootstrap!r} is not allowed (a medjudge.Bootstrap, e.g. "
            "Bootstrap(n_resamples=2000, seed=0), or None)"
        )
    return bootstrap


def plan_arguments(plan: ResamplePlan | None, method: IntervalMethod | None = None) -> dict:
    """The public arguments (``bootstrap=``, ``clusters=``) equivalent to an internal ``plan``.

    ``{}`` for None, so ``fn(X, **plan_arguments(plan))`` keeps each function's defaults.
    """
    if plan is None:
        return {}
    if plan.strata is not None:
        raise ValueError("a stratified plan has no public equivalent; pass the plan internally")
    b = Bootstrap(plan.n_resamples, plan.seed, method=method, scheme=plan.method)
    return {"bootstrap": b, "clusters": plan.clusters}


@dataclass(frozen=True)
class ResamplePlan:
    """How to resample: cluster and stratum labels per item, resamples, seed, method.

    The plan never holds the ``(n_resamples, n_items)`` weight matrix ``W`` of
    :func:`resample_weights`. Every consumer uses ``W`` through products ``W @ X`` of per-item
    data, and ``W`` is constant within a cluster, so ``W @ X = counts @ (C X)`` with ``counts``
    the ``(B, n_clusters)`` resample counts and ``C X`` the per-cluster sums of ``X``.
    :meth:`sums` (also spelled ``plan @ X``) draws ``counts`` in blocks of replicates from the
    same random stream as :func:`resample_weights` (numpy draws a block of rows exactly as the
    rows of one large call), so memory is ``O(block x n_clusters)`` whatever ``B`` is, and the
    result equals ``resample_weights(...) @ X`` (bit for bit for whole-number ``X``; to the
    last digits otherwise, because the sums are added in another order). A statistic that is
    not a product (:func:`weighted_bootstrap`) gets ``W`` one block of rows at a time
    (:meth:`apply`).

    Examples
    --------
    >>> plan = ResamplePlan(4, 50, seed=1, clusters=np.array(["a", "a", "b", "c"]))
    >>> X = np.array([[1.0], [0.0], [1.0], [1.0]])
    >>> bool(np.allclose(plan @ X, resample_weights(4, 50, seed=1, clusters=plan.clusters) @ X))
    True
    >>> plan.shape
    (50, 4)
    """

    n_items: int
    n_resamples: int = 2000
    seed: int = 0
    clusters: np.ndarray | None = None
    strata: np.ndarray | None = None
    method: Method = "multinomial"

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_resamples, n_items)``, the shape of the weight matrix the plan stands for."""
        return (int(self.n_resamples), int(self.n_items))

    @cached_property
    def _cluster_codes(self) -> tuple[np.ndarray, int]:
        """Cluster codes and count (:func:`_codes`), computed once per plan: every pass needs
        them, and coding 10^6 text labels takes seconds."""
        return _codes(self.clusters, self.n_items)

    def _block_rows(self, n_clusters: int, width: int = 1) -> int:
        """Replicates per block: a block's counts and products stay within
        :data:`BLOCK_BYTES`."""
        return max(1, min(self.n_resamples, BLOCK_BYTES // (8 * max(n_clusters, width, 1))))

    def count_blocks(self, rows: int | None = None) -> Iterator[tuple[slice, np.ndarray]]:
        """``(rows, counts)`` for consecutive blocks of replicates: ``counts`` is the float
        ``(block, n_clusters)`` slice of the resample counts (cluster codes as in
        :meth:`cluster_sums`), drawn from the plan's seed as :func:`resample_weights` draws
        them."""
        ccode, n_clusters = self._cluster_codes
        rows = rows or self._block_rows(n_clusters)
        if self.n_items <= 0:
            raise ValueError("cannot resample an empty set of items")
        seed = self.seed
        rng = (
            copy.deepcopy(seed)
            if isinstance(seed, np.random.Generator)
            else np.random.default_rng(seed)
        )
        if self.strata is not None and self.method == "multinomial":
            # the stream is drawn stratum by stratum over all replicates: one draw, then blocks
            counts = _draw_counts(
                rng, self.n_resamples, n_clusters, ccode, self.strata, self.method
            )
            for a in range(0, self.n_resamples, rows):
                yield slice(a, min(a + rows, self.n_resamples)), counts[a : a + rows]
            return
        for a in range(0, self.n_resamples, rows):
            b = min(a + rows, self.n_resamples)
            yield slice(a, b), _draw_counts(rng, b - a, n_clusters, ccode, None, self.method)

    def cluster_sums(self, X: np.ndarray) -> np.ndarray:
        """Per-cluster sums ``C X`` of the rows of ``X`` (``(n_items, ...)`` → ``(n_clusters, ...)``;
        a scipy sparse ``X`` gives sparse sums)."""
        if self.clusters is None:
            return X if issparse(X) else np.asarray(X, dtype=np.float64)
        ccode, n_clusters = self._cluster_codes
        return _indicator_product(ccode, n_clusters, X)

    def sums(self, X: np.ndarray) -> np.ndarray:
        """``W @ X`` for the plan's weights ``W``, without ``W``: ``(B, ...)`` for ``X`` of
        shape ``(n_items, ...)`` (or a scipy sparse ``(n_items, m)`` matrix, e.g. one-hot table
        cells). Pass every column a consumer needs in one call: each call draws the
        replicates again (or declare a later product with :meth:`along`)."""
        flat, tail = self._flat_sums(X)
        along = self.__dict__.get("_along")
        pending = along is not None and _same_data(X, along[0])
        if pending and along[1] is not None:
            return along[1]
        if along is not None and along[1] is None and not pending and not issparse(flat):
            other, other_tail = self._flat_sums(along[0])
            if not issparse(other):  # one pass for both products
                out, along[1] = self._products(flat, other)
                along[1] = along[1].reshape((self.n_resamples, *other_tail))
                return out.reshape((self.n_resamples, *tail))
        out = self._products(flat)[0]
        return out if issparse(flat) else out.reshape((self.n_resamples, *tail))

    def along(self, X: np.ndarray) -> ResamplePlan:
        """The same plan, whose next product with another matrix also takes ``plan @ X`` in
        the same pass over the replicates; ``plan @ X`` (an ``X`` with the same numbers) then
        returns it without drawing again. For whole-number data (counts, 0/1 outcomes) the
        numbers are those of two separate products.

        >>> plan = ResamplePlan(4, 50, seed=1, clusters=np.array(["a", "a", "b", "c"]))
        >>> y = np.array([1.0, 0.0, 1.0, 1.0])
        >>> shared = plan.along(y)
        >>> n = shared @ np.ones(4)
        >>> bool(np.array_equal(shared @ y, plan @ y) and np.array_equal(n, plan.sum()))
        True
        """
        new = copy.copy(self)
        object.__setattr__(new, "_along", [X, None])
        return new

    def _flat_sums(self, X: np.ndarray) -> tuple[Any, tuple[int, ...]]:
        """Per-cluster sums of ``X`` as ``(n_clusters, width)`` doubles (or, when a sparse
        ``X``'s are too large to hold dense, as sparse ``(width, n_clusters)``) and ``X``'s
        trailing shape."""
        sparse = issparse(X)
        X = X.tocsr() if sparse else np.asarray(X, dtype=np.float64)
        if X.shape[0] != self.n_items:
            raise ValueError(f"sums: {X.shape[0]} rows, the plan has {self.n_items} items")
        S = self.cluster_sums(X)
        single = _exact_in_single(S)
        if sparse and S.shape[0] * S.shape[1] * (4 if single else 8) <= DENSE_SUMS_BYTES:
            # per-cluster sums of one-hot cells are mostly non-zero: BLAS on the dense sums is
            # many times faster than scipy's sparse-times-dense loop (and equal bit for bit for
            # whole-number X, whose every partial sum is an exact integer)
            S = (S.astype(np.float32) if single else S).toarray()
        if issparse(S):
            return S.T.tocsr(), X.shape[1:]
        flat = S.reshape(S.shape[0], -1)
        return (flat.astype(np.float32, copy=False) if single else flat), X.shape[1:]

    def _products(self, *flats: Any) -> list[np.ndarray]:
        """``counts @ flat`` over all replicates for each of ``flats`` (per-cluster sums from
        :meth:`_flat_sums`), block by block from one pass over the replicates."""
        n_clusters = self._cluster_codes[1]
        widths = [f.shape[0] if issparse(f) else f.shape[1] for f in flats]
        outs = [np.empty((self.n_resamples, w)) for w in widths]
        exact = [
            None if issparse(f) or f.dtype != np.float32 else _abs_column_sums(f).max()
            for f in flats
        ]
        for rows, counts in self.count_blocks(self._block_rows(n_clusters, sum(widths))):
            single = None
            for flat, out, bound in zip(flats, outs, exact, strict=True):
                if issparse(flat):
                    out[rows] = (flat @ counts.T).T
                elif bound is not None and counts.max(initial=0) * bound < 2**24:
                    single = counts.astype(np.float32) if single is None else single
                    out[rows] = single @ flat
                else:
                    out[rows] = counts @ flat.astype(np.float64, copy=False)
        return outs

    __matmul__ = sums

    def sum(self, axis: int = 1, keepdims: bool = False) -> np.ndarray:
        """Row sums of ``W`` (the resampled number of items), as ``W.sum(1)`` would give."""
        if axis not in (1, -1):
            raise ValueError("only the row sums (axis=1) of the weights are defined")
        tot = self.sums(np.ones(self.n_items))
        return tot[:, None] if keepdims else tot

    def restrict(self, keep: np.ndarray) -> Restricted:
        """The columns ``keep`` (a mask or indices) of ``W`` (``W[:, keep]``), without ``W``."""
        keep = np.asarray(keep)
        return Restricted(self, np.flatnonzero(keep) if keep.dtype == bool else keep)

    def apply(self, statistic: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``statistic(W)`` for a statistic that is not a product, evaluated one block of
        rows of ``W`` at a time (``(block, n_items)`` doubles within :data:`BLOCK_BYTES`)."""
        ccode, n_clusters = self._cluster_codes
        parts = [
            np.asarray(statistic(counts if self.clusters is None else counts[:, ccode]))
            for _, counts in self.count_blocks(self._block_rows(self.n_items))
        ]
        return np.concatenate(parts, axis=0)

    def cluster_jackknife(self) -> ClusterJackknife:
        """Leave-one-cluster-out weights (:func:`jackknife_weights`) without the matrix."""
        return ClusterJackknife(*self._cluster_codes)

    def jackknife_apply(self, statistic: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``statistic(J)`` for the leave-one-cluster-out weights ``J``, in blocks of rows."""
        ccode, n_clusters = self._cluster_codes
        rows = max(1, BLOCK_BYTES // (8 * max(self.n_items, 1)))
        parts = []
        for a in range(0, n_clusters, rows):
            g = np.arange(a, min(a + rows, n_clusters))
            J = (ccode[None, :] != g[:, None]).astype(np.float64)
            parts.append(np.asarray(statistic(J)))
        return np.concatenate(parts, axis=0)


@dataclass(frozen=True)
class Restricted:
    """The columns ``keep`` of weights that compute ``W @ X`` without ``W`` (a
    :class:`ResamplePlan` or a :class:`ClusterJackknife`): ``W[:, keep] @ X`` is ``W @ X``
    with ``X`` placed on the kept items and zero elsewhere.

    Examples
    --------
    >>> jk = ClusterJackknife(np.array([0, 0, 1]), 2)
    >>> (Restricted(jk, np.array([0, 2])) @ np.array([1.0, 4.0])).tolist()
    [4.0, 1.0]
    """

    weights: ResamplePlan | ClusterJackknife
    keep: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows of the weights, kept items)``."""
        return (self.weights.shape[0], int(self.keep.size))

    def __matmul__(self, X: np.ndarray) -> np.ndarray:
        if issparse(X):
            from scipy.sparse import csr_matrix

            X = X.tocoo()
            full = csr_matrix(
                (X.data, (self.keep[X.row], X.col)), shape=(self.weights.shape[1], X.shape[1])
            )
            return self.weights @ full
        X = np.asarray(X, dtype=np.float64)
        full = np.zeros((self.weights.shape[1], *X.shape[1:]))
        full[self.keep] = X
        return self.weights @ full

    def sum(self, axis: int = 1, keepdims: bool = False) -> np.ndarray:
        """Row sums of ``W[:, keep]``."""
        tot = self @ np.ones(self.keep.size)
        return tot[:, None] if keepdims else tot


def as_weights(weights: object) -> np.ndarray | ResamplePlan | ClusterJackknife | Restricted:
    """Item weights as a consumer takes them: a :class:`ResamplePlan`, :class:`ClusterJackknife`
    or :class:`Restricted` as it is (they compute ``W @ X`` and ``W.sum(1)`` without ``W``),
    anything else as a float array."""
    if isinstance(weights, (ResamplePlan, ClusterJackknife, Restricted)):
        return weights
    return np.asarray(weights, dtype=float)


def weighted_onehot(
    weights: np.ndarray | ResamplePlan | ClusterJackknife | Restricted,
    rows: np.ndarray,
    cols: np.ndarray,
    shape: tuple[int, int],
) -> np.ndarray:
    """``W @ X`` for the 0/1 matrix ``X`` of ``shape`` with ones at ``(rows, cols)`` (one-hot
    table cells), without the dense ``X``: ``(k, m)`` for ``(k, n)`` weights, ``(m,)`` for 1-D.

    Examples
    --------
    >>> weighted_onehot(np.array([[1.0, 2.0]]), np.array([0, 1]), np.array([1, 1]), (2, 3))
    array([[0., 3., 0.]])
    """
    from scipy.sparse import csr_matrix

    X = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)
    if isinstance(weights, (ResamplePlan, ClusterJackknife, Restricted)):
        return weights @ X
    w = np.asarray(weights, dtype=float)
    return np.ascontiguousarray(np.asarray(X.T @ w.T).T)


#: Memory of one block of resample counts (bytes): the replicates are drawn and multiplied in
#: blocks of rows this size, so no consumer holds ``B x n_items`` (or ``B x n_clusters``) numbers.
BLOCK_BYTES = 32 * 2**20

#: Largest per-cluster sums of a sparse ``X`` (bytes) that :meth:`ResamplePlan.sums` multiplies
#: as a dense array.
DENSE_SUMS_BYTES = 8 * BLOCK_BYTES


def _same_data(X: Any, Y: Any) -> bool:
    """Whether ``X`` and ``Y`` are the same dense numbers (the same object, or equal)."""
    if X is Y:
        return True
    if issparse(X) or issparse(Y):
        return False
    X, Y = np.asarray(X), np.asarray(Y)
    return X.shape == Y.shape and bool(np.array_equal(X, Y))


def _exact_in_single(S: Any) -> bool:
    """Whether per-cluster sums ``S`` (dense or scipy sparse) are whole numbers whose products
    with a block of counts are exact in float32: then every partial sum is an integer below
    ``2**24`` (checked again per block in :meth:`ResamplePlan._products` with the block's
    largest count), so the single-precision product equals the double one bit for bit at half
    the memory traffic."""
    data = S.data if issparse(S) else S
    if not data.size or data.dtype != np.float64:
        return False
    if issparse(S) and S.format == "csr":  # column sums without a copy of the matrix
        colsum = np.bincount(S.indices, weights=np.abs(S.data), minlength=S.shape[1]).max()
    elif issparse(S):
        colsum = np.asarray(abs(S).sum(axis=0)).max()
    else:
        colsum = _abs_column_sums(S.reshape(S.shape[0], -1)).max()
    if not colsum < 2**20:
        return False
    flat = data.reshape(-1)
    step = BLOCK_BYTES // 8  # whole numbers checked a block at a time: no copy of S
    return all(np.array_equal(c, np.round(c)) for c in np.split(flat, range(step, flat.size, step)))


def _abs_column_sums(S: np.ndarray) -> np.ndarray:
    """``abs(S).sum(0)`` of a 2-D array, a block of rows at a time (no copy of ``S``)."""
    step = max(1, BLOCK_BYTES // (8 * max(S.shape[1], 1)))
    out = np.zeros(S.shape[1])
    for a in range(0, S.shape[0], step):
        out += np.abs(S[a : a + step]).sum(0, dtype=np.float64)
    return out


def issparse(X: object) -> bool:
    """Whether ``X`` is a scipy sparse matrix (without importing scipy.sparse at start-up)."""
    return hasattr(X, "tocsr")


def _indicator_product(codes: np.ndarray, n_groups: int, X: np.ndarray) -> np.ndarray:
    """``C @ X`` with ``C`` the ``(n_groups, n)`` 0/1 indicator of ``codes``: the per-group sums
    of the rows of ``X`` (sparse for a sparse ``X``)."""
    from scipy.sparse import csr_matrix

    n = codes.size
    C = csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(int(n_groups), n))
    if issparse(X):
        return C @ X
    flat = X.reshape(X.shape[0], -1)
    return np.asarray(C @ flat).reshape((int(n_groups), *X.shape[1:]))


@dataclass(frozen=True)
class ClusterJackknife:
    """Leave-one-cluster-out weights that never hold the ``(n_clusters, n_items)`` matrix.

    Row ``g`` of :func:`jackknife_weights` is 1 for every item outside cluster ``g`` and 0
    inside it, so ``jackknife_weights(n, clusters=c) @ X`` is the column totals of ``X`` minus
    the per-cluster sums: ``X.sum(0) - C @ X`` with ``C`` the sparse ``(G, n)`` cluster
    indicator. That takes ``O(G m)`` memory for an ``(n, m)`` ``X`` instead of ``O(G n)``
    (24.8 GiB at 10^5 items in clusters of 3). For whole-number ``X`` (one-hot cells, 0/1
    outcomes) every sum is an exact integer, so the result equals the dense product bit for
    bit.

    Parameters
    ----------
    codes : numpy.ndarray
        Cluster code ``0..n_clusters-1`` of every item.
    n_clusters : int
        Number of clusters ``G``.

    Examples
    --------
    >>> jk = ClusterJackknife(np.array([0, 0, 1]), 2)
    >>> (jk @ np.array([[1.0], [2.0], [4.0]])).ravel().tolist()
    [4.0, 3.0]
    >>> (jackknife_weights(3, clusters=np.array([0, 0, 1])) @ np.array([1.0, 2.0, 4.0])).tolist()
    [4.0, 3.0]
    """

    codes: np.ndarray
    n_clusters: int

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_clusters, n_items)``, the shape of the matrix it stands for."""
        return (int(self.n_clusters), int(self.codes.size))

    def __matmul__(self, X: np.ndarray) -> np.ndarray:
        return np.concatenate([block for _, block in self.blocks(X)], axis=0)

    def blocks(self, X: np.ndarray, rows: int | None = None) -> Iterator[tuple[slice, np.ndarray]]:
        """``(clusters, rows of J @ X)`` for consecutive blocks of left-out clusters, each
        within :data:`BLOCK_BYTES` (``X`` dense or scipy sparse ``(n_items, m)``)."""
        sparse = issparse(X)
        X = X.tocsr() if sparse else np.asarray(X, dtype=np.float64)
        one = not sparse and X.ndim == 1
        X2 = X[:, None] if one else X
        total = np.asarray(X2.sum(axis=0)).reshape(1, -1)
        S = _indicator_product(self.codes, self.n_clusters, X2)
        S = S.tocsr() if sparse else S
        G = int(self.n_clusters)
        rows = rows or max(1, BLOCK_BYTES // (8 * max(total.shape[1], 1)))
        for a in range(0, G, rows):
            part = S[a : a + rows]
            block = total - (part.toarray() if sparse else part)
            yield slice(a, min(a + rows, G)), (block[:, 0] if one else block)
