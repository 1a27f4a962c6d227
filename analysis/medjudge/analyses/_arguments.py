"""Checks of the study-level arguments every analysis shares (one line naming the argument).

``dimensions`` must be dimensions of the study, ``cluster`` and attribute arguments must be
item attributes, ``policy`` one of the invalid-verdict policies. Each check raises
:class:`ValueError` ``"argument: value is not allowed (what is)"``, like the validators of
:mod:`medjudge._validation`.
"""

from __future__ import annotations

from typing import Any

from .._validation import check_choice, check_names
from ..stats.accuracy import POLICIES
from .subgroup_rule import default_subgroup_attributes, subgroup_attributes


def check_policy(policy: Any) -> str:
    """``policy`` if it is ``"wrong"``, ``"exclude"`` or ``"half"``."""
    return check_choice("policy", policy, POLICIES)


def check_dimensions(study: Any, dimensions: Any, name: str = "dimensions") -> list[str]:
    """The study's dimensions when ``dimensions`` is None, else ``dimensions`` checked."""
    if dimensions is None:
        return list(study.dimensions)
    dims = check_names(name, dimensions, study.dimensions, "a list of dimensions")
    if not dims:
        raise ValueError(f"{name}: [] is not allowed (at least one dimension, or None for all)")
    return dims


def check_attribute(study: Any, value: Any, name: str, extra: tuple[str, ...] = ()) -> str:
    """``value`` if it is an item attribute of the study (or one of ``extra``)."""
    allowed = [*extra, *[str(c) for c in study.items.columns if c != "item"]]
    return check_choice(name, value, tuple(allowed))


def check_attributes(study: Any, value: Any, name: str, extra: tuple[str, ...] = ()) -> list[str]:
    """``value`` if it is a list/tuple of item attributes (or of ``extra``)."""
    allowed = [*extra, *[str(c) for c in study.items.columns if c != "item"]]
    return check_names(name, value, allowed, "a list of item attributes")


def check_cluster(study: Any, cluster: Any) -> Any:
    """``cluster`` if it is None, ``"auto"``, ``"none"`` or an item attribute of the study."""
    if cluster is None or (isinstance(cluster, str) and cluster in ("auto", "none", "")):
        return cluster
    return check_attribute(study, cluster, "cluster", extra=("auto", "none"))


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
    ``default="all"``: every one of :data:`~medjudge.analyses.subgroups.SUBGROUP_ATTRIBUTES` the
    items carry with two or more values), and an error naming ``by`` when the items have none.
    ``one``: exactly one name.
    """
    import warnings

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
        by = subgroup_attributes(study) if default == "all" else default_subgroup_attributes(study)
        if not by and default != "all":
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
