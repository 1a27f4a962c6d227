"""Columnar reduction of verdict tables next to the data (DuckDB embedded, or Apache Spark).

A table of any size is read by an engine, through Ibis, and reduced there to the dense
``item × rater`` matrices a study is analysed from; only those travel to Python, and the
in-memory analyses run on them unchanged, so every number is the one a loaded study gives.

* :mod:`~medjudge.engine.projection` — a table mapping (TOML or CLI options) compiled into the
  canonical long form over the user's CSV/JSONL/Parquet: the same rows as the in-memory loader;
* :mod:`~medjudge.engine.matrices` — the per-item matrices of every dimension and the
  :class:`~medjudge.engine.matrices.MatrixStudy` that serves them to the analyses;
* :mod:`~medjudge.engine.summary` — the counts of ``validate``, from aggregates;
* :mod:`~medjudge.engine.connect` — DuckDB and Spark connections (settings passed as arguments);
* :mod:`~medjudge.engine.choose` — ``--engine auto``: which path reads a table, from its size,
  and :func:`~medjudge.engine.choose.read_study`, the one door to a study.
"""
