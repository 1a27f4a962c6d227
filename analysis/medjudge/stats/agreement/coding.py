"""Turn an ``items x raters`` rating matrix into the arrays every coefficient is built from.

Conventions shared by the whole ``agreement`` subpackage
--------------------------------------------------------
* Ratings are an ``(n_items, n_raters)`` float array; ``NaN`` marks a missing rating.
* ``categories`` lists the values that may appear in the matrix (the *codes*). A category nobody
  used still counts (it enters chance agreement and the weights), so pass the full list when it
  is known. Without it, the observed values are used.
* ``values`` gives the numeric value of each category for distance weights (defaults to the
  categories themselves). Weights are applied **by category value**, never by position: with
  categories ``[1, 2, 4]`` the linear distance between 2 and 4 is twice that between 1 and 2.
  Categories are kept sorted by value.
* Item weights ``w`` (bootstrap resample counts, see :mod:`medjudge.stats.resampling`) have shape
  ``(n_items,)`` or ``(k, n_items)``; a weight of 2 means the item appears twice. Every core
  function returns a scalar for ``w=None`` or a 1-D ``w`` and shape ``(k,)`` for a 2-D ``w``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validation import check_numbers

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def from_rating_matrix(
    X: Any, kw: dict[str, Any], accepts: Sequence[str] = ("categories", "values", "scale")
) -> Any:
    """A study's rating matrix as a coefficient's input: its values, with its scale's codes.

    ``X`` is a :class:`medjudge.data.model.RatingMatrix` (what ``study.matrix(...)`` returns)
    when it has a ``values`` array and a ``scale``; then ``kw`` (the call's keyword arguments)
    gets ``categories`` (codes ``0..K-1``), ``values`` (the categories' numeric values) and
    ``scale`` from that scale where the caller did not give them (only the names in
    ``accepts``: the coefficient's parameters), and the values array is returned. Anything
    else is returned unchanged.

    Examples
    --------
    >>> import medjudge as mj
    >>> m = mj.datasets.demo().matrix("overall", role="expert")
    >>> kw = {}
    >>> from_rating_matrix(m, kw).shape, kw["categories"].tolist(), kw["scale"].level
    ((1026, 3), [0.0, 1.0], 'nominal')
    """
    values, scale = getattr(X, "values", None), getattr(X, "scale", None)
    if not isinstance(values, np.ndarray) or scale is None or not hasattr(scale, "level"):
        return X
    cats = tuple(getattr(scale, "categories", ()) or ())
    if scale.level in ("nominal", "ordinal") and cats and kw.get("categories") is None:
        if "categories" in accepts:
            kw["categories"] = np.arange(len(cats), dtype=float)
        if "values" in accepts and kw.get("values") is None:
            kw["values"] = np.asarray(scale.numeric_values(), dtype=float)
    if "scale" in accepts and kw.get("scale") is None:
        kw["scale"] = scale
    return values


def as_ratings(X: Any, name: str = "X") -> np.ndarray:
    """Validate and return ratings as a 2-D float array (NaN = missing); a value that is not
    an array of numbers is refused in one line naming the argument ``name``."""

    A = check_numbers(name, X, "an items x raters array of numbers, NaN for missing")
    if A.ndim != 2:
        raise ValueError(
            f"{name}: ratings must be a 2-D items x raters array, got shape {A.shape}; "
            "reshape to one row per item and one column per rater"
        )
    if np.isinf(A).any():
        i, j = np.argwhere(np.isinf(A))[0]
        raise ValueError(f"{name}: infinite rating in row {i}, column {j}; use NaN for missing")
    return A


@dataclass(frozen=True)
class Categories:
    """The category codes that may appear in the ratings and their numeric values (sorted)."""

    codes: np.ndarray
    values: np.ndarray

    @property
    def q(self) -> int:
        return int(self.codes.size)


def check_codes(X: np.ndarray, codes: np.ndarray) -> None:
    """Raise ``ValueError`` naming the first row/column of ``X`` whose value is not in ``codes``
    (NaN = missing is allowed)."""
    bad = ~np.isnan(X) & ~np.isin(X, codes)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"value {X[i, j]:g} in row {i}, column {j} is not among categories "
            f"{[float(c) for c in codes]}; add it to categories= or recode it"
        )


def resolve_categories(
    X: np.ndarray,
    categories: Sequence[float] | np.ndarray | None = None,
    values: Sequence[float] | np.ndarray | None = None,
) -> Categories:
    """Category codes (given or observed) with their numeric values, sorted by value.

    Raises ``ValueError`` naming the first row/column whose value is not a declared category.
    """
    if categories is None:
        codes = np.unique(X[~np.isnan(X)])
    else:
        codes = np.asarray(categories, dtype=float).ravel()
        if np.unique(codes).size != codes.size:
            raise ValueError(f"duplicate categories in {list(codes)}")
        check_codes(X, codes)
    vals = codes.copy() if values is None else np.asarray(values, dtype=float).ravel()
    if vals.shape != codes.shape:
        raise ValueError(f"values= has {vals.size} entries for {codes.size} categories")
    order = np.argsort(vals, kind="stable")
    return Categories(codes=codes[order], values=vals[order])


def indicators(X: np.ndarray, cats: Categories) -> np.ndarray:
    """One-hot ratings, shape ``(n_items, n_raters, q)`` (all zeros where missing)."""
    return (X[:, :, None] == cats.codes[None, None, :]).astype(float)


def category_counts(X: np.ndarray, cats: Categories) -> np.ndarray:
    """``r_ik``: number of raters who put item ``i`` in category ``k``, shape ``(n, q)``."""
    return indicators(X, cats).sum(axis=1)


def item_weights(w: np.ndarray | None, n: int) -> tuple[np.ndarray, bool]:
    """Return item weights as a ``(k, n)`` array and whether the caller passed a 2-D array."""
    if w is None:
        return np.ones((1, n)), False
    W = np.asarray(w, dtype=float)
    if W.ndim == 1:
        if W.shape[0] != n:
            raise ValueError(f"item weights have length {W.shape[0]}, ratings have {n} items")
        return W[None, :], False
    if W.ndim != 2 or W.shape[1] != n:
        raise ValueError(f"item weights must have shape ({n},) or (k, {n}), got {W.shape}")
    if (W < 0).any():
        raise ValueError("item weights must be non-negative")
    return W, True


def finish(out: np.ndarray, batched: bool) -> np.ndarray | float:
    """Scalar for an unbatched call, the ``(k,)`` array otherwise."""
    out = np.asarray(out, dtype=float)
    return out if batched else float(out[0])


def category_core(
    name: str, doc: str, compute: Callable[..., np.ndarray | float], module: str
) -> Callable[..., np.ndarray | float]:
    """A coefficient's ``*_core(X, w, *, categories, values, weights)`` function of item weights.

    The signature every category coefficient's core shares (``w``: ``(n,)`` or ``(k, n)`` item
    weights, None = each item once); ``compute(X, w, categories, values, weights)`` does the
    work, ``name``, ``doc`` and ``module`` label the function.
    """

    def core(
        X: Any,
        w: np.ndarray | None = None,
        *,
        categories: Sequence[float] | np.ndarray | None = None,
        values: Sequence[float] | np.ndarray | None = None,
        weights: str | np.ndarray = "identity",
    ) -> np.ndarray | float:
        return compute(X, w, categories, values, weights)

    core.__name__ = core.__qualname__ = name
    core.__doc__ = doc
    core.__module__ = module
    return core


def resolve_level(level: Any, name: str = "scale") -> tuple[str, Any, Any]:
    """Accept ``"nominal"``…``"ratio"`` or a scale object with ``.level`` / ``.categories``.

    Returns ``(level, categories, values)``; for a categorical scale object the codes are
    ``0..K-1`` (the data model's encoding) and the values come from ``numeric_values()``.
    """
    allowed = ", ".join(repr(v) for v in LEVELS)
    if isinstance(level, str):
        if level not in LEVELS:
            raise ValueError(f"{name}: {level!r} is not allowed (one of {allowed} or a Scale)")
        return level, None, None
    arg = name
    name = getattr(level, "level", None)
    if name not in LEVELS:
        raise ValueError(f"{arg}: {level!r} is not allowed (one of {allowed} or a Scale)")
    cats = tuple(getattr(level, "categories", ()) or ())
    if name in ("nominal", "ordinal") and cats:
        codes = np.arange(len(cats), dtype=float)
        vals = level.numeric_values() if hasattr(level, "numeric_values") else codes
        return name, codes, np.asarray(vals, dtype=float)
    return name, None, None
