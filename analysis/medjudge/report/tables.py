"""HTML escaping and number formatting for report tables.

Every string that reaches a report may come from a model, an annotator or a file (judge
rationales, rater names, item text), so tables are built here with **every** header and cell
escaped. :func:`html_table` returns an object with ``_repr_html_`` that notebooks and the
report renderer display as a table (the built-in renderer converts it into a native pandoc
table for HTML and PDF, re-escaping the text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from numbers import Real
from typing import Any

import pandas as pd

from ..analyses._findings import (  # the number formats of every sentence and table
    MISSING,
    _is_missing,
    fmt_ci,
    fmt_int,
    fmt_level,
    fmt_num,
    fmt_p,
    fmt_pct,
)
from . import escape

__all__ = [
    "escape_html",
    "frame_to_html",
    "html_table",
    "HtmlTable",
    "fmt_num",
    "fmt_int",
    "fmt_pct",
    "fmt_ci",
    "fmt_p",
    "fmt_estimate_ci",
    "est_ci_column",
    "fmt_level",
    "family_size",
]


def escape_html(text: Any) -> str:
    """Escape ``text`` for HTML element content *and* attribute values.

    ``str(text)`` with ``& < > " '`` replaced by entities, so ``<script>alert(1)</script>``
    becomes inert text, and newlines, backticks and tildes by character references, so it
    cannot close the raw-HTML fence a table travels in (:func:`medjudge.report.escape.html`).
    ``None`` becomes the empty string.
    """
    if text is None:
        return ""
    return escape.html(text)


def fmt_estimate_ci(est: Any, low: Any, high: Any, digits: int = 3) -> str:
    """``0.712 [0.655, 0.764]``."""
    if _is_missing(est):
        return MISSING
    return f"{fmt_num(est, digits)} {fmt_ci(low, high, digits)}"


def _format_cell(x: Any, formatter: Callable[[Any], str] | None, digits: int) -> str:
    if formatter is not None:
        return formatter(x)
    if isinstance(x, Real) and not isinstance(x, bool) or _is_missing(x):
        return fmt_num(x, digits)
    return str(x)


def _label(value: Any) -> str:
    if isinstance(value, tuple):
        return " / ".join(str(v) for v in value if str(v) != "")
    return str(value)


#: cells up to this many characters are kept on one line on a phone (class ``nw``)
NOWRAP_CHARS = 24


def frame_to_html(
    df: pd.DataFrame,
    *,
    index: bool = False,
    digits: int = 3,
    formatters: Mapping[str, Callable[[Any], str]] | None = None,
    classes: str = "dataframe medjudge-table",
) -> str:
    """HTML ``<table>`` for ``df`` with every header and cell escaped.

    Numbers are formatted with :func:`fmt_num` (``digits`` decimals) unless a per-column
    formatter is given; MultiIndex column labels are joined with `` / ``. A cell of at most
    :data:`NOWRAP_CHARS` characters (a name, an interval) has class ``nw``: on a phone it stays
    on one line and the table scrolls sideways under its cue (report.css).
    """
    formatters = dict(formatters or {})
    frame = df.reset_index() if index else df
    cols = list(frame.columns)
    out = [f'<table class="{escape_html(classes)}">', "<thead>", "<tr>"]
    out += [f"<th>{escape_html(_label(c))}</th>" for c in cols]
    out += ["</tr>", "</thead>", "<tbody>"]
    for row in frame.itertuples(index=False, name=None):
        out.append("<tr>")
        for col, value in zip(cols, row, strict=True):
            text = _format_cell(value, formatters.get(col), digits)
            nowrap = ' class="nw"' if len(text) <= NOWRAP_CHARS else ""
            out.append(f"<td{nowrap}>{escape_html(text)}</td>")
        out.append("</tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


class HtmlTable:
    """A pre-escaped HTML table that Jupyter and the report renderer display."""

    def __init__(self, html_text: str) -> None:
        self.html = html_text

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html

    def __repr__(self) -> str:  # stable text/plain (no memory address in the notebook)
        return f"HtmlTable({self.html.count('<tr>') - 1} rows)"


def html_table(df: pd.DataFrame, **kwargs: Any) -> HtmlTable:
    """Displayable escaped table: ``display(html_table(df, digits=2))`` in a report chunk."""
    return HtmlTable(frame_to_html(df, **kwargs))


def est_ci_column(df: pd.DataFrame, est: str, low: str, high: str, digits: int = 3) -> list[str]:
    """``estimate [low, high]`` strings for three columns of ``df``."""
    return [
        fmt_estimate_ci(e, a, b, digits) for e, a, b in zip(df[est], df[low], df[high], strict=True)
    ]


def family_size(df: pd.DataFrame, pvalue: str) -> int:
    """Number of tests in a multiplicity family: finite raw p-values in ``df[pvalue]``."""
    return int(pd.to_numeric(df[pvalue], errors="coerce").notna().sum()) if len(df) else 0
