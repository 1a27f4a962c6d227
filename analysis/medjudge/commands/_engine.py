"""``--engine``: which path reads the table, and the options only the in-memory path honours.

See :mod:`medjudge.engine.choose` for how ``auto`` decides. A command calls :func:`engine_of`
once; on the columnar path, :func:`refuse_options` turns every option the columnar path cannot
honour into one line naming it (exit 2), never a silently ignored setting.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..data.errors import InputError
from ._common import declare, table_mapping


def add_engine_arg(p: argparse.ArgumentParser, what: str) -> None:
    from ..engine.choose import AUTO_ROWS, ENGINE_CHOICES

    p.add_argument(
        "--engine",
        choices=ENGINE_CHOICES,
        default="auto",
        help=f"auto (default): the columnar path (DuckDB) for tables of {AUTO_ROWS:,} verdict "
        "rows or more (estimated from the file's metadata or size), memory otherwise; memory: "
        f"load the study in Python; duckdb/spark: {what} next to the data",
    )


def engine_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What the command line read from the environment for the engines (``cli.py``)."""
    return dict(getattr(args, "engine_settings", None) or {})


def engine_of(args: argparse.Namespace, command: str) -> tuple[str, Any]:
    """(engine, mapping) for this command line; ``memory`` checks that the table fits."""
    from ..engine.choose import check_fits_memory, choose_engine

    mapping = table_mapping(args)
    engine = choose_engine(getattr(args, "engine", "memory"), args.path, mapping)
    if engine != "memory" and mapping is None and getattr(args, "engine", "auto") == "auto":
        _refuse_unmapped_table(args.path, command)
    if engine == "memory":
        rows = engine_settings(args).get("memory_rows")
        check_fits_memory(args.path, mapping, command=command, memory_rows=rows)
    return engine, mapping


def study_of(args: argparse.Namespace, command: str) -> tuple[Any, str]:
    """(study, engine): loaded in memory, or reduced on DuckDB/Spark to the same matrices
    (:func:`medjudge.engine.choose.read_study`); the analyses run the same code on either."""
    from ..engine.choose import read_study
    from ._common import load_input

    engine, mapping = engine_of(args, command)
    if engine == "memory":
        return load_input(args), engine
    refuse_options(args, engine, {"broadcast": False, "ties": "keep"})
    settings = engine_settings(args)
    study = read_study(
        args.path, mapping, engine=engine, memory_limit=settings.get("memory_limit"),
        spark_master=settings.get("spark_master"),
    )  # fmt: skip
    declare(args, study)
    return study, engine


def _columns(path: str) -> list[str]:
    """The column names of a CSV, TSV or Parquet file ([] when they cannot be read)."""
    import csv
    from pathlib import Path

    p = Path(path)
    try:
        if p.suffix.lower() == ".parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(p).names)
        with open(p, encoding="utf-8-sig", newline="") as fh:
            return next(csv.reader(fh, delimiter="\t" if p.suffix.lower() == ".tsv" else ","), [])
    except (OSError, ValueError, StopIteration, ImportError):
        return []


def _refuse_unmapped_table(path: str, command: str) -> None:
    """A table given without a mapping (and without ``--engine``): one line saying how to
    describe its columns. Only ``compare`` and ``subgroups`` read a table of the canonical
    columns without one; the message names no option the user did not give."""
    from ..engine.choose import REQUIRED

    canonical = ", ".join(REQUIRED)
    have = _columns(path)
    if command not in ("validate", "run"):
        if all(c in have for c in REQUIRED):
            return
        also = f"; with columns {canonical} none is needed"
    else:
        also = ""
    shown = ", ".join(have[:12]) + (", ..." if len(have) > 12 else "")
    raise InputError(
        "a table needs a column mapping" + (f"; its columns are {shown}" if have else ""),
        file=path,
        hint="pass --mapping FILE.toml (examples in data/mappings/) or --layout long --item "
        f"COLUMN --rater COLUMN --value COLUMN{also}",
    )


def refuse_options(args: argparse.Namespace, engine: str, options: dict[str, Any]) -> None:
    """Options given (not at their default) that the columnar path cannot honour: one line."""
    given = [o for o, default in options.items() if getattr(args, o, default) != default]
    if given:
        names = ", ".join("--" + o.replace("_", "-") for o in given)
        chosen = "chosen by --engine auto for this table's size" if args.engine == "auto" else ""
        raise InputError(
            f"{names}: not available on the columnar path (--engine {engine}"
            + (f", {chosen}" if chosen else "")
            + "); drop the option or use --engine memory"
        )
