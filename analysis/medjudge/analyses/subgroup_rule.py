"""Which item attributes a breakdown uses when none is named: one documented rule.

:func:`default_subgroup_attributes` is the rule of the command line, both reports and every
analysis whose ``by=`` is left out; :func:`subgroup_attributes` lists every named attribute with
two or more values.
"""

from __future__ import annotations

from medjudge.data.model import Study

__all__ = [
    "MAX_SUBGROUPS", "SUBGROUP_ATTRIBUTES", "default_subgroup_attributes", "subgroup_attributes",
]  # fmt: skip


#: item attributes read as subgroups when present (Med-RewardBench's organ systems, departments
#: and modalities; LLMBar's subsets), in this order
SUBGROUP_ATTRIBUTES = ("organ_system", "department", "modality_type", "subset")
#: another item attribute is a subgroup when it has this many distinct values at most
MAX_SUBGROUPS = 30


def subgroup_attributes(study: Study) -> list[str]:
    """Every one of :data:`SUBGROUP_ATTRIBUTES` the items carry with two or more values (the
    audit's subgroup reliability when ``by`` is not named).

    Examples
    --------
    >>> import medjudge as mj
    >>> subgroup_attributes(mj.datasets.demo())
    ['organ_system', 'department', 'modality_type']
    """
    items = study.items
    return [
        c for c in SUBGROUP_ATTRIBUTES if c in items.columns and items[c].nunique(dropna=True) > 1
    ]


def default_subgroup_attributes(study: Study) -> list[str]:
    """The item attribute to break accuracy down by when none is named (``[]``: none).

    The first of :data:`SUBGROUP_ATTRIBUTES` with two or more values; else the first other item
    attribute (not the cluster column, not an answer-model column) with 2 to
    :data:`MAX_SUBGROUPS` values and at least 5 items per value on average. One rule for the
    command line and the reports.

    Parameters
    ----------
    study : Study

    Returns
    -------
    list of str

    Examples
    --------
    >>> import medjudge as mj
    >>> default_subgroup_attributes(mj.datasets.example())
    ['organ_system']
    """
    items = study.items
    for col in SUBGROUP_ATTRIBUTES:
        if col in items.columns and items[col].nunique(dropna=True) > 1:
            return [col]
    skip = {"item", getattr(study, "cluster", None), *getattr(study, "answer_models", ())}
    for col in items.columns:
        if col in skip:
            continue
        k = items[col].nunique(dropna=True)
        if 2 <= k <= MAX_SUBGROUPS and len(items) >= 5 * k:
            return [str(col)]
    return []
