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
