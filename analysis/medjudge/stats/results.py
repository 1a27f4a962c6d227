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

    Parameters
    ----------
    name : str
        What is estimated, e.g. ``"cohen_kappa"`` or ``"accuracy"``.
    estimate : float
        The point estimate computed on the full data.
    se : float, default NaN
        Standard error (NaN when not available).
    ci_low, ci_high : float, default NaN
        Confidence limits (NaN when not available).
    ci_method : str, default ""
        How the interval was computed, e.g. ``"wilson"``, ``"bootstrap-bca"``,
        ``"analytic (Gwet 2008)"``.
    level : float, default 0.95
        Confidence level (coverage) of ``[ci_low, ci_high]``.
    n : int, default 0
        Number of units (items, or clusters when stated in ``extra``) the estimate rests on.
    excluded : dict of str to int, default {}
        Counts of what was left out and why, e.g. ``{"items_without_gold": 3}``.
    extra : dict of str to object, default {}
        Further named quantities (pa, pe, discordant counts, B, seed …).

    References
    ----------
    The fields follow medjudge's result vocabulary (``estimate, se, ci_low, ci_high, level,
    ci_method, n``), written once in the repository's ``docs/api.md``.

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

    Parameters
    ----------
    name : str
        Which test, e.g. ``"mcnemar"``.
    statistic : float
        The test statistic (its meaning is given by ``method``).
    pvalue : float
        The p-value of the test.
    method : str
        How the p-value was computed, e.g. ``"McNemar mid-p"`` or ``"exact binomial"``.
    df : float, default NaN
        Degrees of freedom, for tests with a reference chi-square or t distribution.
    n : int, default 0
        Number of units (items or clusters) the test rests on.
    counts : dict of str to object, default {}
        The counts behind the statistic, e.g. the discordant pairs ``{"b": 12, "c": 4}``.
    extra : dict of str to object, default {}
        Further named quantities (resamples, seed, alternative …).

    References
    ----------
    The fields follow medjudge's result vocabulary (``statistic, pvalue, method, n``), written
    once in the repository's ``docs/api.md``.

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
