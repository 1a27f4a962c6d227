"""A mapped table reduced next to the data to the dense ``item × rater`` matrices of a study.

:func:`reduce_to_matrices` runs the columnar projection of a table mapping
(:mod:`medjudge.engine.projection`) on DuckDB or Spark and sends back, per dimension, one row
per item with one value and one status per rater × presentation order — the matrices
:meth:`Study.matrix <medjudge.data.model.Study.matrix>` builds from the verdict rows — plus the
item attributes and the supplied gold. The verdict rows themselves never reach Python: a table
of ``n`` items, ``R`` raters and ``n·R`` verdicts becomes ``n`` rows of ``2R`` small numbers.

:class:`MatrixStudy` serves those matrices through the interface the analyses read from a study
(``matrix``, ``gold``, ``outcomes``, the judges, experts, items, scales, clusters and the
presentation design), so every statistic — gold, intervals, tests, rank sets, baselines, the
expert ceiling, subgroup cells — is computed by the in-memory code itself: the same numbers as
on a loaded :class:`~medjudge.data.model.Study`, whatever the engine.

Examples
--------
>>> import tempfile, pathlib
>>> from medjudge.data.tables import TableMapping
>>> p = pathlib.Path(tempfile.mkdtemp()) / "v.csv"
>>> _ = p.write_text("q,who,v,g\\n1,a,A,A\\n1,b,B,A\\n2,a,B,B\\n2,b,B,B\\n")
>>> m = TableMapping.from_dict({"item": "q", "rater": "who", "value": "v", "gold": "g",
...                             "role": "judge"})
>>> st = reduce_to_matrices(p, m)
>>> st.judges, st.outcomes("overall").outcome.tolist()
(['a', 'b'], [[1.0, 0.0], [1.0, 1.0]])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data.errors import InputError
from ..data.interface import RatingMatrix
from ..data.model import Study
from ..data.outcomes import NOT_ASSIGNED_STATUS
from ..data.scale import Scale
from ..data.tables import TableMapping, declared_designs
from ..data.views import DimensionView

__all__ = ["MatrixStudy", "reduce_to_matrices"]

#: the statuses of the projection (:mod:`medjudge.engine.projection`), by code
STATUSES = ("ok", "invalid", "missing")


@dataclass
class MatrixStudy:
    """A study as dense matrices per dimension (see the module docstring).

    ``values[dimension]`` is ``(orders, items, raters)`` float (NaN: no usable value) and
    ``status[dimension]`` ``(orders, items, raters)`` int8 (``-1``: no verdict row, else an
    index into :data:`STATUSES`); raters and orders are listed in ``raters`` and ``orders``.
    """

    items: pd.DataFrame
    scales: dict[str, Scale]
    raters_by_role: dict[str, list[str]]
    orders: list[str]
    values: dict[str, np.ndarray]
    status: dict[str, np.ndarray]
    #: each dimension's raters in order of first appearance (the columns of ``matrix``)
    dimension_raters: dict[str, list[str]] = field(default_factory=dict)
    gold_table: pd.DataFrame | None = None
    name: str = "study"
    cluster: str | None = None
    exchangeable: tuple[str, ...] = ()
    role_names: dict[str, str] = field(default_factory=dict)
    #: the presentation design declared per dimension (:mod:`medjudge.data.design`)
    designs: dict[str, dict[str, Any]] = field(default_factory=dict)
    load_counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    answer_models: tuple[str, ...] = ()
    engine: str = "duckdb"

    def __post_init__(self) -> None:
        by_role = self.raters_by_role
        self._raters = [*by_role.get("expert", []), *by_role.get("judge", [])]
        self._col = {r: k for k, r in enumerate(self._raters)}
        self._cache: dict[object, Any] = {}

    # ------------------------------------------------------------------ what the study holds
    @property
    def dimensions(self) -> list[str]:
        return [d for d in self.scales if d in self.values]

    def raters(self, role: str | None = None) -> list[str]:
        """Rater names (of one role, or all)."""
        return list(self._raters if role is None else self.raters_by_role.get(role, []))

    @property
    def judges(self) -> list[str]:
        return list(self.raters_by_role.get("judge", []))

    @property
    def experts(self) -> list[str]:
        return list(self.raters_by_role.get("expert", []))

    @property
    def item_ids(self) -> list[str]:
        """Item ids in the study's order (converted once per ``items`` table: iterating an
        Arrow-backed column in Python costs seconds at 10^6 items)."""
        ids = self._cache.get("item_ids")
        if ids is None or ids[0] is not self.items:
            ids = (self.items, [str(i) for i in self.items["item"].to_numpy(dtype=object)])
            self._cache["item_ids"] = ids
        return list(ids[1])

    def judge_orders(self) -> list[str]:
        """Presentation orders among the judges' verdicts, sorted."""
        js = [self._col[j] for j in self.judges]
        used = {
            self.orders[o]
            for st in self.status.values()
            for o in range(len(self.orders))
            if (st[o][:, js] >= 0).any()
        }
        return sorted(used)

    def _cached(self, key: object, compute: Any) -> Any:
        """Memoise a derived view (the presentation design, the dimension views, gold)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # ------------------------------------------------------------------ matrices
    def _cells(self, dimension: str, order: str | None, cols: list[int]) -> tuple[Any, Any]:
        """(values, status) ``items × cols`` of one order, or of the one order each cell has."""
        v, s = self.values[dimension], self.status[dimension]
        if order is not None:
            if order not in self.orders:
                shape = (v.shape[1], len(cols))
                return np.full(shape, np.nan), np.full(shape, -1, dtype=np.int8)
            k = self.orders.index(order)
            return v[k][:, cols], s[k][:, cols]
        present = (s[:, :, cols] >= 0).sum(0)
        if (present > 1).any():
            raise ValueError(
                f"several verdicts per item and rater on {dimension!r} (orders "
                f"{', '.join(self.orders)}): choose one order (order=)"
            )
        first = np.argmax(s[:, :, cols] >= 0, axis=0)
        rows = np.arange(v.shape[1])[:, None]
        return v[first, rows, np.asarray(cols)], s[first, rows, np.asarray(cols)]

    def matrix(
        self,
        dimension: str,
        *,
        role: str | None = None,
        raters: list[str] | None = None,
        order: str | None = None,
        run: str | None = None,
        items: list[str] | None = None,
    ) -> RatingMatrix:
        """Dense ``items × raters`` codes of one dimension (NaN = missing), as
        :meth:`Study.matrix <medjudge.data.model.Study.matrix>`."""
        if dimension not in self.scales:
            raise KeyError(f"unknown dimension {dimension!r}; have {list(self.scales)}")
        if run not in (None, "1"):
            raise ValueError(f"run {run!r}: the columnar path reads one run")
        if raters is None:  # the dimension's raters (of the role) in order of first appearance
            keep = set(self.raters(role))
            raters = [r for r in self.dimension_raters.get(dimension, []) if r in keep]
        cols = [self._col.get(r, -1) for r in raters]
        vals, _ = self._cells(dimension, order, [c if c >= 0 else 0 for c in cols])
        vals = np.where(np.asarray(cols) >= 0, vals, np.nan) if cols else vals
        rows = self.item_ids if items is None else list(items)
        if items is not None:
            pos = pd.Index(self.item_ids).get_indexer(pd.Index(rows, dtype=object))
            vals = np.vstack([vals, np.full((1, vals.shape[1]), np.nan)])[pos]
        return RatingMatrix(vals, rows, list(raters), dimension, self.scales[dimension])

    def _status_matrix(self, dimension: str, judges: list[str], order: str | None) -> np.ndarray:
        cols = [self._col[j] for j in judges]
        s = self.status[dimension]
        if order is not None:
            _, st = self._cells(dimension, order, cols)
        else:  # the first order with a row (runs and orders are not told apart here)
            first = np.argmax(s[:, :, cols] >= 0, axis=0)
            st = s[first, np.arange(s.shape[1])[:, None], np.asarray(cols, dtype=np.int64)]
        words = np.array([*STATUSES, NOT_ASSIGNED_STATUS], dtype=object)
        return words[np.where(st >= 0, st, len(STATUSES))]

    # what only reads the interface above is the in-memory study's own code
    role_label = Study.role_label
    gold = Study.gold
    outcomes = Study.outcomes

    def _dimension_view(self, dimension: str) -> DimensionView:
        """The verdict cells of one dimension as a :class:`~medjudge.data.views.DimensionView`
        (one row per item x rater x order with a verdict), for the rules that read rows
        (:func:`medjudge.data.design.presentation_design`, :func:`~medjudge.data.design.assignment`)."""

        def compute() -> DimensionView:
            s = self.status[dimension]
            o, i, r = np.nonzero(s >= 0)
            judge = np.isin(r, [self._col[j] for j in self.judges])
            words = np.array(STATUSES, dtype=object)
            return DimensionView(
                item=i.astype(np.int64, copy=False), rater=r.astype(np.int64, copy=False),
                rater_names=list(self._raters), is_judge=judge, is_expert=~judge,
                order=o.astype(np.int64, copy=False),
                orders=list(self.orders), run=np.zeros(i.size, dtype=np.int64), runs=["1"],
                code=self.values[dimension][o, i, r], status=words[s[o, i, r]],
            )  # fmt: skip

        # not cached: one row per verdict (O(verdicts) memory), read by the design rules, whose
        # results are cached; the matrices stay the only copy of the data that is kept
        return compute()

    def __repr__(self) -> str:
        return (
            f"<Study {self.name!r} ({self.engine}): {len(self.items):,} items, "
            f"{len(self.experts)} experts, {len(self.judges)} judges, "
            f"{len(self.dimensions)} dimension{'s' if len(self.dimensions) != 1 else ''}>"
        )


def reduce_to_matrices(
    source: str | Path,
    mapping: TableMapping,
    *,
    engine: str = "duckdb",
    dimensions: list[str] | None = None,
    memory_limit: str | None = None,
    spark_master: str | None = None,
) -> MatrixStudy:
    """Reduce a mapped table on ``engine`` to a :class:`MatrixStudy` (see the module docstring).

    Parameters
    ----------
    source : path of a CSV/TSV, JSONL/JSON or Parquet table.
    mapping : TableMapping
        How to read it (roles, recoding, invalid tokens, scales, gold, orders, clusters).
    engine : {"duckdb", "spark"}
        Where the reduction runs; both send back the same matrices.
    dimensions : list of str, optional
        Reduce these dimensions only.
    memory_limit, spark_master : str, optional
        DuckDB's memory limit (``"4GB"``) and the Spark master (``"local[*]"``).

    Returns
    -------
    MatrixStudy
    """
    from .connect import connect, release
    from .projection import check, dimension_scales, project

    if engine not in ("duckdb", "spark"):
        raise InputError(f"--engine must be duckdb or spark for the columnar path; got {engine!r}")
    backend = connect(engine, memory_limit=memory_limit, spark_master=spark_master)
    proj = project(source, mapping, engine=engine, backend=backend)
    try:
        scales = dimension_scales(proj)
        counts = check(proj, scales)
        if dimensions:
            unknown = [d for d in dimensions if d not in scales]
            if unknown:
                raise InputError(
                    f"--dimensions {unknown[0]!r}: no such dimension; the data have "
                    + ", ".join(scales)
                )
            scales = {d: s for d, s in scales.items() if d in dimensions}
        return _reduce(proj, scales, counts, engine)
    finally:
        release(backend)


def _reduce(
    proj: Any, scales: dict[str, Scale], counts: dict[str, int], engine: str
) -> MatrixStudy:
    """The queries: rater order, item attributes, duplicates, the pivot and the gold."""

    from .connect import fetch
    from .projection import gold_table

    m = proj.mapping
    r = proj.ratings.filter(proj.ratings.dimension.isin(list(scales)))
    _refuse_duplicates(proj, r)
    combos = r.select("dimension", "rater", "role", "order").distinct().pipe(fetch)
    combos = combos.astype(str).sort_values(["dimension", "rater", "order"])
    overall, per_dim = rater_order(proj, combos)
    role = dict(zip(combos["rater"], combos["role"], strict=True))
    by_role = {k: [x for x in overall if role[x] == k] for k in ("expert", "judge")}
    orders = sorted(set(combos["order"]))
    items = _items(proj)
    raters = [*by_role.get("expert", []), *by_role.get("judge", [])]
    values, stat = _cells(proj.backend, r, scales, combos, items, raters, orders)
    gold = None
    if proj.gold is not None:
        g = gold_table(proj, scales).pipe(fetch).astype(str)
        gold = pd.DataFrame({"item": g["item"], "dimension": g["dimension"], "value": g["gold"]})
        for d, sc in scales.items():
            if not sc.is_categorical:
                rows_d = gold["dimension"] == d
                gold.loc[rows_d, "value"] = gold.loc[rows_d, "value"].map(float)
    return MatrixStudy(
        items=items, scales=dict(scales), raters_by_role=by_role, orders=orders,
        values=values, status=stat, dimension_raters=per_dim, gold_table=gold,
        name=Path(proj.path).stem,
        cluster=m.cluster, exchangeable=tuple(m.exchangeable), role_names=dict(m.role_names),
        designs=declared_designs(m, list(scales)),
        load_counts=counts, sources=[Path(proj.path)], answer_models=tuple(m.models),
        engine=engine,
    )  # fmt: skip


def _cells(
    backend: Any,
    r: Any,
    scales: dict[str, Scale],
    combos: pd.DataFrame,
    items: pd.DataFrame,
    raters: list[str],
    orders: list[str],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every verdict as (item position, dimension × rater × order index, code, status): small
    integers joined on next to the data and placed into the matrices batch by batch as they
    arrive (:func:`~medjudge.engine.connect.batches`), so the peak is the matrices, not the
    verdicts; each cell is written once whatever the order of the batches (one row per
    verdict was checked by :func:`_refuse_duplicates`)."""
    import ibis
    import pyarrow as pa

    from .connect import batches, small_table

    keys = combos[["dimension", "rater", "order"]].reset_index(drop=True)
    keys["k"] = np.arange(len(keys), dtype=np.int64)
    at = pd.DataFrame({"item": items["item"], "pos": np.arange(len(items), dtype=np.int64)})
    kt = small_table(backend, "medjudge_cell_keys", keys)
    it = small_table(backend, "medjudge_item_positions", at)
    t = r.join(kt, ["dimension", "rater", "order"]).join(it, "item")
    code = ibis.cases(
        *[(t.dimension == d, _code(t, sc)) for d, sc in scales.items()],
        else_=ibis.null().cast("float64"),
    )
    status = ibis.cases(*[(t.status == s, k) for k, s in enumerate(STATUSES)], else_=-1)
    col = {x: j for j, x in enumerate(raters)}
    k_order = np.array([orders.index(o) for o in keys["order"]], dtype=np.int64)
    k_rater = np.array([col[x] for x in keys["rater"]], dtype=np.int64)
    dims = [d for d in scales if d in set(keys["dimension"])]
    k_dim = np.array([dims.index(d) for d in keys["dimension"]], dtype=np.int64)
    shape = (len(orders), len(items), len(raters))
    values = {d: np.full(shape, np.nan) for d in dims}
    stat = {d: np.full(shape, -1, dtype=np.int8) for d in dims}
    cells = t.select(pos=t.pos, k=t.k, v=code, s=status)
    for b in batches(cells, by="pos", expected=len(keys) * len(items)):
        pos = b.column("pos").to_numpy().astype(np.int64, copy=False)
        k = b.column("k").to_numpy().astype(np.int64, copy=False)
        v = b.column("v").cast(pa.float64()).to_numpy(zero_copy_only=False)
        s = b.column("s").to_numpy().astype(np.int8)
        for j, dim in enumerate(dims):
            here = k_dim[k] == j if len(dims) > 1 else slice(None)
            kk = k[here]
            values[dim][k_order[kk], pos[here], k_rater[kk]] = v[here]
            stat[dim][k_order[kk], pos[here], k_rater[kk]] = s[here]
    return values, stat


def _code(t: Any, scale: Scale) -> Any:
    """The value of a usable verdict as the scale's float code (category index or score)."""
    import ibis

    if scale.is_categorical:
        return ibis.cases(
            *[(t.value == c, float(k)) for k, c in enumerate(scale.categories)],
            else_=ibis.null().cast("float64"),
        )
    return t.value.try_cast("float64")


def _items(proj: Any) -> pd.DataFrame:
    """One row per item with its attributes (the smallest value when an item's rows differ),
    in the study's natural order."""
    from ..data.model import natural_order
    from .connect import fetch

    it = proj.items
    attrs = list(proj.attributes)
    df = (
        it.group_by("item").aggregate(**{a: it[a].min() for a in attrs}).pipe(fetch)
        if attrs
        else it.select("item").distinct().pipe(fetch)
    )
    df["item"] = df["item"].astype(str)
    return df.iloc[natural_order(df["item"])].reset_index(drop=True)


def _refuse_duplicates(proj: Any, r: Any) -> None:
    """One line naming the first item × rater × dimension × order with several verdicts."""
    from ibis import _

    from .connect import fetch

    keys = ["dimension", "item", "rater", "order"]
    dup = r.group_by(keys).aggregate(n=_.count())
    dup = dup.filter(dup.n > 1).limit(1).pipe(fetch)
    if len(dup):
        d = dup.iloc[0]
        raise InputError(
            f"{int(d['n'])} verdict rows for item {d['item']!r}, rater {d['rater']!r}, "
            f"dimension {d['dimension']!r}"
            + (f", order {d['order']!r}" if d["order"] else "")
            + "; the columnar path reads one verdict per item, rater, dimension and order "
            "(several runs: use --engine memory)",
            file=proj.path,
        )


def rater_order(proj: Any, combos: pd.DataFrame) -> tuple[list[str], dict[str, list[str]]]:
    """The raters as the in-memory study lists them: their ids sorted (as text, by code point;
    :meth:`medjudge.data.model.Study.raters`), over the table and in each dimension
    (``Study.matrix``'s column order) — one order whatever the order of rows, columns or
    partitions, so sums over raters agree to the last bit on every engine."""
    del proj  # the order no longer depends on how the engine read the rows
    pairs = combos[["dimension", "rater"]].drop_duplicates().astype(str)
    dims = sorted(set(pairs["dimension"]))
    per_dim = {d: sorted(pairs.loc[pairs["dimension"] == d, "rater"]) for d in dims}
    return sorted(set(pairs["rater"])), per_dim
