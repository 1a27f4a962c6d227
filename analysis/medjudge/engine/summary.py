"""What ``validate`` counts, computed next to the data from a mapping's columnar projection.

:func:`columnar_summary` returns the dictionary of :meth:`Study.summary
<medjudge.data.model.Study.summary>` (same keys, same meaning) and the rater × status table of
:meth:`Study.rater_table <medjudge.data.model.Study.rater_table>`, from a handful of aggregate
queries over the table — counts per role, rater, dimension and status, items, orders, gold per
dimension — so a table of any size is checked without being loaded.

Raters are listed sorted by id, as the in-memory path lists them
(:func:`medjudge.engine.matrices.rater_order`); the facts about the study model are stated by
the in-memory code itself, from the table reduced to its matrices.

Examples
--------
>>> import tempfile, pathlib
>>> from medjudge.data.tables import TableMapping
>>> p = pathlib.Path(tempfile.mkdtemp()) / "v.csv"
>>> _ = p.write_text("q,who,v,g\\n1,a,A,A\\n1,b,NA,A\\n2,a,B,B\\n")
>>> m = TableMapping.from_dict({"item": "q", "rater": "who", "value": "v", "gold": "g",
...                             "role": "judge", "invalid": ["NA"]})
>>> s, table = columnar_summary(p, m)
>>> s["n_items"], s["status"], s["gold"]["overall"]["with_gold"]
(2, {'ok': 2, 'invalid': 1}, 2)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..data.accounting import status_table
from ..data.tables import TableMapping

__all__ = ["columnar_summary"]


def columnar_summary(
    source: str | Path,
    mapping: TableMapping,
    *,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    spark_master: str | None = None,
    study: Any = None,
) -> tuple[dict[str, Any], pd.DataFrame]:
    """(summary, rater table) of a mapped table (see the module docstring).

    The counts of the verdict rows come from aggregates; the facts about the study model
    (gold, designs, the judge design) from ``study`` — the table reduced to its matrices
    (:func:`medjudge.engine.matrices.reduce_to_matrices` of the whole table, made here when
    not given; its scales and load counts are reported) — through
    :func:`medjudge.data.accounting.study_facts`, as in memory. ``memory_limit`` and
    ``spark_master`` configure the engine (:func:`medjudge.engine.connect.connect`)."""
    from ..data.accounting import study_facts
    from .connect import connect, release
    from .projection import project

    if study is None:  # the reduction checks the table (scales, gold, roles, clusters) first
        from .matrices import reduce_to_matrices

        study = reduce_to_matrices(
            source, mapping, engine=engine, memory_limit=memory_limit, spark_master=spark_master
        )
    backend = connect(engine, memory_limit=memory_limit, spark_master=spark_master)
    proj = project(source, mapping, engine=engine, backend=backend)
    try:
        counts, table = _summary(proj, source, study)
    finally:
        release(proj.backend)
    return counts | study_facts(study), table


def _summary(proj: Any, source: Any, study: Any) -> tuple[dict, Any]:
    """The counts of the verdict rows (the summary's keys up to ``notes``) and the rater table;
    the dimensions and load counts are the reduced ``study``'s (checked once, there)."""
    from ibis import _

    from .connect import fetch

    scales, load_counts = study.scales, study.load_counts
    r = proj.ratings
    c = fetch(r.group_by(["role", "rater", "dimension", "status"]).aggregate(n=_.count()))
    c["n"] = c["n"].astype(int)
    n_items = int(fetch(proj.items.aggregate(n=proj.items.item.nunique()))["n"].iloc[0])
    orders = sorted(map(str, fetch(r.select("order").distinct())["order"]))
    dims = list(scales)
    from .matrices import rater_order

    first, _ = rater_order(proj, c[["dimension", "rater", "role"]].drop_duplicates().astype(str))
    rank = {x: k for k, x in enumerate(first)}

    def counts(frame: pd.DataFrame, key: str) -> dict[str, int]:
        s = frame.groupby(key)["n"].sum()
        return {str(k): int(v) for k, v in s.sort_values(ascending=False, kind="stable").items()}

    judges = c[c["role"] == "judge"]
    status_per_judge = {
        str(rater): {str(k): int(v) for k, v in g.groupby("status")["n"].sum().sort_index().items()}
        for rater, g in sorted(judges.groupby("rater"), key=lambda kv: rank[str(kv[0])])
    }
    by_status = c.groupby("status")["n"].sum()
    out: dict[str, Any] = {
        "name": Path(source).stem,
        "n_items": n_items,
        "n_ratings": int(c["n"].sum()),
        "dimensions": dims,
        "roles": {str(k): int(v) for k, v in c.groupby("role")["rater"].nunique().items()},
        "ratings_per_role": {str(k): int(v) for k, v in c.groupby("role")["n"].sum().items()},
        "experts": [x for x in first if x in set(c.loc[c["role"] == "expert", "rater"])],
        "judges": [x for x in first if x in set(judges["rater"])],
        "orders": orders,
        "status": counts(c, "status"),
        "status_per_judge": status_per_judge,
        "verdicts_without_value": int(by_status.drop("ok", errors="ignore").sum()),
        "not_ok_reasons": {},
        "duplicates": 0,
        "load_counts": dict(load_counts),
        "notes": [],
    }
    t = status_table(
        c.groupby(["role", "rater", "status"])["n"].sum().unstack("status", fill_value=0)
    )
    t.columns.name = None
    return out, t
