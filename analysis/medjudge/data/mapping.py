"""The one schema of a table mapping (TOML file or command-line options), checked by pydantic.

A mapping says which columns of a table hold the item, the rater, the verdict and so on (see
``data/FORMAT.md`` and :mod:`medjudge.data.tables`). Every mapping, from a file or from CLI
options, passes through :func:`validate_mapping` once, so a mistyped value is refused with one
line naming the file and the key and showing the expected form — never silently reinterpreted.
The classic trap this closes: TOML ``invalid = "NA"`` is a *string*; iterating it gives the
characters ``N`` and ``A``, which silently made every ``A`` verdict invalid. Lists of values
(``invalid``, ``[scale] categories``) must be TOML arrays; fields naming columns (``item``,
``rater``, ``attributes``, ``join``) accept one name as a string, since ``"grp"`` can only mean
the column ``grp``.

Examples
--------
>>> from medjudge.data.mapping import validate_mapping
>>> validate_mapping({"role": "judge", "invalid": ["NA"]}, "m.toml")["invalid"]
['NA']
>>> try:
...     validate_mapping({"role": "judge", "invalid": "NA"}, "m.toml")
... except ValueError as e:
...     print(e)
m.toml: mapping key 'invalid' must be a list of strings, got 'NA' (write invalid = ["NA"])
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from .errors import InputError
from .mapping_keys import MappingKeys as TableMapping

Label = StrictStr | StrictInt | StrictFloat
Columns = StrictStr | list[StrictStr]
#: one column or a non-empty list of columns (an item or rater id needs at least one)
SomeColumns = StrictStr | Annotated[list[StrictStr], Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ScaleSpec(_Strict):
    """``[scale]``: measurement level (``kind``; ``level`` is its former name, still read),
    categories in order, bounds and the tie category."""

    kind: Literal["nominal", "ordinal", "interval", "ratio"] | None = None
    level: Literal["nominal", "ordinal", "interval", "ratio"] | None = None

    @model_validator(mode="after")
    def _kind(self) -> ScaleSpec:
        """``kind`` from ``kind`` or its former name ``level`` (both given: they must agree)."""
        if self.kind and self.level and self.kind != self.level:
            raise ValueError(
                f"kind = {self.kind!r} and level = {self.level!r} disagree (write kind = only; "
                "level = is its former name)"
            )
        self.kind = self.kind or self.level or "nominal"
        return self

    categories: list[Label] = Field(default_factory=list)
    low: StrictInt | StrictFloat | None = None
    high: StrictInt | StrictFloat | None = None
    tie: Label | None = None


class DesignSpec(_Strict):
    """``[design]`` / ``[designs.DIMENSION]``: how the answers were shown (data/FORMAT.md).

    ``presentation``: ``"pairwise"`` (a choice between two shown answers; ``first``,
    ``second`` and optionally ``tie`` name its categories) or ``"single"`` (labels without
    positions); ``accuracy_order``: the presentation order whose verdicts accuracy uses when a
    judge saw the same items in both orders.
    """

    presentation: Literal["pairwise", "single"] | None = None
    first: Label | None = None
    second: Label | None = None
    tie: Label | None = None
    accuracy_order: Literal["AB", "BA"] | None = None


class RaterSpec(_Strict):
    """``[raters.COLUMN]`` in a wide layout."""

    role: Literal["expert", "judge"] = "expert"
    name: StrictStr | None = None
    raw: StrictStr | None = None
    confidence: StrictStr | None = None


#: the type of every mapping key; the keys themselves and their defaults are the fields of
#: :class:`medjudge.data.tables.TableMapping` (declared once, there), checked at import
TYPES: dict[str, Any] = {
    "format": Literal["table", "inspect", "lm_eval", "hf"],
    "split": StrictStr | None,
    "layout": Literal["long", "wide"],
    "item": SomeColumns,
    "rater": SomeColumns,
    "role": Literal["expert", "judge"] | None,
    "role_column": StrictStr | None,
    "value": StrictStr,
    "dimension": StrictStr,
    "dimension_column": StrictStr | None,
    "order": StrictStr | None,
    "order_map": dict[str, StrictStr],
    "run": StrictStr | None,
    "raw": StrictStr | None,
    "confidence": StrictStr | None,
    "gold": StrictStr | None,
    "attributes": Columns,
    "raters": dict[str, RaterSpec],
    "recode": dict[str, Label],
    "invalid": list[Label],
    "scale": ScaleSpec | None,
    "scales": dict[str, ScaleSpec],
    "design": DesignSpec | None,
    "designs": dict[str, DesignSpec],
    "cluster": StrictStr | None,
    "role_map": dict[str, Literal["expert", "judge"]],
    "exchangeable": list[Literal["expert", "judge"]],
    "role_names": dict[Literal["expert", "judge"], StrictStr],
    "join": Columns,
    "models": list[StrictStr],
    "judge_families": dict[str, StrictStr],
    "model_families": dict[str, StrictStr],
}


def _spec_fields() -> dict[str, Any]:
    """(type, default) of every key: the names and defaults of ``TableMapping``'s fields."""
    from dataclasses import MISSING, fields

    keys = [f for f in fields(TableMapping) if f.name not in TableMapping.NOT_KEYS]
    names = {f.name for f in keys}
    if names != set(TYPES):  # one list of keys: a key added on one side only is a bug
        raise TypeError(f"mapping keys without a type or field: {sorted(names ^ set(TYPES))}")
    out = {}
    for f in keys:
        default = (
            Field(default_factory=f.default_factory)
            if f.default_factory is not MISSING
            else f.default
        )
        out[f.name] = (TYPES[f.name], default)
    return out


class _MappingBase(_Strict):
    @field_validator("models", check_fields=False)
    @classmethod
    def _two_models(cls, v: list[str]) -> list[str]:
        if v and len(v) != 2:
            raise ValueError("must list the two columns naming the answer models")
        return v


#: every key a mapping may have (see the module docstring of :mod:`medjudge.data.tables`)
MappingSpec = create_model("MappingSpec", __base__=_MappingBase, **_spec_fields())


#: the expected form of each key, shown when a value has the wrong type
_EXAMPLES: dict[str, str] = {
    "invalid": 'write invalid = ["NA"]',
    "categories": 'write categories = ["A", "B", "tie"]',
    "scale": 'write [scale] then kind = "nominal" and categories = [...] on their own lines',
    "item": 'write item = "id" or item = ["subset", "id"]',
    "rater": 'write rater = "annotator" or rater = ["evaluator", "strategy"]',
    "attributes": 'write attributes = ["organ", "department"]',
    "join": 'write join = ["judges.json"]',
    "models": 'write models = ["model_1", "model_2"]',
    "raters": 'write [raters.COLUMN] then role = "expert" or "judge"',
    "recode": 'write [recode] then "0" = "tie"',
    "layout": 'write layout = "long" or "wide"',
    "format": 'write format = "table", "inspect", "lm_eval" or "hf"',
    "scales": 'write [scales.DIMENSION] then kind = "ordinal" and categories = [...]',
    "design": 'write [design] then presentation = "pairwise", first = "A", second = "B"',
    "designs": 'write [designs.DIMENSION] then presentation = "pairwise" or "single"',
    "presentation": 'write presentation = "pairwise" or "single"',
    "accuracy_order": 'write accuracy_order = "AB" or "BA"',
    "exchangeable": 'write exchangeable = ["expert"]',
    "role_map": 'write [role_map] then crowd = "expert" and model = "judge"',
    "role_names": 'write [role_names] then expert = "crowd workers"',
    "cluster": 'write cluster = "image_id" (an item attribute)',
    "role": 'write role = "judge" or "expert"',
    "level": 'write kind = "nominal", "ordinal", "interval" or "ratio" (level = is its former name)',
    "kind": 'write kind = "nominal", "ordinal", "interval" or "ratio"',
}


def _describe(err: dict[str, Any]) -> tuple[str, str]:
    """(key path, message) for the first pydantic error, in the words of a mapping file."""
    loc = [str(p) for p in err["loc"] if not str(p).startswith(("function-", "str", "int"))]
    # union branches add their type name to the location; keep the user's keys only
    loc = [p for p in loc if p not in ("list[str]", "float", "list[union[str,int,float]]")]
    key = ".".join(loc) or "mapping"
    kind = err["type"]
    got = err.get("input")
    if kind == "extra_forbidden":
        return key, "is not a known mapping key"
    if kind == "literal_error":
        return key, f"must be {err['ctx']['expected']}, got {got!r}"
    if kind in ("list_type",):
        return key, f"must be a list of strings, got {got!r}"
    if kind == "too_short":
        return key, f"must name at least one column, got {got!r}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return key, f"must be a table, got {got!r}"
    if kind.startswith(("string_", "int_", "float_")):
        return key, f"must be text, got {got!r}"
    return key, f"{err['msg'].removeprefix('Value error, ')}, got {got!r}"


def validate_mapping(data: dict[str, Any], source: str = "mapping") -> dict[str, Any]:
    """Check a mapping against :class:`MappingSpec`; return it with lists normalised.

    Parameters
    ----------
    data : the parsed TOML (or the dictionary built from CLI options).
    source : where it came from (a file path or ``"command line"``), named in errors.

    Returns
    -------
    dict with every key present; ``item``, ``rater``, ``attributes`` and ``join`` as lists;
    labels (``invalid``, ``recode`` values, ``[scale]`` categories and tie) as text.

    Raises
    ------
    InputError
        One line: the source, the key, what it must be and what was given.
    """
    if not isinstance(data, dict):
        raise InputError("a mapping must be a TOML table of keys", file=source)
    try:
        spec = MappingSpec.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        key, msg = _describe(err)
        leaf = key.split(".")[-1] if key else key
        hint = _EXAMPLES.get(leaf) or _EXAMPLES.get(key.split(".")[0])
        if err["type"] == "extra_forbidden":
            hint = f"known keys: {sorted(MappingSpec.model_fields)}" if "." not in key else hint
        got = err.get("input")
        if err["type"] == "list_type" and isinstance(got, str) and key in _EXAMPLES:
            # the user's own value as a TOML array: pasting the hint gives a valid file
            hint = f"write {key} = {json.dumps([got], ensure_ascii=False)}"
        if err["type"] == "extra_forbidden":
            raise InputError(f"unknown mapping key {key!r}", file=source, hint=hint) from None
        if source == "command line":  # the same schema checks the table options
            raise InputError(f"option --{key.replace('_', '-')} {msg}", hint=hint) from None
        raise InputError(f"mapping key {key!r} {msg}", file=source, hint=hint) from None
    out = spec.model_dump()
    for k in ("value", "role_column", "dimension_column", "order", "run", "raw", "gold",
              "confidence", "cluster", "dimension", "split"):  # fmt: skip
        if out.get(k) == "":
            where = (
                f"option --{k.replace('_', '-')}"
                if source == "command line"
                else f"mapping key {k!r}"
            )
            raise InputError(
                f"{where} must name a column, got ''",
                file=None if source == "command line" else source,
            )
    for k in ("item", "rater", "attributes", "join"):
        if isinstance(out[k], str):
            out[k] = [out[k]]
        if "" in out[k]:
            where = f"option --{k}" if source == "command line" else f"mapping key {k!r}"
            raise InputError(
                f"{where} must name columns (or files), got an empty name",
                file=None if source == "command line" else source,
            )
    out["invalid"] = [_text(v) for v in out["invalid"]]
    out["recode"] = {str(k): _text(v) for k, v in out["recode"].items()}
    for s in [out["scale"], *out["scales"].values()]:
        if s is not None:
            s["categories"] = [_text(c) for c in s["categories"]]
            s["tie"] = None if s["tie"] is None else _text(s["tie"])
    for name, s in [("design", out["design"]), *out["designs"].items()]:
        if s is None:
            continue
        for k in ("first", "second", "tie"):
            s[k] = None if s[k] is None else _text(s[k])
        if s["presentation"] == "pairwise" and (s["first"] is None or s["second"] is None):
            where = "[design]" if name == "design" else f"[designs.{name}]"
            raise InputError(
                f'{where} presentation = "pairwise" needs first and second (the categories '
                "meaning the first and the second answer)",
                file=source,
                hint='write first = "A" and second = "B" (and tie = "tie" if there is one)',
            )
    out["raters"] = {
        k: {a: b for a, b in v.items() if b is not None} for k, v in out["raters"].items()
    }
    return out


def _text(v: object) -> str:
    """A label as the table reader sees it (``1.0`` → ``"1"``, as cells are read as text)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
