"""Sizes the in-memory path refuses up front, with one line naming the size and what helps.

A design far beyond these sizes did not fail: it ran for minutes without a result (100,000
judges: every pairwise test is computed, 5·10⁹ pairs) or took all the memory (400 categories:
a 400 × 400 confusion table per judge, 5.1 GB for 2,400 ratings; 10⁶ columns: killed after
180 s). Measured on the 2-core development machine (shared, loaded): ``run --report none``
took 13 s with 300 judges and 57 s with 1,000; reading a CSV of 50,000 columns took 22 s.

* :data:`MAX_JUDGES` judges per study (the pairwise comparisons grow as judges²);
* :data:`MAX_CATEGORIES` categories of a categorical scale (confusion tables grow as K²);
* :data:`MAX_COLUMNS` columns of a table file (checked before the file is parsed).

``validate`` only counts, and takes any number of judges. (The columnar path,
``--engine duckdb``, did not finish ``run`` on 100,000 judges within 300 s either.)

Examples
--------
>>> import medjudge as mj
>>> check_design_size(mj.datasets.example())  # 12 judges, 3 categories: fine
"""

from __future__ import annotations

from typing import Any

from .errors import InputError

#: most judges the in-memory analyses take (run --report none: ~1 minute at this size)
MAX_JUDGES = 1_000
#: most categories of a categorical (nominal/ordinal) scale
MAX_CATEGORIES = 100
#: most columns of a table file (CSV/TSV/Parquet), checked before it is parsed
MAX_COLUMNS = 20_000


def check_design_size(study: Any, source: Any = None) -> None:
    """Refuse a study with more than :data:`MAX_JUDGES` judges or a categorical scale with
    more than :data:`MAX_CATEGORIES` categories: one line naming the size and what helps.

    Raises
    ------
    InputError
        The design is larger than the in-memory analyses take.
    """
    n_judges = len(study.judges)
    if n_judges > MAX_JUDGES:
        raise InputError(
            f"{n_judges:,} judges: more than the {MAX_JUDGES:,} the in-memory analyses take "
            f"(every pair of judges is compared: {n_judges * (n_judges - 1) // 2:,} pairs)",
            file=source,
            hint=f"split the table into files of at most {MAX_JUDGES:,} judges "
            "(validate reads any number)",
        )
    for dim, scale in study.scales.items():
        k = len(scale.categories) if scale.is_categorical else 0
        if k > MAX_CATEGORIES:
            raise InputError(
                f"dimension {dim!r} has {k:,} categories: more than the {MAX_CATEGORIES} a "
                f"categorical scale takes (a {k} x {k} confusion table per judge)",
                file=source,
                hint='if the labels are scores, declare [scale] level = "interval" with low and '
                "high; else recode them into fewer categories ([recode] in the mapping)",
            )


def check_columns(n_columns: int, source: Any) -> None:
    """Refuse a table file with more than :data:`MAX_COLUMNS` columns (before parsing it)."""
    if n_columns > MAX_COLUMNS:
        raise InputError(
            f"{n_columns:,} columns: more than the {MAX_COLUMNS:,} a table may have",
            file=source,
            hint="keep only the columns the mapping names (item, raters, attributes), or use "
            "the long layout (one row per verdict)",
        )
