"""audit: study-level part (moved from medjudge.stats.audit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from medjudge.analyses.dawid_skene import study_dawid_skene
from medjudge.stats.agreement import (
    agreement_table,
    fleiss_kappa,
    krippendorff_alpha,
)
from medjudge.stats.audit import (
    RELIABILITY_COEFFICIENTS,
    annotator_agreement,
    category_agreement,
    disputed_items,
    pairwise_matrix,
)
from medjudge.stats.dawid_skene import DawidSkeneResult
from medjudge.stats.resampling import Bootstrap, ResamplePlan, as_bootstrap, plan_arguments
from medjudge.stats.results import Presentable


def dimension_reliability(
    study: Any,
    *,
    role: str = "expert",
    ci: str = "auto",
    n_resamples: int = 2000,
    seed: int = 0,
    coefficients: tuple[str, ...] = RELIABILITY_COEFFICIENTS,
) -> pd.DataFrame:
    """Reliability coefficients of the ``role`` raters for every dimension (one row per coefficient)."""
    frames = []
    for dim in study.dimensions:
        m = study.matrix(dim, role=role)
        if m.values.shape[1] < 2:
            continue
        t = agreement_table(
            m.values, scale=m.scale, ci=ci, bootstrap=Bootstrap(n_resamples, seed),
            coefficients=list(coefficients),
        )  # fmt: skip
        t.insert(0, "dimension", dim)
        t["n_raters"] = m.values.shape[1]
        frames.append(t)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def subgroup_reliability(
    study: Any,
    dimension: str,
    *,
    by: tuple[str, ...] = ("organ_system", "department"),
    role: str = "expert",
    ci: str = "auto",
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_items: int = 10,
) -> pd.DataFrame:
    """Fleiss' kappa and Krippendorff's alpha of the ``role`` raters within each subgroup.

    Subgroups with fewer than ``min_items`` items are listed with NaN estimates (``too_small``),
    not dropped. Attributes missing from the items table are skipped.
    """
    m = study.matrix(dimension, role=role)
    scale = m.scale
    items = study.items.set_index("item").loc[m.items]
    cats = np.arange(len(scale.categories), dtype=float) if scale.is_categorical else None
    rows = []
    for attr in by:
        if attr not in items.columns:
            continue
        for value, idx in items.groupby(attr, sort=True).indices.items():
            X = m.values[idx]
            row: dict[str, Any] = {"attribute": attr, "group": value, "n_items": len(idx)}
            if len(idx) < min_items:
                row["too_small"] = True
                rows.append(row)
                continue
            plan = (
                ResamplePlan(len(idx), n_resamples, seed) if ci in ("bootstrap", "auto") else None
            )
            kw = {"ci": ci, "confidence_level": confidence, **plan_arguments(plan)}
            if scale.is_categorical:
                fk = fleiss_kappa(X, categories=cats, **kw)
                row.update(fleiss_kappa=fk.estimate, fleiss_low=fk.ci_low, fleiss_high=fk.ci_high)
            ka = krippendorff_alpha(X, scale=scale, **kw)
            row.update(
                alpha=ka.estimate,
                alpha_low=ka.ci_low,
                alpha_high=ka.ci_high,
                ci_method=ka.ci_method,
            )
            row["too_small"] = False
            rows.append(row)
    return pd.DataFrame(rows)


@dataclass(repr=False)
class AuditReport(Presentable):
    """Everything :func:`audit_study` computed (tables are tidy DataFrames).

    ``to_frame()`` is the reliability table (one row per dimension x coefficient, intervals in
    ``ci_low``, ``ci_high``, ``level``); ``dimensions[d]`` holds the per-dimension tables.
    """

    def to_frame(self) -> pd.DataFrame:
        """The reliability table."""
        return self.reliability.copy()

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"AuditReport({len(self.dimensions)} dimensions, role={s.get('role')!r}, "
            f"{len(self.reliability)} reliability rows, ci={s.get('ci')!r}, "
            f"B={s.get('n_resamples')})"
        )

    reliability: pd.DataFrame
    dimensions: dict[str, dict[str, Any]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        def tab(v: Any) -> Any:
            if isinstance(v, pd.DataFrame):
                return v.to_dict(orient="records")
            if isinstance(v, dict):
                return {k: tab(x) for k, x in v.items()}
            if isinstance(v, list):
                return [tab(x) for x in v]
            return v.to_dict() if hasattr(v, "to_dict") else v

        return {
            "settings": self.settings,
            "reliability": tab(self.reliability),
            "dimensions": tab(self.dimensions),
        }


def audit_study(
    study: Any,
    *,
    dimensions: list[str] | None = None,
    role: str = "expert",
    subgroups: tuple[str, ...] = ("organ_system", "department"),
    ci: str = "auto",
    bootstrap: Bootstrap | None = None,
    top: int = 20,
    with_dawid_skene: bool = True,
) -> AuditReport:
    """The annotation audit of a study: per dimension, annotator table, pairwise matrix,
    per-category kappas, subgroup reliability, Dawid–Skene summary and disputed items.

    Parameters
    ----------
    study : Study
        Ratings of the ``role`` raters (two or more per dimension for agreement).
    dimensions : list of str, optional
        Dimensions to audit (default: all).
    role : str, default "expert"
        Whose reliability is audited.
    subgroups : tuple of str
        Item attributes for subgroup reliability (those the study has are used).
    ci : {"auto", "analytic", "bootstrap", None}, default "auto"
        Interval of the agreement coefficients (see :func:`medjudge.fleiss_kappa`).
    bootstrap : Bootstrap, optional
        Resampling settings (default 2,000 replicates, seed 0; the seed also starts
        Dawid–Skene's random restarts).
    top : int, default 20
        Disputed items to list.
    with_dawid_skene : bool, default True
        Fit the Dawid–Skene model (rater confusion matrices, posterior labels).

    Returns
    -------
    AuditReport
        ``reliability`` (one row per dimension x coefficient), ``dimensions`` (per-dimension
        tables), ``settings``.

    References
    ----------
    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed.
    Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates
    using the EM algorithm. Applied Statistics 28:20-28.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> from medjudge.data.simulate import example_study
    >>> study = example_study()  # 60 simulated items, 12 judges, 3 experts
    >>> rep = mj.audit_study(study, bootstrap=mj.Bootstrap(200), with_dawid_skene=False)
    >>> sorted(rep.reliability['coefficient'].unique())[:2]
    ['fleiss_kappa', 'gwet_ac1']
    """
    from .._validation import TOP, check_choice

    b = as_bootstrap(bootstrap)
    b.interval("bca", allowed=("bca",))
    n_resamples, seed = b.n_resamples, b.seed
    check_choice("ci", ci, ("auto", "analytic", "bootstrap", None, "none"))
    TOP.check("top", top)
    from ._arguments import check_dimensions

    dims = check_dimensions(study, dimensions)
    if (
        isinstance(subgroups, str)
        or not isinstance(subgroups, (list, tuple))
        or not all(isinstance(s, str) for s in subgroups)
    ):
        raise ValueError(
            f"subgroups: {subgroups!r} is not allowed (a list of item attribute names)"
        )
    settings = {
        "role": role,
        "ci": ci,
        "n_resamples": n_resamples,
        "seed": seed,
        "subgroups": list(subgroups),
    }
    if role in getattr(study, "exchangeable", ()):
        settings["exchangeable"] = True
    rel = dimension_reliability(study, role=role, ci=ci, n_resamples=n_resamples, seed=seed)
    rel = rel[rel["dimension"].isin(dims)].reset_index(drop=True) if len(rel) else rel
    out: dict[str, dict[str, Any]] = {}
    for dim in dims:
        m = study.matrix(dim, role=role)
        scale = m.scale
        if m.values.shape[1] < 2:
            out[dim] = {"skipped": f"fewer than two {role} raters"}
            continue
        cats = np.arange(len(scale.categories), dtype=float) if scale.is_categorical else None
        labels = list(scale.categories) if scale.is_categorical else None
        plan = (
            ResamplePlan(m.values.shape[0], n_resamples, seed)
            if ci in ("bootstrap", "auto")
            else None
        )
        d: dict[str, Any] = {"raters": m.raters, "n_items": len(m.items)}
        if role in getattr(study, "exchangeable", ()):
            # rater ids are annotation slots: per-rater tables and Dawid-Skene mean nothing
            d["per_rater_skipped"] = (
                f"the {role} rater ids are exchangeable annotation slots, not persons: "
                "per-annotator agreement, pairwise kappa and Dawid-Skene are not defined"
            )
        elif scale.is_categorical:
            d["annotators"] = annotator_agreement(m.values, raters=m.raters, categories=cats)
            d["pairwise"] = pairwise_matrix(
                m.values, raters=m.raters, categories=cats, ci=ci, plan=plan
            )
            d["categories"] = category_agreement(m.values, categories=cats, labels=labels)
        d["subgroups"] = subgroup_reliability(study, dim, by=subgroups, role=role, seed=seed)
        post = None
        ds: DawidSkeneResult | None = None
        if with_dawid_skene and scale.is_categorical and "per_rater_skipped" not in d:
            try:
                ds = study_dawid_skene(study, dim, role=role, seed=seed)
            except ValueError as e:  # not identifiable / not diagonally dominant: say why
                d["dawid_skene_skipped"] = str(e)
        if ds is not None:
            d["dawid_skene"] = ds.summary(labels)
            maj = study.gold(dim, "majority").codes if role == "expert" else None
            if maj is not None:
                both = np.isfinite(maj) & np.isfinite(ds.labels)
                d["dawid_skene"]["differs_from_majority"] = int(
                    (maj[both] != ds.labels[both]).sum()
                )
            post = ds.posteriors
        if scale.is_categorical:
            dis = disputed_items(
                m.values,
                items=m.items,
                raters=m.raters,
                labels=labels,
                categories=cats,
                posteriors=post,
                top=top,
            )
            d["disputed"] = dis
            d["n_disputed"] = dis.attrs["n_disputed"]
        out[dim] = d
    return AuditReport(reliability=rel, dimensions=out, settings=settings)
