"""One validator per kind of option or argument value (no dependencies: usable from any layer).

Each validator is an ``argparse`` ``type=`` function: it turns the option's text into a value or
raises :class:`argparse.ArgumentTypeError` with one line saying the value and what is allowed;
argparse prefixes the option's name, so every bad option ends as::

    medjudge compare: error: argument --alpha: 5 is not allowed (a probability strictly between 0 and 1)

The same objects validate library arguments: ``ALPHA.check("alpha", 0.05)`` returns the value or
raises :class:`ValueError` naming the argument. Reuse a validator by name (``ALPHA``,
``CONFIDENCE_LEVEL``, ``RESAMPLES``, ``SEED`` ...) for every option of that kind, so that the
allowed ranges are the same in every command.

Examples
--------
>>> from medjudge._validation import ALPHA, RESAMPLES
>>> RESAMPLES("2000")
2000
>>> ALPHA.check("alpha", 0.5)
0.5
>>> ALPHA.check("alpha", 5)
Traceback (most recent call last):
...
ValueError: alpha: 5 is not allowed (a probability strictly between 0 and 1)
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "ALPHA",
    "CONFIDENCE_LEVEL",
    "EPSILON",
    "ITEMS",
    "MAX_HALF_WIDTH",
    "MIN_N",
    "RESAMPLES",
    "SEED",
    "TOP",
    "RealRange",
    "IntRange",
]


def _bad(text: Any, allowed: str) -> argparse.ArgumentTypeError:
    shown = text if isinstance(text, str) else repr(text)
    return argparse.ArgumentTypeError(f"{shown} is not allowed ({allowed})")


class _Validator:
    """What every validator shares: the library form :meth:`check` of its ``__call__`` (the
    ``argparse`` ``type=`` form), and the name argparse shows."""

    what: str

    def check(self, name: str, value: Any) -> Any:
        """Library form: the value, or :class:`ValueError` ``"name: value is not allowed (...)"``."""
        try:
            return self(value)  # type: ignore[operator]
        except argparse.ArgumentTypeError as exc:
            raise ValueError(f"{name}: {exc}") from None

    @property
    def __name__(self) -> str:  # argparse uses type.__name__ in some messages
        return self.what


@dataclass(frozen=True)
class RealRange(_Validator):
    """A finite real number in an interval; ``open_low``/``open_high`` exclude the ends."""

    low: float
    high: float
    open_low: bool = True
    open_high: bool = True
    what: str = "a number"

    @property
    def allowed(self) -> str:
        if math.isinf(self.high):
            rel = ">" if self.open_low else ">="
            return f"{self.what}: a finite number {rel} {self.low:g}"
        if self.open_low and self.open_high:
            return f"{self.what} strictly between {self.low:g} and {self.high:g}"
        lo = "(" if self.open_low else "["
        hi = ")" if self.open_high else "]"
        return f"{self.what} in {lo}{self.low:g}, {self.high:g}{hi}"

    def __call__(self, text: Any) -> float:
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise _bad(text, self.allowed) from None
        if not math.isfinite(value):
            raise _bad(text, self.allowed)
        below = value <= self.low if self.open_low else value < self.low
        above = value >= self.high if self.open_high else value > self.high
        if below or above:
            raise _bad(text, self.allowed)
        return value


@dataclass(frozen=True)
class IntRange(_Validator):
    """An integer (written without a fraction) from ``low`` to ``high`` inclusive."""

    low: int
    high: int
    what: str = "an integer"

    @property
    def allowed(self) -> str:
        high = "2**63 - 1" if self.high == 2**63 - 1 else str(self.high)
        return f"{self.what}: an integer from {self.low} to {high}"

    def __call__(self, text: Any) -> int:
        if isinstance(text, bool):
            raise _bad(text, self.allowed)
        if isinstance(text, int):
            value = text
        else:
            s = str(text).strip().replace("_", "")
            try:
                value = int(s)
            except ValueError:
                # accept 1e3 / 2000.0 when they are whole numbers
                try:
                    f = float(s)
                except ValueError:
                    raise _bad(text, self.allowed) from None
                if not math.isfinite(f) or f != int(f):
                    raise _bad(text, self.allowed) from None
                value = int(f)
        if not self.low <= value <= self.high:
            raise _bad(text, self.allowed)
        return value


#: test size (``--alpha``): significance level of a test.
ALPHA = RealRange(0.0, 1.0, what="a probability")
#: the decision threshold when none is given: a setting of its own, never ``1 - level``
DEFAULT_ALPHA = 0.05
#: interval coverage (``--confidence-level``).
CONFIDENCE_LEVEL = RealRange(0.0, 1.0, what="a confidence level")
#: alt-test margin (``--epsilon``), Calderon et al. (2025) use 0.1-0.2.
EPSILON = RealRange(0.0, 1.0, what="a margin")
#: small-cell rule: interval half-width of a proportion (at most 1).
MAX_HALF_WIDTH = RealRange(0.0, 1.0, open_high=False, what="a half-width")
#: bootstrap resamples; below 10 not even a rough interval exists (use 2,000 or more for
#: reported intervals), above 100,000 memory and time grow without a visible gain in Monte
#: Carlo precision.
RESAMPLES = IntRange(10, 100_000, what="number of resamples")
#: seed of numpy's generator (non-negative, below 2**63).
SEED = IntRange(0, 2**63 - 1, what="seed")
#: number of rows to list.
TOP = IntRange(1, 1_000_000, what="count")
#: small-cell rule: minimum cell size.
MIN_N = IntRange(1, 1_000_000_000, what="count")
#: simulated items (13 organ systems need one item each).
ITEMS = IntRange(13, 200_000, what="number of items")


def check_choice(name: str, value: Any, allowed: tuple[Any, ...] | list[Any]) -> Any:
    """``value`` if it is one of ``allowed``, else :class:`ValueError` naming ``name``.

    Examples
    --------
    >>> check_choice("policy", "wrong", ("wrong", "exclude", "half"))
    'wrong'
    >>> check_choice("policy", "wrnog", ("wrong", "exclude", "half"))
    Traceback (most recent call last):
    ...
    ValueError: policy: 'wrnog' is not allowed (one of 'wrong', 'exclude', 'half')
    """
    ok = any(a is value or (isinstance(value, type(a)) and a == value) for a in allowed)
    if not ok:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name}: {value!r} is not allowed (one of {shown})")
    return value


def check_instance(name: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """``value`` if it is an instance of ``kind``, else :class:`ValueError` naming ``name``.

    Examples
    --------
    >>> check_instance("seed", 3, int, "an integer")
    3
    >>> check_instance("seed", "3", int, "an integer")
    Traceback (most recent call last):
    ...
    ValueError: seed: '3' is not allowed (an integer)
    """
    if not isinstance(value, kind):
        raise ValueError(f"{name}: {value!r} is not allowed ({what})")
    return value


def check_names(name: str, value: Any, allowed: Any, what: str = "a list of names") -> list:
    """``value`` as a list if it is a list/tuple of names all in ``allowed``.

    A bare string is refused (it is not a list of names: ``"overall"`` would be read as
    seven one-letter names).

    Examples
    --------
    >>> check_names("dimensions", ["overall"], ["overall", "accuracy"])
    ['overall']
    >>> check_names("dimensions", ["overal"], ["overall", "accuracy"])
    Traceback (most recent call last):
    ...
    ValueError: dimensions: 'overal' is not allowed (one of 'overall', 'accuracy')
    """
    allowed = list(allowed)
    shown = ", ".join(repr(a) for a in allowed[:12]) + (" ..." if len(allowed) > 12 else "")
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{name}: {value!r} is not allowed ({what}, each one of {shown})")
    for v in value:
        if not isinstance(v, str) or v not in allowed:
            raise ValueError(f"{name}: {v!r} is not allowed (one of {shown})")
    return list(value)


def _first_bad(value: Any) -> Any:
    """The first element (depth first) of nested lists that is not a number, else None."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
            continue
        if v is None or isinstance(v, bool):
            continue
        try:
            float(v)
        except (TypeError, ValueError):
            return v
    return None


def check_numbers(name: str, value: Any, what: str = "an array of numbers, NaN for missing") -> Any:
    """``value`` as a float array if it is one (any shape), else :class:`ValueError` naming
    ``name`` and saying why: a dict, text, a ragged list (rows of different lengths) or an
    element that is not a number — never numpy's words from deep inside.

    A pandas object is converted with ``to_numpy`` (missing values become NaN); ``None``
    elements are NaN.

    Examples
    --------
    >>> check_numbers("X", [[0, 1], [1, 1]]).tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    >>> check_numbers("X", [[0, 1], [1]])
    Traceback (most recent call last):
    ...
    ValueError: X: a ragged list is not allowed (an array of numbers, NaN for missing; rows of lengths 2 and 1)
    >>> check_numbers("X", ["a", "b"])
    Traceback (most recent call last):
    ...
    ValueError: X: 'a' is not allowed (an array of numbers, NaN for missing)
    """
    import numpy as np

    if isinstance(value, dict):
        raise ValueError(f"{name}: a dict is not allowed ({what})")
    if isinstance(value, (str, bytes)):
        shown = repr(value if len(value) <= 40 else value[:37] + "...")
        raise ValueError(f"{name}: {shown} is not allowed ({what})")
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        try:
            value = value.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            value = value.to_numpy()
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        pass
    if isinstance(value, (list, tuple)):
        lengths = list(dict.fromkeys(len(v) if isinstance(v, (list, tuple)) else -1 for v in value))
        if len(lengths) > 1:
            shown = " and ".join("a number" if n < 0 else str(n) for n in lengths[:2])
            raise ValueError(
                f"{name}: a ragged list is not allowed ({what}; rows of lengths {shown})"
            )
    bad = _first_bad(value.tolist() if isinstance(value, np.ndarray) else value)
    shown = repr(bad) if bad is not None else f"a {type(value).__name__}"
    if len(shown) > 40:
        shown = shown[:37] + "..."
    raise ValueError(f"{name}: {shown} is not allowed ({what})")


def check_labels(name: str, value: Any, n: int | None = None) -> Any:
    """``value`` (unchanged) if it is a 1-d set of group labels, one per item, else :class:`ValueError`
    naming ``name``: a missing label (NaN, None) says nothing about the item's group, and
    ``n`` (when given) labels are needed. A list mixing text and NaN keeps its NaN (numpy
    would turn it into the text ``"nan"``, one more group).

    Examples
    --------
    >>> check_labels("clusters", ["a", "b", "a"], 3)
    ['a', 'b', 'a']
    >>> check_labels("clusters", ["a", float("nan")], 2)
    Traceback (most recent call last):
    ...
    ValueError: clusters: a missing label (NaN) is not allowed (one label per item; item 1 has none)
    """
    import numpy as np

    if isinstance(value, (str, bytes, dict)) or np.ndim(value) == 0:
        raise ValueError(f"{name}: {value!r} is not allowed (one label per item)"[:200])
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        value = value.to_numpy()
    arr = np.asarray(value)
    if arr.dtype.kind in "US" and not isinstance(value, np.ndarray):
        arr = np.asarray(value, dtype=object)  # keep a float NaN a NaN
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
        size = arr.shape[0] if arr.ndim == 1 else f"an array of shape {arr.shape} of"
        wanted = f": {n}" if n is not None else ""
        raise ValueError(f"{name}: {size} labels is not allowed (one label per item{wanted})")
    refuse_missing_labels(arr, name)
    return value


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and v != v)


def refuse_missing_labels(labels: Any, name: str = "clusters") -> None:
    """A missing group label (NaN, None, NaT) says nothing about which group an item is in:
    refused in one line naming the argument and the first such item (it would otherwise form
    a group of its own, or join others as the text ``"nan"``).

    >>> refuse_missing_labels([1.0, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: clusters: a missing label (NaN) is not allowed (one label per item; item 1 has none)
    """
    import numpy as np

    a = np.asarray(labels)
    if a.dtype.kind in "iubUS":
        return
    if a.dtype.kind in "fc":
        bad = np.isnan(a)
    elif a.dtype.kind in "mM":
        bad = np.isnat(a)
    else:
        bad = np.frompyfunc(_missing, 1, 1)(a).astype(bool)
    if bad.any():
        first = int(np.flatnonzero(np.ravel(bad))[0])
        raise ValueError(
            f"{name}: a missing label (NaN) is not allowed (one label per item; "
            f"item {first} has none)"
        )


Settings = TypeVar("Settings")


def with_former(
    function: str,
    name: str,
    given: Settings | None,
    former: Mapping[str, Any],
    default: Settings,
    fields: Mapping[str, str],
) -> Settings:
    """The resampling settings a function runs with: ``given`` (checked), ``default`` when it
    is None, or — deprecated — ``default`` with the former keywords ``former`` applied.

    ``fields`` maps each former keyword a function accepted (``n_resamples``, ``n_flips``,
    ``seed``, ``method``) to the field of the settings dataclass (:class:`~medjudge.Bootstrap`,
    :class:`~medjudge.Permutation`) it sets; a
    former keyword warns (:class:`DeprecationWarning`, naming ``name=``), with ``name=`` too it
    is refused, and any other keyword is a :class:`TypeError` as Python raises it.

    Examples
    --------
    >>> import warnings
    >>> from medjudge.stats.resampling import Permutation
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with_former("f", "permutation", None, {"n_flips": 99}, Permutation(9999),
    ...                 {"n_flips": "n_resamples", "seed": "seed"})
    Permutation(n_resamples=99, seed=0)
    """
    unknown = sorted(set(former) - set(fields))
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    cls: Any = type(default)
    if given is not None and not isinstance(given, cls):
        raise ValueError(
            f"{name}: {given!r} is not allowed (a medjudge.{cls.__name__}, e.g. "
            f"{cls.__name__}(n_resamples={default.n_resamples}, seed=0), or None)"
        )
    if not former:
        return default if given is None else given
    spelled = ", ".join(f"{k}=" for k in former)
    if given is not None:
        raise ValueError(f"{function}: give {name}= only ({spelled} its former spelling)")
    warnings.warn(
        f"{function}({spelled}) is deprecated: use {name}=medjudge.{cls.__name__}(...)",
        DeprecationWarning,
        stacklevel=3,
    )
    return dataclasses.replace(default, **{fields[k]: v for k, v in former.items()})  # type: ignore[type-var]
