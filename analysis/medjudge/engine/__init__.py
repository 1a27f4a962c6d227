"""Columnar reduction of verdict tables to per-cluster sufficient statistics.

Everything medjudge resamples is a weighted sum over clusters (items, images, cases), so a
study of any size can be reduced — by an engine next to the data — to a small table of
per-cluster counts, and only that table travels to Python. :mod:`medjudge.engine.reduce` builds
the reduction once as an Ibis expression and runs it on DuckDB (embedded, the default) or on
Apache Spark (local mode or a cluster); both return the same integers, so every number computed
from them is identical to the last digit.
"""
