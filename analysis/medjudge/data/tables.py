"""Generic tables (CSV/TSV, JSONL, JSON arrays, Parquet) in long or wide layout.

A :class:`TableMapping` says which columns hold what; it comes from a small TOML file
(``data/mappings/*.toml`` documents the shared PandaLM and LLMBar files) or from CLI options.

Long layout — one row per verdict::

    layout = "long"
    item = ["subset", "item_idx"]      # one column, or several joined with ":"
    rater = ["evaluator", "strategy"]  # likewise, joined with "/"
    role = "judge"                     # a constant, or role_column = "role"
    value = "winner"
    dimension = "preference"           # a constant, or dimension_column = "criterion"
    order = "order"                    # optional column; [order_map] recodes its values
    run = "run"                        # optional column
    gold = "gold_label"                # optional column with the supplied gold label
    attributes = ["subset"]            # item attributes kept for breakdowns

Wide layout — one row per item, one column per rater::

    layout = "wide"
    item = "idx"
    join = ["judges.json"]             # optional extra files joined on the item column
    models = ["model_1", "model_2"]    # optional: columns naming each answer's model (pairs)
    [judge_families]                   # optional: each judge's model family (self-preference)
    "pandalm-7b" = "llama-7b"
    [model_families]                   # optional: answer model -> family (default: its name)
    [raters.annotator1]
    role = "expert"
    [raters.gpt_result]
    role = "judge"
    name = "gpt-3.5-turbo"

Values: ``[recode]`` maps cell text to a category (``"0" = "tie"``); cells listed in
``invalid = [...]`` become verdicts with status ``invalid`` (kept and counted, never dropped);
empty cells are *missing*: no row for an expert in wide layout (not rated), status ``missing``
for a judge, status ``invalid`` for a long-layout row that exists without a value. Any other
value outside ``[scale]`` is an error naming file, line and column.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError
from .io import LINE
from .mapping_keys import MappingKeys
from .medrewardbench import is_medrewardbench, load_medrewardbench
from .model import Study
from .scale import Scale
from .table_rows import _joined, _require, long_ratings, read_joined, wide_ratings


@dataclass
class TableMapping(MappingKeys):
    """How to read a table: the one list of mapping keys (:class:`MappingKeys`, with their
    defaults), read from a mapping file by :meth:`from_dict`.

    Every field but ``source`` is a key of a mapping file (or a table option of the command
    line); :data:`medjudge.data.mapping.TYPES` gives each key's type and
    :class:`medjudge.data.mapping.MappingSpec`, the schema every mapping is checked against,
    is built from these fields.
    """

    @classmethod
    def from_dict(cls, d: dict[str, Any], source: str = "mapping") -> TableMapping:
        """Build a mapping from a parsed TOML table (checked by :mod:`medjudge.data.mapping`)."""
        from .mapping import validate_mapping  # pydantic: imported only for mappings

        d = validate_mapping(d, source)

        def scale(s: dict[str, Any], where: str) -> Scale:
            try:  # kind: the mapping's kind = or its former name level = (mapping.ScaleSpec)
                return Scale(s["kind"], tuple(s["categories"]), s["low"], s["high"], s["tie"])
            except ValueError as e:
                raise InputError(f"bad [{where}]: {e}", file=source) from None

        if d["scale"] is not None:
            d["scale"] = scale(d["scale"], "scale")
        d["scales"] = {k: scale(v, f"scales.{k}") for k, v in d["scales"].items()}
        m = cls(**d, source=source)
        if m.layout not in ("long", "wide"):
            raise InputError(f"layout must be 'long' or 'wide', not {m.layout!r}", file=source)
        if m.layout == "wide" and not m.raters:
            raise InputError(
                "a wide layout needs a [raters] table naming the rater columns", file=source
            )
        if m.layout == "long" and not (m.role or m.role_column):
            raise InputError(
                "a long layout needs role = 'judge'|'expert' or role_column", file=source
            )
        return m

    @classmethod
    def from_toml(cls, path: str | Path) -> TableMapping:
        path = Path(path)
        if not path.exists():
            raise InputError("mapping file not found", file=path)
        if path.is_dir():
            raise InputError("is a directory; --mapping needs a TOML file", file=path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
        except tomllib.TOMLDecodeError as e:
            raise InputError(f"malformed TOML ({e})", file=path) from None
        except RecursionError:
            raise InputError("TOML nested too deeply", file=path) from None
        except UnicodeDecodeError as e:
            raise InputError(
                f"not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start})", file=path
            ) from None
        return cls.from_dict(data, source=str(path))


def load_table(path: str | Path, mapping: TableMapping) -> Study:
    """Load a generic verdict/label table into a :class:`Study` (see module docstring)."""
    path = Path(path)
    if path.is_dir() and mapping.format not in ("hf", "lm_eval"):
        raise InputError(
            "is a directory; a table mapping needs a file",
            file=path,
            hint='a Hugging Face dataset folder needs format = "hf" in the mapping',
        )
    df, sources = read_joined(path, mapping)
    counts: dict[str, int] = {}
    if mapping.layout == "long":
        out = long_ratings(df, mapping, path)
    else:
        out = wide_ratings(df, mapping, path, counts)
    gold_cells = set(df[mapping.gold]) if mapping.gold and mapping.gold in df.columns else set()
    dims_scale = _dimension_scales(out, mapping, gold_cells)
    _check_values(out, dims_scale, mapping, path)
    counts["verdicts_invalid"] = int((out["status"] == "invalid").sum())
    counts["verdicts_missing"] = int((out["status"] == "missing").sum())
    item_col = _joined(df, mapping.item, ":")
    items = _item_attributes(df, item_col, mapping, path, counts)
    gold_table = _supplied_gold(df, item_col, path, mapping, dims_scale) if mapping.gold else None
    return Study(
        out.drop(columns=["_cell", "_column"]),
        items,
        dims_scale,
        gold_table=gold_table,
        sources=sources,
        name=path.stem,
        load_counts=counts,
        answer_models=tuple(mapping.models),
        judge_families=dict(mapping.judge_families),
        model_families=dict(mapping.model_families),
        cluster=mapping.cluster,
        exchangeable=tuple(mapping.exchangeable),
        role_names=dict(mapping.role_names),
        designs=declared_designs(mapping, list(dims_scale)),
    )


def _check_values(
    out: pd.DataFrame, dims_scale: dict[str, Scale], mapping: TableMapping, path: Path
) -> None:
    """Each rating's ``status`` and ``value`` from its cell: recoded, a listed invalid token
    (``invalid``), an empty cell (``missing``, data/FORMAT.md), else a label that must lie on
    its dimension's scale (refused at its file, line and column); numeric scales as floats."""
    cell = out["_cell"].astype(str)
    recoded = cell.map(lambda v: mapping.recode.get(v, v))
    is_invalid = cell.isin(mapping.invalid) | recoded.isin(mapping.invalid)
    is_empty = cell == ""
    out["status"] = np.where(is_invalid, "invalid", np.where(is_empty, "missing", "ok"))
    out["value"] = recoded.astype(object).where(~(is_invalid | is_empty), None)
    ok_rows = out["value"].notna().to_numpy()
    dim_of = out["dimension"].astype(str).to_numpy()
    for dim, scale in dims_scale.items():
        rows = ok_rows & (dim_of == dim)
        vals = out.loc[rows, "value"]
        inside = vals.map(scale.contains)
        if not inside.all():
            row = out.loc[vals.index[~inside.to_numpy()][0]]
            allowed = (
                list(scale.categories) if scale.is_categorical else f"[{scale.low}, {scale.high}]"
            )
            raise InputError(
                f"label {row['_cell']!r} is outside the declared scale of dimension {dim!r}",
                file=path,
                line=int(row["line"]),
                column=row["_column"],
                hint=f"allowed: {allowed}; list unparseable tokens under invalid = [...]",
            )
        if not scale.is_categorical:
            out.loc[rows, "value"] = vals.map(float)


def _item_attributes(
    df: pd.DataFrame, item_col: pd.Series, mapping: TableMapping, path: Path, counts: dict
) -> pd.DataFrame:
    """One row per item with its attributes, answer models and cluster (first row's values;
    a cluster that varies within an item is refused, other varying attributes counted)."""
    kept = list(dict.fromkeys(mapping.attributes + mapping.models + _listed(mapping.cluster)))
    if mapping.cluster:
        _require(df, [mapping.cluster], path, mapping)
    items = pd.DataFrame({"item": item_col})
    for a in kept:
        items[a] = df[a].to_numpy()
    if kept:
        varies = items.groupby("item")[kept].nunique()
        if mapping.cluster and (varies[mapping.cluster] > 1).any():
            bad = varies.index[(varies[mapping.cluster] > 1).to_numpy()][0]
            ln = int(df.loc[(item_col == bad).to_numpy(), LINE].iloc[0])
            raise cluster_varies(mapping.cluster, bad, path, ln)
        varying = varies.gt(1).any(axis=1)
        if varying.any():
            counts["items_with_varying_attributes"] = int(varying.sum())
    return items[~items["item"].duplicated()].reset_index(drop=True)


def declared_designs(mapping: TableMapping, dimensions: list[str]) -> dict[str, dict[str, Any]]:
    """The presentation design the mapping declares per dimension (``[designs.D]`` over
    ``[design]``; keys left unset in both are absent, so the data rule infers them)."""
    out: dict[str, dict[str, Any]] = {}
    for d in dimensions:
        spec = {k: v for k, v in (mapping.design or {}).items() if v is not None}
        spec.update({k: v for k, v in mapping.designs.get(d, {}).items() if v is not None})
        if spec:
            out[d] = spec
    return out


def cluster_varies(column: str, item: Any, file: Any, line: int | None = None) -> InputError:
    """The error for a cluster column with several values for one item (loader and engine)."""
    return InputError(
        f"cluster column {column!r} has several values for item {item!r}",
        file=file,
        line=line,
        column=column,
        hint="a cluster groups whole items (e.g. the image several questions ask about)",
    )


def _listed(column: str | None) -> list[str]:
    return [column] if column else []


def _dimension_scales(
    out: pd.DataFrame,
    mapping: TableMapping,
    gold_cells: set[str] = frozenset(),  # type: ignore[assignment]
) -> dict[str, Scale]:
    """Each dimension's scale (:func:`scales_of`) from the cells of the loaded table."""

    def labels(rest: list[str]) -> set[str]:
        cells = set(out.loc[out["dimension"].astype(str).isin(rest), "_cell"].astype(str))
        return cells | set(map(str, gold_cells))

    return scales_of(sorted(set(out["dimension"].astype(str))), mapping, labels)


def scales_of(
    dims: list[str], mapping: TableMapping, labels: Callable[[list[str]], Iterable[str]]
) -> dict[str, Scale]:
    """Each dimension's scale: ``[scales.NAME]``, else ``[scale]``, else nominal on the labels seen.

    The inferred scale (no ``[scale]``) takes the distinct recoded ``labels(rest)`` — the raw
    cells of the dimensions ``rest`` that have no scale of their own and of the gold column —
    minus empty cells and invalid tokens, sorted as text. The in-memory loader and the engine
    path (:func:`medjudge.engine.projection.dimension_scales`) both decide scales here.
    """
    stray = sorted(set(mapping.scales) - set(dims))
    if stray:
        raise InputError(
            f"[scales.{stray[0]}] names no dimension of the table",
            file=mapping.source,
            hint=f"dimensions: {dims[:12]}",
        )
    default = mapping.scale
    rest = [d for d in dims if d not in mapping.scales]
    if default is None and rest:
        cells = set(map(str, labels(rest)))
        cats = sorted({mapping.recode.get(v, v) for v in cells} - {""} - set(mapping.invalid))
        if not cats:
            raise InputError(
                "no labels to infer a scale from (every cell is empty or invalid)",
                file=mapping.source,
                hint='declare [scale] with kind = "nominal" and categories = [...]',
            )
        default = Scale("nominal", tuple(cats))
    return {d: mapping.scales.get(d, default) for d in dims}  # type: ignore[misc]


def _supplied_gold(
    df: pd.DataFrame,
    item_col: pd.Series,
    path: Path,
    mapping: TableMapping,
    dims_scale: dict[str, Scale],
) -> pd.DataFrame:
    """The gold column as a table item × dimension (one gold per item and dimension).

    With a ``dimension_column`` each (item, dimension) has its own gold; otherwise the item's gold
    applies to every dimension. Rows with an empty gold cell carry none; two different non-empty
    golds for one (item, dimension) are an error naming the line.
    """
    per_dim = mapping.dimension_column is not None
    g = pd.DataFrame(
        {
            "item": item_col.to_numpy(),
            "dimension": df[mapping.dimension_column].to_numpy() if per_dim else "",
            "value": df[mapping.gold].map(lambda v: mapping.recode.get(v, v)).to_numpy(),
            "line": df[LINE].to_numpy(),
        }
    )
    key = ["item", "dimension"]
    given = g[g["value"] != ""]
    conflict = given.groupby(key)["value"].nunique() > 1
    if conflict.any():
        item, dim = conflict[conflict].index[0]
        rows = given[(given["item"] == item) & (given["dimension"] == dim)]
        # the line of the first gold that differs from the item's first (the conflicting one)
        ln = int(rows.loc[rows["value"] != rows["value"].iloc[0], "line"].iloc[0])
        where = f"item {item!r}" + (f", dimension {dim!r}" if per_dim else "")
        raise InputError(
            f"{where} has conflicting gold labels", file=path, line=ln, column=mapping.gold
        )
    firsts = g.sort_values("value", ascending=False, kind="stable").drop_duplicates(key)
    if not per_dim:
        firsts = pd.concat([firsts.assign(dimension=d) for d in dims_scale], ignore_index=True)
    for dim, scale in dims_scale.items():
        sub = firsts[(firsts["dimension"] == dim) & (firsts["value"] != "")]
        bad = ~sub["value"].map(scale.contains)
        if bad.any():
            row = sub[bad.to_numpy()].iloc[0]
            raise InputError(
                f"gold label {row['value']!r} is outside the declared scale of dimension {dim!r}",
                file=path,
                line=int(row["line"]),
                column=mapping.gold,
            )
    firsts = firsts.assign(value=firsts["value"].where(firsts["value"] != "", None))
    if any(not s.is_categorical for s in dims_scale.values()):
        num = {d for d, s in dims_scale.items() if not s.is_categorical}
        m = firsts["dimension"].isin(num) & firsts["value"].notna()
        firsts.loc[m, "value"] = firsts.loc[m, "value"].map(float)
    return firsts[["item", "dimension", "value"]].reset_index(drop=True)


def load_any(
    path: str | Path, mapping: TableMapping | str | Path | None = None, *, broadcast: bool = False
) -> Study:
    """Load a Med-RewardBench bundle (a directory) or a table with a mapping.

    Parameters
    ----------
    path : str or pathlib.Path
        A Med-RewardBench bundle folder (recognised by its ``pair_gt_all/`` folder), or a
        table (CSV, JSONL, Parquet …), a Hugging Face dataset folder or lm-evaluation-harness
        output, read as ``mapping`` says.
    mapping : TableMapping, str, pathlib.Path or None, default None
        The column mapping of a table: a ``TableMapping`` or the path of its TOML file. Not
        needed (and ignored) for a Med-RewardBench bundle; required for everything else.
    broadcast : bool, default False
        Med-RewardBench bundles only: copy a judge's single overall verdict (``[[A]]``) to
        every dimension, flagged ``broadcast``; by default such a verdict counts as invalid.
        With a table it is an error.

    Returns
    -------
    Study
        The validated study: ratings, items, scales, supplied gold and load counts.

    Raises
    ------
    InputError
        The path does not exist (or is a broken link), a table has no mapping, ``broadcast``
        is asked for a table, or a row breaks the mapping or the scale (the message names
        the file, line and column).

    References
    ----------
    medjudge's data model and the accepted layouts and mappings are described in
    ``data/FORMAT.md`` in the repository (the mappings of the shipped public datasets are in
    ``data/mappings/``).

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, 12 judges, 3 experts
    >>> len(study.items), len(study.judges), len(study.experts)
    (60, 12, 3)
    >>> demo = mj.load(mj.datasets.demo_path())  # a Med-RewardBench bundle: no mapping
    >>> len(demo.items), len(demo.judges), len(demo.experts)
    (1026, 12, 3)
    """
    p = Path(path)
    if p.is_symlink() and not p.exists():
        raise InputError(
            f"is a broken symbolic link (its target {os.readlink(p)} does not exist)", file=p
        )
    if not p.exists():
        raise InputError("not found: the path does not exist", file=p)
    if p.is_dir() and is_medrewardbench(p):
        return load_medrewardbench(p, broadcast=broadcast)
    if broadcast:
        raise InputError(
            "--broadcast applies to Med-RewardBench bundles only (one verdict copied to every "
            "dimension), and this is not one",
            file=p,
            hint="drop --broadcast; a table's mapping says which dimension each value rates",
        )
    if p.is_dir():
        if mapping is None:
            raise InputError(
                "directory is not a Med-RewardBench bundle (no pair_gt_all/)",
                file=p,
                hint='a Hugging Face dataset folder needs --mapping with format = "hf"',
            )
    if mapping is None:
        raise InputError(
            "a table needs a column mapping",
            file=p,
            hint="pass --mapping FILE.toml or --item/--rater/--value",
        )
    if not isinstance(mapping, TableMapping):
        mapping = TableMapping.from_toml(mapping)
    return load_table(p, mapping)
