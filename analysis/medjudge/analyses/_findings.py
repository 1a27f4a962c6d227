"""The sentences of a result: :class:`Finding`, the :class:`Markup` of the medium, numbers as text.

A result states its key findings once, in :meth:`Result.findings` (``analyses/_result.py``): the
report's executive summary, the report sections and the command line read the same sentences.
What differs between those media is only how a data string is written (escaped for markdown in
a report, as is on a terminal), how emphasis is marked (``**judge**``, ``*dimension*``) and the
study's own words for its roles (``judge``/``model``, ``expert``/``physician``); the result
takes these as arguments (``markup=``, ``names=``) and never imports the report.

The number formats (:func:`fmt_num`, :func:`fmt_ci`, :func:`fmt_p` …) live here, on the floor of
the results that write them; the report's tables import them from here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import pandas as pd

MISSING = "–"  # en dash for missing values

#: ``names(role, n=None)``: the study's word for ``role``, plural unless ``n == 1``
Names = Callable[..., str]


def _is_missing(x: Any) -> bool:
    if x is None or x is pd.NA or x is pd.NaT:
        return True
    return isinstance(x, Real) and not isinstance(x, Integral) and math.isnan(float(x))


def fmt_num(x: Any, digits: int = 3) -> str:
    """Fixed-point number with ``digits`` decimals; missing → ``–``; ints stay ints.

    >>> fmt_num(0.81234), fmt_num(-0.0001), fmt_num(7), fmt_num(float("nan"))
    ('0.812', '0.000', '7', '–')
    """
    if _is_missing(x):
        return MISSING
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, Integral):
        return f"{int(x):d}"
    if isinstance(x, Real):
        v = float(x)
        if math.isinf(v):
            return "∞" if v > 0 else "-∞"
        out = f"{v:.{digits}f}"
        return "0" + out[2:] if out.startswith("-0") and float(out) == 0 else out  # no "-0.000"
    return str(x)


def fmt_int(x: Any) -> str:
    """Integer with thousands separators (``12,345``); missing → ``–``."""
    if _is_missing(x):
        return MISSING
    return f"{int(round(float(x))):,d}"


def fmt_pct(x: Any, digits: int = 1) -> str:
    """Proportion as a percentage: ``0.8123 → "81.2%"``."""
    if _is_missing(x):
        return MISSING
    return f"{100.0 * float(x):.{digits}f}%"


def fmt_ci(low: Any, high: Any, digits: int = 3) -> str:
    """Interval as ``[low, high]``."""
    if _is_missing(low) or _is_missing(high):
        return MISSING
    return f"[{fmt_num(low, digits)}, {fmt_num(high, digits)}]"


def fmt_p(p: Any, digits: int = 3) -> str:
    """p-value: ``< 0.001`` below the display precision, else fixed-point."""
    if _is_missing(p):
        return MISSING
    p = float(p)
    floor = 10.0**-digits
    if p < floor:
        return f"< {floor:.{digits}f}"
    return f"{p:.{digits}f}"


def fmt_level(confidence_level: float) -> str:
    """``0.95 → "95%"``; ``0.9 → "90%"``; ``0.975 → "97.5%"``."""
    pct = 100.0 * float(confidence_level)
    return f"{pct:.0f}%" if abs(pct - round(pct)) < 1e-9 else f"{pct:g}%"


def plural(word: str) -> str:
    """English plural of a role word (``judge → judges``, ``physician → physicians``)."""
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def attribute_words(attribute: Any) -> str:
    """An item attribute's name in a sentence (``organ_system`` → ``organ system``)."""
    return str(attribute).replace("_", " ")


def value_words(value: Any) -> str:
    """An attribute's value in a sentence (``upper_limb`` → ``upper limb``); tables keep the
    data's own spelling so that values can be looked up."""
    return " ".join(str(value).replace("_", " ").split())


def role_names(role: str, n: int | None = None) -> str:
    """The default :data:`Names`: the role's own word (``judge``), plural unless ``n == 1``."""
    return role if n == 1 else plural(role)


class Finding(str):
    """One key finding: its sentence (the ``str`` itself, also ``.text``), an optional
    ``caveat`` and a ``weight`` (larger first when findings of several results are ordered;
    ties keep their order).

    A finding *is* its sentence, so a list of findings prints, joins and compares as the list
    of sentences it states.

    >>> f = Finding("The judges differ.", weight=4)
    >>> f.text, f.weight, f.caveat, f == "The judges differ."
    ('The judges differ.', 4, None, True)
    """

    caveat: str | None
    weight: float

    def __new__(cls, text: str, caveat: str | None = None, weight: float = 0.0) -> Finding:
        self = super().__new__(cls, text)
        self.caveat = caveat
        self.weight = weight
        return self

    @property
    def text(self) -> str:
        """The sentence."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Finding({self.text!r}, caveat={self.caveat!r}, weight={self.weight!r})"


@dataclass(frozen=True)
class Markup:
    """How a medium writes a result's sentences: ``escape`` turns a data string (a judge's or a
    dimension's name, a method's words) into safe text, ``strong`` and ``em`` are the patterns
    of emphasis (``"**{}**"``, ``"*{}*"`` in markdown) and ``prose`` makes a library's own
    sentence (a rule, a reason) safe. :data:`PLAIN` (the default of every
    ``findings()``) writes data as is, without emphasis: the text of a terminal.

    >>> md = Markup(escape=lambda s: s.replace("*", "\\\\*"), strong="**{}**", em="*{}*")
    >>> md.strong_data("gpt-4*"), md.em_data("overall"), PLAIN.strong_data("gpt-4*")
    ('**gpt-4\\\\***', '*overall*', 'gpt-4*')
    """

    escape: Callable[[str], str] = str
    strong: str = "{}"
    em: str = "{}"
    #: a sentence of the library that was not written for the medium (a rule, a reason)
    prose: Callable[[str], str] = str

    def note(self, value: Any) -> str:
        """A library sentence or name (a gold rule, a baseline's name), made safe as prose."""
        return self.prose(str(value))

    def data(self, value: Any) -> str:
        """A data string, escaped for the medium."""
        return self.escape(str(value))

    def strong_data(self, value: Any) -> str:
        """A data string, escaped and emphasised strongly (the judge a finding is about)."""
        return self.strong.format(self.data(value))

    def em_data(self, value: Any) -> str:
        """A data string, escaped and in italics (the dimension a finding is on)."""
        return self.em.format(self.data(value))

    def role(self, names: Names | None, role: str, n: int | None = None) -> str:
        """The study's word for ``role`` (``names`` or :func:`role_names`), escaped."""
        return self.data((names or role_names)(role, n))


PLAIN = Markup()
