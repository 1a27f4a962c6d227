"""Names are inert wherever they are shown: the one rule for characters that act instead of
being read (no dependencies: used by the report's escaping, the figures and the terminal).

A judge, rater, dimension or category name comes from the input data and may hold characters
that *do* something where they are shown: a right-to-left override (U+202E) reverses the rest
of a sentence or cell in HTML and PDF; an escape (U+001B) drives the terminal; a NUL cannot be
carried in XML (figures are SVG). :func:`inert` writes each such character as its JSON escape
``\\uXXXX`` — visible, unambiguous, and the same character again when read back from JSON:

* the bidirectional formatting controls (U+061C, U+200E, U+200F, U+202A-U+202E,
  U+2066-U+2069), which reorder the text around them;
* the C0 controls except tab, line feed and carriage return (each output handles those
  three itself: a space in markdown, a reference in HTML, a new cell line in CSV), DEL and
  the C1 controls (U+0080-U+009F: U+009B is a terminal's CSI);
* the code points XML 1.0 cannot carry (U+FFFE, U+FFFF, lone surrogates).

Every escaping function of :mod:`medjudge.report.escape` (markdown, HTML, typst), the figures'
text (:mod:`medjudge.plots._literal`) and the command line's standard output apply it; JSON,
Parquet and CSV outputs keep names exact.

Examples
--------
>>> inert("gpt\\u202eo4")
'gpt\\\\u202eo4'
>>> inert("judge\\x1b[31mred\\x00")
'judge\\\\u001b[31mred\\\\u0000'
>>> inert("plain name, café, 医生 and עברית")
'plain name, café, 医生 and עברית'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["UNSAFE", "inert"]

_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_NOT_XML = "\ufffe\uffff\ud800-\udfff"
#: every character :func:`inert` escapes (tab, line feed and carriage return are not)
UNSAFE = re.compile(f"[{_CONTROLS}{_BIDI}{_NOT_XML}]")
_UNSAFE_CR = re.compile(f"[{_CONTROLS}{_BIDI}{_NOT_XML}\r]")


def _escape(m: re.Match) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def inert(text: Any, *, carriage_return: bool = False) -> str:
    """``text`` with every character of :data:`UNSAFE` written as ``\\uXXXX``.

    Parameters
    ----------
    text : Any
        The text (anything else is converted with ``str``).
    carriage_return : bool, default False
        Also escape carriage returns (on a terminal a carriage return moves back to the start
        of the line, so the text after it overwrites what came before).

    Returns
    -------
    str
        The text, unchanged when it has none of these characters.
    """
    s = str(text)
    pattern = _UNSAFE_CR if carriage_return else UNSAFE
    return pattern.sub(_escape, s) if pattern.search(s) else s
