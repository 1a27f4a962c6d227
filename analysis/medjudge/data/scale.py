"""Scales: what a rating value means, and therefore which coefficient level applies.

Every estimator takes its measurement level from here, never from a guess (the krippendorff
package defaults to *interval*, a footgun for categorical verdicts). Categorical values are
encoded as float codes ``0..K-1`` in the declared category order; interval/ratio values are
kept as floats. Distances for weighted coefficients use the category *values* where they are
numeric (see ``numeric_values``), not their positions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True, init=False)
class Scale:
    """Measurement scale of one dimension.

    Parameters
    ----------
    kind : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        The measurement level: it decides which coefficients and weights apply. (``level=`` is
        its former name: accepted with a DeprecationWarning; ``scale.level`` still reads it.)
    categories : sequence of str, default ()
        For nominal/ordinal scales (required there), the allowed values in order (ordinal:
        low→high), kept as text. A category nobody used still counts (chance agreement,
        weights). Duplicates are an error.
    low, high : float or None, default None
        Optional bounds for interval/ratio scores (values outside are errors).
    tie : str or None, default None
        The category meaning "no preference", if the scale has one (must be a category).

    References
    ----------
    .. [1] Stevens, S. S. (1946). On the theory of scales of measurement. *Science*,
       103(2684), 677-680 (the four measurement levels).
    .. [2] medjudge's data model: how a scale is declared for a dimension (``data/FORMAT.md``
       in the repository).

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> s = mj.Scale('ordinal', ('low', 'mid', 'high'))
    >>> s.is_categorical, s.contains('mid'), s.contains('max')
    (True, True, False)
    """

    kind: Level = "nominal"
    categories: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    tie: str | None = None
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __init__(
        self,
        kind: Level = "nominal",
        categories: Sequence[object] = (),
        low: float | None = None,
        high: float | None = None,
        tie: str | None = None,
        *,
        level: Level | None = None,
    ) -> None:
        if level is not None:
            import warnings

            warnings.warn(
                "Scale(level=...) is deprecated; the measurement level is Scale(kind=...)",
                DeprecationWarning,
                stacklevel=2,
            )
            kind = level
        for name, value in (("kind", kind), ("categories", categories), ("low", low),
                            ("high", high), ("tie", tie)):  # fmt: skip
            object.__setattr__(self, name, value)
        self.__post_init__()

    @property
    def level(self) -> str:
        """The measurement level under its former name (read :attr:`kind`)."""
        return self.kind

    def __post_init__(self) -> None:
        if self.kind not in LEVELS:
            raise ValueError(f"unknown measurement level {self.kind!r}; use one of {LEVELS}")
        cats = tuple(str(c) for c in self.categories)
        object.__setattr__(self, "categories", cats)
        if self.is_categorical and not cats:
            raise ValueError(f"a {self.kind} scale needs its categories")
        if len(set(cats)) != len(cats):
            raise ValueError(f"duplicate categories in {cats}")
        if self.tie is not None and self.tie not in cats:
            raise ValueError(f"tie category {self.tie!r} is not one of {cats}")
        object.__setattr__(self, "_index", {c: i for i, c in enumerate(cats)})

    @property
    def is_categorical(self) -> bool:
        return self.kind in ("nominal", "ordinal")

    def contains(self, value: object) -> bool:
        if self.is_categorical:
            return str(value) in self._index
        try:
            v = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        if not np.isfinite(v):
            return False
        return (self.low is None or v >= self.low) and (self.high is None or v <= self.high)

    def encode(self, values: Iterable[object]) -> np.ndarray:
        """Float codes: category index (categorical) or the value itself; NaN for missing."""
        if self.is_categorical:
            # fast path: labels given as text (and None), one dict lookup each; anything
            # else (numbers, NaN, unknown labels) takes the general loop below
            vals = values if isinstance(values, (list, tuple, np.ndarray)) else list(values)
            lookup: dict[object, float] = {c: float(i) for c, i in self._index.items()}
            lookup[None] = np.nan
            try:
                return np.fromiter(map(lookup.__getitem__, vals), dtype=float, count=len(vals))
            except (KeyError, TypeError):
                values = vals
        out = []
        for v in values:
            if v is None or (isinstance(v, float) and np.isnan(v)):
                out.append(np.nan)
            elif self.is_categorical:
                out.append(float(self._index[str(v)]))
            else:
                out.append(float(v))  # type: ignore[arg-type]
        return np.asarray(out, dtype=float)

    def decode(self, codes: Sequence[float]) -> list[str | float | None]:
        if not self.is_categorical:
            return [None if np.isnan(c) else float(c) for c in codes]
        return [None if np.isnan(c) else self.categories[int(c)] for c in codes]

    def numeric_values(self) -> np.ndarray:
        """Numeric value of each category for distance weights (positions if not numeric)."""
        try:
            return np.array([float(c) for c in self.categories])
        except ValueError:
            return np.arange(len(self.categories), dtype=float)

    def to_dict(self) -> dict[str, object]:
        return {
            "level": self.kind,  # the JSON key of the outputs (the mapping key is kind =)
            "categories": list(self.categories),
            "low": self.low,
            "high": self.high,
            "tie": self.tie,
        }


# The Med-RewardBench scale: every dimension is a forced A/B choice (no tie label).
MEDREWARDBENCH_DIMENSIONS: tuple[str, ...] = (
    "accuracy",
    "relevance",
    "comprehensiveness",
    "creativity",
    "responsiveness",
    "overall",
)
PAIRWISE_AB = Scale("nominal", ("A", "B"))
PAIRWISE_AB_TIE = Scale("nominal", ("A", "B", "tie"), tie="tie")
