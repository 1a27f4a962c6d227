"""Small table helpers shared by the study-level analyses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from medjudge.stats.multiplicity import adjust_pvalues


def with_adjusted(
    t: pd.DataFrame, pvalue: str = "pvalue", within: str | None = None, **columns: str
) -> pd.DataFrame:
    """Add multiplicity-adjusted p-values of column ``pvalue`` to ``t`` (in place, returned).

    Each keyword names a new column and its method (:func:`medjudge.stats.multiplicity.
    adjust_pvalues`, e.g. ``p_holm="holm"``); the family is the whole table, or each group
    of rows sharing a value of ``within``. A table without a ``pvalue`` column (no rows) is
    returned as it is.

    Examples
    --------
    >>> t = with_adjusted(pd.DataFrame({"pvalue": [0.01, 0.04]}), p_holm="holm")
    >>> t["p_holm"].round(2).tolist()
    [0.02, 0.04]
    """
    if pvalue not in t.columns:
        return t
    for name, method in columns.items():
        if within is None:
            t[name] = adjust_pvalues(t[pvalue].to_numpy(), method)
            continue
        t[name] = np.nan
        for _, s in t.groupby(within, sort=False):
            t.loc[s.index, name] = adjust_pvalues(s[pvalue].to_numpy(), method)
    return t


def gold_dimensions(study: Any, dimensions: Any = None) -> Iterator[tuple[str, Any]]:
    """``(dimension, gold)`` for each of ``dimensions`` (default: the study's, in order) that
    has a gold label; a dimension without one (``study.gold`` raises ValueError) is left out."""
    for dim in study.dimensions if dimensions is None else dimensions:
        try:
            gold = study.gold(dim)
        except ValueError:
            continue
        yield dim, gold


class TablesToDict:
    """``to_dict()`` of a result dataclass: the attributes named in ``DICT_KEYS``, in that order,
    each DataFrame as a list of records and each dict copied (plain JSON for ``json.dumps``)."""

    DICT_KEYS: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in self.DICT_KEYS:
            v = getattr(self, key)
            if isinstance(v, pd.DataFrame):
                v = v.to_dict(orient="records")
            elif isinstance(v, dict):
                v = dict(v)
            out[key] = v
        return out
