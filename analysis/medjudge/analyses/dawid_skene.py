"""dawid_skene: study-level part (moved from medjudge.stats.dawid_skene)."""

from __future__ import annotations

from typing import Any

import numpy as np

from medjudge.stats.dawid_skene import (
    DawidSkeneResult,
    dawid_skene,
)

from ..data.gold import Gold


def study_dawid_skene(
    study: Any, dimension: str, *, role: str = "expert", **kwargs: Any
) -> DawidSkeneResult:
    """Fit Dawid–Skene to one dimension of a :class:`~medjudge.data.model.Study` (experts by default)."""
    if hasattr(study, "require_persons"):
        study.require_persons(role, "Dawid-Skene (one confusion matrix per rater)")
    scale = study.scales[dimension]
    if not scale.is_categorical:
        raise ValueError(f"Dawid-Skene needs a categorical scale; {dimension!r} is {scale.kind}")
    m = study.matrix(dimension, role=role)
    return dawid_skene(
        m.values,
        categories=np.arange(len(scale.categories), dtype=float),
        raters=m.raters,
        items=m.items,
        **kwargs,
    )


def to_gold(result: DawidSkeneResult, dimension: str, *, min_posterior: float = 0.0) -> Any:
    """An alternative gold label (:class:`~medjudge.data.gold.Gold`) from a fitted model.

    Items whose largest posterior is below ``min_posterior`` (or that nobody labelled) get no
    gold; both are counted.
    """

    top = result.max_posterior()
    codes = np.where(np.isfinite(result.labels) & (top >= min_posterior), result.labels, np.nan)
    counts = {
        "no_expert_label": result.excluded.get("items_without_labels", 0),
        "below_min_posterior": int((np.isfinite(result.labels) & (top < min_posterior)).sum()),
    }
    counts["no_gold"] = int(np.isnan(codes).sum())
    rule = (
        f"Dawid-Skene posterior mode (EM {result.n_iter} iterations, "
        f"{'converged' if result.converged else 'NOT converged'}, init={result.init})"
        + (f", posterior >= {min_posterior}" if min_posterior > 0 else "")
    )
    return Gold(codes, list(result.items), dimension, "dawid-skene", rule, counts)
