"""Judge outcomes: each judge's correctness against gold, per item, for one dimension.

:class:`JudgeOutcomes` (the ``items × judges`` 1/0/NaN matrix with the predictions, the gold
codes, the verdict statuses and the counts of items dropped for lack of gold) and
:func:`judge_outcomes`, which :meth:`Study.outcomes <medjudge.data.model.Study.outcomes>` calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .scale import Scale

if TYPE_CHECKING:
    from .gold import Gold
    from .model import Study


@dataclass(frozen=True)
class JudgeOutcomes:
    """Correctness of every judge on the items that have gold, for one dimension.

    ``outcome`` is ``(n_items, n_judges)``: 1.0 correct, 0.0 wrong, NaN = no usable verdict
    (invalid, partial-missing, or no prediction). The invalid-verdict *policy* is applied later,
    explicitly, by the metrics. ``pred`` holds the judges' category codes (NaN = none) and
    ``gold`` the gold codes. ``excluded`` counts items dropped for lack of gold.
    """

    outcome: np.ndarray
    pred: np.ndarray
    gold: np.ndarray
    status: np.ndarray
    items: list[str]
    judges: list[str]
    dimension: str
    order: str | None
    gold_method: str
    excluded: dict[str, int]
    scale: Scale


def judge_outcomes(
    study: Study,
    dimension: str,
    *,
    gold: Gold | None = None,
    judges: list[str] | None = None,
    order: str | None = None,
) -> JudgeOutcomes:
    """``items × judges`` correctness against gold (items without gold removed and counted)."""
    gold = gold if gold is not None else study.gold(dimension)
    judges = judges if judges is not None else study.judges
    if order is not None:
        present = study.judge_orders()
        if order not in present:
            raise ValueError(
                f"order={order!r}: no judge verdicts in that presentation order; "
                f"orders present: {', '.join(p for p in present if p) or 'none recorded'}"
            )
    if order is None:
        orders = study.judge_orders()
        if len(orders) > 1:
            order = "AB" if "AB" in orders else orders[0]
    m = study.matrix(dimension, raters=judges, order=order)
    st = study._status_matrix(dimension, judges, order)
    has_gold = np.isfinite(gold.codes)
    pred = m.values[has_gold]
    g = gold.codes[has_gold]
    with np.errstate(invalid="ignore"):
        outcome = np.where(np.isnan(pred), np.nan, (pred == g[:, None]).astype(float))
    excluded = {"items_without_gold": int((~has_gold).sum())}
    excluded.update({f"gold_{k}": v for k, v in gold.counts.items() if k != "no_gold"})
    items = [it for it, h in zip(study.item_ids, has_gold, strict=True) if h]
    return JudgeOutcomes(
        outcome,
        pred,
        g,
        st[has_gold],
        items,
        list(judges),
        dimension,
        order,
        gold.method,
        excluded,
        study.scales[dimension],
    )
