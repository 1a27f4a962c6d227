"""Engine connections: an embedded DuckDB or a Spark session (through Ibis), and fetching.

The settings come as arguments (the command line reads ``MEDJUDGE_DUCKDB_MEMORY`` and
``MEDJUDGE_SPARK_MASTER`` and passes them down): ``memory_limit`` caps DuckDB's hash tables,
which spill to a temporary directory beyond it; ``spark_master`` names the Spark master.

Examples
--------
>>> import ibis
>>> from medjudge.engine.connect import connect, fetch, release
>>> con = connect("duckdb")
>>> int(fetch(ibis.memtable({"x": [1, 2, 3]}).x.sum()))
6
>>> release(con)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..data.errors import InputError

__all__ = [
    "DUCKDB_MEMORY", "ENGINES", "SPARK_DEFAULTS", "SPARK_MASTER", "batches", "connect", "fetch",
    "release", "small_table", "spark_session",
]  # fmt: skip

ENGINES: tuple[str, ...] = ("duckdb", "spark")
#: DuckDB's default memory limit: a reduction of 10^7 verdicts stays within ~2 GB of peak
#: resident memory (bench_scale.py)
DUCKDB_MEMORY = "1GB"
#: the default Spark master: local mode on every core
SPARK_MASTER = "local[*]"


#: the settings of a Spark session medjudge starts, each kept only where nothing set it before
#: (``spark-submit --conf``, ``spark-defaults.conf``, ``PYSPARK_SUBMIT_ARGS``); Arrow carries the
#: reduced matrices to Python in columns instead of one pickled row at a time
SPARK_DEFAULTS = {
    "spark.app.name": "medjudge",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}
#: local mode only: the driver on the loopback address (no network lookups)
SPARK_LOCAL = {"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"}


def spark_session(partitions: int | None = None, master: str | None = None) -> Any:
    """The Spark session: the running one, kept as it is, or a new one.

    A new session takes ``master``, else the master ``spark-submit`` (or
    ``spark-defaults.conf``) gave, else :data:`SPARK_MASTER`, and the settings of
    :data:`SPARK_DEFAULTS` (with :data:`SPARK_LOCAL` in local mode) that nothing set before.
    A running session (``spark-submit``, a notebook, a test) keeps its master and settings:
    a different ``master`` is refused in one line. ``partitions`` sets the shuffle partitions.
    """
    from pyspark import SparkConf
    from pyspark.core.context import SparkContext
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None and SparkContext._active_spark_context is not None:
        session = SparkSession.builder.getOrCreate()  # started in another thread: no options
    if session is None:
        SparkContext._ensure_initialized()  # the JVM, holding spark-submit's settings
        conf = SparkConf()
        master = master or conf.get("spark.master", None) or SPARK_MASTER
        builder = SparkSession.builder.master(master)
        local = SPARK_LOCAL if master.startswith("local") else {}
        for key, value in (SPARK_DEFAULTS | local).items():
            if not conf.contains(key):
                builder = builder.config(key, value)
        session = builder.getOrCreate()
    elif master and master != session.sparkContext.master:
        raise InputError(
            f"Spark master {master!r}: this process already runs a Spark session on "
            f"{session.sparkContext.master!r}; use that one (no master given) or a new process"
        )
    if partitions:
        session.conf.set("spark.sql.shuffle.partitions", str(partitions))
    return session


def duckdb_connect(memory_limit: str | None = None) -> Any:
    """An embedded DuckDB (through Ibis): no progress bars, memory limited, may spill."""
    import tempfile

    import ibis

    con = ibis.duckdb.connect()
    con.con.execute("SET enable_progress_bar = false")  # no bars on the user's stderr
    con.con.execute(f"SET memory_limit = '{memory_limit or DUCKDB_MEMORY}'")
    spill = Path(tempfile.gettempdir()) / "medjudge-duckdb"
    con.con.execute(f"SET temp_directory = '{spill.as_posix()}'")
    con.con.execute("SET preserve_insertion_order = false")  # results are sorted on arrival
    return con


def connect(
    engine: str, *, memory_limit: str | None = None, spark_master: str | None = None
) -> Any:
    """An Ibis backend for ``engine`` (``"duckdb"`` or ``"spark"``)."""
    if engine == "duckdb":
        return duckdb_connect(memory_limit)
    if engine == "spark":
        import ibis

        return ibis.pyspark.connect(spark_session(master=spark_master))
    raise InputError(f"--engine must be one of {', '.join(ENGINES)}; got {engine!r}")


def small_table(con: Any, name: str, frame: Any) -> Any:
    """A small pandas table sent to the engine, as an Ibis table to join with (DuckDB: a
    registered view of the frame; Spark: a temporary view)."""
    import warnings

    if getattr(con, "name", "") == "duckdb":
        con.con.register(name, frame)
    else:
        con._session.createDataFrame(frame).createOrReplaceTempView(name)
    with warnings.catch_warnings():  # Ibis 12 reads schemas with DuckDB's deprecated call
        warnings.filterwarnings("ignore", "fetch_arrow_table", DeprecationWarning)
        return con.table(name)


def release(con: Any) -> None:
    """Close an engine connection made for one reduction (DuckDB frees its buffers at once;
    a Spark session is shared and kept)."""
    if getattr(con, "name", "") == "duckdb":
        try:
            con.disconnect()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass


def fetch(expr: Any) -> Any:
    """Run an Ibis expression and return a pandas DataFrame (a value for a scalar).

    On DuckDB the compiled SQL runs on the backend's own connection and streams back as Arrow:
    for a 10^6-row result this took 6 s and 1.2 GB of peak memory where ``expr.execute()``
    took 29 s and 4.9 GB (Ibis 12, DuckDB 1.5; 10^7 verdicts, bench_scale.py).
    """
    import ibis
    import ibis.expr.types as ir

    try:
        backend = expr._find_backend()
    except Exception:  # noqa: BLE001 - an in-memory table: Ibis' default backend runs it
        backend = None
    if getattr(backend, "name", "") != "duckdb":
        import warnings

        with warnings.catch_warnings():  # Ibis 12 calls DuckDB's deprecated fetch_arrow_table
            warnings.simplefilter("ignore", DeprecationWarning)
            return expr.execute()
    import pyarrow as pa

    sql = ibis.to_sql(expr, dialect="duckdb")
    try:
        res = backend.con.execute(sql)
        tbl = res.to_arrow_table() if hasattr(res, "to_arrow_table") else res.arrow()
    except Exception as e:  # noqa: BLE001 - DuckDB parses files lazily, here
        raise _input_error(e) or e from None
    # DuckDB sums integers into 128-bit integers (Arrow decimals, Python objects in pandas):
    # the schema says int64, and counts of rows fit in it
    fields = [
        pa.field(f.name, pa.int64()) if pa.types.is_decimal(f.type) else f for f in tbl.schema
    ]
    df = tbl.cast(pa.schema(fields)).to_pandas()
    if isinstance(expr, ir.Scalar):
        return df.iloc[0, 0]
    if isinstance(expr, ir.Column):
        return df.iloc[:, 0]
    return df


def batches(
    expr: Any, rows: int = 1 << 20, *, by: str | None = None, expected: int | None = None
) -> Iterator[Any]:
    """Run an Ibis table expression and yield its rows as Arrow record batches, in no set order.

    Only one batch (and, on Spark, the partition being sent) is held at a time, so a caller
    that folds each batch into its own arrays needs memory for those arrays, not for the
    result. DuckDB streams ``rows`` rows per batch. Spark sends one partition at a time (the
    next one computed meanwhile) as Arrow batches of
    ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows; a partition is held whole in the
    driver's JVM while it is sent, so with ``by`` and ``expected`` (a bound on the rows) the
    result is first hash-partitioned on column ``by`` into ``ceil(expected / rows)``
    partitions: the driver then holds about ``rows`` rows, whatever the data and the session's
    partitioning (adaptive execution merges a join's partitions up to half the data on two
    cores: 5·10⁶ cells, more than a 1 GB heap holds while sending them).
    ``toPandas`` instead collects every partition in the driver and in Python first.

    Examples
    --------
    >>> import ibis
    >>> from medjudge.engine.connect import batches, connect, release
    >>> con = connect("duckdb")
    >>> t = con.sql("SELECT range AS x FROM range(5)")
    >>> sum(b.num_rows for b in batches(t, rows=2))
    5
    >>> release(con)
    """
    import ibis

    backend = expr._find_backend()
    if getattr(backend, "name", "") == "duckdb":
        try:
            res = backend.con.execute(ibis.to_sql(expr, dialect="duckdb"))
            reader = (
                res.to_arrow_reader(rows)
                if hasattr(res, "to_arrow_reader")
                else res.fetch_record_batch(rows)
            )
            yield from reader
        except Exception as e:  # noqa: BLE001 - DuckDB parses files lazily, here
            raise _input_error(e) or e from None
        return
    backend._run_pre_execute_hooks(expr)  # in-memory tables and functions, as Ibis' execute
    df = backend.raw_sql(backend.compile(expr.as_table()))
    if by is not None and expected is not None:
        df = df.repartition(max(1, -(-expected // rows)), by)
    yield from _spark_batches(df)


def _spark_batches(df: Any) -> Iterator[Any]:
    """A Spark DataFrame's Arrow batches, one partition at a time (pyspark's own pieces:
    the Arrow batches its ``toPandas`` collects, served as ``toLocalIterator`` serves rows)."""
    import pyarrow as pa
    from pyspark.serializers import NoOpSerializer
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.util import _local_iterator_from_socket

    session = df.sparkSession
    large = session._jconf.arrowUseLargeVarTypes()
    schema = to_arrow_schema(df.schema, prefers_large_types=large)
    served = session.sparkContext._jvm.PythonRDD.toLocalIteratorAndServe(
        df._jdf.toArrowBatchRdd(), True
    )
    for message in _local_iterator_from_socket(served, NoOpSerializer()):
        yield pa.ipc.read_record_batch(pa.py_buffer(message), schema)


def _input_error(e: Exception) -> InputError | None:
    """DuckDB's word for an ambiguous JSON object (read lazily, so found when a query runs) as
    the in-memory reader's one line naming file, line and key; None for any other error."""
    import re

    m = re.search(r'in file "([^"]+)", in line (\d+): .*has duplicate key "([^"]*)"', str(e))
    if m is None:
        return None
    return InputError(
        f"key {m[3]!r} appears twice in one JSON object (keep one of them; each key must say "
        "one thing)",
        file=Path(m[1]), line=int(m[2]), column=m[3],
    )  # fmt: skip
