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

from .confidence import confidences
from .errors import InputError
from .harness import read_source
from .io import LINE, line_numbers, read_table
from .mapping_keys import MappingKeys
from .model import Study
from .scale import Scale


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
            # ``kind`` is the key; ``level`` its former name, still read (docs/mapping)
            if s.get("kind") and s.get("level") and s["kind"] != s["level"]:
                raise InputError(
                    f"bad [{where}]: kind = {s['kind']!r} and level = {s['level']!r} disagree "
                    "(write kind = only; level = is its former name)",
                    file=source,
                )
            kind = s.get("kind") or s.get("level") or "nominal"
            try:
                return Scale(kind, tuple(s["categories"]), s["low"], s["high"], s["tie"])
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


def _require(df: pd.DataFrame, cols: list[str], path: Path, mapping: TableMapping) -> None:
    for c in cols:
        if c not in df.columns:
            raise InputError(
                f"missing required column {c!r}",
                file=path,
                line=1,
                column=c,
                hint=f"columns present: {[c for c in df.columns if c != LINE][:12]}; mapping: {mapping.source}",
            )


def _joined(df: pd.DataFrame, cols: list[str], sep: str) -> pd.Series:
    """One id from several columns, joined with ``sep``; in each part a backslash and ``sep``
    are escaped with a backslash, so different tuples never give the same id (``("a:1", "2")``
    is ``a\\:1:2``, ``("a", "1:2")`` is ``a:1\\:2``). One column is used as it is.

    >>> _joined(pd.DataFrame({"s": ["a:1", "a"], "i": ["2", "1:2"]}), ["s", "i"], ":").tolist()
    ['a\\\\:1:2', 'a:1\\\\:2']
    """
    if len(cols) == 1:
        return df[cols[0]].astype(str)

    def part(c: str) -> pd.Series:
        return (
            df[c]
            .astype(str)
            .str.replace("\\", "\\\\", regex=False)
            .str.replace(sep, "\\" + sep, regex=False)
        )

    s = part(cols[0])
    for c in cols[1:]:
        s = s + sep + part(c)
    return s


def _refuse_empty_ids(df: pd.DataFrame, cols: list[str], what: str, path: Path) -> None:
    """An empty item, rater or dimension id names nothing: refused at its file, line, column."""
    for c in cols:
        empty = (df[c].astype(str).str.strip() == "").to_numpy()
        if empty.any():
            raise InputError(
                f"empty {what} id",
                file=path,
                line=int(df[LINE].to_numpy()[empty.argmax()]),
                column=c,
                hint=f"every row needs its {what} id; fill it in or remove the row",
            )


def load_table(path: str | Path, mapping: TableMapping) -> Study:
    """Load a generic verdict/label table into a :class:`Study` (see module docstring)."""
    path = Path(path)
    if path.is_dir() and mapping.format not in ("hf", "lm_eval"):
        raise InputError(
            "is a directory; a table mapping needs a file",
            file=path,
            hint='a Hugging Face dataset folder needs format = "hf" in the mapping',
        )
    df, kind = read_source(path, mapping.format, mapping.split)
    lines = line_numbers(df, kind)
    df[LINE] = lines.to_numpy()
    sources = [path]
    if mapping.join:
        _require(df, mapping.item[:1], path, mapping)
        for extra in mapping.join:
            jp = (path.parent / extra) if not Path(extra).is_absolute() else Path(extra)
            jdf, _ = read_table(jp)
            _require(jdf, mapping.item[:1], jp, mapping)
            jdf = jdf.drop(
                columns=[c for c in jdf.columns if c in df.columns and c not in mapping.item[:1]]
            )
            df = df.merge(jdf, on=mapping.item[:1], how="left", validate="one_to_one")
            sources.append(jp)
    counts: dict[str, int] = {}

    if mapping.layout == "long":
        needed = mapping.item + mapping.rater + [mapping.value]
        needed += [
            c
            for c in (
                mapping.role_column,
                mapping.dimension_column,
                mapping.order,
                mapping.run,
                mapping.gold,
                mapping.raw,
                mapping.confidence,
            )
            if c
        ]
        _require(df, needed + mapping.attributes + mapping.models, path, mapping)
        _refuse_empty_ids(df, mapping.item, "item", path)
        _refuse_empty_ids(df, mapping.rater, "rater", path)
        if mapping.dimension_column:
            _refuse_empty_ids(df, [mapping.dimension_column], "dimension", path)
        elif not mapping.run:
            _refuse_rows_without_dimension(df, mapping, path)
        out = pd.DataFrame(
            {
                "item": _joined(df, mapping.item, ":"),
                "rater": _joined(df, mapping.rater, "/"),
                "role": df[mapping.role_column].map(lambda v: mapping.role_map.get(v, v))
                if mapping.role_column
                else mapping.role,
                "dimension": df[mapping.dimension_column]
                if mapping.dimension_column
                else mapping.dimension,
                "order": df[mapping.order].map(lambda v: mapping.order_map.get(v, v))
                if mapping.order
                else "",
                "run": df[mapping.run] if mapping.run else "1",
                "raw": df[mapping.raw] if mapping.raw else df[mapping.value],
                "source": str(path),
                "line": df[LINE],
                "_cell": df[mapping.value],
                "_column": mapping.value,
            }
        )
        if mapping.confidence:
            out["confidence"] = confidences(df, mapping.confidence, path)
    else:
        _require(
            df,
            mapping.item + list(mapping.raters) + mapping.attributes + mapping.models,
            path,
            mapping,
        )
        _refuse_empty_ids(df, mapping.item, "item", path)
        parts = []
        for col, spec in mapping.raters.items():
            role = spec.get("role", "expert")
            if role not in ("expert", "judge"):
                raise InputError(
                    f"rater {col!r}: role must be 'expert' or 'judge'", file=mapping.source
                )
            part = pd.DataFrame(
                {
                    "item": _joined(df, mapping.item, ":"),
                    "rater": spec.get("name", col),
                    "role": role,
                    "dimension": mapping.dimension,
                    "order": "",
                    "run": "1",
                    "raw": df[spec["raw"]] if "raw" in spec else df[col],
                    "source": str(path),
                    "line": df[LINE],
                    "_cell": df[col],
                    "_column": col,
                }
            )
            if spec.get("confidence"):
                _require(df, [spec["confidence"]], path, mapping)
                part["confidence"] = confidences(df, spec["confidence"], path)
            parts.append(part)
        out = pd.concat(parts, ignore_index=True)
        empty_expert = (out["_cell"] == "") & (out["role"] == "expert")
        counts["expert_cells_empty"] = int(empty_expert.sum())
        out = out[~empty_expert].reset_index(drop=True)

    gold_cells = set(df[mapping.gold]) if mapping.gold and mapping.gold in df.columns else set()
    dims_scale = _dimension_scales(out, mapping, gold_cells)

    # values: recode, invalid tokens, empties, scale check with the real column name
    cell = out["_cell"].astype(str)
    recoded = cell.map(lambda v: mapping.recode.get(v, v))
    is_invalid = cell.isin(mapping.invalid) | recoded.isin(mapping.invalid)
    is_empty = cell == ""
    # an empty cell is a missing verdict (data/FORMAT.md), a listed token an unparseable one
    status = np.where(is_invalid, "invalid", np.where(is_empty, "missing", "ok"))
    out["status"] = status
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
    counts["verdicts_invalid"] = int((out["status"] == "invalid").sum())
    counts["verdicts_missing"] = int((out["status"] == "missing").sum())

    # items + attributes (+ the cluster column) + supplied gold
    item_col = _joined(df, mapping.item, ":")
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
    items = items[~items["item"].duplicated()].reset_index(drop=True)
    gold_table = _supplied_gold(df, item_col, path, mapping, dims_scale) if mapping.gold else None
    ratings = out.drop(columns=["_cell", "_column"])
    return Study(
        ratings,
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


def _refuse_rows_without_dimension(df: pd.DataFrame, mapping: TableMapping, path: Path) -> None:
    """Two rows of one item and rater in a long table without a dimension column: one line that
    names the column telling them apart and the mapping key that makes it the dimension (the
    rows are usually different questions or criteria, not a repeated verdict)."""
    key = [*mapping.item, *mapping.rater, *([mapping.order] if mapping.order else [])]
    dup = df.duplicated(key, keep=False).to_numpy()
    if not dup.any():
        return
    rows = df[dup].sort_values([*key, LINE], kind="stable")
    first = rows.iloc[0]
    second = rows[(rows[key] == first[key]).all(axis=1)].iloc[1]
    skip = {*key, mapping.value, mapping.raw, LINE}
    differ = [c for c in df.columns if c not in skip and str(first[c]) != str(second[c])]
    where = (
        f"item {_joined(rows.head(1), mapping.item, ':').iloc[0]!r}, rater "
        f"{_joined(rows.head(1), mapping.rater, '/').iloc[0]!r}"
    )
    also = f"also line {int(second[LINE])}" if pd.notna(second[LINE]) else "again"
    cli = mapping.source == "command line"
    repeat = "remove the repeat, or give repeats distinct run values (" + (
        "run = COLUMN in a mapping file)" if cli else "run = COLUMN)"
    )
    what = f"; the rows differ in column {differ[0]!r}" if differ else ""
    hint = repeat
    if differ:
        name = differ[0]
        fix = f"add --dimension-column {name}" if cli else f'add dimension_column = "{name}"'
        hint = f"if each row answers a different question or criterion, {fix}; if not, {repeat}"
    raise InputError(
        f"{where} has more than one verdict ({also}) and the table has no dimension column{what}",
        file=path,
        line=int(first[LINE]) if pd.notna(first[LINE]) else None,
        hint=hint,
    )


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
    from .medrewardbench import is_medrewardbench, load_medrewardbench

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
