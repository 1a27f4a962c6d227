"""Words of the audit sections, generated from the result fields they describe.

Every label, header and sentence about an audit interval is built here from what the result
records (``ci_method``, ``level``, ``weights``, ``n``), never typed in a section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ...analyses.audit_findings import n_items, one_level, primary, worst_and_best  # noqa: F401
from ...analyses.audit_tables import COEFFICIENT_NAMES, coefficient_label  # noqa: F401 (re-export)
from . import md

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
