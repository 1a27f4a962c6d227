"""The keys of a mapping file and their defaults: one list, read by the table reader
(:class:`medjudge.data.tables.TableMapping`) and by the schema every mapping is checked
against (:class:`medjudge.data.mapping.MappingSpec`, built from these fields), so a key added
on one side only cannot be missed. A module of its own so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .scale import Scale


@dataclass
class MappingKeys:
    """Every key of a mapping file, with its default (``source`` says where it came from)."""

    #: fields that are not mapping keys
    NOT_KEYS: ClassVar[tuple[str, ...]] = ("source",)

    format: str = "table"
    split: str | None = None
    layout: str = "long"
    item: list[str] = field(default_factory=lambda: ["item"])
    rater: list[str] = field(default_factory=lambda: ["rater"])
    role: str | None = None
    role_column: str | None = None
    value: str = "value"
    dimension: str = "overall"
    dimension_column: str | None = None
    order: str | None = None
    order_map: dict[str, str] = field(default_factory=dict)
    run: str | None = None
    raw: str | None = None
    #: column of a judge's stated confidence (or probability) that its verdict is right, in [0, 1]
    confidence: str | None = None
    gold: str | None = None
    attributes: list[str] = field(default_factory=list)
    raters: dict[str, dict[str, str]] = field(default_factory=dict)
    recode: dict[str, str] = field(default_factory=dict)
    invalid: list[str] = field(default_factory=list)
    scale: Scale | None = None
    scales: dict[str, Scale] = field(default_factory=dict)
    design: dict[str, Any] | None = None
    designs: dict[str, dict[str, Any]] = field(default_factory=dict)
    cluster: str | None = None
    role_map: dict[str, str] = field(default_factory=dict)
    exchangeable: list[str] = field(default_factory=list)
    role_names: dict[str, str] = field(default_factory=dict)
    join: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    judge_families: dict[str, str] = field(default_factory=dict)
    model_families: dict[str, str] = field(default_factory=dict)
    source: str = "command line"
