"""Which path reads a table: in memory (pandas) or columnar (DuckDB/Spark), decided from its size.

``--engine auto`` (the default of every command that has ``--engine``) reads a table in memory
unless it holds at least :data:`AUTO_ROWS` verdict rows, and then takes the columnar path
(DuckDB). The number of verdict rows is *estimated without reading the table*:

* Parquet: the row count in the file's footer (``pyarrow.parquet.read_metadata``);
* CSV/TSV/JSONL: the file size divided by the mean length of the lines in its first MiB;
* a wide layout multiplies the rows by the number of rater columns of the mapping.

Other inputs (bundle directories, JSON arrays, compressed text, formats of evaluation harnesses)
have no estimate and stay in memory. Every command that loads a study in memory first refuses,
in one line naming ``--engine``, a table of more than :data:`MEMORY_MAX_ROWS` verdict rows
(about 3 GB of memory on the in-memory path), instead of growing past the machine; the
environment variable ``MEDJUDGE_MEMORY_ROWS`` raises or lowers that limit.

Examples
--------
>>> from medjudge.engine.choose import choose_engine
>>> choose_engine("memory", "study.csv", None)  # a forced choice is kept
'memory'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..data.errors import InputError

__all__ = ["AUTO_ROWS", "ENGINE_CHOICES", "MEMORY_MAX_ROWS", "choose_engine", "estimate_rows"]

ENGINE_CHOICES = ("auto", "memory", "duckdb", "spark")
#: verdict rows from which ``--engine auto`` takes the columnar path
AUTO_ROWS = 1_000_000
#: verdict rows beyond which the in-memory path refuses a table (``MEDJUDGE_MEMORY_ROWS``)
MEMORY_MAX_ROWS = 4_000_000
_SAMPLE = 1 << 20


def estimate_rows(path: str | Path, mapping: Any = None) -> int | None:
    """Verdict rows of a table, from its metadata or size (``None``: no cheap estimate)."""
    p = Path(path)
    if not p.is_file() or (mapping is not None and getattr(mapping, "format", "table") != "table"):
        return None
    suffix = p.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            rows = int(pq.read_metadata(p).num_rows)
        elif suffix in (".csv", ".tsv", ".txt", ".jsonl"):
            size = p.stat().st_size
            with p.open("rb") as fh:
                head = fh.read(_SAMPLE)
            lines = max(head.count(b"\n"), 1)
            rows = lines if size <= len(head) else int(size * lines / len(head))
            rows -= suffix != ".jsonl"  # the header line
        else:
            return None
    except Exception:  # noqa: BLE001 - an unreadable file is reported by the reader itself
        return None
    if mapping is not None and getattr(mapping, "layout", "long") == "wide":
        rows *= max(len(getattr(mapping, "raters", {}) or {}), 1)
    return rows


def _memory_limit() -> int:
    raw = os.environ.get("MEDJUDGE_MEMORY_ROWS")
    if not raw:
        return MEMORY_MAX_ROWS
    try:
        return int(float(raw))
    except ValueError:
        raise InputError(f"MEDJUDGE_MEMORY_ROWS must be a number of rows, got {raw!r}") from None


def choose_engine(requested: str, path: str | Path, mapping: Any) -> str:
    """The engine that reads ``path``: ``requested`` unless it is ``"auto"`` (see module doc)."""
    if requested != "auto":
        return requested
    from .projection import supported

    p = Path(path)
    if not p.is_file():
        return "memory"
    if mapping is None:  # a table without a mapping: the canonical columns, read in columns
        return "duckdb" if p.suffix.lower() in (".parquet", ".csv", ".tsv") else "memory"
    if p.is_file():
        if supported(mapping) is None:
            n = estimate_rows(path, mapping)
            if n is not None and n >= AUTO_ROWS:
                return "duckdb"
    return "memory"


def check_fits_memory(path: str | Path, mapping: Any, *, command: str | None = None) -> None:
    """Refuse, in one line naming ``--engine``, a table too big for the in-memory path."""
    n = estimate_rows(path, mapping)
    limit = _memory_limit()
    if n is None or n <= limit:
        return
    how = (
        "use --engine auto or duckdb"
        if command in ("compare", "validate", "subgroups", "run")
        else "the columnar path (--engine auto or duckdb) runs compare, validate, subgroups and "
        "run --report none"
    )
    raise InputError(
        f"about {n:,} verdict rows (estimated from the file) is more than the in-memory path "
        f"takes ({limit:,}, MEDJUDGE_MEMORY_ROWS); {how}",
        file=path,
    )
