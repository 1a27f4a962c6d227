"""The rows of a verdict table as ratings: the file and its joined files read
(:func:`read_joined`), each layout's rows turned into one rating per verdict
(:func:`long_ratings`, :func:`wide_ratings`), and the refusals of rows that name nothing
(:func:`medjudge.data.tables.load_table` assembles the study from them).

The ratings keep the cell as read (``_cell``) and the column it came from (``_column``), so
that the value checks can name the file, line and column of a bad label.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .confidence import confidences
from .errors import InputError
from .harness import read_source
from .io import LINE, line_numbers, read_table
from .mapping_keys import MappingKeys


def read_joined(path: Path, mapping: MappingKeys) -> tuple[pd.DataFrame, list[Path]]:
    """The table at ``path`` (with its line numbers in :data:`LINE`) and the files listed under
    ``join`` merged on the item column, and every file read."""
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
    return df, sources


def long_ratings(df: pd.DataFrame, mapping: MappingKeys, path: Path) -> pd.DataFrame:
    """One rating per row of a long table (one row per verdict)."""
    m = mapping
    optional = (m.role_column, m.dimension_column, m.order, m.run, m.gold, m.raw, m.confidence)
    needed = mapping.item + mapping.rater + [mapping.value] + [c for c in optional if c]
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
    return out


def wide_ratings(
    df: pd.DataFrame, mapping: MappingKeys, path: Path, counts: dict[str, int]
) -> pd.DataFrame:
    """One rating per rater column of each row of a wide table (one row per item); an empty
    expert cell is no rating (not rated) and is counted in ``counts``."""
    needed = mapping.item + list(mapping.raters) + mapping.attributes + mapping.models
    _require(df, needed, path, mapping)
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
    return out[~empty_expert].reset_index(drop=True)


def _require(df: pd.DataFrame, cols: list[str], path: Path, mapping: MappingKeys) -> None:
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


def _refuse_rows_without_dimension(df: pd.DataFrame, mapping: MappingKeys, path: Path) -> None:
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
