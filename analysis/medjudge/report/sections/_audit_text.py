"""Words of the audit sections, generated from the result fields they describe.

Every label, header and sentence about an audit interval is built here from what the result
records (``ci_method``, ``level``, ``weights``, ``n``), never typed in a section.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...analyses._findings import Markup
from ...analyses.audit_findings import (  # noqa: F401 (re-export)
    method_words,
    n_items,
    one_level,
    primary,
    worst_and_best,
)
from ...analyses.audit_tables import COEFFICIENT_NAMES, coefficient_label  # noqa: F401 (re-export)
from . import md


def methods(values: Iterable[Any]) -> str:
    """The distinct interval methods of a set of rows, escaped for markdown
    (:func:`medjudge.analyses.audit_findings.method_words`)."""
    return method_words(values, Markup(escape=md))
