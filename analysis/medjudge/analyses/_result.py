"""The result contract of every study-level analysis (DESIGN "Estimators and results").

An analysis returns one object that owns what it produced:

- ``.tables`` names its tables and ``.table(name, **where)`` returns one as a tidy long table,
  one row per quantity estimated: the keys (judge, dimension, subgroup …), then
  :data:`CONTRACT` (``estimand, estimate, ci_low, ci_high, confidence_level, ci_method``),
  then :data:`TEST` where a test ran (``test, p_value, alpha, family, family_size,
  p_adjusted``), then :data:`TAIL` (``n, n_unit, warning``), then the table's further columns;
- ``.plot(kind=None, ax=None, **where)`` draws one of ``.plots`` with :mod:`medjudge.plots`
  from its own ``.table()`` (one mark per row);
- ``.findings(dimension=None, *, names=None, markup=PLAIN)`` states the result's key findings:
  a list of :class:`~medjudge.analyses._findings.Finding` (a ``str``, its sentence, with a
  ``caveat`` and a ``weight``), each built from the result's own fields (the method that ran,
  the level, α, the family and its size, n and its unit). They are *the* sentences: a report
  section adds them to its key findings (``sec.findings += r.findings(head,
  names=ctx.names_of, markup=ctx.markup)``) and never types its own; ``dimension`` limits them
  to one dimension, ``names(role, n=None)`` gives the study's words for its roles (``judge``,
  ``expert``) and ``markup`` (:class:`~medjudge.analyses._findings.Markup`) how data strings
  are escaped and emphasised (the default writes plain text for a terminal);
- ``.summary()`` (the text a terminal shows) is the one-line ``repr`` then the same findings
  (a result may add its detail lines after them); ``.to_dict()`` is the JSON of ``--json``;
  ``repr`` is one line and ``_repr_html_`` shows it over the first rows of the default table.

``plots`` is the floor above ``analyses`` (tidy tables in, ``ax=`` out; it never imports a
result class), so :meth:`Result.plot` imports it inside the method: importing an analysis loads
no matplotlib, and no import circle can form. This is the one upward import the layer test
(tests/project/test_layers.py) allows, and only inside a function of this module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import DEFAULT_ALPHA
from ..stats.results import Presentable
from ._findings import PLAIN, Finding, Markup, Names

CONTRACT = ("estimand", "estimate", "ci_low", "ci_high", "confidence_level", "ci_method")
TEST = ("test", "p_value", "alpha", "family", "family_size", "p_adjusted")
TAIL = ("n", "n_unit", "warning")


@dataclass(frozen=True)
class Quantity:
    """Where one estimand's numbers sit in a wide analysis table.

    Each field other than ``estimand`` names a column of that table; ``estimand``,
    ``ci_method``, ``test`` and ``n_unit`` may instead be the literal text (used when the table
    has no such column; ``estimand`` is a column only when ``estimand_column`` is true).
    A quantity without a test leaves ``p_value`` None.
    """

    estimand: str
    estimate: str
    ci_low: str | None = "ci_low"
    ci_high: str | None = "ci_high"
    ci_method: str = "ci_method"
    n: str = "n"
    n_unit: str = "n_unit"
    test: str | None = None
    p_value: str | None = None
    p_adjusted: str | None = None
    estimand_column: bool = False


def _column(frame: pd.DataFrame, spec: str | None, default: Any = np.nan) -> Any:
    """``frame[spec]`` when it is a column; else the literal ``spec`` (``default`` for None)."""
    if spec is None:
        return default
    return frame[spec].to_numpy() if spec in frame.columns else spec


def long_table(
    frame: pd.DataFrame,
    keys: Sequence[str],
    quantities: Sequence[Quantity],
    *,
    confidence_level: float,
    alpha: float | None = None,
    family: str = "",
    family_by: Sequence[str] = (),
    warning: str | Callable[[pd.DataFrame], Any] = "",
    extra: Sequence[str] = (),
) -> pd.DataFrame:
    """One tidy row per row of ``frame`` and quantity, in the contract's column order.

    ``family`` names the multiplicity family of the tests and ``family_by`` the columns whose
    values split it (``()``: one family, the whole table); ``family_size`` is the number of
    p-values in the row's family. ``warning`` is a column of ``frame``, a literal or a function
    of ``frame``; ``extra`` columns of ``frame`` follow the contract.

    Examples
    --------
    >>> f = pd.DataFrame({"judge": ["a", "b"], "accuracy": [0.8, 0.7], "ci_low": [0.7, 0.6],
    ...                   "ci_high": [0.9, 0.8], "n": [50, 50]})
    >>> t = long_table(f, ["judge"], [Quantity("accuracy", "accuracy", ci_method="wilson",
    ...                n_unit="items")], confidence_level=0.95)
    >>> t.columns.tolist()[:7]
    ['judge', 'estimand', 'estimate', 'ci_low', 'ci_high', 'confidence_level', 'ci_method']
    """
    tested = any(q.p_value for q in quantities)
    if frame.empty:  # an analysis that did not apply: no row, the contract's columns
        cols = [*keys, *CONTRACT, *(TEST if tested else ()), *TAIL, *extra]
        return pd.DataFrame(columns=cols)
    parts = []
    for q in quantities:
        out = frame[list(keys)].copy() if keys else pd.DataFrame(index=frame.index)
        out["estimand"] = frame[q.estimand].to_numpy() if q.estimand_column else q.estimand
        out["estimate"] = pd.to_numeric(pd.Series(_column(frame, q.estimate), index=frame.index))
        out["ci_low"] = _column(frame, q.ci_low)
        out["ci_high"] = _column(frame, q.ci_high)
        out["confidence_level"] = float(confidence_level)
        out["ci_method"] = _column(frame, q.ci_method, "")
        if tested:
            has = q.p_value is not None
            out["test"] = _column(frame, q.test, "") if has else ""
            out["p_value"] = _column(frame, q.p_value) if has else np.nan
            out["alpha"] = np.nan if alpha is None else float(alpha)
            out["family"] = family if has else ""
            out["family_size"] = 0
            out["p_adjusted"] = _column(frame, q.p_adjusted) if has else np.nan
        out["n"] = _column(frame, q.n)
        out["n_unit"] = _column(frame, q.n_unit, "")
        out["warning"] = warning(frame) if callable(warning) else _column(frame, warning, "")
        for c in extra:
            out[c] = frame[c].to_numpy()
        parts.append(out)
    t = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if tested and len(t):
        tests = t["p_value"].notna()
        by = list(family_by) + ["estimand"]
        t["family_size"] = tests.groupby([t[c] for c in by], sort=False).transform("sum")
        t["family_size"] = t["family_size"].where(tests, 0).astype(int)
    return t


def _where(t: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    """Rows of ``t`` whose columns equal (or are in) the given values."""
    for col, value in where.items():
        if col not in t.columns:
            raise ValueError(f"no column {col!r} to select on; columns: {', '.join(t.columns)}")
        vals = value if isinstance(value, list | tuple | set) else [value]
        t = t[t[col].isin(list(vals))]
    return t.reset_index(drop=True)


class Result(Presentable):
    """The contract mixed into every study-level result (see the module docstring).

    A subclass sets :attr:`TABLES` (its table names, the default first), :attr:`PLOTS`
    (``kind -> (function of medjudge.plots, table name, keyword arguments)``, the default first)
    and implements :meth:`_table` (the tidy table of one name), :meth:`findings` and
    :meth:`summary`.
    """

    TABLES: tuple[str, ...] = ()
    PLOTS: Mapping[str, tuple[str, str, Mapping[str, Any]]] = {}

    @property
    def tables(self) -> list[str]:
        """The names :meth:`table` accepts, the default first."""
        return list(self.TABLES)

    @property
    def plots(self) -> list[str]:
        """The kinds :meth:`plot` draws, the default first."""
        return list(self.PLOTS)

    def _table(self, name: str) -> pd.DataFrame:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def table(self, name: str | None = None, **where: Any) -> pd.DataFrame:
        """One tidy long table (``name`` of :attr:`tables`; default the first), optionally
        only the rows whose columns equal the ``where`` values (e.g. ``dimension="overall"``)."""
        from .._validation import check_choice

        name = self.TABLES[0] if name is None else check_choice("name", name, self.TABLES)
        return _where(self._table(name), where)

    def plot(
        self,
        kind: str | None = None,
        ax: Any = None,
        *,
        where: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Any:
        """Draw ``kind`` (one of :attr:`plots`; default the first) with :mod:`medjudge.plots`
        from this result's own ``table(name, **where)``, one mark per row; ``ax`` as in that
        plot function (an Axes, one per panel, or None for a new figure) and ``options`` go to
        it (e.g. ``judge_order=``)."""
        from .._validation import check_choice

        if not self.PLOTS:
            raise ValueError(f"{type(self).__name__} has no plot")
        kind = next(iter(self.PLOTS)) if kind is None else check_choice("kind", kind, self.PLOTS)
        function, name, defaults = self.PLOTS[kind]
        data = self.table(name, **dict(where or {}))
        if data.empty:
            raise ValueError(f"{type(self).__name__}.plot({kind!r}): no row to draw")
        from medjudge import plots  # the floor above, imported on use (module docstring)

        opts = self._plot_options(kind, data, {**defaults, **options})
        return getattr(plots, function)(self._plot_data(kind, data), ax=ax, **opts)

    def _plot_data(self, kind: str, data: pd.DataFrame) -> pd.DataFrame:
        """The rows ``kind`` draws (a subclass may add a label column, e.g. a rater pair's
        name; never a number)."""
        return data

    def _plot_options(
        self, kind: str, data: pd.DataFrame, options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Keyword arguments of the plot function for ``kind`` (a subclass may add some that
        come from its other tables, e.g. reference lines)."""
        return dict(options)

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """The key findings of this result (module docstring): for ``dimension`` only, or every
        one; role words from ``names``, data strings and emphasis through ``markup``."""
        return []

    def summary(self) -> str:
        """The text a terminal shows: the one-line ``repr``, then the findings."""
        return "\n".join([repr(self), *self.findings()])

    def to_frame(self) -> pd.DataFrame:
        """The default tidy table."""
        return self.table()


class Decided:
    """Mixed into a result whose tests decide at the ``alpha`` its analysis was given
    (the dataclass field ``decision_alpha``)."""

    decision_alpha: float | None

    @property
    def alpha(self) -> float:
        """The decision threshold: the ``alpha`` the analysis was given, else
        :data:`~medjudge._validation.DEFAULT_ALPHA` (0.05; never ``1 - confidence_level``)."""
        return DEFAULT_ALPHA if self.decision_alpha is None else float(self.decision_alpha)


class FrameResult(Result):
    """A result whose main output used to be a bare DataFrame (``frame``).

    Column access, ``len``, iteration and the DataFrame attributes (``columns``, ``loc`` …)
    go to ``frame``, so callers written for the DataFrame keep working; ``.plot`` is the
    contract's.
    """

    frame: pd.DataFrame

    def __getitem__(self, key: Any) -> Any:
        return self.frame[key]

    def __len__(self) -> int:
        return len(self.frame)

    def __iter__(self) -> Any:
        return iter(self.frame)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "frame":
            raise AttributeError(name)
        return getattr(self.frame, name)
