"""Annotation audit: how reliable are the annotators, who drifts, which items are disputed.

Building blocks (numpy in, tidy DataFrames out; every coefficient comes from
:mod:`medjudge.stats.agreement`, every interval is labelled with its method):

* :func:`annotator_agreement` — each annotator against the **leave-one-out majority** of the
  others: the label chosen by more than half of the *other* annotators who rated the item
  (items where the others split, or nobody else rated, have no reference and are counted).
  Percent agreement with a Wilson (1927) interval and Cohen's kappa (interval as ``ci`` says:
  Fleiss, Cohen & Everitt 1969 or a bootstrap; each row names its method).
* :func:`pairwise_matrix` — Cohen's kappa and percent agreement of every pair of annotators on
  the items both rated (kappa interval analytic or bootstrap; percent agreement Wilson).
* :func:`category_agreement` — Fleiss (1971) per-category kappas (category vs rest).
* :func:`dimension_reliability` — percent agreement, Fleiss' kappa, Gwet's AC1/AC2 and
  Krippendorff's alpha (level from the declared scale) per dimension.
* :func:`subgroup_reliability` — the same per item subgroup (organ system, department), each
  with its own interval and item count, so a weak subgroup is visible with its uncertainty.
* :func:`disputed_items` — items ranked by disagreement (pairwise agreement among the raters
  of the item, then the Dawid–Skene posterior of the winning class), with every rater's label.
* :func:`medjudge.analyses.audit.audit_study` (the study-level floor) runs all of the above for a study.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .agreement import (
    cohen_kappa,
    fleiss_category_kappas,
)
from .intervals import wilson_interval
from .resampling import ResamplePlan, plan_arguments

RELIABILITY_COEFFICIENTS = ("percent_agreement", "fleiss_kappa", "gwet_ac", "krippendorff_alpha")


def _cats(X: np.ndarray, categories: Any) -> np.ndarray:
    return np.unique(X[~np.isnan(X)]) if categories is None else np.asarray(categories, dtype=float)


def loo_majority(X: np.ndarray, r: int, categories: np.ndarray) -> np.ndarray:
    """Strict-majority label of all raters but ``r`` per item (NaN when split or nobody else)."""
    others = np.delete(np.asarray(X, dtype=float), r, axis=1)
    n = (~np.isnan(others)).sum(axis=1)
    votes = np.stack([(others == c).sum(axis=1) for c in categories], axis=1)
    top = votes.argmax(axis=1)
    ok = (n > 0) & (2 * votes.max(axis=1) > n)
    return np.where(ok, categories[top], np.nan)


def annotator_agreement(
    X: Any,
    *,
    raters: list[str] | None = None,
    categories: Any = None,
    confidence_level: float = 0.95,
    ci: str | None = "auto",
    bootstrap: Any = None,
    clusters: Any = None,
) -> pd.DataFrame:
    """Each annotator vs the leave-one-out strict majority of the others.

    Columns: ``rater, n`` (items with a label and a reference), ``agreement`` with Wilson
    ``agreement_low/high``, ``kappa`` with ``kappa_low/high`` and ``kappa_ci_method`` (the
    interval :func:`~medjudge.cohen_kappa` computed under ``ci``, ``bootstrap`` and
    ``clusters``: Fleiss, Cohen & Everitt 1969 analytic, or a bootstrap over items or
    clusters), ``level``, and the counts ``no_label`` (rater did not rate), ``others_split``
    (the others have no strict majority), ``no_others`` (nobody else rated the item).
    """
    A = np.asarray(X, dtype=float)
    cats = _cats(A, categories)
    names = raters or [f"rater_{j}" for j in range(A.shape[1])]
    rows = []
    for r, name in enumerate(names):
        ref = loo_majority(A, r, cats)
        own = A[:, r]
        others_n = (~np.isnan(np.delete(A, r, axis=1))).sum(axis=1)
        both = ~np.isnan(own) & ~np.isnan(ref)
        n = int(both.sum())
        k = float((own[both] == ref[both]).sum())
        lo, hi = wilson_interval(k, n, confidence_level)
        kap = cohen_kappa(
            np.c_[own, ref], categories=cats, confidence_level=confidence_level, ci=ci,
            bootstrap=bootstrap, clusters=clusters,
        )  # fmt: skip
        rows.append(
            {
                "rater": name,
                "n": n,
                "agreement": k / n if n else math.nan,
                "agreement_low": float(lo),
                "agreement_high": float(hi),
                "agreement_ci_method": "Wilson (1927)",
                "kappa": kap.estimate,
                "kappa_low": kap.ci_low,
                "kappa_high": kap.ci_high,
                "kappa_ci_method": kap.ci_method,
                "level": kap.level,
                "no_label": int(np.isnan(own).sum()),
                "others_split": int((~np.isnan(own) & (others_n > 0) & np.isnan(ref)).sum()),
                "no_others": int((~np.isnan(own) & (others_n == 0)).sum()),
            }
        )
    return pd.DataFrame(rows)


def pairwise_matrix(
    X: Any,
    *,
    raters: list[str] | None = None,
    categories: Any = None,
    values: Any = None,
    weights: str | np.ndarray = "identity",
    ci: str = "auto",
    plan: ResamplePlan | None = None,
    confidence_level: float = 0.95,
    method: str | None = None,
) -> pd.DataFrame:
    """Cohen's kappa and percent agreement for every pair of raters (tidy, one row per pair).

    Kappa: unweighted or weighted by category value (``weights``), interval ``ci="analytic"``
    (FCE 1969) or ``"bootstrap"`` (``plan``'s resamples, seed and clusters, drawn over the items
    the pair both rated). Percent
    agreement (exact matches) has a Wilson interval. Use :func:`as_square` for the matrix view.
    """
    A = np.asarray(X, dtype=float)
    cats = _cats(A, categories)
    names = raters or [f"rater_{j}" for j in range(A.shape[1])]
    rows = []
    for a in range(A.shape[1]):
        for b in range(a + 1, A.shape[1]):
            pair = A[:, [a, b]]
            both = ~np.isnan(pair).any(axis=1)
            n = int(both.sum())
            k = float((pair[both, 0] == pair[both, 1]).sum())
            lo, hi = wilson_interval(k, n, confidence_level)
            # each pair on the items both rated (its n): the same estimate, and a bootstrap of
            # the pair's own items (whole clusters when the plan has them); in a sparse design
            # resampling every item for every pair only adds rows that carry nothing
            if n == 0:  # the pair shares no item: nothing to estimate
                rows.append(
                    {"rater_a": names[a], "rater_b": names[b], "n": 0, "kappa": math.nan,
                     "kappa_low": math.nan, "kappa_high": math.nan, "kappa_ci_method": "",
                     "agreement": math.nan, "agreement_low": math.nan,
                     "agreement_high": math.nan, "level": confidence_level}
                )  # fmt: skip
                continue
            sub = None
            if plan is not None:
                sub = ResamplePlan(
                    n, plan.n_resamples, plan.seed,
                    clusters=None if plan.clusters is None else np.asarray(plan.clusters)[both],
                    method=plan.method,
                )  # fmt: skip
            kap = cohen_kappa(
                pair[both],
                categories=cats,
                values=values,
                weights=weights,
                ci=ci,
                confidence_level=confidence_level,
                **plan_arguments(sub, method),  # type: ignore[arg-type]
            )
            rows.append(
                {
                    "rater_a": names[a],
                    "rater_b": names[b],
                    "n": n,
                    "kappa": kap.estimate,
                    "kappa_low": kap.ci_low,
                    "kappa_high": kap.ci_high,
                    "kappa_ci_method": kap.ci_method,
                    "agreement": k / n if n else math.nan,
                    "agreement_low": float(lo),
                    "agreement_high": float(hi),
                    "agreement_ci_method": "Wilson (1927)",
                    "level": kap.level,
                }
            )
    return pd.DataFrame(rows)


def as_square(pairs: pd.DataFrame, value: str = "kappa") -> pd.DataFrame:
    """Symmetric rater x rater matrix of one column of :func:`pairwise_matrix` (diagonal NaN)."""
    names = list(dict.fromkeys(list(pairs["rater_a"]) + list(pairs["rater_b"])))
    M = pd.DataFrame(np.nan, index=names, columns=names)
    for _, r in pairs.iterrows():
        M.loc[r["rater_a"], r["rater_b"]] = M.loc[r["rater_b"], r["rater_a"]] = r[value]
    return M


def category_agreement(
    X: Any,
    *,
    categories: Any = None,
    labels: list[str] | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Fleiss (1971) kappa of each category against the rest, with Gwet's analytic interval."""
    A = np.asarray(X, dtype=float)
    cats = _cats(A, categories)
    out = []
    for e in fleiss_category_kappas(A, categories=cats, confidence_level=confidence_level):
        code = e.extra["category"]
        idx = int(np.flatnonzero(cats == code)[0])
        out.append(
            {
                "category": labels[idx] if labels is not None else code,
                "kappa": e.estimate,
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
                "ci_method": e.ci_method,
                "level": e.level,
                "share": float(np.nanmean(A == code) / np.mean(~np.isnan(A)))
                if np.isfinite(A).any()
                else math.nan,
                "n": e.n,
            }
        )
    return pd.DataFrame(out)


def disputed_items(
    X: Any,
    *,
    items: list[str],
    raters: list[str],
    labels: list[str] | None = None,
    categories: Any = None,
    posteriors: np.ndarray | None = None,
    top: int | None = 20,
) -> pd.DataFrame:
    """Items ranked from most to least disputed, with every rater's label.

    Disagreement = ``1 - P_i`` with ``P_i = sum_k r_ik (r_ik - 1) / (m_i (m_i - 1))`` the share
    of agreeing rater pairs on item ``i`` (Fleiss 1971); ties are broken by the Dawid–Skene
    posterior of the most probable class (lower = more doubtful) when ``posteriors`` is given.
    Items with fewer than two ratings cannot be disputed and are left out (counted in
    ``attrs["single_rating"]``).
    """
    A = np.asarray(X, dtype=float)
    cats = _cats(A, categories)
    r = np.stack([(A == c).sum(axis=1) for c in cats], axis=1).astype(float)
    m = r.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_agree = (r * (r - 1)).sum(axis=1) / (m * (m - 1))
    modal = cats[r.argmax(axis=1)]

    def name(c: float) -> Any:
        if np.isnan(c):
            return None
        return labels[int(c)] if labels is not None else c

    df = pd.DataFrame({"item": items, "n_ratings": m.astype(int), "pair_agreement": p_agree})
    df["modal_label"] = [name(c) for c in modal]
    df["modal_share"] = r.max(axis=1) / np.where(m > 0, m, np.nan)
    if posteriors is not None:
        df["ds_label"] = [name(cats[k]) for k in posteriors.argmax(axis=1)]
        df["ds_posterior"] = posteriors.max(axis=1)
    for j, rater in enumerate(raters):
        df[rater] = [name(c) for c in A[:, j]]
    single = int((m < 2).sum())
    df = df[m >= 2]
    keys = ["pair_agreement"] + (["ds_posterior"] if posteriors is not None else [])
    df = df.sort_values(keys, kind="stable").reset_index(drop=True)
    df = df[df["pair_agreement"] < 1]
    df.attrs["single_rating"] = single
    df.attrs["n_disputed"] = len(df)
    return df.head(top) if top is not None else df
