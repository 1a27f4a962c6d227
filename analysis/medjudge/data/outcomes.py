"""Judge outcomes: each judge's correctness against gold, per item, for one dimension.

:class:`JudgeOutcomes` (the ``items × judges`` 1/0/NaN matrix with the predictions, the gold
codes, the verdict statuses and the counts of items dropped for lack of gold) and
:func:`judge_outcomes`, which :meth:`Study.outcomes <medjudge.data.model.Study.outcomes>` calls.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..stats.accuracy import NOT_ASSIGNED
from .design import presentation_design
from .interface import Gold, StudyLike
from .scale import Scale

#: status of an item x judge cell without any verdict row (the judge was not given the item)
NOT_ASSIGNED_STATUS = "not assigned"


@dataclass(frozen=True)
class JudgeOutcomes:
    """Correctness of every judge on the items that have gold, for one dimension.

    ``outcome`` is ``(n_items, n_judges)``: 1.0 correct, 0.0 wrong, NaN = no usable verdict
    (invalid, partial-missing, or no prediction), ``inf`` (:data:`NOT_ASSIGNED`) = the judge was
    never given the item (no verdict row at all; :mod:`medjudge.data.design`): such a cell is
    left out under every invalid-verdict policy. The policy is applied later, explicitly, by
    the metrics. ``pred`` holds the judges' category codes (NaN = none, ``inf`` = not
    assigned) and ``gold`` the gold codes; ``status`` the verdict status (``"not assigned"``
    for absent cells). ``excluded`` counts items dropped for lack of gold; ``orders`` the
    presentation order each judge's verdicts come from (``None``: every verdict, one per item).
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
    orders: tuple[str | None, ...] = ()

    @property
    def assigned(self) -> np.ndarray:
        """``items × judges`` bool: the judge was given the item (has a verdict row)."""
        return ~np.isinf(self.outcome)

    @property
    def n_not_assigned(self) -> np.ndarray:
        """Per judge, the items with gold it was never given."""
        return np.isinf(self.outcome).sum(0)

    def subset(self, judges: list[int], rows: np.ndarray) -> JudgeOutcomes:
        """The outcomes of the judges at positions ``judges`` on the items where ``rows``."""
        rows = np.asarray(rows, dtype=bool)
        return replace(
            self,
            outcome=self.outcome[np.ix_(rows, judges)],
            pred=self.pred[np.ix_(rows, judges)],
            gold=self.gold[rows],
            status=self.status[np.ix_(rows, judges)],
            items=[it for it, r in zip(self.items, rows, strict=True) if r],
            judges=[self.judges[j] for j in judges],
            orders=tuple(self.orders[j] for j in judges) if self.orders else (),
        )

    def blocks(self) -> list[JudgeOutcomes]:
        """The judges grouped by the items they were given, each group on its own items.

        One block (``[self]``) when every judge was given every item; otherwise one per set of
        judges with the same assigned items (LLMBar: 8 judges on all 885 items, 57 on 419), in
        the order of each block's first judge, with no not-assigned cell left.
        """
        given = self.assigned
        if given.all():
            return [self]
        groups: dict[bytes, list[int]] = {}
        for j in range(given.shape[1]):
            groups.setdefault(given[:, j].tobytes(), []).append(j)
        return [self.subset(js, given[:, js[0]]) for js in groups.values()]


def judge_matrix(
    study: StudyLike, dimension: str, judges: list[str], order: str | None = None
) -> tuple[np.ndarray, np.ndarray, tuple[str | None, ...]]:
    """The judges' verdict codes and statuses, ``items x judges``, as the design says.

    The order asked for; else, for a judge seen in both orders on the same items, the design's
    accuracy order (declared, else its first presentation, AB), and every other judge's one verdict per item whatever its order (a
    randomised design keeps all its verdicts). Absent cells: NaN code, status
    :data:`NOT_ASSIGNED_STATUS`. Returns ``(codes, statuses, order used per judge)``.
    """

    design = presentation_design(study, dimension)
    swapped, first = set(design.swap_judges), design.evaluation_order
    orders = tuple(
        order if order is not None else (first if j in swapped else None) for j in judges
    )
    groups = list(dict.fromkeys(orders))
    stacked = [j for o in groups for j, oj in zip(judges, orders, strict=True) if oj == o]
    take = [stacked.index(j) for j in judges]
    cols_m, cols_st = [], []
    for o in groups:
        js = [j for j, oj in zip(judges, orders, strict=True) if oj == o]
        cols_m.append(study.matrix(dimension, raters=js, order=o).values)
        cols_st.append(study._status_matrix(dimension, js, o))
    n_all = len(study.item_ids)
    codes = np.hstack(cols_m)[:, take] if cols_m else np.empty((n_all, 0))
    st = np.hstack(cols_st)[:, take] if cols_st else np.empty((n_all, 0), dtype=object)
    return codes, st, orders


def judge_outcomes(
    study: StudyLike,
    dimension: str,
    *,
    gold: Gold | None = None,
    judges: list[str] | None = None,
    order: str | None = None,
) -> JudgeOutcomes:
    """``items × judges`` correctness against gold (items without gold removed and counted)."""

    gold = gold if gold is not None else study.gold(dimension)
    judges = list(judges) if judges is not None else study.judges
    if order is not None:
        present = study.judge_orders()
        if order not in present:
            raise ValueError(
                f"order={order!r}: no judge verdicts in that presentation order; "
                f"orders present: {', '.join(p for p in present if p) or 'none recorded'}"
            )
    m_values, st, orders = judge_matrix(study, dimension, judges, order)
    design = presentation_design(study, dimension)
    has_gold = np.isfinite(gold.codes)
    absent = st[has_gold] == NOT_ASSIGNED_STATUS
    pred = np.where(absent, NOT_ASSIGNED, m_values[has_gold])
    g = gold.codes[has_gold]
    with np.errstate(invalid="ignore"):
        outcome = np.where(np.isnan(pred), np.nan, (pred == g[:, None]).astype(float))
    outcome = np.where(absent, NOT_ASSIGNED, outcome)
    excluded = {"items_without_gold": int((~has_gold).sum())}
    excluded.update({f"gold_{k}": v for k, v in gold.counts.items() if k != "no_gold"})
    items = [it for it, h in zip(study.item_ids, has_gold, strict=True) if h]
    return JudgeOutcomes(
        outcome,
        pred,
        g,
        st[has_gold],
        items,
        judges,
        dimension,
        order if order is not None else (design.evaluation_order if design.swap_judges else None),
        gold.method,
        excluded,
        study.scales[dimension],
        orders,
    )
