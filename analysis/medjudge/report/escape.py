"""One escaping function per output target, for every user string that reaches an output.

User strings are judge, rater, dimension, category and subgroup names, file names, verdict text
and anything else that came from the input data. One rule holds for every target that shows
text (markdown, HTML, typst, figures, the terminal): :func:`inert` (:mod:`medjudge._inert`)
writes the characters that act instead of being read — bidirectional overrides and isolates,
control characters, what XML cannot carry — as their ``\\uXXXX`` escapes. Then each target has
its own rules:

* :func:`markdown` — pandoc markdown: every punctuation character that could start markup
  (emphasis, links, images ``![x](...)``, raw attributes ``{=html}``, math ``$...$``, HTML) is
  backslash-escaped; newlines become spaces.
* :func:`html` — HTML text and attribute values (:func:`html.escape` with quotes), and the
  characters that could end the raw-HTML fence the HTML travels in through pandoc markdown
  (newlines, backticks, tildes) as character references.
* :func:`typst` — typst markup: ``\\ # $ * _ ` < > @ [ ] ~ / - = +`` and ``'`` ``"`` escaped.
* :func:`mathtext` — matplotlib text: unescaped ``$`` would start mathtext (and abort the
  figure when unbalanced); it becomes ``\\$``, which matplotlib draws as a dollar sign.
  It lives with the figures (:mod:`medjudge.plots._literal`, which also applies it to every
  text of a finished figure).
* :func:`spreadsheet` — CSV/TSV cells: a text cell starting with ``=``, ``+``, ``-``, ``@``, tab
  or carriage return (or their full-width forms) is a live formula in spreadsheet programs (CSV
  injection, OWASP); it gets a leading ``'`` — and so does every line of a cell after a carriage
  return or newline, where a reader that splits lines would start a row.
  :func:`spreadsheet_frame` does it for every text cell and column name of a table, and
  :func:`write_csv` writes the result with every text cell quoted. JSON and Parquet outputs
  stay exact.

Examples
--------
>>> markdown("![x](/etc/passwd) `y`{=html}")
'\\\\!\\\\[x\\\\]\\\\(\\\\/etc\\\\/passwd\\\\) \\\\`y\\\\`\\\\{\\\\=html\\\\}'
>>> html('<b a="1">')
'&lt;b a=&quot;1&quot;&gt;'
>>> mathtext("judge $x$")
'judge \\\\$x\\\\$'
>>> spreadsheet("=HYPERLINK(1)"), spreadsheet("gpt-4o"), spreadsheet(-1.5)
("'=HYPERLINK(1)", 'gpt-4o', -1.5)
>>> spreadsheet("gpt-4o\\r=cmd|' /C calc'!A0")
"gpt-4o\\r'=cmd|' /C calc'!A0"
>>> html("a\\n```\\n")
'a&#10;&#96;&#96;&#96;&#10;'
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._inert import inert
from ..plots._literal import mathtext

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "html",
    "inert",
    "join_sentence",
    "plain",
    "prose",
    "words",
    "markdown",
    "mathtext",
    "neutralise_raw_markdown",
    "spreadsheet",
    "spreadsheet_frame",
    "typst",
    "write_csv",
]

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~^$@\"'&:;=%/,?])")
_TYPST = re.compile(r"([\\#$*_`<>@\[\]~/\-=+'\"])")
_RAW_ATTR = re.compile(r"\{=([^}\s]*)\}")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")
#: characters that could close or open a pandoc fence or raw block around HTML, as references
_HTML_FENCE = str.maketrans({"`": "&#96;", "~": "&#126;", "\r": "&#13;", "\n": "&#10;"})


def markdown(text: Any) -> str:
    """``text`` as literal pandoc-markdown text (no markup, raw blocks, images or math)."""
    return _MD_PUNCT.sub(r"\\\1", inert(text)).replace("\r", " ").replace("\n", " ")


#: a Python list, tuple, set or dict literal of plain values, as library messages print them
_VAL = r"""(?:'[^'\n]*'|"[^"\n]*"|-?\d[\d.]*(?:e-?\d+)?|None|True|False)"""
_REPR = re.compile(r"[\[{(](?:\s*" + _VAL + r"\s*(?::\s*" + _VAL + r"\s*)?,?)+\s*[\]})]")
#: a stop after a stop ("?.", ":."), not the dots of a path ("../out", "./x") or an ellipsis
_DOUBLE_STOP = re.compile(r"([?!.:;,])\s*\.(?![./\\\w])")


def words(values: Any, conjunction: str = "and") -> str:
    """Names as prose: ``a``, ``a and b``, ``a, b and c`` (no Python brackets or quotes).

    >>> words(["answer1_len", "answer2_len"])
    'answer1_len and answer2_len'
    >>> words({"items_without_gold": 0, "invalid": 3})
    'items_without_gold 0 and invalid 3'
    """
    if isinstance(values, Mapping):
        items = [f"{k} {v}" for k, v in values.items()]
    elif isinstance(values, (list, tuple, set, frozenset)):
        items = [
            str(v)
            for v in (sorted(values, key=str) if isinstance(values, (set, frozenset)) else values)
        ]
    else:
        return str(values)
    if len(items) <= 1:
        return "".join(items) or "none"
    return ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


def plain(text: Any) -> str:
    """A library message as prose: Python literals (``['a', 'b']``, ``{'k': 0}``) become
    :func:`words`, and a stop after ``?``/``!``/``.`` is not doubled. The result is plain text
    (escape it for its target: :func:`prose` for markdown).

    >>> plain("the study has no item columns ['answer1_len', 'answer2_len']")
    'the study has no item columns answer1_len and answer2_len'
    >>> plain("Can a judge stand in for an expert?.")
    'Can a judge stand in for an expert?'
    >>> plain("a value in (0, 1) (Fleiss 1971)")
    'a value in (0, 1) (Fleiss 1971)'
    >>> plain("../myout: --out is an existing file")
    '../myout: --out is an existing file'
    """
    import ast

    def sub(m: re.Match) -> str:
        try:
            value = ast.literal_eval(m.group(0))
        except (ValueError, SyntaxError):
            return m.group(0)
        if not isinstance(value, (list, tuple, set, dict)) or not any(
            isinstance(v, str) for v in value
        ):  # "(2024)", "(0, 1)": numbers, not a repr of names
            return m.group(0)
        return words(value)

    out = _REPR.sub(sub, str(text))
    return _DOUBLE_STOP.sub(lambda m: m.group(1) if m.group(1) in "?!." else m.group(0), out)


def prose(text: Any) -> str:
    """Plain text (a reason, a note, a library message) as literal pandoc markdown:
    :func:`plain`, then :func:`markdown`. The one path for sentences that were not written as
    markdown by a report section."""
    return markdown(plain(text))


def join_sentence(text: str, end: str = ".") -> str:
    """``text`` ended by ``end`` unless it already ends with a stop (no ``?.`` or ``..``).

    >>> join_sentence("Are the dimensions distinct verdicts?"), join_sentence("Leaderboard")
    ('Are the dimensions distinct verdicts?', 'Leaderboard.')
    """
    t = text.rstrip()
    bare = t.rstrip("*_")  # markdown emphasis around the last word
    return t if bare.endswith(("?", "!", ".", "\\?", "\\!", "\\.")) else t + end


def html(text: Any) -> str:
    """``text`` as literal HTML text or attribute value.

    ``& < > " '`` become entities, and newlines, backticks and tildes character references,
    so the text cannot end a line of the fenced raw-HTML block it is carried in (a line of
    three backticks would close the fence and let markdown, links included, through).
    """
    return _html.escape(inert(text), quote=True).translate(_HTML_FENCE)


def typst(text: Any) -> str:
    """``text`` as literal typst markup."""
    return _TYPST.sub(r"\\\1", inert(text)).replace("\r", " ").replace("\n", " ")


#: environment variable through which the renderer hands its report kernels a secret token;
#: medjudge's own raw blocks (the HTML of its tables) carry it, user text cannot guess it
RAW_TOKEN_ENV = "MEDJUDGE_RAW_TOKEN"


def trusted_raw(fmt: str = "html") -> str:
    """Raw-attribute fence info for medjudge's own generated markup (``{=html}`` outside the
    built-in renderer; a token-marked variant inside it that survives
    :func:`neutralise_raw_markdown`)."""
    import os

    token = os.environ.get(RAW_TOKEN_ENV)
    return f"{{={fmt}-medjudge-{token}}}" if token else f"{{={fmt}}}"


def neutralise_raw_markdown(text: str, token: str | None = None) -> str:
    """Markdown from a chunk's output with raw-attribute blocks/inlines (``{=html}``) disarmed.

    Chunk output printed with ``output: asis`` is markdown written by the template, but it may
    embed user strings; a raw attribute would pass HTML/typst through verbatim, so it is shown
    as text instead — except medjudge's own raw blocks, marked with the renderer's secret token
    (:func:`trusted_raw`), which are restored to plain raw attributes.
    """
    import os

    token = token if token is not None else os.environ.get(RAW_TOKEN_ENV)

    def sub(m: re.Match) -> str:
        fmt, _, mark = m.group(1).partition("-medjudge-")
        if token and mark == token:
            return "{=" + fmt + "}"
        return "\\{\\=" + m.group(1) + "\\}"

    return _RAW_ATTR.sub(sub, text)


def spreadsheet(value: Any) -> Any:
    """A CSV/TSV cell that no spreadsheet program evaluates as a formula (text cells only).

    The cell, and every line in it after a carriage return or newline (where a reader that
    splits lines would start a new row), gets a leading ``'`` when it starts like a formula;
    a cell that starts with a carriage return, newline or tab gets one too (OWASP lists them
    with ``=``, ``+``, ``-`` and ``@``).

    >>> spreadsheet("\\r=2+2")
    "'\\r'=2+2"
    """
    if not isinstance(value, str):
        return value
    if "\r" not in value and "\n" not in value:
        return "'" + value if value.startswith(FORMULA_START) else value
    parts = _LINE_BREAK.split(value)  # text, break, text, ...
    for i in range(0, len(parts), 2):
        if parts[i].startswith(FORMULA_START):
            parts[i] = "'" + parts[i]
    out = "".join(parts)
    return "'" + out if out.startswith(FORMULA_START) else out


def spreadsheet_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``df`` with :func:`spreadsheet` applied to every text cell and column name."""
    out = df.copy()
    for j in range(out.shape[1]):
        s = out.iloc[:, j]
        if s.dtype == object or str(s.dtype) in ("string", "str", "category"):
            out.isetitem(j, s.astype(object).map(spreadsheet))
    out.columns = [spreadsheet(c) for c in out.columns]
    return out


def write_csv(df: pd.DataFrame, path: Any, *, decimals: int | None = None) -> None:
    """Write ``df`` as a CSV file safe to open in a spreadsheet program.

    Every text cell and column name goes through :func:`spreadsheet` and is quoted (so a
    carriage return or newline inside a name stays inside its cell); numbers are not quoted.
    ``decimals`` rounds floating-point columns (Python's correctly rounded :func:`round`, the
    value ``"%.{decimals}f"`` would print), so last-bit differences never reach the file.

    Examples
    --------
    >>> import io, pandas as pd
    >>> buf = io.StringIO()
    >>> write_csv(pd.DataFrame({"judge": ["a\\r=1+1"], "acc": [2 / 3]}), buf, decimals=6)
    >>> buf.getvalue()
    '"judge","acc"\\n"a\\r\\'=1+1",0.666667\\n'
    """
    import csv
    import math

    out = spreadsheet_frame(df)
    if decimals is not None:
        for j in range(out.shape[1]):
            s = out.iloc[:, j]
            if s.dtype.kind == "f":
                out.isetitem(j, s.map(lambda v: round(v, decimals) if math.isfinite(v) else v))
    out.to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
