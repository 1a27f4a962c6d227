"""Words of the audit sections, generated from the result fields they describe.

Every label, header and sentence about an audit interval is built here from what the result
records (``ci_method``, ``level``, ``weights``, ``n``), never typed in a section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ...analyses.audit import MIN_ITEMS
from ...analyses.audit_tables import COEFFICIENT_NAMES, coefficient_label  # noqa: F401 (re-export)
from ..tables import fmt_int, fmt_level
from . import md


def one_level(levels: Iterable[Any]) -> str:
    """The confidence level of a set of intervals as text (``"95%"``); all must be equal."""
    vals = sorted({round(float(v), 12) for v in levels if v is not None and np.isfinite(float(v))})
    if len(vals) != 1:
        raise ValueError(f"intervals with different confidence levels {vals} under one header")
    return fmt_level(vals[0])


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def methods(values: Iterable[Any]) -> str:
    """The distinct interval methods of a set of rows, in order of first appearance; methods
    that differ only in whole numbers (the clusters of each subgroup) are named once with the
    range: ``cluster jackknife (19–185 clusters, t df=18–184)``."""
    seen = [str(v) for v in dict.fromkeys(values) if isinstance(v, str) and v]
    groups: dict[str, list[str]] = {}
    for v in seen:
        whole = all("." not in x for x in _NUMBER.findall(v))
        groups.setdefault(_NUMBER.sub("\0", v) if whole else v, []).append(v)
    out = []
    for key, members in groups.items():
        if len(members) == 1:
            out.append(members[0])
            continue
        cols = zip(*(_NUMBER.findall(m) for m in members), strict=True)
        spans = [f"{min(c, key=int)}–{max(c, key=int)}" if len(set(c)) > 1 else c[0] for c in cols]
        parts = key.split("\0")
        out.append(parts[0] + "".join(n + p for n, p in zip(spans, parts[1:], strict=True)))
    return "; ".join(md(v) for v in out) if out else "no interval"


def n_items(n: Any, unit: str = "items") -> str:
    """``"n = 827 items"``, flagged when below :data:`MIN_ITEMS` (too few to read much into)."""
    k = int(n)
    head, _, rest = unit.partition(" ")
    word = " ".join(filter(None, [head[:-1] if k == 1 and head.endswith("s") else head, rest]))
    text = f"n = {fmt_int(k)} {word}"
    return text + (f", fewer than {MIN_ITEMS}: too few to judge" if k < MIN_ITEMS else "")


def primary(rel: pd.DataFrame, dimension: str) -> pd.Series | None:
    """The chance-corrected coefficient that ranks a dimension: Fleiss' κ for labels (nominal,
    ordinal), Krippendorff's α with its metric for scores (interval, ratio)."""
    rows = rel[rel["dimension"] == dimension]
    level = str(rows["measurement"].iloc[0]) if len(rows) and "measurement" in rows else ""
    order = ("krippendorff_alpha",) if level in ("interval", "ratio") else ("fleiss_kappa",)
    for coef in (*order, "fleiss_kappa", "krippendorff_alpha"):
        r = rel[(rel["dimension"] == dimension) & (rel["coefficient"] == coef)]
        if len(r) and np.isfinite(float(r.iloc[0]["estimate"])):
            return r.iloc[0]
    return None


def worst_and_best(rel: pd.DataFrame) -> tuple[pd.Series, pd.Series] | None:
    """The rows of the lowest and highest agreeing dimension (by :func:`primary`); None with
    fewer than two dimensions or when the dimensions use different coefficients."""
    rows = [r for d in dict.fromkeys(rel["dimension"]) if (r := primary(rel, d)) is not None]
    if len(rows) < 2 or len({r["coefficient"] for r in rows}) > 1:
        return None
    rows.sort(key=lambda r: (float(r["estimate"]), str(r["dimension"])))
    return rows[0], rows[-1]
