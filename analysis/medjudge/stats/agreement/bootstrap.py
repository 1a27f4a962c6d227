"""Analytic and bootstrap intervals for agreement coefficients, and paired differences.

Every coefficient in this subpackage has a *core*: a numpy function of the ratings and an item
weight array ``W`` of shape ``(k, n_items)`` returning ``(k,)`` values. Bootstrap intervals are
then one vectorised call on the shared engine's weight matrix
(:func:`medjudge.stats.resampling.weighted_bootstrap`): item-, cluster- (case, image) and
stratum-level resampling are all decided by the :class:`~medjudge.stats.resampling.ResamplePlan`.
No second bootstrap lives here.

The difference of two coefficients measured on the same items (e.g. kappa(judge X vs gold) -
kappa(judge Y vs gold)) uses the *same* resample weights for both, so the interval accounts for
their correlation (a paired bootstrap).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

import numpy as np

from ..._lazy import stats
from ..._validation import CONFIDENCE_LEVEL, check_choice, refuse_missing_labels
from ..groups import group_codes
from ..resampling import (
    Bootstrap,
    ResamplePlan,
    as_bootstrap,
    bootstrap_interval,
    bootstrap_se,
    weighted_bootstrap,
)
from ..results import Estimate

CI = Literal["analytic", "bootstrap", "none"]
BootMethod = Literal["percentile", "basic", "bca"]
Statistic = Callable[[np.ndarray], np.ndarray]


AUTO_BOOTSTRAP_BELOW = 100
"""``ci="auto"`` uses the BCa bootstrap below this many rated items, the analytic interval
from it on: at n = 50 with skewed prevalence the analytic intervals covered 90-92.5% and BCa
91-96%; from n = 200 every candidate was in band (docs/calibration.md, "Agreement
coefficients")."""


def check_ci(ci: str | None) -> str:
    """Normalise the ``ci=`` argument (``"auto"`` is resolved later by :func:`resolve_ci`)."""

    check_choice("ci", ci, ("auto", "analytic", "bootstrap", None, "none"))
    return "none" if ci is None else ci


class Resampling(NamedTuple):
    """A coefficient's checked resampling arguments: the plan, the interval method, the level."""

    plan: ResamplePlan
    method: BootMethod
    confidence_level: float

    def estimate(
        self,
        name: str,
        statistic: Statistic,
        n_items: int,
        *,
        n: int | None = None,
        extra: dict[str, Any] | None = None,
        excluded: dict[str, int] | None = None,
    ) -> Estimate:
        """:func:`bootstrap_estimate` of ``statistic`` with this plan, method and level.

        With clusters, ``extra`` also holds ``n_clusters`` (and a ``warning`` below
        :data:`CLUSTER_WARN_BELOW` clusters)."""
        if self.plan.clusters is not None:
            g = group_codes(np.asarray(self.plan.clusters))[1]
            extra = {**(extra or {}), "n_clusters": g, **cluster_note(g)}
        return bootstrap_estimate(
            name, statistic, n_items, plan=self.plan, confidence_level=self.confidence_level,
            method=self.method, n=n, extra=extra, excluded=excluded,
        )  # fmt: skip

    def estimates(
        self, names: tuple[str, ...], statistic: Statistic, n_items: int, *, n: int | None = None
    ) -> list[Estimate]:
        """:meth:`estimate` of several statistics from one evaluation: ``statistic(W)``
        returns ``(k, len(names))``, every column on the same resamples (the data, the
        resamples and the jackknife are weighted once, not once per statistic); each column's
        interval is then the one :meth:`estimate` gives, number for number."""
        plan = default_plan(n_items, self.plan)
        full = np.asarray(statistic(np.ones((1, n_items))))[0]
        boot = plan.apply(statistic)
        jack = plan.jackknife_apply(statistic) if self.method == "bca" else None
        label = _plan_label(plan, self.method)
        n = n_items if n is None else n
        out = []
        for j, name in enumerate(names):
            b = np.ascontiguousarray(boot[:, j])
            jk = None if jack is None else np.ascontiguousarray(jack[:, j])
            low, high = bootstrap_interval(
                full[j], b, confidence_level=self.confidence_level, method=self.method, jack=jk
            )
            res = {"estimate": full[j], "boot": b, "se": bootstrap_se(b), "low": low, "high": high}
            out.append(_from_replicates(name, res, plan, label, self.confidence_level, n, None))
        return out


def resampling(
    bootstrap: Bootstrap | None,
    clusters: Any,
    n_items: int,
    confidence_level: float,
    default_method: BootMethod = "bca",
) -> Resampling:
    """The public arguments ``bootstrap``, ``clusters``, ``confidence_level``, checked.

    Returns the :class:`ResamplePlan` for ``n_items`` rows, the interval method and the level.
    """

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    b = as_bootstrap(bootstrap)
    if clusters is not None:
        if isinstance(clusters, (list, tuple)):  # numpy would make a NaN the text "nan"
            refuse_missing_labels(np.asarray(clusters, dtype=object), "clusters")
        clusters = np.asarray(clusters)
        if clusters.ndim != 1 or clusters.shape[0] != n_items:
            raise ValueError(
                f"clusters: {clusters.shape[0] if clusters.ndim else 'a scalar'} labels for "
                f"{n_items} items is not allowed (one label per item, in the row order of the ratings)"
            )
    return Resampling(b.plan(n_items, clusters), b.interval(default_method), level)


CLUSTER_WARN_BELOW = 30
"""With fewer clusters than this a cluster-aware interval may under-cover (measured in
docs/calibration.md, "Agreement coefficients with clusters"); the estimate carries a warning."""


def resolve_ci(ci: str, n: int, clusters: Any = None) -> str:
    """``"auto"`` -> ``"bootstrap"`` (BCa) when ``n < AUTO_BOOTSTRAP_BELOW``, else ``"analytic"``.

    With ``clusters``, ``"auto"`` is ``"analytic"`` at every size, and the analytic interval
    keeps the clusters: the cluster jackknife with t(G-1) (:func:`cluster_jackknife_se`). On
    45 and 20 images x 2-6 questions it covered 93.0-96.1% where the cluster BCa covered
    91.0-94.7% and the item-level linearisation (the old choice from 100 items on) 86-93%
    (docs/calibration.md, "Agreement coefficients with clusters"). ``"auto"`` never drops
    the clusters.
    """
    if ci != "auto":
        return ci
    if clusters is not None:
        return "analytic"
    return "bootstrap" if n < AUTO_BOOTSTRAP_BELOW else "analytic"


def cluster_influence(
    statistic: Statistic, n_items: int, clusters: Any, *, step: float = 1e-5
) -> np.ndarray:
    """Per-cluster linearised terms ``D_g = d theta / d w_g`` of a weighted statistic.

    ``theta(w)`` is ``statistic`` at item weights ``w`` (all 1 = the data); ``w_g`` scales
    the weight of every item of cluster ``g`` together. For a statistic that is a smooth
    function of weighted means, ``D_g = sum_{i in g} (x_i - theta) / n`` with ``x_i`` the
    per-item linearised terms (Gwet's ``x_i`` for the kappa family), i.e. the per-item terms
    summed within clusters. Computed by a central difference of width ``step`` (all clusters
    in one vectorised call of ``statistic``).
    """
    codes, g = group_codes(np.asarray(clusters))
    E = np.zeros((g, n_items))
    E[codes, np.arange(n_items)] = step
    up = np.asarray(statistic(1.0 + E), dtype=float)
    down = np.asarray(statistic(1.0 - E), dtype=float)
    return (up - down) / (2 * step)


def cluster_robust_se(
    statistic: Statistic, n_items: int, clusters: Any, keep: np.ndarray | None = None
) -> tuple[float, int]:
    """Cluster-robust linearisation SE of ``statistic`` and the number of clusters ``G``.

    ``se^2 = G / (G - 1) * sum_g (D_g - Dbar)^2`` with the per-cluster linearised terms
    ``D_g`` of :func:`cluster_influence` (the CR1 sandwich of a smooth statistic; Binder 1983,
    Wolter 2007 ch. 6). With one item per cluster this is Gwet's (2008) linearisation
    ``1/(n (n-1)) sum_i (x_i - theta)^2``. Intervals use t with ``G - 1`` df. ``keep``: the
    items that enter the statistic (e.g. rated ones); clusters without such items are not
    counted in ``G``.
    """
    d = cluster_influence(statistic, n_items, clusters)
    if keep is not None:
        codes, g_all = group_codes(np.asarray(clusters))
        d = d[np.bincount(codes[np.asarray(keep, bool)], minlength=g_all) > 0]
    g = d.size
    if g < 2 or not np.all(np.isfinite(d)):
        return math.nan, g
    return float(np.sqrt(g / (g - 1) * ((d - d.mean()) ** 2).sum())), g


def cluster_jackknife_se(
    statistic: Statistic, n_items: int, clusters: Any, keep: np.ndarray | None = None
) -> tuple[float, int]:
    """Leave-one-cluster-out jackknife SE of ``statistic`` and the number of clusters ``G``.

    ``se^2 = (G - 1) / G * sum_g (theta_(-g) - mean_h theta_(-h))^2`` with ``theta_(-g)`` the
    statistic without cluster ``g`` (Quenouille–Tukey; the cluster jackknife of survey
    sampling, Wolter 2007 ch. 4). For a smooth statistic it is the cluster-robust
    linearisation (:func:`cluster_robust_se`) with each cluster's term scaled by its
    leverage, like the CR3 sandwich — slightly wider, which is what held coverage with 20-45
    clusters (docs/calibration.md). ``keep``: items that enter the statistic; clusters
    without any are not counted. Intervals use t with ``G - 1`` df.
    """
    codes, g_all = group_codes(np.asarray(clusters))
    used = np.ones(g_all, bool)
    if keep is not None:
        used = np.bincount(codes[np.asarray(keep, bool)], minlength=g_all) > 0
    idx = np.flatnonzero(used)
    g = idx.size
    if g < 2:
        return math.nan, g
    J = np.ones((g, n_items))
    pos = np.full(g_all, -1)
    pos[idx] = np.arange(g)
    item_pos = pos[codes]
    inside = item_pos >= 0
    J[item_pos[inside], np.flatnonzero(inside)] = 0.0
    t = np.asarray(statistic(J), dtype=float)
    if not np.all(np.isfinite(t)):
        return math.nan, g
    return float(np.sqrt((g - 1) / g * ((t - t.mean()) ** 2).sum())), g


def cluster_note(g: int) -> dict[str, str]:
    """``{"warning": ...}`` when ``g`` clusters are fewer than :data:`CLUSTER_WARN_BELOW`."""
    if g >= CLUSTER_WARN_BELOW:
        return {}
    return {
        "warning": (
            f"only {g} clusters: the cluster-aware interval may under-cover (calibrated from "
            f"{CLUSTER_WARN_BELOW} clusters on; docs/calibration.md)"
        )
    }


def default_plan(n_items: int, plan: ResamplePlan | None) -> ResamplePlan:
    """The given plan (checked against ``n_items``) or 2000 item-level resamples, seed 0."""
    if plan is None:
        return ResamplePlan(n_items=n_items)
    if plan.n_items != n_items:
        raise ValueError(
            f"the resample plan is for {plan.n_items} items but the ratings have {n_items} rows; "
            "build the plan from the same item table"
        )
    return plan


def t_interval(
    estimate: float, se: float, df: float, confidence_level: float, *, clip_high: float | None = 1.0
) -> tuple[float, float]:
    """``estimate -/+ t_{df, 1-(1-confidence)/2} * se`` (normal when ``df`` is infinite).

    The upper limit is clipped at ``clip_high`` (1 for agreement coefficients), as in irrCAC.
    """
    if not (np.isfinite(estimate) and np.isfinite(se)):
        return math.nan, math.nan
    q = (
        stats.norm.ppf(0.5 + confidence_level / 2)
        if not np.isfinite(df)
        else stats.t.ppf(0.5 + confidence_level / 2, df)
    )
    lo, hi = estimate - q * se, estimate + q * se
    if clip_high is not None:
        hi = min(hi, clip_high)
    return float(lo), float(hi)


def analytic_estimate(
    name: str,
    estimate: float,
    se: float,
    *,
    n: int,
    df: float,
    confidence_level: float,
    method: str,
    extra: dict[str, Any] | None = None,
    excluded: dict[str, int] | None = None,
    clip_high: float | None = 1.0,
) -> Estimate:
    """An :class:`Estimate` with a Wald-type interval (t with ``df`` degrees of freedom)."""
    lo, hi = t_interval(estimate, se, df, confidence_level, clip_high=clip_high)
    return Estimate(
        name=name,
        estimate=float(estimate),
        se=float(se),
        ci_low=lo,
        ci_high=hi,
        ci_method=method,
        level=confidence_level,
        n=int(n),
        excluded=dict(excluded or {}),
        extra=dict(extra or {}),
    )


def clustered_analytic(
    name: str,
    estimate: float,
    statistic: Statistic,
    n_items: int,
    clusters: Any,
    *,
    n: int,
    confidence_level: float,
    keep: np.ndarray | None = None,
    extra: dict[str, Any] | None = None,
    excluded: dict[str, int] | None = None,
) -> Estimate:
    """The analytic :class:`Estimate` that keeps the clusters: the cluster jackknife SE
    (:func:`cluster_jackknife_se`) and t with ``G - 1`` df; ``extra`` gets ``n_clusters``,
    ``df`` and a ``warning`` below :data:`CLUSTER_WARN_BELOW` clusters."""
    se, g = (
        cluster_jackknife_se(statistic, n_items, clusters, keep)
        if np.isfinite(estimate)
        else (math.nan, 0)
    )
    info = dict(extra or {})
    info.update(n_clusters=g, df=g - 1, **cluster_note(g))
    return analytic_estimate(
        name,
        estimate,
        se,
        n=n,
        df=g - 1,
        confidence_level=confidence_level,
        method=f"cluster jackknife ({g} clusters, t df={g - 1})",
        extra=info,
        excluded=excluded,
    )


def _plan_label(plan: ResamplePlan, method: str) -> str:
    unit = "clusters" if plan.clusters is not None else "items"
    strata = ", stratified" if plan.strata is not None else ""
    return f"bootstrap-{method} ({unit}{strata}, B={plan.n_resamples}, seed={plan.seed})"


def bootstrap_estimate(
    name: str,
    statistic: Statistic,
    n_items: int,
    *,
    plan: ResamplePlan | None = None,
    confidence_level: float = 0.95,
    method: BootMethod = "bca",
    n: int | None = None,
    extra: dict[str, Any] | None = None,
    excluded: dict[str, int] | None = None,
) -> Estimate:
    """Bootstrap :class:`Estimate` of ``statistic(W)`` (``W`` of shape ``(k, n_items)``).

    The standard error is the standard deviation of the replicates; replicates where the
    coefficient is undefined (NaN, e.g. a resample with a single category) are ignored and
    counted in ``extra["boot_undefined"]``.
    """
    plan = default_plan(n_items, plan)
    res = weighted_bootstrap(statistic, plan, confidence_level=confidence_level, method=method)
    label = _plan_label(plan, method)
    n = n_items if n is None else n
    return _from_replicates(name, res, plan, label, confidence_level, n, extra, excluded)


def _from_replicates(
    name: str,
    res: dict[str, Any],
    plan: ResamplePlan,
    label: str,
    confidence_level: float,
    n: int,
    extra: dict[str, Any] | None,
    excluded: dict[str, int] | None = None,
) -> Estimate:
    """The :class:`Estimate` of a :func:`weighted_bootstrap` result; ``extra`` is followed by
    the resampling settings and the count of undefined replicates."""
    boot = np.asarray(res["boot"], dtype=float)
    info = dict(extra or {})
    info.update(
        n_resamples=plan.n_resamples,
        seed=plan.seed,
        boot_undefined=int(np.isnan(boot).sum()),
    )
    return Estimate(
        name=name,
        estimate=float(res["estimate"]),
        se=float(res["se"]),
        ci_low=float(res["low"]),
        ci_high=float(res["high"]),
        ci_method=label,
        level=confidence_level,
        n=int(n),
        excluded=dict(excluded or {}),
        extra=info,
    )


def paired_difference(
    statistic_a: Statistic,
    statistic_b: Statistic,
    n_items: int,
    *,
    plan: ResamplePlan | None = None,
    confidence_level: float = 0.95,
    method: BootMethod = "bca",
    name: str = "difference",
) -> Estimate:
    """Bootstrap interval for ``statistic_a - statistic_b`` computed on the same resamples.

    Both statistics must be cores over the *same* items (rows), e.g.
    ``lambda W: cohen_kappa_core(np.c_[judge_x, gold], W)`` and the same with ``judge_y``.
    Using identical resample weights for both makes this a paired bootstrap: the interval
    reflects the correlation between the two coefficients. ``extra`` holds both estimates and
    the bootstrap share of replicates where ``a <= b`` (``p_le``), a one-sided bootstrap
    p-value for ``a > b``; ``p_two_sided`` doubles the smaller tail.
    """
    plan = default_plan(n_items, plan)

    def both(W: np.ndarray) -> np.ndarray:
        return np.stack([statistic_a(W), statistic_b(W)], axis=-1)

    def diff(W: np.ndarray) -> np.ndarray:
        ab = both(W)
        return ab[..., 0] - ab[..., 1]

    ones = np.ones((1, n_items))
    a_hat, b_hat = both(ones)[0]
    res = weighted_bootstrap(diff, plan, confidence_level=confidence_level, method=method)
    boot = np.asarray(res["boot"], dtype=float)
    valid = boot[~np.isnan(boot)]
    p_le = float(np.mean(valid <= 0)) if valid.size else math.nan
    p_ge = float(np.mean(valid >= 0)) if valid.size else math.nan
    extra = {
        "estimate_a": float(a_hat),
        "estimate_b": float(b_hat),
        "p_le": p_le,
        "p_two_sided": min(1.0, 2 * min(p_le, p_ge)) if valid.size else math.nan,
    }
    label = _plan_label(plan, method) + ", paired"
    return _from_replicates(name, res, plan, label, confidence_level, n_items, extra)
