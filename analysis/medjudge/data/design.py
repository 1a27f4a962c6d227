"""What the data say about how a study was run: the presentation design and the judge design.

Both are facts of the data (which orders occur, which item x judge cells have a verdict row),
computed once per study and dimension (cached on the study), and read by the outcomes, the
analyses, the commands and the reports alike (:mod:`medjudge.analyses.design` adds the
clusters and the settings of an analysis).

Presentation design (per dimension)
    Declared or inferred, and ``source`` says which. The mapping may declare, per dimension
    (``[designs.DIMENSION]``) or for all (``[design]``): ``presentation = "pairwise"`` with
    the categories meaning the ``first`` and ``second`` answer (and ``tie``), or
    ``presentation = "single"``; and ``accuracy_order``, the order whose verdicts accuracy uses
    when a judge saw the same items in both orders. What is not declared is inferred by one
    rule from the data, never from category names while the data can decide:

    1. the judges' rows record both presentation orders, ``AB`` and ``BA`` (the same item in
       both orders, or items randomised between them) → **pairwise**: an order of answers
       exists only when two answers are shown;
    2. two non-tie categories swapped consistently by order → **pairwise**: the same judge
       gave the same item a verdict under each of two recorded order values (``AB``/``BA`` or
       any two labels), and among the verdict pairs that change between the two orders, one
       pair of categories is exchanged more often than any other pair (at least
       :data:`MIN_SWAPS` times): a preference for a position exchanges the two *answers*
       between the orders, never a tie. These two categories are the answers (first and second
       in the scale's order) and a third category is the tie;
    3. neither → the data cannot tell; pairwise only if the scale's first two categories name
       the first and second answer (``A``/``B``, ``1``/``2``, …). This is the one case where
       names are read, and ``source`` says so (declare the design to override it);
    4. otherwise → **single**.

    A pairwise dimension's ``first`` and ``second`` categories are those rule 2 finds (a
    three-category scale without a declared tie: ``"0"`` tie, ``"1"``/``"2"`` answers is told
    from ``"0"``/``"1"`` answers, ``"2"`` tie by which two categories swap), else the first two
    categories of its scale in the scale's order (declared categories, else the natural order
    of the labels) other than the scale's tie category, and ``tie`` is the scale's tie category
    or the remaining category of a three-category scale. ``source`` names the rule that fired.
    Accuracy of a judge seen in both orders uses ``accuracy_order`` (default ``AB``, the first
    presentation).

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

__all__ = [
    "PresentationDesign", "assignment", "infer_pairwise", "is_pairwise_scale",
    "pairwise_categories", "presentation_design",
]  # fmt: skip

PresentationKind = Literal["single", "unknown", "fixed", "randomised", "swapped"]

#: the fewest exchanges of one category pair between the two orders with which rule 2 decides
MIN_SWAPS = 5

#: category names read as "the first answer" / "the second answer" of a pairwise verdict
_FIRST = {"a", "1", "answer1", "answer 1", "response1", "response 1", "first", "left", "model_1"}
_SECOND = {
    "b", "2", "answer2", "answer 2", "response2", "response 2", "second", "right", "model_2",
}  # fmt: skip


@dataclass(frozen=True)
class PresentationDesign:
    """How the answers of one dimension were shown to the judges (see the module docstring).

    ``first``/``second``/``tie``: the categories meaning the first answer, the second answer
    and a tie (``None`` when not pairwise / no tie); ``accuracy_order``: the order whose
    verdicts accuracy uses for the judges seen in both orders; ``source``: where each part
    came from, in words (declared in the mapping, or the inference rule that decided).
    """

    dimension: str
    kind: PresentationKind
    orders: tuple[str, ...]
    swap_judges: tuple[str, ...]
    pairwise: bool
    first: str | None = None
    second: str | None = None
    tie: str | None = None
    accuracy_order: str | None = None
    source: dict[str, str] | None = None

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
        return (self.accuracy_order or "AB") if self.kind == "swapped" else None

    def to_dict(self) -> dict[str, object]:
        """The design as ``validate --json`` shows it (with the source of each part)."""
        return {
            "presentation": "pairwise" if self.pairwise else "single",
            "kind": self.kind,
            "first": self.first,
            "second": self.second,
            "tie": self.tie,
            "orders": list(self.orders),
            "accuracy_order": self.evaluation_order,
            "source": dict(self.source or {}),
        }

    def lines(self) -> list[str]:
        """What ``validate`` prints: the design and where each part came from."""
        src = self.source or {}
        out = [
            f"presentation: {'pairwise' if self.pairwise else 'single'} ({src.get('presentation', '')})"
        ]
        if self.pairwise:
            out.append(
                f"categories: first {self.first!r}, second {self.second!r}, tie "
                + (repr(self.tie) if self.tie is not None else "none")
                + f" ({src.get('categories', '')})"
            )
            out.append(f"orders: {', '.join(self.orders) or 'none recorded'} ({self.kind})")
            if self.kind == "swapped":
                out.append(
                    f"accuracy uses order {self.evaluation_order} for the "
                    f"{len(self.swap_judges)} judge(s) seen in both orders "
                    f"({src.get('accuracy_order', '')})"
                )
        return out

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
            f"(accuracy from order {self.evaluation_order}; position bias from both orders)",
        }[self.kind]


def is_pairwise_scale(categories: Sequence[str]) -> bool:
    """Whether the first two categories name the first and the second answer of a pair."""
    if len(categories) < 2:
        return False
    a, b = (str(c).strip().lower() for c in categories[:2])
    return a in _FIRST and b in _SECOND


def order_kind(
    scale: Scale, used: Sequence[str], pairwise: bool | None = None
) -> tuple[PresentationKind, tuple[str, ...]]:
    """The presentation kind before swaps are looked for, and the orders ``AB``/``BA`` used.

    ``single`` unless the dimension is pairwise (``pairwise``: declared; ``None``: the rule of
    the module docstring, :func:`infer_pairwise`); ``unknown`` when the judges' rows use no
    order or one other than ``AB``/``BA``; ``fixed`` with one of them; ``randomised`` with
    both. The in-memory path (:func:`presentation_design`) and the engine path
    (:mod:`medjudge.engine.summary`) both classify here.
    """
    orders = tuple(o for o in sorted(set(used)) if o in ("AB", "BA"))
    if pairwise is None:
        pairwise = infer_pairwise(scale, orders)[0]
    kind: PresentationKind
    if not (scale.is_categorical and pairwise):
        kind = "single"
    elif not orders or any(o not in ("AB", "BA") for o in used):
        kind = "unknown"
    elif len(orders) == 1:
        kind = "fixed"
    else:
        kind = "randomised"
    return kind, orders


def infer_pairwise(scale: Scale, orders: Sequence[str]) -> tuple[bool, str]:
    """Rules 1-3 of the module docstring: is the dimension pairwise, and why (in words)."""
    if not scale.is_categorical or len(scale.categories) < 2:
        return False, "inferred: the scale is not categorical with two answers"
    if {"AB", "BA"} <= set(orders):
        return True, (
            "inferred (rule 1): the judges' rows record both answer orders (AB and BA), which "
            "exist only for two shown answers"
        )
    if is_pairwise_scale(scale.categories):
        return True, (
            "inferred from the category names (rule 3; "
            + ("one answer order recorded" if orders else "no answer order recorded")
            + "); declare [design] presentation in the mapping to override"
        )
    return False, (
        "inferred (rule 4): "
        + ("one answer order recorded" if orders else "no answer order recorded")
        + " and the categories do not name two answers; declare [design] presentation in the "
        "mapping to override"
    )


def swapped_categories(
    scale: Scale, swaps: dict[tuple[str, str], int] | None
) -> tuple[str, str, str | None, str] | None:
    """Rule 2 of the module docstring: ``(first, second, tie, words)`` when one pair of
    non-tie categories is exchanged between the two orders more often than any other pair
    (and at least :data:`MIN_SWAPS` times), else None.

    ``swaps`` counts, per ``(verdict in one order, verdict in the other)``, the same judge's
    verdicts on the same item under the two recorded order values.

    Examples
    --------
    >>> from medjudge.data.scale import Scale
    >>> s = Scale("nominal", categories=("0", "1", "2"))
    >>> swapped_categories(s, {("1", "2"): 9, ("2", "1"): 3, ("0", "1"): 2, ("1", "1"): 40})[:3]
    ('1', '2', '0')
    """
    cats = [str(c) for c in scale.categories]
    tie = getattr(scale, "tie", None)
    counts: dict[frozenset, int] = {}
    for (a, b), n in (swaps or {}).items():
        if a != b and a in cats and b in cats and tie not in (a, b):
            key = frozenset((a, b))
            counts[key] = counts.get(key, 0) + int(n)
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < MIN_SWAPS or (len(ranked) > 1 and ranked[1][1] >= ranked[0][1]):
        return None
    pair, n_top = ranked[0]
    first, second = sorted(pair, key=cats.index)
    rest = [c for c in cats if c not in pair]
    tie_out = str(tie) if tie is not None else (rest[0] if len(rest) == 1 else None)
    changed = sum(counts.values())
    words = (
        f"inferred (rule 2): {n_top} of {changed} verdict pairs that change between the two "
        f"orders exchange {first!r} and {second!r}, which a position preference does to the two "
        "answers, never to a tie"
    )
    return first, second, tie_out, words


def pairwise_categories(scale: Scale) -> tuple[str, str, str | None]:
    """``(first, second, tie)`` of a pairwise scale by the rule of the module docstring."""
    cats = [str(c) for c in scale.categories]
    tie = getattr(scale, "tie", None)
    rest = [c for c in cats if c != tie]
    first, second = rest[0], rest[1]
    if tie is None and len(cats) == 3:
        tie = rest[2]
    return first, second, (None if tie is None else str(tie))


def resolve_design(
    scale: Scale,
    used: Sequence[str],
    declared: dict | None = None,
    swaps: dict[tuple[str, str], int] | None = None,
) -> tuple[bool, str | None, str | None, str | None, str | None, dict[str, str]]:
    """``(pairwise, first, second, tie, accuracy_order, source)`` of one dimension from its
    scale, the orders the judges' rows use, the mapping's declaration and the verdict pairs
    of the same judge and item under two orders (``swaps``, :func:`swap_pairs`) — the rule of
    the module docstring; the in-memory and the engine paths both resolve here."""
    declared = dict(declared or {})
    source: dict[str, str] = {}
    swapped = (
        swapped_categories(scale, swaps)
        if scale.is_categorical and len(scale.categories) >= 2
        else None
    )
    if "presentation" in declared:
        pairwise = declared["presentation"] == "pairwise" and scale.is_categorical
        source["presentation"] = "declared in the mapping"
    else:
        orders = [o for o in sorted(set(used)) if o in ("AB", "BA")]
        pairwise, source["presentation"] = infer_pairwise(scale, orders)
        if swapped is not None and not {"AB", "BA"} <= set(orders):
            pairwise, source["presentation"] = True, swapped[3]
    first = second = tie = None
    if pairwise:
        f0, s0, t0 = pairwise_categories(scale)
        if declared.get("first") is not None or declared.get("second") is not None:
            first = str(declared.get("first", f0))
            second = str(declared.get("second", s0))
            tie = declared.get("tie")
            tie = None if tie is None else str(tie)
            if tie is None:
                left = [str(c) for c in scale.categories if str(c) not in (first, second)]
                tie = left[0] if len(left) == 1 else None
            source["categories"] = "declared in the mapping"
        elif swapped is not None:
            first, second, tie = swapped[:3]
            source["categories"] = swapped[3]
        else:
            first, second, tie = f0, s0, t0
            source["categories"] = (
                "inferred: the first two categories of the scale's order"
                + (", the scale's tie category" if getattr(scale, "tie", None) else "")
                + (", the third category is the tie" if tie and not scale.tie else "")
            )
    acc_order = declared.get("accuracy_order")
    source["accuracy_order"] = (
        "declared in the mapping" if acc_order else "default: the first presentation, AB"
    )
    return pairwise, first, second, tie, acc_order, source


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
        declared = dict((getattr(study, "designs", None) or {}).get(dimension, {}))
        v = study._dimension_view(dimension)
        judge = v.is_judge
        names = [str(o) for o in v.orders]
        known = [k for k, o in enumerate(names) if o in ("AB", "BA")]
        used = [names[k] for k in np.unique(v.order[judge])]
        swaps = (
            swap_pairs(v, judge, [str(c) for c in scale.categories]) if scale.is_categorical else {}
        )
        pairwise, first, second, tie, acc_order, source = resolve_design(
            scale, used, declared, swaps
        )
        kind, orders = order_kind(scale, used, pairwise)
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
        return PresentationDesign(
            dimension, kind, orders, tuple(swap), pairwise, first, second, tie, acc_order, source
        )

    return study._cached(("presentation", dimension), compute)


def two_orders(used: Sequence[str]) -> tuple[str, str] | None:
    """The two order values rule 2 compares: ``AB``/``BA`` when both occur, else the two
    values when exactly two non-empty values occur (None otherwise)."""
    if {"AB", "BA"} <= set(used):
        return "AB", "BA"
    vals = sorted({str(o) for o in used if str(o) not in ("", "nan", "None")})
    return (vals[0], vals[1]) if len(vals) == 2 else None


def swap_pairs(v: object, judge: np.ndarray, labels: Sequence[str]) -> dict[tuple[str, str], int]:
    """Rule 2's counts from a dimension view: per ``(verdict in the first order, verdict in
    the second)``, the same judge's usable verdicts on the same item under the two order values
    of :func:`two_orders` (the first row of each item × judge × order)."""
    names = [str(o) for o in v.orders]  # type: ignore[attr-defined]
    pair = two_orders([names[k] for k in np.unique(v.order[judge])])  # type: ignore[attr-defined]
    if pair is None:
        return {}
    code = v.code  # type: ignore[attr-defined]
    width = len(v.rater_names) + 1  # type: ignore[attr-defined]
    keys, codes = [], []
    for o in pair:
        sel = judge & (v.order == names.index(o)) & np.isfinite(code)  # type: ignore[attr-defined]
        key = v.item[sel].astype(np.int64) * width + v.rater[sel]  # type: ignore[attr-defined]
        k, first = np.unique(key, return_index=True)
        keys.append(k)
        codes.append(code[sel][first].astype(np.int64))
    _, ia, ib = np.intersect1d(keys[0], keys[1], assume_unique=True, return_indices=True)
    q = len(labels)
    cells, counts = np.unique(codes[0][ia] * q + codes[1][ib], return_counts=True)
    return {
        (labels[int(c) // q], labels[int(c) % q]): int(n)
        for c, n in zip(cells, counts, strict=True)
    }


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
