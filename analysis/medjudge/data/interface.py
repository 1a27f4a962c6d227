"""The parts of a study that the data model's helper modules read, and the values they return.

:class:`~medjudge.data.model.Study` builds, validates and caches; the rules it delegates to
(:mod:`~medjudge.data.gold`, :mod:`~medjudge.data.outcomes`, :mod:`~medjudge.data.design`,
:mod:`~medjudge.data.accounting`) read a study through :class:`StudyLike` — the attributes and
views listed here, nothing else — so they do not depend on the module that defines ``Study``
(imports go one way: ``model`` uses them, they use this module).

* :class:`RatingMatrix` — dense ``items × raters`` codes of one dimension, with its scale.
* :class:`Gold` — a derived gold label per item and the record of how it was derived.
* :class:`StudyLike` — the study as its helper modules see it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd

from .scale import Scale
from .views import DimensionView

__all__ = ["Gold", "GoldMethod", "RatingMatrix", "StudyLike"]

GoldMethod = Literal["auto", "majority", "plurality", "mean", "reference", "supplied"]


@dataclass(frozen=True)
class RatingMatrix:
    """Dense ``items × raters`` codes for one dimension (NaN = missing)."""

    values: np.ndarray
    items: list[str]
    raters: list[str]
    dimension: str
    scale: Scale

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            self.values, index=pd.Index(self.items, name="item"), columns=self.raters
        )


@dataclass(frozen=True)
class Gold:
    """A derived gold label per item for one dimension (NaN = no gold), and how it was made."""

    codes: np.ndarray
    items: list[str]
    dimension: str
    method: str
    rule: str
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # shared: Study.gold caches it, so nobody may change the codes in place
        codes = np.asarray(self.codes, dtype=float)
        codes.flags.writeable = False
        object.__setattr__(self, "codes", codes)

    @property
    def n_with_gold(self) -> int:
        return int(np.isfinite(self.codes).sum())


class StudyLike(Protocol):
    """What :mod:`~medjudge.data.gold`, :mod:`~medjudge.data.outcomes`,
    :mod:`~medjudge.data.design` and :mod:`~medjudge.data.accounting` read from a study
    (:class:`medjudge.data.model.Study` is the implementation)."""

    ratings: pd.DataFrame
    items: pd.DataFrame
    scales: dict[str, Scale]
    gold_table: pd.DataFrame | None
    sources: list[Path]
    name: str
    notes: list[str]
    load_counts: dict[str, int]
    cluster: str | None
    exchangeable: tuple[str, ...]
    role_names: dict[str, str]

    @property
    def dimensions(self) -> list[str]: ...
    @property
    def judges(self) -> list[str]: ...
    @property
    def experts(self) -> list[str]: ...
    @property
    def item_ids(self) -> list[str]: ...
    @property
    def orders(self) -> list[str]: ...
    def judge_orders(self) -> list[str]: ...

    #: ``matrix(dimension, *, role=, raters=, order=, run=, items=)``, as :meth:`Study.matrix`
    matrix: Callable[..., RatingMatrix]

    def gold(
        self, dimension: str, method: GoldMethod = "auto", *, reference: str | None = None
    ) -> Gold: ...
    def _cached(self, key: object, compute: Callable[[], Any]) -> Any: ...
    def _dimension_view(self, dimension: str) -> DimensionView: ...
    def _status_matrix(
        self, dimension: str, judges: list[str], order: str | None
    ) -> np.ndarray: ...
