"""Judges against gold on a categorical scale: confusion matrices, per-class rates, ordinal
under-/over-calling and Cohen's (weighted) kappa — array kernels, vectorised over judges.

Inputs (one dimension; :meth:`medjudge.data.model.Study.outcomes` hands out exactly these):
``gold`` of shape ``(n,)`` with category codes ``0..q-1`` (no NaN: items without gold are
removed upstream), ``pred`` of shape ``(n, J)`` with codes or NaN where the judge gave no usable
verdict. A missing verdict is kept as its own column of the confusion matrix ("no verdict") and
is never silently dropped: under the ``wrong`` (and ``half``) policy it stays in every
denominator — it is a miss of the gold class (lowers recall), predicts no class (never enters
precision), is neither too low nor too high, and in kappa it is a category of its own that
agrees with no gold label; under ``exclude`` the item is left out for that judge.

Formulas
--------
* Confusion matrix ``C[g, p] = sum_i w_i [gold_i = g][pred_i = p]`` (rows gold, columns
  prediction, last column "no verdict"; the orientation of scikit-learn's ``confusion_matrix``).
* Recall of class ``k``: ``C[k, k] / sum_p C[k, p]``; precision: ``C[k, k] / sum_g C[g, k]``.
  Both are ratio means of 0/1 values over a subset of items (gold = k, resp. pred = k). Their
  intervals are Wilson (1927) score intervals at the Korn & Graubard (1998) effective sample size
  when items cluster (cluster-robust SE of Miller 2024 / Liang & Zeger 1986 over the clusters of
  that subset); without clusters they are the textbook Wilson interval.
* Ordinal scales: ``too_low = #(pred < gold) / n`` and ``too_high = #(pred > gold) / n`` — for a
  risk scale, calling a "Critical" case "Non-serious" (too low) is not the same error as the
  reverse. Same intervals.
* Cohen's kappa against gold (Cohen 1960; weighted: Cohen 1968) through
  :func:`medjudge.stats.agreement.cohen_kappa_core` with the agreement-weight matrix of
  :func:`gold_weight_matrix`: the scale's weights (identity for nominal, linear or quadratic for
  ordinal, named in every result) bordered by the "no verdict" category (weight 0 against every
  gold label).

References
----------
- Cohen J. (1960) A coefficient of agreement for nominal scales. Educ Psychol Meas 20:37-46.
- Cohen J. (1968) Weighted kappa. Psychol Bull 70:213-220.
- Wilson E.B. (1927) JASA 22:209-212. Korn E.L., Graubard B.I. (1998) Survey Methodology
  24:193-201. Miller E. (2024) arXiv:2411.00640, Appendix A.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .accuracy import POLICIES
from .agreement.two_raters import cohen_kappa_columns
from .agreement.weights import weight_matrix
from .groups import group_codes
from .intervals import mean_ci, wilson_interval
from .resampling import ClusterJackknife, ResamplePlan, as_weights, weighted_onehot

Policy = Literal["wrong", "exclude", "half"]

__all__ = [
    "check_gold_pred",
    "confusion_counts",
    "gold_weight_matrix",
    "gold_kappa_core",
    "rate_intervals",
    "class_rates",
    "ordinal_error_rates",
]


def check_gold_pred(
    gold: np.ndarray, pred: np.ndarray, n_categories: int
) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``gold`` ``(n,)`` and ``pred`` ``(n,)``/``(n, J)`` codes; return float arrays."""
    g = np.asarray(gold, dtype=float)
    p = np.asarray(pred, dtype=float)
    if p.ndim == 1:
        p = p[:, None]
    if g.ndim != 1 or p.ndim != 2 or p.shape[0] != g.shape[0]:
        raise ValueError(
            f"gold must have shape (n,) and pred (n,) or (n, J); got {g.shape} and {p.shape}"
        )
    if int(n_categories) < 1:
        raise ValueError(f"n_categories must be >= 1, got {n_categories}")
    allowed = np.arange(int(n_categories), dtype=float)
    if np.isnan(g).any() or not np.isin(g, allowed).all():
        bad = g[np.isnan(g) | ~np.isin(g, allowed)][0]
        raise ValueError(
            f"gold must hold category codes 0..{n_categories - 1} (items without gold removed); "
            f"got {bad}"
        )
    obs = ~np.isnan(p)
    if not np.isin(p[obs], allowed).all():
        bad = p[obs][~np.isin(p[obs], allowed)][0]
        raise ValueError(f"pred must hold category codes 0..{n_categories - 1} or NaN; got {bad}")
    return g, p


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")


def confusion_counts(
    gold: np.ndarray, pred: np.ndarray, n_categories: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Confusion matrices of every judge: ``(J, q, q + 1)``, or ``(B, J, q, q + 1)`` for 2-D
    ``weights``.

    ``C[j, g, p] = sum_i w_i [gold_i = g][pred_ij = p]``; column ``q`` counts items without a
    usable verdict. ``weights`` (``(n,)`` or ``(B, n)``; bootstrap resample counts) default to 1.

    Examples
    --------
    >>> confusion_counts([0, 0, 1, 2], [[0], [1], [1], [np.nan]], 3)[0]
    array([[1., 1., 0., 0.],
           [0., 1., 0., 0.],
           [0., 0., 0., 1.]])
    """
    g, p = check_gold_pred(gold, pred, n_categories)
    q = int(n_categories)
    n, J = p.shape
    pc = np.where(np.isnan(p), q, p).astype(int)
    cell = (g.astype(int)[:, None] * (q + 1) + pc) + (np.arange(J) * q * (q + 1))[None, :]
    m = J * q * (q + 1)
    if weights is None:
        return np.bincount(cell.ravel(), minlength=m).astype(float).reshape(J, q, q + 1)
    w = as_weights(weights)
    if w.shape[-1] != n:
        raise ValueError(f"weights must have {n} columns (one per item), got shape {w.shape}")
    out = weighted_onehot(w, np.repeat(np.arange(n), J), cell.ravel(), (n, m))
    return out.reshape(*w.shape[:-1], J, q, q + 1)


def gold_weight_matrix(values: np.ndarray, kind: str = "identity") -> np.ndarray:
    """Agreement weights ``(q + 1) x (q + 1)`` for kappa against gold: the scale's weights
    (:func:`medjudge.stats.agreement.weight_matrix`, by category value) bordered by the "no
    verdict" category, which agrees with itself only (weight 0 against every gold label).

    Examples
    --------
    >>> gold_weight_matrix(np.array([0.0, 1.0, 2.0]), "linear")
    array([[1. , 0.5, 0. , 0. ],
           [0.5, 1. , 0.5, 0. ],
           [0. , 0.5, 1. , 0. ],
           [0. , 0. , 0. , 1. ]])
    """
    base = weight_matrix(np.asarray(values, dtype=float), kind)
    q = base.shape[0]
    out = np.zeros((q + 1, q + 1))
    out[:q, :q] = base
    out[q, q] = 1.0
    return out


def gold_kappa_core(
    gold: np.ndarray,
    pred: np.ndarray,
    n_categories: int,
    weights: np.ndarray | ClusterJackknife | ResamplePlan | None = None,
    *,
    values: np.ndarray | None = None,
    kind: str = "identity",
    policy: Policy = "wrong",
) -> np.ndarray:
    """Cohen's (weighted) kappa of every judge against gold under item weights.

    ``kappa_w = (p_o - p_e) / (1 - p_e)``, ``p_o = sum_gp w_gp P_gp``, ``p_e = sum_gp w_gp
    P_g. P_.p`` (Cohen 1968) on the ``(q+1) x (q+1)`` table of :func:`confusion_counts`, with the
    agreement weights of :func:`gold_weight_matrix` (``kind``: identity, linear, quadratic …;
    ``values``: numeric category values, default ``0..q-1``). Under ``policy="exclude"`` items
    without a usable verdict are dropped for that judge; otherwise "no verdict" is a category of
    its own. Returns ``(J,)`` for ``weights=None`` or 1-D weights, ``(B, J)`` for 2-D weights
    (a :class:`~medjudge.stats.resampling.ResamplePlan`: one row per replicate, without the
    weight matrix; a :class:`~medjudge.stats.resampling.ClusterJackknife`: one row per
    left-out cluster).

    Examples
    --------
    >>> gold = np.array([0, 0, 1, 1, 2, 2])
    >>> round(float(gold_kappa_core(gold, gold[:, None], 3)[0]), 6)
    1.0
    """
    _check_policy(policy)
    g, p = check_gold_pred(gold, pred, n_categories)
    q = int(n_categories)
    vals = np.arange(q, dtype=float) if values is None else np.asarray(values, dtype=float)
    if vals.shape != (q,):
        raise ValueError(f"values must give one number per category ({q}), got shape {vals.shape}")
    if policy == "exclude":
        Wm = weight_matrix(vals, kind)
        cats, cvals = np.arange(q, dtype=float), vals
    else:
        Wm = gold_weight_matrix(vals, kind)
        p = np.where(np.isnan(p), float(q), p)
        cats = np.arange(q + 1, dtype=float)
        # the value of "no verdict" only orders the table; its weights are set explicitly
        cvals = np.append(vals, vals.max() + 1.0)
    # cohen_kappa_core sorts categories by value; give the weight matrix in that order
    order = np.argsort(cvals, kind="stable")
    Wm = Wm[np.ix_(order, order)]
    # every judge's table from one product of the weights with the stacked one-hot cells
    out = cohen_kappa_columns(g, p, weights, categories=cats, values=cvals, weights=Wm)
    return np.moveaxis(out, 0, -1)


def rate_intervals(
    values: np.ndarray,
    mask: np.ndarray,
    clusters: np.ndarray | None = None,
    confidence_level: float = 0.95,
) -> dict[str, np.ndarray]:
    """Share of ones among the items of ``mask``, per column, with a (clustered) Wilson interval.

    ``values`` and ``mask`` are ``(n, m)``; for each column the rate is ``sum(mask*values) /
    sum(mask)`` and its interval the Wilson interval at the Korn–Graubard effective sample size
    of the clusters holding that column's items (:func:`medjudge.stats.intervals.mean_ci`);
    without clusters, the textbook Wilson interval on the column's ``n`` items.
    Returns ``estimate, se, ci_low, ci_high, n, n_clusters`` arrays of shape ``(m,)``.
    """
    v = np.asarray(values, dtype=float)
    m = np.asarray(mask, dtype=bool)
    cols = v.shape[1]
    keys = ("estimate", "se", "ci_low", "ci_high", "n", "n_clusters")
    out = {k: np.full(cols, np.nan) for k in keys}
    # integer codes in sorted-label order, once: every column's clusters then group (and sum)
    # exactly as the labels would, without sorting strings again for each column
    cl = None if clusters is None else group_codes(clusters)[0]
    for c in range(cols):
        rows = m[:, c]
        n = int(rows.sum())
        out["n"][c] = n
        if n == 0:
            out["n_clusters"][c] = 0
            continue
        if cl is None:  # the textbook Wilson interval on n items
            k = float(v[rows, c].sum())
            lo, hi = wilson_interval(k, n, confidence_level)
            p = k / n
            est, se = p, float(np.sqrt(p * (1 - p) / n))
        else:
            r = mean_ci(
                v[rows, c], cl[rows], confidence_level=confidence_level, method="wilson-eff"
            )
            est, se, lo, hi = r["estimate"], r["se"], r["low"], r["high"]
        out["estimate"][c] = float(est)
        out["se"][c] = float(se)
        out["ci_low"][c] = float(lo)
        out["ci_high"][c] = float(hi)
        out["n_clusters"][c] = n if cl is None else group_codes(cl[rows])[1]
    return out


def class_rates(
    gold: np.ndarray,
    pred: np.ndarray,
    n_categories: int,
    *,
    clusters: np.ndarray | None = None,
    policy: Policy = "wrong",
    confidence_level: float = 0.95,
) -> dict[str, dict[str, np.ndarray]]:
    """Per-class recall and precision of every judge with (clustered) Wilson intervals.

    Returns ``{"recall": {...}, "precision": {...}}``; each holds arrays of shape ``(J, q)``:
    ``estimate, se, ci_low, ci_high, n`` (items of the class, resp. items predicted as it),
    ``n_clusters`` and ``count`` (true positives). See the module docstring for how missing
    verdicts enter.

    Examples
    --------
    >>> r = class_rates([0, 0, 1, 1], [[0], [1], [1], [1]], 2)
    >>> r["recall"]["estimate"].tolist(), r["precision"]["estimate"].tolist()
    ([[0.5, 1.0]], [[1.0, 0.6666666666666666]])
    """
    _check_policy(policy)
    g, p = check_gold_pred(gold, pred, n_categories)
    q = int(n_categories)
    J = p.shape[1]
    valid = ~np.isnan(p)
    res: dict[str, dict[str, np.ndarray]] = {}
    for kind in ("recall", "precision"):
        cols_v, cols_m = [], []
        for j in range(J):
            keep = valid[:, j] if policy == "exclude" else np.ones(g.size, dtype=bool)
            for k in range(q):
                if kind == "recall":
                    cols_m.append((g == k) & keep)
                    cols_v.append((p[:, j] == k).astype(float))
                else:
                    cols_m.append(p[:, j] == k)
                    cols_v.append((g == k).astype(float))
        V, M = np.column_stack(cols_v), np.column_stack(cols_m)
        out = rate_intervals(V, M, clusters, confidence_level)
        out["count"] = (V * M).sum(0)
        res[kind] = {k: a.reshape(J, q) for k, a in out.items()}
    return res


def ordinal_error_rates(
    gold: np.ndarray,
    pred: np.ndarray,
    n_categories: int,
    *,
    clusters: np.ndarray | None = None,
    policy: Policy = "wrong",
    confidence_level: float = 0.95,
) -> dict[str, dict[str, np.ndarray]]:
    """Rates of calling an ordinal label too low and too high, with (clustered) Wilson intervals.

    ``too_low = #(pred < gold) / n`` and ``too_high = #(pred > gold) / n`` over the items with
    gold (``n``; under ``exclude`` only the items with a usable verdict). Codes follow the
    scale's order (low to high). Returns ``{"too_low": {...}, "too_high": {...}}`` with arrays
    of shape ``(J,)``: ``estimate, se, ci_low, ci_high, n, n_clusters, count``.

    Examples
    --------
    >>> r = ordinal_error_rates([0, 1, 2, 3], [[1], [1], [0], [np.nan]], 4)
    >>> r["too_low"]["estimate"].tolist(), r["too_high"]["estimate"].tolist()
    ([0.25], [0.25])
    """
    _check_policy(policy)
    g, p = check_gold_pred(gold, pred, n_categories)
    valid = ~np.isnan(p)
    mask = valid if policy == "exclude" else np.ones_like(p, dtype=bool)
    res = {}
    with np.errstate(invalid="ignore"):
        for name, v in (
            ("too_low", valid & (p < g[:, None])),
            ("too_high", valid & (p > g[:, None])),
        ):
            vv = v.astype(float)
            out = rate_intervals(vv, mask, clusters, confidence_level)
            out["count"] = (vv * mask).sum(0)
            res[name] = out
    return res
