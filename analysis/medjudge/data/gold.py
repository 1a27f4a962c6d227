"""Gold labels: how a reference label per item is derived, and the record of how it was.

:class:`Gold` (codes per item plus the method, the rule in words and the counts of items it
could not label), the vote rules :func:`majority_gold` (strict majority of the experts) and
:func:`plurality_gold` (most frequent label, ties without gold), and :func:`derive_gold`, which
:meth:`Study.gold <medjudge.data.model.Study.gold>` calls: majority, plurality, mean, a reference
rater or the supplied gold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .interface import Gold, GoldMethod, StudyLike

__all__ = [
    "Gold",
    "GoldMethod",
    "derive_gold",
    "majority_gold",
    "plurality_gold",
    "resolve_gold_method",
]


def majority_gold(codes: np.ndarray, n_categories: int) -> tuple[np.ndarray, dict[str, int]]:
    """Strict-majority label per row of an ``items × experts`` code matrix.

    Rule: the category chosen by **more than half of the experts who rated the item** is gold;
    otherwise the item has no gold. With two experts who disagree, or a 1–1–1 split among three,
    there is no majority. Returns the codes (NaN = none) and counts of items without a label
    (``no_expert_label``) and with a split vote (``no_majority``).
    """
    codes = np.asarray(codes, dtype=float)
    n_rated = np.isfinite(codes).sum(axis=1)
    votes = np.stack([(codes == k).sum(axis=1) for k in range(n_categories)], axis=1)
    top = votes.argmax(axis=1)
    top_n = votes.max(axis=1)
    ok = (n_rated > 0) & (2 * top_n > n_rated)
    gold = np.where(ok, top.astype(float), np.nan)
    return gold, {
        "no_expert_label": int((n_rated == 0).sum()),
        "no_majority": int(((n_rated > 0) & ~ok).sum()),
    }


def plurality_gold(codes: np.ndarray, n_categories: int) -> tuple[np.ndarray, dict[str, int]]:
    """Plurality label per row of an ``items × raters`` code matrix (crowd labels).

    Rule: the category chosen most often among the raters who labelled the item is gold; when two
    or more categories tie for the top, the item has **no gold** (counted as ``tied_top``), never
    a silently picked winner. Returns the codes (NaN = none) and the counts.
    """
    codes = np.asarray(codes, dtype=float)
    n_rated = np.isfinite(codes).sum(axis=1)
    votes = np.stack([(codes == k).sum(axis=1) for k in range(n_categories)], axis=1)
    top_n = votes.max(axis=1)
    unique_top = (votes == top_n[:, None]).sum(axis=1) == 1
    ok = (n_rated > 0) & unique_top
    gold = np.where(ok, votes.argmax(axis=1).astype(float), np.nan)
    return gold, {
        "no_expert_label": int((n_rated == 0).sum()),
        "tied_top": int(((n_rated > 0) & ~unique_top).sum()),
        "no_gold": int((~ok).sum()),
    }


def resolve_gold_method(study: StudyLike, dimension: str, method: GoldMethod) -> GoldMethod:
    """The method ``"auto"`` stands for: ``supplied`` when the study has a gold table, else
    ``majority`` (categorical scale) or ``mean`` of the experts; other methods unchanged."""
    if method != "auto":
        return method
    if study.gold_table is not None:
        return "supplied"
    return "majority" if study.scales[dimension].is_categorical else "mean"


def derive_gold(
    study: StudyLike, dimension: str, method: GoldMethod, reference: str | None
) -> Gold:
    """Gold label of one dimension of ``study`` by ``method`` (see :meth:`Study.gold
    <medjudge.data.model.Study.gold>`, which caches it)."""
    scale = study.scales[dimension]
    method = resolve_gold_method(study, dimension, method)
    if method == "mean":
        if not study.experts:
            raise ValueError("no expert ratings: mean gold is impossible; use supplied gold")
        if scale.is_categorical:
            raise ValueError(
                f"mean gold needs an interval or ratio scale; {dimension!r} is {scale.kind}"
            )
        m = study.matrix(dimension, role="expert").values
        n_rated = np.isfinite(m).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            codes = np.where(n_rated > 0, np.nansum(m, axis=1) / np.maximum(n_rated, 1), np.nan)
        return Gold(
            codes,
            study.item_ids,
            dimension,
            "mean",
            "mean score of the experts who rated the item",
            {
                "no_expert_label": int((n_rated == 0).sum()),
                "no_gold": int((n_rated == 0).sum()),
            },
        )
    if method == "supplied":
        if study.gold_table is None:
            raise ValueError("no supplied gold in this study; use method='majority' or 'reference'")
        g = study.gold_table[study.gold_table["dimension"] == dimension].set_index("item")["value"]
        vals = g.reindex(study.item_ids)
        codes = scale.encode([None if pd.isna(v) else v for v in vals])
        return Gold(
            codes,
            study.item_ids,
            dimension,
            "supplied",
            "gold labels shipped with the data",
            {"no_gold": int(np.isnan(codes).sum())},
        )
    if method == "reference":
        if reference is None:
            raise ValueError("method='reference' needs reference=<rater>")
        m = study.matrix(dimension, raters=[reference])
        codes = m.values[:, 0]
        return Gold(
            codes,
            study.item_ids,
            dimension,
            "reference",
            f"labels of rater {reference!r}",
            {"no_gold": int(np.isnan(codes).sum())},
        )
    if method in ("majority", "plurality"):
        if not study.experts:
            raise ValueError(
                "no expert ratings: majority gold is impossible; use supplied or reference gold"
            )
        if not scale.is_categorical:
            raise ValueError(
                f"majority gold needs a categorical scale; {dimension!r} is {scale.kind}"
            )
        m = study.matrix(dimension, role="expert")
        codes, counts = majority_gold(m.values, len(scale.categories))
        counts["no_gold"] = int(np.isnan(codes).sum())
        if method == "plurality":
            codes, counts = plurality_gold(m.values, len(scale.categories))
            return Gold(
                codes,
                study.item_ids,
                dimension,
                "plurality",
                "most frequent label among the experts who rated the item; tied tops have no gold",
                counts,
            )
        return Gold(
            codes,
            study.item_ids,
            dimension,
            "majority",
            "strict majority (> half) of the experts who rated the item; split votes have no gold",
            counts,
        )
    raise ValueError(f"unknown gold method {method!r}")
