"""Names drawn literally: a ``$`` in a judge, rater or dimension name is text, never mathtext.

An unescaped ``$`` starts matplotlib's mathtext (and aborts the drawing when unbalanced);
:func:`mathtext` escapes it, :func:`literal_figure_args` applies it to every text input of a
plot function and :func:`literal_figure_text` to every text of the drawn figure or axes.

Examples
--------
>>> mathtext("judge $x$")
'judge \\\\$x\\\\$'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .._inert import UNSAFE, inert

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.artist import Artist

__all__ = ["literal_figure_args", "literal_figure_text", "mathtext"]

F = TypeVar("F", bound=Callable[..., Any])
_DOLLAR = re.compile(r"(?<!\\)\$")


def mathtext(text: Any) -> str:
    """``text`` for matplotlib: every ``$`` not already escaped becomes ``\\$`` (idempotent),
    and the characters that act instead of being read (a NUL, which SVG cannot carry; a
    right-to-left override) are written as ``\\uXXXX`` (:func:`medjudge._inert.inert`)."""
    return _DOLLAR.sub(r"\\$", inert(text))


def _needs(text: str) -> bool:
    """Whether :func:`mathtext` changes ``text``."""
    return "$" in text or UNSAFE.search(text) is not None


def literal_figure_text(obj: Artist) -> Artist:
    """Apply :func:`mathtext` to every text of a figure or axes (titles, labels, legends, tick
    labels). Tick labels are produced by the axis formatter at draw time, so fixed and
    categorical formatters are wrapped as well. Returns ``obj``.
    """
    from matplotlib.figure import Figure
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    textual = (FixedFormatter, FuncFormatter)
    for ax in obj.axes if isinstance(obj, Figure) else [obj]:
        for axis in (ax.xaxis, ax.yaxis):
            for get, put in (
                (axis.get_major_formatter, axis.set_major_formatter),
                (axis.get_minor_formatter, axis.set_minor_formatter),
            ):
                f = get()
                if getattr(f, "_medjudge_literal", False):
                    continue
                if isinstance(f, textual) or type(f).__name__ == "StrCategoryFormatter":
                    g = FuncFormatter(lambda x, pos=None, _f=f: mathtext(_f(x, pos)))
                    g._medjudge_literal = True  # type: ignore[attr-defined]
                    put(g)
    for t in obj.findobj(Text):
        s = t.get_text()
        if _needs(s):
            t.set_text(mathtext(s))
    return obj


def _literal(value: Any) -> Any:
    import pandas as pd

    if isinstance(value, str):
        return mathtext(value) if _needs(value) else value
    if isinstance(value, pd.DataFrame):
        out = value
        texty = [
            c
            for c in value.columns
            if value[c].dtype == object or str(value[c].dtype) in ("string", "str", "category")
        ]
        if any(value[c].astype(str).map(_needs).any() for c in texty):
            out = value.copy()
            for c in texty:
                out[c] = value[c].astype(object).map(_literal)
        if any(_needs(str(c)) for c in out.columns) or any(_needs(str(i)) for i in out.index):
            out = out.copy() if out is value else out
            out.columns = [_literal(c) for c in out.columns]
            out.index = [_literal(i) for i in out.index]
        return out
    if isinstance(value, pd.Series):
        if value.dtype == object and value.astype(str).map(_needs).any():
            return value.map(_literal)
        return value
    if isinstance(value, Mapping):
        return {_literal(k): _literal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_literal(v) for v in value)
    return value


def literal_figure_args(func: F) -> F:
    """Decorator for plot functions: every ``$`` in their text inputs is drawn literally.

    Strings, text columns/index/columns of data frames, and keys/values of mappings and
    sequences go through :func:`mathtext` before drawing (layout measures text while
    building), and :func:`literal_figure_text` catches the rest of the returned figure or
    axes afterwards. The ``ax`` argument (matplotlib axes) is passed through untouched.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_literal(a) for a in args)
        kwargs = {k: v if k == "ax" else _literal(v) for k, v in kwargs.items()}
        out = func(*args, **kwargs)
        return literal_figure_text(out) if hasattr(out, "findobj") else out

    return wrapper  # type: ignore[return-value]
