"""What the data say about how a study was run: the presentation design and the judge design.

Both are facts of the data (which orders occur, which item x judge cells have a verdict row),
computed once per study and dimension (cached on the study), and read by the outcomes, the
analyses, the commands and the reports alike (:mod:`medjudge.analyses.design` adds the
clusters and the settings of an analysis).

Presentation design (per dimension)
    ``kind`` is one of

    * ``"single"`` — the labels have no positions: the scale is not a pairwise choice (its
      first two categories are not "answer 1" / "answer 2", e.g. a safety label or a score);
    * ``"unknown"`` — pairwise verdicts, but the order in which the answers were shown is not
      recorded (PandaLM's released verdicts): position bias cannot be estimated;
    * ``"fixed"`` — one known order for every verdict (Med-RewardBench's reference run: AB);
    * ``"randomised"`` — each item x judge was shown in one order, both orders occur (the usual
      guard against position bias); every verdict counts for accuracy;
    * ``"swapped"`` — some judges saw the same items in both orders (LLMBar; the demo's swap
      judges): accuracy uses the first presentation (AB) unless asked otherwise, position bias
      uses both orders.

Judge design
    An item x judge cell is *assigned* when the judge has at least one verdict row for the item
    on that dimension, whatever its status (an unparseable or empty answer is a row; the
    Med-RewardBench loader writes a ``missing`` row for an item a prediction file skips, since
    every judge was given every item). An absent row means the judge was never run on the item:
    such an item is neither wrong nor invalid under any invalid-verdict policy; it is counted
    as *not assigned*.

Examples
--------
>>> import medjudge as mj
>>> from medjudge.data.design import presentation_design
>>> p = presentation_design(mj.datasets.example(), "overall")
>>> p.kind, p.orders, p.position_reason is None
('swapped', ('AB', 'BA'), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .interface import StudyLike
from .scale import Scale

__all__ = ["PresentationDesign", "assignment", "is_pairwise_scale", "presentation_design"]

PresentationKind = Literal["single", "unknown", "fixed", "randomised", "swapped"]

#: category names read as "the first answer" / "the second answer" of a pairwise verdict
_FIRST = {"a", "1", "answer1", "answer 1", "response1", "response 1", "first", "left", "model_1"}
_SECOND = {
    "b", "2", "answer2", "answer 2", "response2", "response 2", "second", "right", "model_2",
}  # fmt: skip


@dataclass(frozen=True)
class PresentationDesign:
    """How the answers of one dimension were shown to the judges (see the module docstring)."""

    dimension: str
    kind: PresentationKind
    orders: tuple[str, ...]
    swap_judges: tuple[str, ...]
    pairwise: bool

    @property
    def position_reason(self) -> str | None:
        """Why position bias cannot be estimated (``None``: it can)."""
        if not self.pairwise:
            return (
                f"the verdicts on {self.dimension} are not a choice between two shown answers, "
                "so there is no first or second position"
            )
        if self.kind == "unknown":
            return (
                "the order in which the two answers were shown is not recorded, so a preference "
                "for the first-shown answer cannot be told from a preference for answer 1"
            )
        return None

    @property
    def evaluation_order(self) -> str | None:
        """The order whose verdicts accuracy uses for swap judges (``None``: every verdict)."""
        return "AB" if self.kind == "swapped" else None

    def describe(self) -> str:
        """One phrase for Methods and the CLI."""
        return {
            "single": "single-response labels (no answer positions)",
            "unknown": "pairwise verdicts, presentation order not recorded",
            "fixed": f"pairwise verdicts, every answer pair shown in order {self.orders[0]}"
            if self.orders
            else "pairwise verdicts in one order",
            "randomised": "pairwise verdicts, one presentation order per item and judge "
            f"({' and '.join(self.orders)} both occur); every verdict is used",
            "swapped": f"{len(self.swap_judges)} judge(s) saw the same items in both orders "
            "(accuracy from the first presentation, AB; position bias from both orders)",
        }[self.kind]


def is_pairwise_scale(categories: Sequence[str]) -> bool:
    """Whether the first two categories name the first and the second answer of a pair."""
    if len(categories) < 2:
        return False
    a, b = (str(c).strip().lower() for c in categories[:2])
    return a in _FIRST and b in _SECOND


def order_kind(scale: Scale, used: Sequence[str]) -> tuple[PresentationKind, tuple[str, ...]]:
    """The presentation kind before swaps are looked for, and the orders ``AB``/``BA`` used.

    ``single`` unless ``scale`` is a pairwise scale (:func:`is_pairwise_scale`); ``unknown``
    when the judges' rows use no order or one other than ``AB``/``BA``; ``fixed`` with one of
    them; ``randomised`` with both. The in-memory path (:func:`presentation_design`) and the
    engine path (:mod:`medjudge.engine.summary`) both classify here.
    """
    orders = tuple(o for o in sorted(set(used)) if o in ("AB", "BA"))
    kind: PresentationKind
    if not (scale.is_categorical and is_pairwise_scale(scale.categories)):
        kind = "single"
    elif not orders or any(o not in ("AB", "BA") for o in used):
        kind = "unknown"
    elif len(orders) == 1:
        kind = "fixed"
    else:
        kind = "randomised"
    return kind, orders


def presentation_design(study: StudyLike, dimension: str) -> PresentationDesign:
    """The presentation design of ``dimension`` (cached per study).

    Parameters
    ----------
    study : Study
    dimension : str

    Returns
    -------
    PresentationDesign
    """

    def compute() -> PresentationDesign:
        scale = study.scales[dimension]
        pairwise = scale.is_categorical and is_pairwise_scale(scale.categories)
        v = study._dimension_view(dimension)
        judge = v.is_judge
        names = [str(o) for o in v.orders]
        known = [k for k, o in enumerate(names) if o in ("AB", "BA")]
        kind, orders = order_kind(scale, [names[k] for k in np.unique(v.order[judge])])
        swap: list[str] = []
        if len(orders) == 2:
            # judges with a verdict in both orders on the same item
            sel = judge & np.isin(v.order, known)
            key = v.item[sel].astype(np.int64) * max(len(v.rater_names), 1) + v.rater[sel]
            pair = np.unique(np.c_[key, v.order[sel]], axis=0)[:, 0]
            cells, counts = np.unique(pair, return_counts=True)
            twice = cells[counts > 1] % max(len(v.rater_names), 1)
            swap = sorted({v.rater_names[k] for k in np.unique(twice)})
            if swap:
                kind = "swapped"
        return PresentationDesign(dimension, kind, orders, tuple(swap), pairwise)

    return study._cached(("presentation", dimension), compute)


def assignment(
    study: StudyLike, dimension: str, judges: Sequence[str], order: str | None = None
) -> np.ndarray:
    """``items × judges`` bool: the judge has a verdict row for the item (any status).

    Parameters
    ----------
    study : Study
    dimension : str
    judges : sequence of str
    order : str, optional
        Only rows in this presentation order.

    Returns
    -------
    numpy.ndarray
        Rows follow ``study.item_ids``, columns ``judges``.
    """
    v = study._dimension_view(dimension)
    keep = v.select(raters=list(judges), order=order)
    out = np.zeros((len(study.item_ids), len(judges)), dtype=bool)
    col = {k: j for j, name in enumerate(judges) for k, n in enumerate(v.rater_names) if n == name}
    r = np.array([col.get(int(k), -1) for k in v.rater[keep]], dtype=np.intp)
    i = v.item[keep].astype(np.intp)
    ok = r >= 0
    out[i[ok], r[ok]] = True
    return out
