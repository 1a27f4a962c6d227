"""What ``validate`` counts, computed next to the data from a mapping's columnar projection.

:func:`columnar_summary` returns the dictionary of :meth:`Study.summary
<medjudge.data.model.Study.summary>` (same keys, same meaning) and the rater × status table of
:meth:`Study.rater_table <medjudge.data.model.Study.rater_table>`, from a handful of aggregate
queries over the table — counts per role, rater, dimension and status, items, orders, gold per
dimension — so a table of any size is checked without being loaded.

Raters are listed in order of first appearance, as the in-memory path lists them
(:func:`medjudge.engine.matrices.rater_order`). One difference: the ``majority`` gold counts
give items with and without a strict majority only (``run`` replaces them with the in-memory
counts by reason, from the reduced matrices).

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

import numpy as np
import pandas as pd

from ..data.accounting import STATUSES, model_settings
from ..data.tables import TableMapping

__all__ = ["columnar_summary"]


def columnar_summary(
    source: str | Path,
    mapping: TableMapping,
    *,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    spark_master: str | None = None,
) -> tuple[dict[str, Any], pd.DataFrame]:
    """(summary, rater table) of a mapped table, from aggregates (see the module docstring).

    ``memory_limit`` and ``spark_master`` configure the engine
    (:func:`medjudge.engine.connect.connect`)."""
    from .connect import connect, release
    from .projection import project

    backend = connect(engine, memory_limit=memory_limit, spark_master=spark_master)
    proj = project(source, mapping, engine=engine, backend=backend)
    try:
        return _summary(proj, source, mapping, engine)
    finally:
        release(proj.backend)


def _summary(proj: Any, source: Any, mapping: TableMapping, engine: str) -> tuple[dict, Any]:
    from ibis import _

    from .connect import fetch
    from .projection import check, dimension_scales

    scales = dimension_scales(proj)
    load_counts = check(proj, scales)
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
    out["gold"] = _gold_counts(proj, scales, out["experts"])
    out["presentation"] = _presentation(proj, scales)
    if out["judges"]:
        # item x dimension cells a judge has no verdict row for: it was not given the item
        j = r.filter(r.role == "judge")
        per = fetch(j.group_by(["dimension", "rater"]).aggregate(n=j.item.nunique()))
        lacking: dict[str, dict[str, int]] = {}
        have = {
            (str(d), str(x)): int(k)
            for d, x, k in per[["dimension", "rater", "n"]].itertuples(index=False)
        }
        for name in out["judges"]:
            for dim in dims:
                absent = n_items - have.get((dim, name), 0)
                if absent:
                    lacking.setdefault(name, {})[dim] = absent
        if lacking:
            out["not_assigned"] = lacking
    if proj.gold is not None and out["experts"]:
        out["supplied_vs_majority_mismatch"] = _mismatch(proj, scales)
    out.update(model_settings(scales, dims, mapping))
    t = c.groupby(["role", "rater", "status"])["n"].sum().unstack("status", fill_value=0)
    for s in STATUSES:
        if s not in t.columns:
            t[s] = 0
    t = t[list(STATUSES)]
    t["total"] = t.sum(axis=1)
    t = t.reset_index()
    # as the in-memory table: roles in order of first appearance, raters so within each role
    r_rank = t["rater"].astype(str).map(rank).to_numpy()
    role_rank = t["role"].map(pd.Series(r_rank).groupby(t["role"].to_numpy()).min()).to_numpy()
    t = t.iloc[np.lexsort((r_rank, role_rank))]
    t = t.reset_index(drop=True)
    t.columns.name = None
    return out, t


def _presentation(proj: Any, scales: dict) -> dict[str, str]:
    """Per dimension: single, unknown, fixed, randomised or swapped (the in-memory rule of
    :func:`medjudge.data.design.presentation_design`)."""
    from ..data.design import order_kind
    from .connect import fetch

    r = proj.ratings
    j = r.filter(r.role == "judge")
    used = fetch(j.select("dimension", "order").distinct())
    out = {}
    for dim, scale in scales.items():
        this = used.loc[used["dimension"].astype(str) == dim, "order"]
        kind, _ = order_kind(scale, list(map(str, this)))
        if kind == "randomised":
            sub = j.filter((j.dimension == dim) & j.order.isin(["AB", "BA"]))
            both = sub.group_by(["item", "rater"]).aggregate(n=sub.order.nunique())
            if len(fetch(both.filter(both.n > 1).limit(1))):
                kind = "swapped"
        out[dim] = kind
    return out


def _majority(proj: Any) -> Any:
    """Strict majority of the experts' usable labels per (dimension, item)."""
    from ibis import _

    r = proj.ratings
    e = r.filter((r.role == "expert") & r.ok)
    votes = e.group_by(["dimension", "item", "label"]).aggregate(nv=_.count())
    rated = e.group_by(["dimension", "item"]).aggregate(n_rated=_.count())
    vj = votes.join(rated, ["dimension", "item"])
    return vj.filter(2 * vj.nv > vj.n_rated).select("dimension", "item", majority=vj.label)


def _mismatch(proj: Any, scales: dict) -> dict[str, int]:
    """Items whose supplied gold differs from the experts' strict majority, per dimension."""
    from ibis import _

    from .connect import fetch
    from .projection import gold_table

    both = gold_table(proj, scales).join(_majority(proj), ["dimension", "item"])
    diff = fetch(
        both.filter(both.gold != both.majority).group_by("dimension").aggregate(n=_.count())
    )
    n = {str(d): int(k) for d, k in zip(diff["dimension"], diff["n"], strict=True)}
    return {d: n.get(d, 0) for d, s in scales.items() if s.is_categorical}


def _gold_counts(proj: Any, scales: dict, experts: list[str]) -> dict[str, dict[str, Any]]:
    """Per dimension: the gold method ``auto`` picks and the items with and without gold."""
    from ibis import _

    from .connect import fetch
    from .projection import gold_table

    r = proj.ratings
    items = fetch(r.group_by("dimension").aggregate(n=r.item.nunique()))
    n_items = {str(d): int(n) for d, n in zip(items["dimension"], items["n"], strict=True)}
    if proj.gold is not None:
        method, g = "supplied", gold_table(proj, scales)
    elif experts:
        method, g = "majority", _majority(proj)
    else:
        return {
            d: {"method": "none", "error": "no expert ratings and no supplied gold"} for d in scales
        }
    have = fetch(g.group_by("dimension").aggregate(n=_.count()))
    n_gold = {str(d): int(n) for d, n in zip(have["dimension"], have["n"], strict=True)}
    out: dict[str, dict[str, Any]] = {}
    for d in scales:
        w = n_gold.get(d, 0)
        out[d] = {"method": method, "with_gold": w, "no_gold": n_items.get(d, 0) - w}
    return out
