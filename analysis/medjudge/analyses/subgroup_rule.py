"""Which item attributes a breakdown uses when none is named: one documented rule.

:func:`default_subgroup_attributes` is the rule of the command line, both reports and every
analysis whose ``by=`` is left out (the audit's subgroup reliability too). It reads the study's
declaration and its data, never a column's name: the item attributes in the order the study
declares them (a mapping's ``attributes``, a bundle's item fields), less the cluster column and
the answer-model columns, that split the items into :data:`MIN_SUBGROUPS` to
:data:`MAX_SUBGROUPS` values with at least :data:`MIN_ITEMS_PER_SUBGROUP` items per value on
average.
"""

from __future__ import annotations

import warnings
from typing import Any

from medjudge.data.model import Study

from ._arguments import check_attributes
from .design import resolve_clusters

__all__ = [
    "MAX_SUBGROUPS", "MIN_ITEMS_PER_SUBGROUP", "MIN_SUBGROUPS", "RULE_TEXT",
    "default_subgroup_attributes",
    "resolve_by", "subgroup_candidates",
]  # fmt: skip

#: a breakdown compares at least two subgroups
MIN_SUBGROUPS = 2
#: an attribute with more values is an identifier or free text, not a subgroup (a 30-row
#: table or heat-map column is what a report can still show)
MAX_SUBGROUPS = 30
#: items per value on average, at least (fewer leave every cell's interval uninformative)
MIN_ITEMS_PER_SUBGROUP = 5
#: the rule in words (what a report or an error says when no attribute qualifies)
RULE_TEXT = (
    "the first declared item attribute, other than the cluster and the answer-model columns, "
    f"with {MIN_SUBGROUPS} to {MAX_SUBGROUPS} values and {MIN_ITEMS_PER_SUBGROUP} or more items "
    "per value on average"
)


def subgroup_candidates(study: Study) -> list[str]:
    """Every item attribute the default rule accepts, in the study's declared order.

    An attribute is a candidate when it is declared (a column of ``study.items`` other than
    ``item``), is neither the cluster column (declared, or found by
    :func:`~medjudge.analyses.design.resolve_clusters`) nor an answer-model column
    (``study.answer_models``), and has ``k`` distinct values with
    ``MIN_SUBGROUPS <= k <= MAX_SUBGROUPS`` and ``n_items >= MIN_ITEMS_PER_SUBGROUP * k``.

    Examples
    --------
    >>> import pandas as pd
    >>> import medjudge as mj
    >>> items = pd.DataFrame({"item": [f"q{i}" for i in range(20)],
    ...                       "ward": ["a", "b"] * 10, "bed": [str(i) for i in range(20)]})
    >>> ratings = pd.DataFrame({"item": items["item"], "rater": "e", "role": "expert",
    ...                         "dimension": "overall", "value": "A"})
    >>> st = mj.Study(ratings, items, {"overall": mj.Scale("nominal", ("A", "B"))})
    >>> subgroup_candidates(st)
    ['ward']
    """
    items = study.items
    cluster = getattr(study, "cluster", None) or resolve_clusters(study, "auto").column
    skip = {"item", cluster, *getattr(study, "answer_models", ())}
    out = []
    for col in items.columns:
        if col in skip:
            continue
        k = items[col].nunique(dropna=True)
        if MIN_SUBGROUPS <= k <= MAX_SUBGROUPS and len(items) >= MIN_ITEMS_PER_SUBGROUP * k:
            out.append(str(col))
    return out


def default_subgroup_attributes(study: Study) -> list[str]:
    """The item attribute to break accuracy down by when none is named (``[]``: none).

    The first of :func:`subgroup_candidates`: the first declared item attribute, other than the
    cluster and answer-model columns, with 2 to :data:`MAX_SUBGROUPS` values and at least
    :data:`MIN_ITEMS_PER_SUBGROUP` items per value on average. One rule for the command line,
    the reports and every analysis whose ``by=`` is left out.

    Parameters
    ----------
    study : Study

    Returns
    -------
    list of str

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 items: 13 organ systems average fewer than 5 each
    >>> list(study.items.columns[1:4]), default_subgroup_attributes(study)
    (['organ_system', 'modality_type', 'department'], ['department'])
    """
    return subgroup_candidates(study)[:1]


def resolve_by(
    study: Any,
    by: Any,
    *,
    extra: tuple[str, ...] = (),
    old: Any = None,
    old_name: str = "",
    one: bool = False,
    default: str = "first",
) -> list[str]:
    """The breakdown ``by`` (a column name or a list of names) as a checked list.

    ``old`` is the value of a retired name of the same argument (``across=``, ``subgroups=``):
    accepted with a :class:`DeprecationWarning`. ``by=None``: the study's subgroup attributes
    by the one documented rule (:func:`medjudge.analyses.subgroups.default_subgroup_attributes`;
    ``default="optional"``: ``[]`` when the items have none), else an error naming ``by`` when
    the items have none.
    ``one``: exactly one name.
    """
    label = "by"
    if old is not None:
        label = old_name
        warnings.warn(
            f"{old_name}= is deprecated; use by= (a column name or a list of names)",
            DeprecationWarning,
            stacklevel=3,
        )
        if by is not None:
            raise ValueError(f"{old_name}: give by= only ({old_name}= is its former name)")
        by = old
    if by is None:
        by = default_subgroup_attributes(study)
        if not by and default == "first":
            raise ValueError(
                "by: required (no item attribute is a subgroup by the default rule; name one of "
                f"{[str(c) for c in study.items.columns if c != 'item']})"
            )
    names = [by] if isinstance(by, str) else by
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{label}: {by!r} is not allowed (a column name or a list of names)")
    names = check_attributes(study, list(names), label, extra)
    if one and len(names) != 1:
        raise ValueError(f"{label}: {by!r} is not allowed (one column name)")
    return names
