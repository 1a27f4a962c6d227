"""Columnar reduction of verdict tables to per-cluster sufficient statistics.

Everything medjudge resamples is a weighted sum over clusters (items, images, cases), so a
study of any size can be reduced — by an engine next to the data — to a small table of
per-cluster counts, and only that table travels to Python. :mod:`medjudge.engine.reduce` builds
the reduction once as an Ibis expression and runs it on DuckDB (embedded, the default) or on
Apache Spark (local mode or a cluster); both return the same integers, so every number computed
from them is identical to the last digit.

* :mod:`~medjudge.engine.projection` — a table mapping (TOML or CLI options) compiled into the
  canonical long form over the user's CSV/JSONL/Parquet: the same rows as the in-memory loader;
* :mod:`~medjudge.engine.reduce` — per-cluster patterns (``reduce_verdicts``) and per-item
  outcomes (``item_outcomes``) of the judges against gold;
* :mod:`~medjudge.engine.summary` — the counts of ``validate``, from aggregates;
* :mod:`~medjudge.engine.choose` — ``--engine auto``: which path reads a table, from its size.
"""
