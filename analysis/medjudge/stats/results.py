"""Result objects shared by every estimator and test.

Every estimate is an :class:`Estimate` (point value, standard error, confidence interval with
its method and level, the sample size it rests on and what was excluded); every hypothesis test
is a :class:`TestResult` (statistic, p-value, method and the counts it rests on). Both are
frozen dataclasses with ``to_dict()`` and ``to_frame()`` so reports and the CLI present exactly
what the library computed.
"""

from __future__ import annotations

import html
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

#: rows shown by a result's notebook view (``_repr_html_``); ``to_frame()`` holds them all
HTML_ROWS = 20


def _fmt(v: Any) -> str:
    """A number for a one-line summary: 4 significant digits, NaN as ``nan``."""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.4g}"
    return str(v)


class Presentable:
    """How every medjudge result presents itself (mixed into the result classes).

    ``repr(result)`` is one short line; in a notebook ``_repr_html_`` shows that line over the
    first :data:`HTML_ROWS` rows of ``to_frame()`` (the result's main tidy table, whose interval
    columns are ``ci_low``, ``ci_high`` and ``level``); ``to_dict()`` is plain JSON.
    """

    def to_frame(self) -> pd.DataFrame:
        """The result's main tidy table (``table()`` with its default name)."""
        return self.table()  # type: ignore[attr-defined]

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        shown = frame.head(HTML_ROWS).to_html(
            index=False, na_rep="—", float_format=lambda v: f"{v:.4g}", border=0
        )
        more = (
            f"<p>{len(frame) - HTML_ROWS} more rows: <code>.to_frame()</code></p>"
            if len(frame) > HTML_ROWS
            else ""
        )
        return f"<div><p><b>{html.escape(repr(self))}</b></p>{shown}{more}</div>"


def _clean(v: Any) -> Any:
    """Convert numpy scalars to plain Python for JSON output."""
    if hasattr(v, "item") and not isinstance(v, (list, dict, str)):
        try:
            return v.item()
        except (ValueError, AttributeError):
            return v
    return v


@dataclass(frozen=True, repr=False)
class Estimate(Presentable):
    """A point estimate with its uncertainty.

    Attributes
    ----------
    name : what is estimated, e.g. ``"cohen_kappa"`` or ``"accuracy"``.
    estimate : the point estimate computed on the full data.
    se : standard error (NaN when not available).
    ci_low, ci_high : confidence limits (NaN when not available).
    ci_method : e.g. ``"wilson"``, ``"bootstrap-bca"``, ``"analytic (Gwet 2008)"``.
    level : confidence level, e.g. 0.95.
    n : number of units (items, or clusters when stated in ``extra``) the estimate rests on.
    excluded : counts of what was left out and why, e.g. ``{"items_without_gold": 3}``.
    extra : further named quantities (pa, pe, discordant counts, B, seed …).

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> e = mj.Estimate('accuracy', 0.8, se=0.04, ci_low=0.72, ci_high=0.86, ci_method='wilson', n=100)
    >>> e.estimate, e.ci_low, e.ci_high
    (0.8, 0.72, 0.86)
    """

    name: str
    estimate: float
    se: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    ci_method: str = ""
    level: float = 0.95
    n: int = 0
    excluded: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def confidence_interval(self) -> tuple[float, float]:
        """Return ``(low, high)``."""
        return (self.ci_low, self.ci_high)

    def __repr__(self) -> str:
        ci = (
            f", {100 * self.level:g}% CI [{_fmt(self.ci_low)}, {_fmt(self.ci_high)}] ({self.ci_method})"
            if not (math.isnan(self.ci_low) and math.isnan(self.ci_high))
            else ""
        )
        return f"Estimate({self.name} = {_fmt(self.estimate)}{ci}, n={self.n})"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["extra"] = {k: _clean(v) for k, v in self.extra.items()}
        return {k: _clean(v) for k, v in d.items()}

    def to_frame(self) -> pd.DataFrame:
        d = self.to_dict()
        flat = {k: v for k, v in d.items() if k not in ("excluded", "extra")}
        for k, v in d["excluded"].items():
            flat[f"excluded_{k}"] = v
        for k, v in d["extra"].items():
            if isinstance(v, (int, float, str, bool)) or v is None:
                flat[k] = v
        return pd.DataFrame([flat])


@dataclass(frozen=True, repr=False)
class TestResult(Presentable):
    """A hypothesis test: statistic, p-value, method and the counts it rests on.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> r = mj.TestResult('mcnemar', statistic=4.2, pvalue=0.04, method='McNemar mid-p', n=100)
    >>> r.pvalue < 0.05
    True
    """

    __test__ = False  # not a pytest test class

    name: str
    statistic: float
    pvalue: float
    method: str
    df: float = math.nan
    n: int = 0
    counts: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"TestResult({self.name}: statistic={_fmt(self.statistic)}, "
            f"p={_fmt(self.pvalue)}, {self.method}, n={self.n})"
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["counts"] = {k: _clean(v) for k, v in self.counts.items()}
        d["extra"] = {k: _clean(v) for k, v in self.extra.items()}
        return {k: _clean(v) for k, v in d.items()}

    def to_frame(self) -> pd.DataFrame:
        d = self.to_dict()
        flat = {k: v for k, v in d.items() if k not in ("counts", "extra")}
        for k, v in {**d["counts"], **d["extra"]}.items():
            if isinstance(v, (int, float, str, bool)) or v is None:
                flat[k] = v
        return pd.DataFrame([flat])


def estimates_to_frame(
    results: list[Estimate], keys: list[dict[str, Any]] | None = None
) -> pd.DataFrame:
    """Stack estimates into one tidy table; ``keys`` adds identifying columns per row."""
    frames = []
    for i, r in enumerate(results):
        f = r.to_frame()
        if keys is not None:
            for k, v in reversed(list(keys[i].items())):
                f.insert(0, k, v)
        frames.append(f)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
