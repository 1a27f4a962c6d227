"""The tidy data model: ratings, items, scales — validated once, handed out as dense arrays.

* **ratings** — one row per verdict: ``item, rater, role ("expert" | "judge"), dimension,
  value`` plus ``order`` (presentation order "AB"/"BA", "" when unknown), ``raw`` (the judge's
  original text), ``status`` (ok, partial, broadcast, invalid, missing), ``run`` (repeat id) and
  the provenance columns ``source`` and ``line`` (where the row came from, for error messages).
  ``value`` is the category label (str) for nominal/ordinal scales, a float for interval/ratio,
  and None when the verdict has no usable value (its ``status`` says why).
* **items** — one row per item: ``item`` plus attributes (organ_system, department, modality,
  cluster ids, response lengths …).
* **scales** — :class:`~medjudge.data.scale.Scale` per dimension.
* **gold** — supplied reference labels (``item, dimension, value``), optional.

Gold labels are always *derived explicitly* (:meth:`Study.gold`): expert majority, a designated
reference rater, or the supplied gold; the method and everything it could not label are recorded
in the returned :class:`Gold`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from .errors import InputError
from .parse import STATUSES
from .scale import Scale
from .views import DimensionView, dense, dimension_view

ROLES = ("expert", "judge")
RATING_COLUMNS = (
    "item",
    "rater",
    "role",
    "dimension",
    "value",
    "order",
    "raw",
    "status",
    "run",
    "source",
    "line",
)
KEY = ["item", "rater", "dimension", "order", "run"]
GoldMethod = Literal["auto", "majority", "plurality", "mean", "reference", "supplied"]


@dataclass(frozen=True)
class RatingMatrix:
    """Dense ``items × raters`` codes for one dimension (NaN = missing)."""

    values: np.ndarray
    items: list[str]
    raters: list[str]
    dimension: str
    scale: Scale

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            self.values, index=pd.Index(self.items, name="item"), columns=self.raters
        )


@dataclass(frozen=True)
class Gold:
    """A derived gold label per item for one dimension (NaN = no gold), and how it was made."""

    codes: np.ndarray
    items: list[str]
    dimension: str
    method: str
    rule: str
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # shared: Study.gold caches it, so nobody may change the codes in place
        codes = np.asarray(self.codes, dtype=float)
        codes.flags.writeable = False
        object.__setattr__(self, "codes", codes)

    @property
    def n_with_gold(self) -> int:
        return int(np.isfinite(self.codes).sum())


@dataclass(frozen=True)
class JudgeOutcomes:
    """Correctness of every judge on the items that have gold, for one dimension.

    ``outcome`` is ``(n_items, n_judges)``: 1.0 correct, 0.0 wrong, NaN = no usable verdict
    (invalid, partial-missing, or no prediction). The invalid-verdict *policy* is applied later,
    explicitly, by the metrics. ``pred`` holds the judges' category codes (NaN = none) and
    ``gold`` the gold codes. ``excluded`` counts items dropped for lack of gold.
    """

    outcome: np.ndarray
    pred: np.ndarray
    gold: np.ndarray
    status: np.ndarray
    items: list[str]
    judges: list[str]
    dimension: str
    order: str | None
    gold_method: str
    excluded: dict[str, int]
    scale: Scale


def natural_order(ids: pd.Series | list[str]) -> np.ndarray:
    """Positions that sort item ids naturally (``q2`` before ``q10``; ties keep input order)."""
    import re

    keys = [
        tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", str(x)))
        for x in ids
    ]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


def majority_gold(codes: np.ndarray, n_categories: int) -> tuple[np.ndarray, dict[str, int]]:
    """Strict-majority label per row of an ``items × experts`` code matrix.

    Rule: the category chosen by **more than half of the experts who rated the item** is gold;
    otherwise the item has no gold. With two experts who disagree, or a 1–1–1 split among three,
    there is no majority. Returns the codes (NaN = none) and counts of items without a label
    (``no_expert_label``) and with a split vote (``no_majority``).
    """
    codes = np.asarray(codes, dtype=float)
    n_rated = np.isfinite(codes).sum(axis=1)
    votes = np.stack([(codes == k).sum(axis=1) for k in range(n_categories)], axis=1)
    top = votes.argmax(axis=1)
    top_n = votes.max(axis=1)
    ok = (n_rated > 0) & (2 * top_n > n_rated)
    gold = np.where(ok, top.astype(float), np.nan)
    return gold, {
        "no_expert_label": int((n_rated == 0).sum()),
        "no_majority": int(((n_rated > 0) & ~ok).sum()),
    }


def plurality_gold(codes: np.ndarray, n_categories: int) -> tuple[np.ndarray, dict[str, int]]:
    """Plurality label per row of an ``items × raters`` code matrix (crowd labels).

    Rule: the category chosen most often among the raters who labelled the item is gold; when two
    or more categories tie for the top, the item has **no gold** (counted as ``tied_top``), never
    a silently picked winner. Returns the codes (NaN = none) and the counts.
    """
    codes = np.asarray(codes, dtype=float)
    n_rated = np.isfinite(codes).sum(axis=1)
    votes = np.stack([(codes == k).sum(axis=1) for k in range(n_categories)], axis=1)
    top_n = votes.max(axis=1)
    unique_top = (votes == top_n[:, None]).sum(axis=1) == 1
    ok = (n_rated > 0) & unique_top
    gold = np.where(ok, votes.argmax(axis=1).astype(float), np.nan)
    return gold, {
        "no_expert_label": int((n_rated == 0).sum()),
        "tied_top": int(((n_rated > 0) & ~unique_top).sum()),
        "no_gold": int((~ok).sum()),
    }


@dataclass
class Study:
    """Ratings + items + scales (+ supplied gold), validated once at construction.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> import pandas as pd
    >>> ratings = pd.DataFrame({'item': ['q1', 'q1', 'q2', 'q2'], 'rater': ['e1', 'j', 'e1', 'j'], 'role': ['expert', 'judge', 'expert', 'judge'], 'dimension': 'overall', 'value': ['A', 'A', 'B', 'A']})
    >>> st = mj.Study(ratings, pd.DataFrame({'item': ['q1', 'q2']}), {'overall': mj.Scale('nominal', ('A', 'B'))})
    >>> st.judges, st.experts, st.outcomes('overall').outcome.ravel().tolist()
    (['j'], ['e1'], [1.0, 0.0])
    """

    ratings: pd.DataFrame
    items: pd.DataFrame
    scales: dict[str, Scale]
    gold_table: pd.DataFrame | None = None
    sources: list[Path] = field(default_factory=list)
    name: str = "study"
    notes: list[str] = field(default_factory=list)
    load_counts: dict[str, int] = field(default_factory=dict)
    # pairwise studies: the two item attributes naming each answer's model, and model families
    # of judges / answer models (self-preference); optional, see data/FORMAT.md
    answer_models: tuple[str, ...] = ()
    judge_families: dict[str, str] = field(default_factory=dict)
    model_families: dict[str, str] = field(default_factory=dict)
    # the item attribute whose values group items (several questions per image); None: the
    # analyses look for image_id/case_id/patient_id/cluster
    cluster: str | None = None
    # roles whose rater ids are slots (crowd annotations), not persons: only rater-exchangeable
    # statistics apply to them (see data/FORMAT.md "Exchangeable raters")
    exchangeable: tuple[str, ...] = ()
    # how the study calls its roles in text ("crowd workers", "physicians"); default: role name
    role_names: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ratings = _normalise_ratings(self.ratings)
        self.items = self.items.copy()
        if "item" not in self.items.columns:
            raise InputError("items table has no 'item' column")
        self.items["item"] = self.items["item"].astype(str)
        if self.items["item"].duplicated().any():
            dup = self.items.loc[self.items["item"].duplicated(), "item"].iloc[0]
            raise InputError(f"item {dup!r} is listed twice in the items table")
        # one canonical item order (natural sort of the ids), so that everything indexed by item
        # position — resampling weights above all — does not depend on the input's row order
        self.items = self.items.iloc[natural_order(self.items["item"])].reset_index(drop=True)
        self._validate()
        self.answer_models = tuple(self.answer_models)
        if self.answer_models:
            if len(self.answer_models) != 2:
                raise InputError(
                    f"answer_models must name two item columns, got {self.answer_models}"
                )
            absent = [c for c in self.answer_models if c not in self.items.columns]
            if absent:
                raise InputError(f"answer-model column(s) {absent} are not item attributes")
        if self.cluster is not None and self.cluster not in self.items.columns:
            raise InputError(
                f"cluster column {self.cluster!r} is not an item attribute",
                column=self.cluster,
                hint=f"item attributes: {[c for c in self.items.columns if c != 'item']}",
            )
        self.exchangeable = tuple(self.exchangeable)
        bad = [r for r in self.exchangeable if r not in ROLES]
        if bad:
            raise InputError(f"exchangeable roles must be among {ROLES}, got {bad}")
        self._codes: dict[str, np.ndarray] = {}
        self._views: dict[object, object] = {}
        self._views_of: pd.DataFrame | None = None

    def _cached(self, key: object, compute):  # noqa: ANN001, ANN202
        """Memoise a derived view of ``ratings`` (categorical codes, rater lists, row masks).

        The cache is keyed by the identity of the ratings frame: assigning a new frame to
        ``study.ratings`` starts a fresh cache (the frame itself is treated as immutable).
        """
        if self._views_of is not self.ratings:
            self._views = {}
            self._codes = {}
            self._views_of = self.ratings
        if key not in self._views:
            self._views[key] = compute()
        return self._views[key]

    def _rows(self, dimension: str) -> np.ndarray:
        """Boolean mask of the ratings rows of one dimension (cached)."""
        return self._cached(
            ("rows", dimension), lambda: (self.ratings["dimension"] == dimension).to_numpy()
        )

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        r = self.ratings
        bad_role = ~r["role"].isin(ROLES)
        if bad_role.any():
            row = r[bad_role].iloc[0]
            raise InputError(
                f"role {row['role']!r} is not one of {ROLES}",
                file=row["source"] or None,
                line=_line(row),
                column="role",
            )
        unknown_dim = sorted({str(d) for d in r["dimension"].unique()} - set(self.scales))
        if unknown_dim:
            row = r[r["dimension"] == unknown_dim[0]].iloc[0]
            raise InputError(
                f"dimension {unknown_dim[0]!r} has no declared scale",
                file=row["source"] or None,
                line=_line(row),
                column="dimension",
                hint=f"declared: {sorted(self.scales)}",
            )
        bad_status = ~r["status"].isin(STATUSES)
        if bad_status.any():
            row = r[bad_status].iloc[0]
            raise InputError(
                f"status {row['status']!r} is not one of {STATUSES}",
                file=row["source"] or None,
                line=_line(row),
                column="status",
            )
        for dim, scale in self.scales.items():
            sub = r.loc[(r["dimension"] == dim).to_numpy() & r["value"].notna().to_numpy(), "value"]
            # each distinct label checked once (the first row holding a bad one is named);
            # categories compare as text, as Scale.contains does (1 and 1.0 are different)
            keys = sub.astype(str) if scale.is_categorical else sub
            bad = [v for v in pd.unique(keys) if not scale.contains(v)]
            if bad:
                row = r.loc[sub.index[keys.isin(bad).to_numpy()][0]]
                allowed = (
                    list(scale.categories)
                    if scale.is_categorical
                    else f"[{scale.low}, {scale.high}]"
                )
                raise InputError(
                    f"label {row['value']!r} for dimension {dim!r} is outside the declared scale",
                    file=row["source"] or None,
                    line=_line(row),
                    column="value",
                    hint=f"allowed: {allowed}; declare unparseable tokens as invalid in the mapping",
                )
        dup = r.duplicated(KEY, keep=False)
        if dup.any():
            rows = r[dup].sort_values(KEY).head(2)
            first, second = rows.iloc[0], rows.iloc[1]
            raise InputError(
                f"duplicate rating for item {first['item']!r}, rater {first['rater']!r}, dimension "
                f"{first['dimension']!r}, order {first['order']!r} (also at {second['source']}"
                f"{', line ' + str(_line(second)) if _line(second) else ''})",
                file=first["source"] or None,
                line=_line(first),
                column="item/rater/dimension/order",
                hint="remove the repeat, or give repeats distinct 'run' values",
            )
        role_per_rater = r.groupby("rater")["role"].nunique()
        if (role_per_rater > 1).any():
            rater = role_per_rater[role_per_rater > 1].index[0]
            raise InputError(f"rater {rater!r} appears both as expert and as judge")
        missing_items = sorted(
            {str(i) for i in r["item"].unique()} - {str(i) for i in self.items["item"].unique()}
        )
        if missing_items:
            row = r[r["item"] == missing_items[0]].iloc[0]
            raise InputError(
                f"rating refers to item {missing_items[0]!r}, which is not in the items table",
                file=row["source"] or None,
                line=_line(row),
                column="item",
                hint=f"{len(missing_items)} unknown item id(s) in all",
            )
        if self.gold_table is not None:
            g = self.gold_table.copy()
            g["item"] = g["item"].astype(str)
            for dim, scale in self.scales.items():
                vals = g.loc[(g["dimension"] == dim) & g["value"].notna(), "value"]
                bad = ~vals.map(scale.contains)
                if bad.any():
                    raise InputError(
                        f"gold label {vals[bad].iloc[0]!r} for {dim!r} is outside the declared scale"
                    )
            self.gold_table = g

    # ------------------------------------------------------------------ roles
    def role_label(self, role: str) -> str:
        """How the study calls a role's raters in text, plural (``[role_names]`` in the mapping
        holds the singular, e.g. ``expert = "crowd worker"``; default ``experts``/``judges``)."""
        word = self.role_names.get(role, role)
        return word if word.endswith("s") else word + "s"

    def require_persons(self, role: str, analysis: str) -> None:
        """Refuse a per-rater analysis when the role's rater ids are exchangeable slots.

        Raises
        ------
        InputError
            One line naming the analysis and why it does not apply.
        """
        if role in self.exchangeable:
            raise InputError(
                f"{analysis} needs the same {self.role_label(role)} across items, but the "
                f"{role} rater ids are exchangeable annotation slots (mapping: exchangeable)",
                hint="rater-exchangeable statistics apply: Fleiss' kappa, Krippendorff's alpha, "
                "multi-rater Gwet AC, per-item agreement",
            )

    # ------------------------------------------------------------------ views
    @property
    def dimensions(self) -> list[str]:
        present = self._cached(
            "dimensions", lambda: {str(d) for d in self.ratings["dimension"].unique()}
        )
        return [d for d in self.scales if d in present]

    def raters(self, role: str | None = None) -> list[str]:
        """Rater names in order of first appearance (of one role, or all); cached."""

        def compute() -> list[str]:
            r = self.ratings
            col = r["rater"] if role is None else r.loc[(r["role"] == role).to_numpy(), "rater"]
            return [str(x) for x in pd.unique(col)]

        return list(self._cached(("raters", role), compute))

    @property
    def judges(self) -> list[str]:
        return self.raters("judge")

    @property
    def experts(self) -> list[str]:
        return self.raters("expert")

    @property
    def item_ids(self) -> list[str]:
        """Item ids in the study's canonical (natural) order (cached)."""
        if getattr(self, "_item_ids_of", None) is not self.items:
            self._item_ids = [str(i) for i in self.items["item"].to_numpy(dtype=object)]
            self._item_ids_of = self.items
        return list(self._item_ids)

    @property
    def orders(self) -> list[str]:
        return list(
            self._cached("orders", lambda: sorted(str(o) for o in self.ratings["order"].unique()))
        )

    def judge_orders(self) -> list[str]:
        """Presentation orders present among the judges' verdicts, sorted (cached)."""
        r = self.ratings
        return list(
            self._cached(
                "judge_orders",
                lambda: sorted(
                    str(o) for o in r.loc[(r["role"] == "judge").to_numpy(), "order"].unique()
                ),
            )
        )

    def codes(self, dimension: str) -> np.ndarray:
        """Float codes of ``ratings.value`` for the rows of one dimension (cached)."""
        self._cached(None, lambda: None)  # resets the caches if ratings were replaced
        if dimension not in self._codes:
            values = self.ratings["value"].to_numpy()[self._rows(dimension)]
            self._codes[dimension] = self.scales[dimension].encode(values)
        return self._codes[dimension]

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
        """Dense ``items × raters`` code matrix for one dimension (NaN = missing).

        Rows follow the items table (or ``items``); columns follow ``raters`` (or the order in
        which raters first appear). If a rater has verdicts in several presentation orders or
        runs, ``order``/``run`` must say which.
        """
        if dimension not in self.scales:
            raise KeyError(f"unknown dimension {dimension!r}; have {list(self.scales)}")
        v = self._dimension_view(dimension)
        keep = v.select(role=role, raters=raters, order=order, run=run)
        item, rater = v.item[keep], v.rater[keep]
        pair = item.astype(np.int64) * max(len(v.rater_names), 1) + rater
        if np.unique(pair).size != pair.size:
            raise ValueError(
                f"several verdicts per item and rater on {dimension!r} (orders "
                f"{sorted({v.orders[k] for k in np.unique(v.order[keep])})}, runs "
                f"{sorted({v.runs[k] for k in np.unique(v.run[keep])})}): pass order= or run="
            )
        cols = raters if raters is not None else [v.rater_names[k] for k in pd.unique(rater)]
        rows = items if items is not None else self.item_ids
        values = dense(v, keep, v.code, rows, cols, self.item_ids, np.nan)
        return RatingMatrix(values, list(rows), list(cols), dimension, self.scales[dimension])

    def _dimension_view(self, dimension: str) -> DimensionView:
        """Integer codes of the rows of one dimension (item, rater, role, order, run), cached."""

        def compute() -> DimensionView:
            cols = ["item", "rater", "role", "order", "run", "status"]  # what the view reads
            sub = self.ratings.loc[self._rows(dimension), cols]
            return dimension_view(sub, self.item_ids, self.codes(dimension))

        return self._cached(("view", dimension), compute)

    def gold(
        self, dimension: str, method: GoldMethod = "auto", *, reference: str | None = None
    ) -> Gold:
        """Derive the gold label for one dimension.

        * ``majority`` — strict majority of the experts (see :func:`majority_gold`).
        * ``reference`` — the labels of one designated rater (``reference=``).
        * ``supplied`` — the gold table shipped with the data (e.g. Med-RewardBench
          ``human_answer``).
        * ``auto`` — ``supplied`` when a gold table exists, else ``majority`` of the experts.
        """
        return self._cached(
            ("gold", dimension, method, reference),
            lambda: self._derive_gold(dimension, method, reference),
        )

    def _derive_gold(self, dimension: str, method: GoldMethod, reference: str | None) -> Gold:
        scale = self.scales[dimension]
        if method == "auto":
            if self.gold_table is not None:
                method = "supplied"
            else:
                method = "majority" if scale.is_categorical else "mean"
        if method == "mean":
            if not self.experts:
                raise ValueError("no expert ratings: mean gold is impossible; use supplied gold")
            if scale.is_categorical:
                raise ValueError(
                    f"mean gold needs an interval or ratio scale; {dimension!r} is {scale.level}"
                )
            m = self.matrix(dimension, role="expert").values
            n_rated = np.isfinite(m).sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                codes = np.where(n_rated > 0, np.nansum(m, axis=1) / np.maximum(n_rated, 1), np.nan)
            return Gold(
                codes,
                self.item_ids,
                dimension,
                "mean",
                "mean score of the experts who rated the item",
                {
                    "no_expert_label": int((n_rated == 0).sum()),
                    "no_gold": int((n_rated == 0).sum()),
                },
            )
        if method == "supplied":
            if self.gold_table is None:
                raise ValueError(
                    "no supplied gold in this study; use method='majority' or 'reference'"
                )
            g = self.gold_table[self.gold_table["dimension"] == dimension].set_index("item")[
                "value"
            ]
            vals = g.reindex(self.item_ids)
            codes = scale.encode([None if pd.isna(v) else v for v in vals])
            return Gold(
                codes,
                self.item_ids,
                dimension,
                "supplied",
                "gold labels shipped with the data",
                {"no_gold": int(np.isnan(codes).sum())},
            )
        if method == "reference":
            if reference is None:
                raise ValueError("method='reference' needs reference=<rater>")
            m = self.matrix(dimension, raters=[reference])
            codes = m.values[:, 0]
            return Gold(
                codes,
                self.item_ids,
                dimension,
                "reference",
                f"labels of rater {reference!r}",
                {"no_gold": int(np.isnan(codes).sum())},
            )
        if method in ("majority", "plurality"):
            if not self.experts:
                raise ValueError(
                    "no expert ratings: majority gold is impossible; use supplied or reference gold"
                )
            if not scale.is_categorical:
                raise ValueError(
                    f"majority gold needs a categorical scale; {dimension!r} is {scale.level}"
                )
            m = self.matrix(dimension, role="expert")
            codes, counts = majority_gold(m.values, len(scale.categories))
            counts["no_gold"] = int(np.isnan(codes).sum())
            if method == "plurality":
                codes, counts = plurality_gold(m.values, len(scale.categories))
                return Gold(
                    codes,
                    self.item_ids,
                    dimension,
                    "plurality",
                    "most frequent label among the experts who rated the item; tied tops have no gold",
                    counts,
                )
            return Gold(
                codes,
                self.item_ids,
                dimension,
                "majority",
                "strict majority (> half) of the experts who rated the item; split votes have no gold",
                counts,
            )
        raise ValueError(f"unknown gold method {method!r}")

    def outcomes(
        self,
        dimension: str,
        *,
        gold: Gold | None = None,
        judges: list[str] | None = None,
        order: str | None = None,
    ) -> JudgeOutcomes:
        """``items × judges`` correctness against gold (items without gold removed and counted)."""
        gold = gold if gold is not None else self.gold(dimension)
        judges = judges if judges is not None else self.judges
        if order is not None:
            present = self.judge_orders()
            if order not in present:
                raise ValueError(
                    f"order={order!r}: no judge verdicts in that presentation order; "
                    f"orders present: {', '.join(p for p in present if p) or 'none recorded'}"
                )
        if order is None:
            orders = self.judge_orders()
            if len(orders) > 1:
                order = "AB" if "AB" in orders else orders[0]
        m = self.matrix(dimension, raters=judges, order=order)
        st = self._status_matrix(dimension, judges, order)
        has_gold = np.isfinite(gold.codes)
        pred = m.values[has_gold]
        g = gold.codes[has_gold]
        with np.errstate(invalid="ignore"):
            outcome = np.where(np.isnan(pred), np.nan, (pred == g[:, None]).astype(float))
        excluded = {"items_without_gold": int((~has_gold).sum())}
        excluded.update({f"gold_{k}": v for k, v in gold.counts.items() if k != "no_gold"})
        items = [it for it, h in zip(self.item_ids, has_gold, strict=True) if h]
        return JudgeOutcomes(
            outcome,
            pred,
            g,
            st[has_gold],
            items,
            list(judges),
            dimension,
            order,
            gold.method,
            excluded,
            self.scales[dimension],
        )

    def _status_matrix(self, dimension: str, judges: list[str], order: str | None) -> np.ndarray:
        v = self._dimension_view(dimension)
        keep = v.select(raters=judges, order=order)
        # the first row of each item x judge (runs are not told apart here)
        return dense(v, keep, v.status, self.item_ids, judges, self.item_ids, "missing", first=True)

    # ------------------------------------------------------------------ accounting
    def summary(self) -> dict[str, object]:
        """Counts a user checks before trusting anything: per role, rater, dimension, status."""
        r = self.ratings
        out: dict[str, object] = {
            "name": self.name,
            "n_items": len(self.items),
            "n_ratings": len(r),
            "dimensions": self.dimensions,
            "roles": {k: int(v) for k, v in r.groupby("role")["rater"].nunique().items()},
            "ratings_per_role": {
                k: int(v) for k, v in r["role"].value_counts().sort_index().items()
            },
            "experts": self.experts,
            "judges": self.judges,
            "orders": self.orders,
            "status": _most_common(r["status"]),
            "status_per_judge": {
                rater: {k: int(v) for k, v in g["status"].value_counts().sort_index().items()}
                for rater, g in r[r["role"] == "judge"].groupby("rater", sort=False)
            },
            "verdicts_without_value": int(r["value"].isna().sum()),
            "not_ok_reasons": (
                {k: int(v) for k, v in r.loc[r["status"] != "ok", "note"].value_counts().items()}
                if "note" in r.columns
                else {}
            ),
            "duplicates": 0,
            "load_counts": dict(self.load_counts),
            "notes": list(self.notes),
        }
        gold_rows = {}
        for dim in self.dimensions:
            try:
                g = self.gold(dim)
            except ValueError as e:  # no experts and no supplied gold
                gold_rows[dim] = {"method": "none", "error": str(e)}
                continue
            gold_rows[dim] = {"method": g.method, "with_gold": g.n_with_gold, **g.counts}
        out["gold"] = gold_rows
        if self.gold_table is not None and self.experts:
            mism = {}
            for dim in [d for d in self.dimensions if self.scales[d].is_categorical]:
                sup, maj = self.gold(dim, "supplied").codes, self.gold(dim, "majority").codes
                both = np.isfinite(sup) & np.isfinite(maj)
                mism[dim] = int((sup[both] != maj[both]).sum())
            out["supplied_vs_majority_mismatch"] = mism
        # study-model facts beyond the defaults are listed (absent keys: the defaults)
        levels = {d: self.scales[d].level for d in self.dimensions}
        if len({(s.level, s.categories) for s in self.scales.values()}) > 1:
            out["scales"] = {
                d: {"level": levels[d], "categories": list(self.scales[d].categories)}
                for d in self.dimensions
            }
        if self.cluster:
            out["cluster"] = self.cluster
        if self.exchangeable:
            out["exchangeable"] = list(self.exchangeable)
        if self.role_names:
            out["role_names"] = dict(self.role_names)
        return out

    def rater_table(self) -> pd.DataFrame:
        """One row per rater × status with counts (the parse accounting table)."""
        r = self.ratings
        t = (
            r.groupby(["role", "rater", "status"], sort=False)
            .size()
            .unstack("status", fill_value=0)
        )
        for s in STATUSES:
            if s not in t.columns:
                t[s] = 0
        t = t[list(STATUSES)]
        t["total"] = t.sum(axis=1)
        return t.reset_index()


def _most_common(col: pd.Series) -> dict[str, int]:
    """``{value: count}`` by decreasing count, ties in order of first appearance
    (``collections.Counter(col).most_common()``, without iterating the column in Python)."""
    counts = col.value_counts(dropna=False)
    first = pd.unique(col)
    return {str(k): int(counts[k]) for k in sorted(first, key=lambda k: -int(counts[k]))}


def _line(row: pd.Series) -> int | None:
    v = row.get("line")
    return None if v is None or pd.isna(v) else int(v)


def _normalise_ratings(df: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("item", "rater", "role", "dimension", "value") if c not in df.columns]
    if missing:
        raise InputError(f"ratings table lacks required column(s) {missing}")
    out = df.copy()
    defaults = {"order": "", "raw": None, "status": None, "run": "1", "source": "", "line": np.nan}
    for c, d in defaults.items():
        if c not in out.columns:
            out[c] = d
    for c in ("item", "rater", "role", "dimension", "order", "run", "source"):
        out[c] = out[c].fillna("").astype(str)
    out["value"] = out["value"].astype(object).where(out["value"].notna(), None)
    if out["status"].isna().any():
        out.loc[out["status"].isna(), "status"] = np.where(
            out.loc[out["status"].isna(), "value"].isna(), "invalid", "ok"
        )
    out["status"] = out["status"].astype(str)
    extra = [c for c in out.columns if c not in RATING_COLUMNS]
    return out[list(RATING_COLUMNS) + extra].reset_index(drop=True)
