"""Input layouts, p-values and irrCAC's printing conventions for the agreement coefficients.

Every public agreement function (Cohen, Scott, PABAK, percent agreement, Fleiss, Gwet AC1/AC2,
Brennan–Prediger, Conger, Krippendorff's alpha) accepts

``layout``
    ``"ratings"`` (default): an ``items x raters`` array (NaN = missing);
    ``"table"``: a ``q x q`` contingency table of two raters (rows: rater 1, columns: rater 2;
    cell ``(k, l)`` = number of items rater 1 put in category ``k`` and rater 2 in ``l``);
    ``"counts"``: a ``subjects x categories`` matrix, cell ``(i, k)`` = number of raters who put
    subject ``i`` in category ``k`` (Fleiss 1971's layout; irrCAC's ``*.dist`` functions). Counts
    do not say which rater gave which label, so coefficients that need rater identity (Cohen,
    Conger, PABAK, Scott) refuse them. Categories are the row/column indices ``0..q-1``.

``convention``
    ``"medjudge"`` (default): Gwet's linearised variance ``sum (x_i - coef)^2 / (n (n-1))``
    for every layout, as documented in docs/agreement.md.
    ``"irrcac"``: reproduce the numbers irrCAC prints in its published README (CRAN 1.0, 2019;
    kgwet/irrCAC) to the printed digit:

    * its contingency-table functions (``scott2.table``, ``gwet.ac1.table``, ``bp2.table``,
      ``krippen2.table``, ``pa2.table``) divide the variance by ``n^2``, i.e.
      ``var = (1/n) [sum_kl p_kl (...)^2 - (...)^2]`` (``R/agree.coeff2.r``): their SE is
      ``sqrt((n-1)/n)`` times ours; ``kappa2.table`` is the Fleiss–Cohen–Everitt SE (ours) with
      a t interval;
    * its 2019 ``krippen.alpha.raw`` centres the per-item agreement at ``pa`` (with Krippendorff's
      small-sample term) rather than at ``pa'`` (``R/agree.coeff3.raw.r`` at the initial commit;
      the 2021 revision uses ``pa'``, which is medjudge's default);
    * its ``krippen.alpha.dist`` (counts) uses its own linearisation
      (``x_i = alpha_i - (1 - alpha)(pe_i - pe)/(1 - pe)``, ``R/agree.coeff3.dist.r``);
    * intervals are ``coef -/+ t_{n-1} SE`` with the upper limit clipped at 1.

    (irrCAC's counts functions divide by ``n (n-1)`` like ours; the README's
    ``distrib.6raters`` values are reproduced with the default convention.)

p-values (always added to ``extra`` when an analytic SE exists)
    ``p_value_t``: two-sided ``2 P(T_{n-1} > |coef/SE|)`` (H0: no agreement beyond chance) —
    what irrCAC printed until its November 2021 revision; ``p_value_t_greater``: one-sided
    ``P(T_{n-1} > coef/SE)`` (H1: agreement beyond chance) — what it prints since. For Cohen's
    and Fleiss' kappa the null-SE z test is also given one-sided: ``p_value_greater``
    ``= P(Z > kappa / se0)`` next to the two-sided ``p_value``.

References
----------
Gwet K.L. (2014) Handbook of Inter-Rater Reliability, 4th ed., ch. 5 (linearised variances).
Gwet K.L. irrCAC R package, github.com/kgwet/irrCAC (README; R/agree.coeff2.r,
R/agree.coeff3.raw.r, R/agree.coeff3.dist.r).
Fleiss J.L. (1971) Measuring nominal scale agreement among many raters. Psychol Bull 76:378-382.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Literal, NamedTuple

import numpy as np

from ..._lazy import stats
from ..resampling import Bootstrap
from ..results import Estimate
from .bootstrap import t_interval
from .coding import from_rating_matrix

Layout = Literal["ratings", "table", "counts"]
Convention = Literal["medjudge", "irrcac"]
LAYOUTS = ("ratings", "table", "counts")
CONVENTIONS = ("medjudge", "irrcac")

__all__ = [
    "LAYOUTS",
    "Settings",
    "agreement_input",
    "category_coefficient",
    "ratings_from_counts",
    "ratings_from_table",
]


def _count_matrix(M: Any, what: str) -> np.ndarray:
    A = np.asarray(M.to_numpy() if hasattr(M, "to_numpy") else M, dtype=float)
    if A.ndim != 2:
        raise ValueError(f"a {what} must be 2-D, got shape {A.shape}")
    bad = ~np.isfinite(A) | (A < 0) | (np.abs(A - np.rint(A)) > 1e-9)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"{what} cell ({i}, {j}) is {A[i, j]!r}; counts must be non-negative integers"
        )
    return np.rint(A).astype(int)


def ratings_from_table(table: Any) -> np.ndarray:
    """Expand a ``q x q`` two-rater contingency table into an ``(n, 2)`` ratings array.

    Examples
    --------
    >>> ratings_from_table([[2, 1], [0, 1]]).tolist()
    [[0.0, 0.0], [0.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    """
    T = _count_matrix(table, "contingency table")
    if T.shape[0] != T.shape[1]:
        raise ValueError(f"a contingency table must be square (q x q), got shape {T.shape}")
    rows, cols = np.nonzero(T)
    reps = T[rows, cols]
    return np.column_stack([np.repeat(rows, reps), np.repeat(cols, reps)]).astype(float)


def ratings_from_counts(counts: Any) -> np.ndarray:
    """Turn a ``subjects x categories`` count matrix into an ``items x raters`` array.

    Row ``i`` gets ``sum_k counts[i, k]`` ratings (NaN-padded to the largest row); which
    column holds which rating carries no information, so only coefficients that treat raters as
    exchangeable (percent agreement, Fleiss, Gwet, Brennan–Prediger, Krippendorff) accept it.

    Examples
    --------
    >>> ratings_from_counts([[2, 1], [0, 2]]).tolist()
    [[0.0, 0.0, 1.0], [1.0, 1.0, nan]]
    """
    C = _count_matrix(counts, "count matrix")
    r = C.sum(axis=1)
    width = int(r.max()) if r.size else 0
    out = np.full((C.shape[0], max(width, 1)), np.nan)
    for i, row in enumerate(C):
        vals = np.repeat(np.arange(C.shape[1]), row)
        out[i, : vals.size] = vals
    return out


def _to_ratings(X: Any, layout: str, kind: str, name: str) -> np.ndarray:
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r} is not one of {LAYOUTS}")
    if layout == "ratings":
        return X
    if layout == "table":
        return ratings_from_table(X)
    if kind in ("two", "conger"):
        raise ValueError(
            f"{name} needs to know which rater gave which label; a count matrix "
            "(layout='counts') does not say -- pass ratings or a contingency table"
        )
    return ratings_from_counts(X)


def _add_pvalues(e: Estimate) -> dict[str, Any]:
    extra = dict(e.extra)
    df = extra.get("df", e.n - 1)
    if df >= 1 and np.isfinite(e.se) and e.se > 0 and np.isfinite(e.estimate):
        t = e.estimate / e.se
        extra["p_value_t"] = float(2 * stats.t.sf(abs(t), df))
        extra["p_value_t_greater"] = float(stats.t.sf(t, df))
    if "z" in extra and np.isfinite(extra["z"]):
        extra["p_value_greater"] = float(stats.norm.sf(extra["z"]))
    return extra


#: a coefficient's own irrCAC standard error: ``irrcac_se(X, kwargs, layout) -> se``
IrrcacSE = Callable[[np.ndarray, dict[str, Any], str], float]


def _irrcac(
    e: Estimate,
    kind: str,
    layout: str,
    X: np.ndarray,
    kw: dict[str, Any],
    irrcac_se: IrrcacSE | None,
) -> Estimate:
    se = e.se
    n = e.n
    if irrcac_se is not None:
        se = irrcac_se(X, kw, layout)
    elif layout == "table" and e.name != "cohen_kappa" and n >= 1:
        se = e.se * math.sqrt((n - 1) / n)  # irrCAC's table functions divide by n^2
    extra = dict(e.extra)
    if kind == "alpha" and "pairable_units" in extra:
        # irrCAC's alpha drops the units rated fewer than twice before counting n (df = n - 1)
        n = int(extra["pairable_units"])
        extra["df"] = n - 1
    lo, hi = t_interval(e.estimate, se, n - 1, e.level)
    extra["convention"] = "irrCAC (README, CRAN 1.0 2019)"
    label = f"{e.ci_method}; irrCAC convention ({layout})".replace(", normal", ", t df=n-1")
    return replace(e, se=float(se), ci_low=lo, ci_high=hi, ci_method=label, extra=extra)


def agreement_input(kind: str, irrcac_se: IrrcacSE | None = None) -> Callable:
    """Decorator adding ``layout=`` and ``convention=`` (see the module docstring).

    ``kind``: ``"two"`` (Cohen, Scott, PABAK), ``"conger"``, ``"multi"`` (percent, Fleiss, Gwet,
    Brennan–Prediger) or ``"alpha"`` (Krippendorff). ``irrcac_se``: the coefficient's own
    standard error under ``convention="irrcac"`` (Krippendorff's alpha); default: its SE,
    rescaled as irrCAC's table functions do.
    """

    def deco(fn: Callable[..., Estimate]) -> Callable[..., Estimate]:
        accepts = tuple(inspect.signature(fn).parameters)

        @functools.wraps(fn)
        def wrapper(
            X: Any,
            *args: Any,
            layout: Layout = "ratings",
            convention: Convention = "medjudge",
            **kw: Any,
        ) -> Estimate:
            if convention not in CONVENTIONS:
                raise ValueError(f"convention={convention!r} is not one of {CONVENTIONS}")
            if convention == "irrcac":
                kw.setdefault("ci", "analytic")  # irrCAC prints analytic intervals
            X = from_rating_matrix(X, kw, accepts)  # study.matrix(...): values and its scale
            Xr = _to_ratings(X, layout, kind, fn.__name__)
            if layout != "ratings" and kw.get("categories") is None:
                q = np.asarray(X).shape[1]
                kw["categories"] = np.arange(q, dtype=float)
            e = fn(Xr, *args, **kw)
            if not isinstance(e, Estimate):
                return e
            e = replace(e, extra=_add_pvalues(e))
            if convention == "irrcac" and kw["ci"] == "analytic":
                e = _irrcac(e, kind, layout, Xr, kw, irrcac_se)
                e = replace(e, extra=_add_pvalues(e))
            return e

        entries = (
            "    layout : {'ratings', 'table', 'counts'}, default 'ratings'\n"
            "        ``'ratings'`` (items x raters), ``'table'`` (q x q two-rater contingency "
            "table)\n        or ``'counts'`` (subjects x categories); see "
            ":mod:`medjudge.stats.agreement.conventions`.\n"
            "    convention : {'medjudge', 'irrcac'}, default 'medjudge'\n"
            "        ``'irrcac'``: irrCAC's printed variances and t intervals.\n"
        )
        doc = fn.__doc__ or ""
        at = doc.find("\n    Returns\n")  # the two arguments belong to the Parameters section
        wrapper.__doc__ = doc[:at] + entries + doc[at:] if at >= 0 else doc + "\n" + entries
        return wrapper

    return deco


#: the docstring entries of the interval arguments the Gwet-linearised coefficients share
#: (percent agreement, Fleiss, Conger, Brennan–Prediger, Gwet, Scott, PABAK)
INTERVAL_PARAMS = """    ci : {"auto", "analytic", "bootstrap", None}, default "auto"
        ``"auto"``: the bootstrap below 100 rated items, the analytic interval from 100 on
        (chosen by the coverage study in docs/calibration.md), the cluster jackknife at any
        size when ``clusters`` are given; ``"analytic"``: Gwet's
        linearisation with t (n-1 df); ``"bootstrap"``: see ``bootstrap``; None: no interval.
    confidence_level : float, default 0.95
        Coverage of the interval.
    bootstrap : Bootstrap, optional
        Resampling settings (replicates, seed, interval method — BCa by default).
    clusters : array_like, optional
        One label per item (row): items sharing a label (a case, an image) are resampled
        together, and the analytic interval becomes the cluster jackknife (leave one cluster
        out, t with G-1 df; ``ci_method`` names it with the number of clusters). ``extra``
        holds ``n_clusters`` and, below 30 clusters, a ``warning`` that the interval may
        under-cover.
"""


#: the docstring entry of ``X`` for the two-rater coefficients (Scott, PABAK)
TWO_RATERS_X = """    X : array_like, shape (n_items, 2)
        The two raters' category codes, NaN = missing (items missing a rating are excluded
        and counted in ``excluded``).
"""


def with_interval_params(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Put the shared docstring entries in place of the lines ``{interval_params}``
    (:data:`INTERVAL_PARAMS`) and ``{two_raters_x}`` (:data:`TWO_RATERS_X`) of ``fn``'s
    docstring."""
    doc = fn.__doc__ or ""
    for key, text in (("interval_params", INTERVAL_PARAMS), ("two_raters_x", TWO_RATERS_X)):
        doc = doc.replace(f"    {{{key}}}", text.rstrip("\n"))
    fn.__doc__ = doc
    return fn


class Settings(NamedTuple):
    """The keyword arguments every category coefficient takes (see :func:`category_coefficient`)."""

    categories: Sequence[float] | np.ndarray | None
    values: Sequence[float] | np.ndarray | None
    weights: str | np.ndarray
    ci: str | None
    confidence_level: float
    bootstrap: Bootstrap | None
    clusters: Any


def category_coefficient(
    name: str, kind: str, doc: str, compute: Callable[[Any, Settings], Estimate], module: str
) -> Callable[..., Estimate]:
    """The public function of a coefficient of category codes, from its computation.

    Every such coefficient (percent agreement, Fleiss, Conger, Brennan–Prediger, Gwet, Cohen,
    Scott) has the same signature: ``X`` and the keyword arguments of :class:`Settings`, plus
    ``layout=`` and ``convention=`` from :func:`agreement_input` (``kind`` as there).
    ``compute(X, settings)`` does the work; ``doc`` becomes the docstring and ``module`` the
    function's ``__module__`` (where its doctests are found).
    """

    def coefficient(
        X: Any,
        *,
        categories: Sequence[float] | np.ndarray | None = None,
        values: Sequence[float] | np.ndarray | None = None,
        weights: str | np.ndarray = "identity",
        ci: str | None = "auto",
        confidence_level: float = 0.95,
        bootstrap: Bootstrap | None = None,
        clusters: Any = None,
    ) -> Estimate:
        settings = Settings(categories, values, weights, ci, confidence_level, bootstrap, clusters)
        return compute(X, settings)

    coefficient.__name__ = coefficient.__qualname__ = name
    coefficient.__module__ = module
    coefficient.__doc__ = doc
    return agreement_input(kind)(with_interval_params(coefficient))
