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
(about 3 GB of memory on the in-memory path), instead of growing past the machine;
``memory_rows=`` (on the command line, the environment variable ``MEDJUDGE_MEMORY_ROWS``)
raises or lowers that limit.

:func:`read_study` is the one door: a study in memory, or a table reduced on DuckDB or Spark to
the same matrices (:mod:`medjudge.engine.matrices`); every analysis then runs the same code.

Examples
--------
>>> from medjudge.engine.choose import choose_engine
>>> choose_engine("memory", "study.csv", None)  # a forced choice is kept
'memory'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..data.errors import InputError
from ..data.tables import TableMapping, load_any
from .matrices import reduce_to_matrices
from .projection import supported

__all__ = [
    "AUTO_ROWS", "ENGINE_CHOICES", "MEMORY_MAX_ROWS", "choose_engine", "estimate_rows",
    "read_study",
]  # fmt: skip

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


def choose_engine(requested: str, path: str | Path, mapping: Any) -> str:
    """The engine that reads ``path``: ``requested`` unless it is ``"auto"`` (see module doc)."""
    if requested != "auto":
        return requested

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


def check_fits_memory(
    path: str | Path, mapping: Any, *, command: str | None = None, memory_rows: int | None = None
) -> None:
    """Refuse, in one line naming ``--engine``, a table too big for the in-memory path
    (more than ``memory_rows`` verdict rows, default :data:`MEMORY_MAX_ROWS`)."""
    n = estimate_rows(path, mapping)
    limit = MEMORY_MAX_ROWS if memory_rows is None else int(memory_rows)
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


#: the columns of a verdict table read without a mapping on the columnar path
REQUIRED = ("item", "rater", "role", "dimension", "value")
CANONICAL = {"item": "item", "rater": "rater", "role_column": "role", "value": "value",
             "dimension_column": "dimension"}  # fmt: skip


def refuse_folder(path: str | Path, engine: str) -> None:
    """One line naming ``--engine`` for a folder asked of the columnar path (which reads
    tables): a bundle or dataset folder is read by the in-memory loader."""
    if engine != "memory" and Path(path).is_dir():
        raise InputError(
            f"--engine {engine}: a folder (a Med-RewardBench bundle, a dataset folder) is read "
            "by the in-memory loader only; use --engine memory (or auto)",
            file=path,
        )


def read_study(
    source: Any,
    mapping: Any = None,
    *,
    engine: str = "auto",
    memory_rows: int | None = None,
    memory_limit: str | None = None,
    spark_master: str | None = None,
    dimensions: list[str] | None = None,
    broadcast: bool = False,
) -> Any:
    """The study an analysis reads: loaded in memory or reduced on an engine to its matrices.

    Parameters
    ----------
    source : Study, path
        A study (returned as it is), a bundle folder or a table.
    mapping : TableMapping, str or Path, optional
        The table's mapping (a ``TableMapping`` or a TOML file); without one, the columnar path
        reads the canonical columns ``item, rater, role, dimension, value``.
    engine : {"auto", "memory", "duckdb", "spark"}
        ``auto``: see :func:`choose_engine`. A folder is read in memory only: asking for an
        engine on one is refused in one line naming ``--engine``.
    memory_rows : int, optional
        The in-memory path's limit in verdict rows (default :data:`MEMORY_MAX_ROWS`).
    memory_limit, spark_master : str, optional
        DuckDB's memory limit and the Spark master (:func:`medjudge.engine.connect.connect`).
    dimensions : list of str, optional
        Columnar path: reduce these dimensions only.
    broadcast : bool
        Med-RewardBench bundles: see :func:`medjudge.data.tables.load_any`.

    Returns
    -------
    Study or MatrixStudy
        Either answers the same questions (``matrix``, ``gold``, ``outcomes``, judges, items).

    Examples
    --------
    >>> import medjudge as mj
    >>> read_study(mj.datasets.demo_path(), engine="memory").judges[:1]
    ['sim-control']
    """

    if not isinstance(source, str | Path):
        return source
    if isinstance(mapping, str | Path):
        mapping = TableMapping.from_toml(mapping)
    chosen = choose_engine(engine, source, mapping)
    if chosen == "memory":
        check_fits_memory(source, mapping, memory_rows=memory_rows)
        return load_any(source, mapping, broadcast=broadcast)
    refuse_folder(source, chosen)
    if broadcast:
        raise InputError("--broadcast applies to Med-RewardBench bundles only", file=source)

    if mapping is None:
        mapping = TableMapping.from_dict(CANONICAL, source="the canonical columns")
    return reduce_to_matrices(
        source, mapping, engine=chosen, dimensions=dimensions, memory_limit=memory_limit,
        spark_master=spark_master,
    )  # fmt: skip
