"""A table mapping compiled into one columnar projection: the canonical long form, next to the data.

:func:`project` turns a :class:`~medjudge.data.tables.TableMapping` (a TOML file or the CLI
options) into Ibis expressions over the user's CSV/TSV, JSONL/JSON or Parquet file, run by DuckDB
(embedded) or Spark. They say what a row means exactly as the in-memory loader
(:func:`medjudge.data.tables.load_table`) does, rule for rule:

* every cell is read as *text* as a table file spells it (missing → ``""``, ``2.0`` → ``"2"``,
  other floats in their shortest round-trip form), so a label is compared as the user wrote it;
* ``item`` joins its columns with ``":"``, ``rater`` with ``"/"``; ``role`` is a constant or
  ``role_column`` through ``[role_map]``; ``dimension`` a constant or ``dimension_column``;
  ``order`` through ``[order_map]`` (``""`` when not recorded); ``run`` (``"1"`` when absent);
* ``value`` is the cell through ``[recode]``; a cell (or its recoding) listed in ``invalid`` has
  status ``invalid``; an empty cell is a ``missing`` verdict, and an empty expert cell of a
  wide layout is no row at all (not rated; counted as ``expert_cells_empty``);
* an empty item, rater or dimension id is refused (file, line, column);
* the supplied gold (``gold = "column"``) per item × dimension (per item, for every dimension,
  without a ``dimension_column``), the cluster column and the item attributes.

The scales per dimension (``[scales.NAME]``, else ``[scale]``, else nominal on the labels seen,
gold cells included) and the checks (a value outside its scale, conflicting gold, a cluster
column with several values for an item) are one small aggregate each; an error names the file,
the line (found only when there is one) and the column, as the in-memory loader does.

``tests/data/test_engine_mapping.py`` checks that both paths give the same canonical rows, gold and
item attributes on the bundled mappings and on a synthetic table.

Examples
--------
>>> import tempfile, pathlib
>>> from medjudge.data.tables import TableMapping
>>> from medjudge.engine.projection import canonical_rows, project
>>> p = pathlib.Path(tempfile.mkdtemp()) / "v.csv"
>>> _ = p.write_text("q,who,verdict,truth\\n1,gpt,A,A\\n1,llama,NA,A\\n2,gpt,B,A\\n")
>>> m = TableMapping.from_dict({"item": "q", "rater": "who", "value": "verdict",
...                             "role": "judge", "gold": "truth", "invalid": ["NA"],
...                             "scale": {"categories": ["A", "B"]}})
>>> rows = canonical_rows(project(p, m))
>>> rows[["item", "rater", "value", "status"]].values.tolist()
[['1', 'gpt', 'A', 'ok'], ['1', 'llama', None, 'invalid'], ['2', 'gpt', 'B', 'ok']]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..data.errors import InputError
from ..data.scale import Scale
from ..data.tables import TableMapping, cluster_varies, scales_of
from .connect import connect, fetch

__all__ = ["Projection", "canonical_rows", "dimension_scales", "project", "supported"]

#: file suffixes the columnar path reads (``.gz`` variants of the text formats too)
TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
SUFFIXES = (*TEXT_SUFFIXES, ".jsonl", ".json", ".parquet")


def _suffix(path: Path) -> str:
    return "".join(path.suffixes[-2:-1]).lower() if path.suffix == ".gz" else path.suffix.lower()


def supported(mapping: TableMapping | None) -> str | None:
    """Why the columnar path cannot read a table with this mapping (``None``: it can)."""
    if mapping is None:
        return None
    if mapping.format != "table":
        return f'format = "{mapping.format}" is read by the in-memory loader only'
    return None


@dataclass(frozen=True)
class Projection:
    """The compiled mapping: Ibis expressions over one table (and its joined files).

    ``ratings`` has one row per verdict with the canonical columns ``item, rater, role,
    dimension, order, run, cell, value, status, cluster`` (``value`` null unless ``status`` is
    ``ok``), ``ok`` (status is ok), ``label`` (the recoded cell), ``gold`` (the row's gold
    cell, with a gold column) and ``attr__NAME`` (each item attribute); ``gold`` (or ``None``) has ``item, dimension, gold`` with one row per source row
    (``dimension`` is ``""`` when the gold applies to every dimension); ``items`` has ``item``,
    the attributes and the cluster column, one row per source row.
    """

    path: Path
    mapping: TableMapping
    engine: str
    backend: Any
    raw: Any
    ratings: Any
    gold: Any
    items: Any
    attributes: tuple[str, ...]
    kind: str
    counts: dict[str, Any] = field(default_factory=dict)

    def locate(self, predicate: Any) -> int | None:
        """Line (CSV: header is line 1) or 1-based row of the first raw row matching ``predicate``.

        Only called to name a place in an error: it numbers the rows of the whole file.
        """
        if self.engine != "duckdb":
            return None
        import ibis

        try:
            t = self.raw.mutate(_medjudge_row=ibis.row_number())
            hit = t.filter(predicate(t)).aggregate(r=t._medjudge_row.min()).pipe(fetch)
        except Exception:  # noqa: BLE001 - a place in a message is best effort
            return None
        r = hit["r"].iloc[0]
        if r is None or r != r:
            return None
        return int(r) + (2 if self.kind == "csv" else 1)


def as_text(col: Any) -> Any:
    """A column as the text a table file spells (the in-memory reader's ``text_cells`` rule)."""
    import ibis

    dt = col.type()
    if dt.is_string():
        return col.fill_null("")
    if dt.is_boolean():
        return col.ifelse("True", "False").fill_null("")
    if dt.is_floating():
        whole = (col == col.floor()) & (col.abs() < 1e18)
        return ibis.cases(
            (col.isnull() | col.isnan(), ""),
            (whole, col.cast("int64").cast("string")),
            else_=col.cast("string"),
        )
    return col.cast("string").fill_null("")


def _read(backend: Any, engine: str, path: Path) -> tuple[Any, str]:
    """(ibis table, line kind) for one file; text formats as text, the others typed."""
    import warnings

    with warnings.catch_warnings():  # Ibis 12 reads schemas with DuckDB's deprecated call
        warnings.filterwarnings("ignore", "fetch_arrow_table", DeprecationWarning)
        return _read_file(backend, engine, path)


def _read_file(backend: Any, engine: str, path: Path) -> tuple[Any, str]:
    """(ibis table, line kind) for one file; text formats as text, the others typed."""
    suffix = _suffix(path)
    if not path.exists():
        raise InputError("file not found", file=path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", file=path)
    if suffix not in SUFFIXES:
        raise InputError(
            f"unknown table format {suffix!r}",
            file=path,
            hint="use .csv, .tsv, .jsonl, .json or .parquet",
        )
    try:
        if engine == "duckdb":
            if suffix in TEXT_SUFFIXES:
                t = backend.read_csv(
                    str(path), header=True, all_varchar=True,
                    delim="\t" if suffix == ".tsv" else ",", quote='"', escape='"',
                )  # fmt: skip
                return t, "csv"
            if suffix == ".parquet":
                return backend.read_parquet(str(path)), "row"
            fmt = "newline_delimited" if suffix == ".jsonl" else "array"
            return backend.read_json(str(path), format=fmt), "row"
        spark = backend._session
        if suffix in TEXT_SUFFIXES:
            sdf = (
                spark.read.option("header", "true")
                .option("sep", "\t" if suffix == ".tsv" else ",")
                .option("escape", '"')
                .csv(str(path))
            )
            kind = "csv"
        elif suffix == ".parquet":
            sdf, kind = spark.read.parquet(str(path)), "row"
        else:
            sdf = spark.read.option("multiLine", suffix == ".json").json(str(path))
            kind = "row"
        name = f"medjudge_{abs(hash((str(path), path.stat().st_mtime_ns)))}"
        sdf.createOrReplaceTempView(name)
        return backend.table(name), kind
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - the reader's own words, on one line
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(f"cannot read the table ({msg})", file=path) from None


def _require(t: Any, cols: list[str], path: Path, mapping: TableMapping) -> None:
    have = list(t.columns)
    for c in cols:
        if c not in have:
            raise InputError(
                f"missing required column {c!r}",
                file=path,
                line=1,
                column=c,
                hint=f"columns present: {have[:12]}; mapping: {mapping.source}",
            )


def _joined(txt: dict[str, Any], cols: list[str], sep: str) -> Any:
    """One id from several columns joined with ``sep``, a backslash and ``sep`` escaped in each
    part (the in-memory loader's rule); one column as it is."""
    if len(cols) == 1:
        return txt[cols[0]]

    def part(c: str) -> Any:
        return txt[c].replace("\\", "\\\\").replace(sep, "\\" + sep)

    out = part(cols[0])
    for c in cols[1:]:
        out = out.concat(sep, part(c))
    return out


def _recode(col: Any, table: dict[str, str]) -> Any:
    return col.substitute(table) if table else col


def project(
    source: str | Path, mapping: TableMapping, *, engine: str = "duckdb", backend: Any = None
) -> Projection:
    """Compile ``mapping`` into the canonical long form over ``source`` (see the module doc).

    Parameters
    ----------
    source : path of a CSV/TSV, JSONL/JSON or Parquet table.
    mapping : the table mapping (from a TOML file or CLI options).
    engine : ``"duckdb"`` (embedded, default) or ``"spark"``.
    backend : an Ibis backend to reuse (default: a new one for ``engine``).

    Returns
    -------
    Projection
        Nothing has been read yet beyond the file's schema; every number comes from queries
        on these expressions.
    """
    import ibis

    why = supported(mapping)
    if why:
        raise InputError(f"{why}; use --engine memory", file=mapping.source)
    path = Path(source)
    if backend is None:
        backend = connect(engine)
    raw, kind = _read(backend, engine, path)
    m = mapping
    if m.join:
        _require(raw, m.item[:1], path, m)
        key = m.item[0]
        for extra in m.join:
            jp = (path.parent / extra) if not Path(extra).is_absolute() else Path(extra)
            jt, _ = _read(backend, engine, jp)
            _require(jt, [key], jp, m)
            jt = jt.select(key, *[c for c in jt.columns if c not in raw.columns])
            dup = jt.group_by(key).aggregate(n=jt.count()).filter(lambda s: s.n > 1)
            if dup.count().pipe(fetch):
                raise InputError(f"several rows for one {key!r} in a joined file", file=jp)
            raw = _left_join_text(raw, jt, key)
    if m.layout == "long":
        needed = m.item + m.rater + [m.value]
        needed += [
            c for c in (m.role_column, m.dimension_column, m.order, m.run, m.gold, m.raw) if c
        ]
    else:
        needed = list(m.item) + list(m.raters)
    _require(raw, needed + m.attributes + m.models + ([m.cluster] if m.cluster else []), path, m)
    txt = {c: as_text(raw[c]) for c in raw.columns}
    item = _joined(txt, m.item, ":")
    lit = ibis.literal
    invalid = list(m.invalid)
    wide_empty = 0
    attrs = tuple(dict.fromkeys(m.attributes + m.models + ([m.cluster] if m.cluster else [])))

    def verdicts(cell: Any, *, rater: Any, role: Any, dimension: Any, order: Any, run: Any) -> Any:
        recoded = _recode(cell, m.recode)
        is_invalid = (cell.isin(invalid) | recoded.isin(invalid)) if invalid else lit(False)
        status = ibis.cases(
            (is_invalid, lit("invalid")), (cell == "", lit("missing")), else_=lit("ok")
        )
        cols = {
            "item": item,
            "rater": rater,
            "role": role,
            "dimension": dimension,
            "order": order,
            "run": run,
            "cell": cell,
            "value": ibis.ifelse(status == "ok", recoded, lit(None).cast("string")),
            "status": status,
            "cluster": txt[m.cluster] if m.cluster else item,
            # the same facts as plain columns, cheap to aggregate over: status == "ok", and the
            # recoded cell (compare it only where ok)
            "ok": (cell != "") & ~is_invalid,
            "label": recoded,
        }
        if m.gold:  # the row's own gold cell, recoded
            cols["gold"] = _recode(txt[m.gold], m.recode)
        for a in attrs:  # item attributes, carried on every verdict row
            cols[f"attr__{a}"] = txt[a]
        return raw.select(**cols)

    if m.layout == "long":
        role = _recode(txt[m.role_column], m.role_map) if m.role_column else lit(m.role)
        ratings = verdicts(
            txt[m.value],
            rater=_joined(txt, m.rater, "/"),
            role=role,
            dimension=txt[m.dimension_column] if m.dimension_column else lit(m.dimension),
            order=_recode(txt[m.order], m.order_map) if m.order else lit(""),
            run=txt[m.run] if m.run else lit("1"),
        )
    else:
        parts = []
        for col, spec in m.raters.items():
            role = spec.get("role", "expert")
            part = verdicts(
                txt[col], rater=lit(spec.get("name", col)), role=lit(role),
                dimension=lit(m.dimension), order=lit(""), run=lit("1"),
            )  # fmt: skip
            if role == "expert":  # an empty expert cell: not rated, no row
                part = part.filter(part.cell != "")
            parts.append(part)
        ratings = parts[0].union(*parts[1:], distinct=False) if len(parts) > 1 else parts[0]
        experts = [c for c, s in m.raters.items() if s.get("role", "expert") == "expert"]
        wide_empty = {"expert_columns": experts}
    gold = None
    if m.gold:
        gold = raw.select(
            item=item,
            dimension=txt[m.dimension_column] if m.dimension_column else lit(""),
            gold=_recode(txt[m.gold], m.recode),
        )
    items = raw.select(item=item, **{a: txt[a] for a in attrs})
    return Projection(
        path=path, mapping=m, engine=engine, backend=backend, raw=raw, ratings=ratings,
        gold=gold, items=items, attributes=attrs, kind=kind,
        counts={"wide": wide_empty} if m.layout == "wide" else {},
    )  # fmt: skip


def _left_join_text(raw: Any, jt: Any, key: str) -> Any:
    """``raw`` left-joined with a joined file on ``key`` compared as text (one row per key)."""
    extra = [c for c in jt.columns if c != key]
    right = jt.select(_medjudge_key=as_text(jt[key]), **{c: jt[c] for c in extra})
    left = raw.mutate(_medjudge_key=as_text(raw[key]))
    out = left.left_join(right, "_medjudge_key")
    return out.select(*raw.columns, *extra)


def dimension_scales(proj: Projection) -> dict[str, Scale]:
    """Each dimension's scale, decided as the in-memory loader decides it.

    ``[scales.NAME]``, else ``[scale]``, else nominal on the distinct recoded labels of the
    dimensions without a scale of their own and of the gold column, minus empty cells and
    invalid tokens (sorted as text).
    """
    m = proj.mapping
    r = proj.ratings
    dims = sorted(map(str, r.select("dimension").distinct().pipe(fetch)["dimension"]))

    def labels(rest: list[str]) -> set[str]:
        cells = r.filter(r.dimension.isin(rest)).select(c=r.cell).distinct().pipe(fetch)["c"]
        found = set(map(str, cells))
        if proj.gold is not None:
            raw_gold = proj.raw.select(c=as_text(proj.raw[m.gold])).distinct().pipe(fetch)["c"]
            found |= set(map(str, raw_gold))
        return found

    return scales_of(dims, m, labels)


def _outside(col: Any, scale: Scale) -> Any:
    """Predicate: a (non-null) value outside ``scale``."""
    if scale.is_categorical:
        return ~col.isin(list(scale.categories))
    num = col.try_cast("float64")
    bad = num.isnull() | num.isnan() | num.isinf()
    if scale.low is not None:
        bad = bad | (num < scale.low)
    if scale.high is not None:
        bad = bad | (num > scale.high)
    return bad


def check(proj: Projection, scales: dict[str, Scale]) -> dict[str, int]:
    """Refuse what the in-memory loader refuses; return the load counts it reports.

    Checks: every usable value inside its dimension's scale, one gold label per item ×
    dimension and inside the scale, one cluster value per item, roles ``expert``/``judge``.
    """
    m = proj.mapping
    r = proj.ratings
    _refuse_empty_ids(proj)
    ok = r.filter(r.status == "ok")
    for dim, scale in scales.items():
        sub = ok.filter(ok.dimension == dim)
        bad = sub.filter(_outside(sub.value, scale)).select("cell").limit(1).pipe(fetch)
        if len(bad):
            cell = str(bad["cell"].iloc[0])
            column = m.value if m.layout == "long" else None
            line = None
            if m.layout == "long":
                line = proj.locate(lambda t, c=cell: as_text(t[m.value]) == c)
            allowed = (
                list(scale.categories) if scale.is_categorical else f"[{scale.low}, {scale.high}]"
            )
            raise InputError(
                f"label {cell!r} is outside the declared scale of dimension {dim!r}",
                file=proj.path,
                line=line,
                column=column,
                hint=f"allowed: {allowed}; list unparseable tokens under invalid = [...]",
            )
    _refuse_first(
        proj, r.filter(~r.role.isin(["expert", "judge"])),
        lambda b: f"role {b['role']!r} is neither 'expert' nor 'judge'",
        column=m.role_column, hint="map it with [role_map] in the mapping",
    )  # fmt: skip
    if m.cluster:
        it = proj.items
        per = it.group_by("item").aggregate(n=it[m.cluster].nunique())
        bad = per.filter(per.n > 1).select("item").limit(1).pipe(fetch)
        if len(bad):
            raise cluster_varies(m.cluster, bad["item"].iloc[0], proj.path)
    if proj.gold is not None:
        g = proj.gold.filter(proj.gold.gold != "")
        per = g.group_by(["item", "dimension"]).aggregate(n=g.gold.nunique())
        _refuse_first(
            proj, per.filter(per.n > 1),
            lambda b: f"item {b['item']!r}"
            + (f", dimension {b['dimension']!r}" if m.dimension_column else "")
            + " has conflicting gold labels",
            column=m.gold,
        )  # fmt: skip
        for dim, scale in scales.items():
            sub = g if not m.dimension_column else g.filter(g.dimension == dim)
            _refuse_first(
                proj, sub.filter(_outside(sub.gold, scale)),
                lambda b, dim=dim: f"gold label {b['gold']!r} is outside the declared scale of "
                f"dimension {dim!r}",
                column=m.gold,
            )  # fmt: skip
    st = r.group_by("status").aggregate(n=r.count()).pipe(fetch)
    n = dict(zip(st["status"], st["n"], strict=True))
    counts = {
        "verdicts_invalid": int(n.get("invalid", 0)),
        "verdicts_missing": int(n.get("missing", 0)),
    }
    return counts


def _refuse_first(proj: Projection, rows: Any, message: Any, **where: Any) -> None:
    """Raise :class:`InputError` (``message(first row)``, in ``proj.path`` and ``where``) when
    the Ibis expression ``rows`` (the rows breaking a rule) has any row."""
    bad = rows.limit(1).pipe(fetch)
    if len(bad):
        raise InputError(message(bad.iloc[0]), file=proj.path, **where)


def _refuse_empty_ids(proj: Projection) -> None:
    """An empty item, rater or dimension id names nothing (the in-memory loader's rule)."""
    m = proj.mapping
    cols = [(c, "item") for c in m.item]
    if m.layout == "long":
        cols += [(c, "rater") for c in m.rater]
        if m.dimension_column:
            cols.append((m.dimension_column, "dimension"))
    raw = proj.raw
    aggs = {
        f"e{i}": (as_text(raw[c]).strip() == "").cast("int64").sum()
        for i, (c, _) in enumerate(cols)
    }
    got = raw.aggregate(**aggs).pipe(fetch)
    for i, (c, what) in enumerate(cols):
        if int(got[f"e{i}"].iloc[0] or 0):
            raise InputError(
                f"empty {what} id",
                file=proj.path,
                line=proj.locate(lambda t, c=c: as_text(t[c]).strip() == ""),
                column=c,
                hint=f"every row needs its {what} id; fill it in or remove the row",
            )


def gold_table(proj: Projection, scales: dict[str, Scale]) -> Any:
    """Supplied gold as an Ibis table ``item, dimension, gold`` (one row per item × dimension)."""
    import ibis

    g = proj.gold
    g = g.filter(g.gold != "").select("item", "dimension", "gold").distinct()
    if proj.mapping.dimension_column:
        return g
    per_dim = [g.select("item", dimension=ibis.literal(d), gold=g.gold) for d in scales]
    return per_dim[0].union(*per_dim[1:], distinct=False) if len(per_dim) > 1 else per_dim[0]


def canonical_rows(proj: Projection, scales: dict[str, Scale] | None = None) -> pd.DataFrame:
    """The canonical rows as a DataFrame (small tables and tests): values typed by scale."""
    scales = scales if scales is not None else dimension_scales(proj)
    r = proj.ratings
    extra = [c for c in r.columns if c in ("gold", "cell", "ok", "label") or c.startswith("attr__")]
    df = r.drop(*extra).pipe(fetch)
    df["value"] = df["value"].astype(object).where(df["value"].notna(), None)
    for dim, scale in scales.items():
        if not scale.is_categorical:
            rows = (df["dimension"] == dim) & df["value"].notna()
            df.loc[rows, "value"] = df.loc[rows, "value"].map(float)
    return df
