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

This module holds :class:`Study` (construction, cached views, dense matrices; its
:class:`RatingMatrix` is defined in :mod:`~medjudge.data.interface`); the pieces it delegates to
are :mod:`~medjudge.data.ratings` (columns, normalisation, validation), :mod:`~medjudge.data.gold`
(gold rules), :mod:`~medjudge.data.outcomes` (judge correctness), :mod:`~medjudge.data.design`
and :mod:`~medjudge.data.accounting` (summary counts). They read the study through
:class:`~medjudge.data.interface.StudyLike` and never import this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import accounting
from .errors import InputError
from .gold import derive_gold, resolve_gold_method
from .interface import Gold, GoldMethod, RatingMatrix
from .outcomes import NOT_ASSIGNED_STATUS, JudgeOutcomes, judge_outcomes
from .ratings import ROLES, _normalise_ratings, _validate
from .scale import Scale
from .views import DimensionView, dense, dimension_view

__all__ = ["RatingMatrix", "Study", "natural_order"]


def natural_order(ids: pd.Series | list[str]) -> np.ndarray:
    """Positions that sort item ids naturally (``q2`` before ``q10``).

    A total order on the ids themselves: ids equal under the natural key (``q1`` and ``q01``)
    are ordered by their text, so the order — and everything resampled by item position —
    never depends on the input's row order.

    >>> natural_order(["q10", "q01", "q2", "q1"]).tolist()
    [1, 3, 2, 0]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pa.array([str(x) for x in ids], type=pa.string())
    parts = pc.extract_regex(text, r"^(?P<pre>\D*)(?P<num>\d{1,18})$")
    if len(text) and parts.null_count == 0 and pc.all(pc.string_is_ascii(text)).as_py():
        # the common form, an ASCII prefix and number: the natural key is (prefix, number),
        # then the text, then the position (sorted() below is stable), sorted by Arrow (UTF-8
        # byte order is code point order, as Python compares str)
        keys = {"p": parts.field("pre"), "n": pc.cast(parts.field("num"), pa.int64()), "t": text}
        keys["i"] = pa.array(np.arange(len(text)))
        order = pc.sort_indices(pa.table(keys), sort_keys=[(k, "ascending") for k in keys])
        return order.to_numpy().astype(np.intp)
    split = _DIGIT_RUNS.split
    keys = [
        (tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in split(str(x))), str(x))
        for x in ids
    ]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


_DIGIT_RUNS = re.compile(r"(\d+)")


@dataclass
class Study:
    """Ratings + items + scales (+ supplied gold), validated once at construction.

    Usually built by :func:`medjudge.load` from files; constructing one directly validates the
    same way (an unknown role, a dimension without a scale, a value outside its scale or a
    duplicated item raises :class:`~medjudge.data.errors.InputError` naming the row).

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating, long form. Required columns ``item``, ``rater``, ``role``
        (``"expert"`` or ``"judge"``), ``dimension`` and ``value`` (``None`` for a missing or
        invalid verdict); optional ``order``, ``raw``, ``status`` (default ``"ok"``, or
        ``"invalid"`` where ``value`` is missing), ``run`` (default ``"1"``), ``source`` and
        ``line``. Further columns are kept.
    items : pandas.DataFrame
        One row per item with an ``item`` column (unique ids) and any item attributes
        (subgroups, clusters, answer models). Rows are put in natural order of the ids.
    scales : dict of str to Scale
        The measurement scale of every dimension that occurs in ``ratings``.
    gold_table : pandas.DataFrame or None, default None
        Supplied gold labels (columns ``item``, ``dimension``, ``value``); ``None``: gold is
        derived from the experts when an analysis asks for it.
    sources : list of pathlib.Path, default []
        The files the study was read from (for messages and reports).
    name : str, default "study"
        The study's name in reports.
    notes : list of str, default []
        Notes recorded while loading (what was dropped or assumed, and why).
    load_counts : dict of str to int, default {}
        Counts recorded while loading (rows read, rows skipped, …).
    answer_models : tuple of str, default ()
        Pairwise studies: the two item columns naming the models behind answers A and B.
    judge_families, model_families : dict of str to str, default {}
        Model family of each judge and of each answer model (self-preference analyses).
    cluster : str or None, default None
        The item attribute whose values group items (e.g. several questions per image);
        ``None``: the analyses look for ``image_id``, ``case_id``, ``patient_id`` or
        ``cluster``.
    exchangeable : tuple of str, default ()
        Roles whose rater ids are slots (crowd annotations), not persons: only
        rater-exchangeable statistics apply to them.
    role_names : dict of str to str, default {}
        How the report calls each role (``{"expert": "physicians"}``); default the role name.
    designs : dict of str to dict, default {}
        The presentation design declared per dimension (``presentation``: ``"pairwise"`` or
        ``"single"``; ``first``/``second``/``tie`` categories; ``accuracy_order``); what is
        not declared is inferred from the data (:mod:`medjudge.data.design`).

    References
    ----------
    medjudge's data model: the ratings, items, scales, gold, clusters and exchangeable raters
    are described in ``data/FORMAT.md`` in the repository.

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
    # the presentation design declared per dimension (data/design.py infers the rest)
    designs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ratings = _normalise_ratings(self.ratings)
        self._codes: dict[str, np.ndarray] = {}
        self._views: dict[object, object] = {}
        self._views_of: pd.DataFrame | None = None  # the checks below fill the caches too
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
        self.gold_table = _validate(
            self.ratings, self.items, self.scales, self.gold_table, self._rows
        )
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
        self.designs = {str(d): dict(v) for d, v in (self.designs or {}).items()}
        for d, spec in self.designs.items():
            if d not in self.scales:
                raise InputError(
                    f"a design is declared for dimension {d!r}, which the data do not have",
                    hint=f"dimensions: {sorted(self.scales)}",
                )
            cats = [str(c) for c in self.scales[d].categories]
            for k in ("first", "second", "tie"):
                if spec.get(k) is not None and str(spec[k]) not in cats:
                    raise InputError(
                        f"the design of {d!r} names {k} = {spec[k]!r}, not a category of its scale",
                        hint=f"categories: {cats}",
                    )

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
        """Rater names (of one role, or all) sorted (as text, by code point); cached.

        One canonical order whatever the input's order of rows or columns: every matrix has
        its rater columns in this order, so sums over raters — and every number built from
        them — are the same to the last bit for a permuted input.
        """

        def compute() -> list[str]:
            r = self.ratings
            col = r["rater"] if role is None else r.loc[(r["role"] == role).to_numpy(), "rater"]
            return sorted(str(x) for x in pd.unique(col))

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

        Rows follow the items table (or ``items``); columns follow ``raters`` (or the raters
        present, sorted: one order whatever the input's). If a rater has verdicts in several presentation orders or
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
                f"{', '.join(sorted({str(v.orders[k]) for k in np.unique(v.order[keep])}))}; runs "
                f"{', '.join(sorted({str(v.runs[k]) for k in np.unique(v.run[keep])}))}): "
                "choose one order and one run (order=, run=)"
            )
        # without ``raters``: the raters present, sorted (the canonical order of :meth:`raters`)
        cols = raters if raters is not None else sorted(v.rater_names[k] for k in np.unique(rater))
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
        if dimension in self.scales:  # "auto" and the method it stands for: one cache entry
            method = resolve_gold_method(self, dimension, method)
        return self._cached(
            ("gold", dimension, method, reference),
            lambda: derive_gold(self, dimension, method, reference),
        )

    def outcomes(
        self,
        dimension: str,
        *,
        gold: Gold | None = None,
        judges: list[str] | None = None,
        order: str | None = None,
    ) -> JudgeOutcomes:
        """``items × judges`` correctness against gold (items without gold removed and counted)."""
        return judge_outcomes(self, dimension, gold=gold, judges=judges, order=order)

    def _status_matrix(self, dimension: str, judges: list[str], order: str | None) -> np.ndarray:
        v = self._dimension_view(dimension)
        keep = v.select(raters=judges, order=order)
        # the first row of each item x judge (runs are not told apart here)

        return dense(
            v, keep, v.status, self.item_ids, judges, self.item_ids, NOT_ASSIGNED_STATUS,
            first=True,
        )  # fmt: skip

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        """One line of counts; ``summary()`` and, in a notebook, the HTML view give detail."""
        roles = ", ".join(
            f"{n} {self.role_label(r) if n != 1 else self.role_names.get(r, r)}"
            for r, n in (("expert", len(self.experts)), ("judge", len(self.judges)))
        )
        return (
            f"<Study {self.name!r}: {len(self.items):,} items, {roles}, "
            f"{len(self.scales)} dimension{'s' if len(self.scales) != 1 else ''}, "
            f"{len(self.ratings):,} ratings>"
        )

    def _repr_html_(self) -> str:
        """The counts per role and dimension as a small HTML table (Jupyter)."""
        import html

        rows = "".join(
            f"<tr><td>{html.escape(str(d))}</td><td>{html.escape(sc.kind)}</td>"
            f"<td>{html.escape(', '.join(sc.categories) or '-')}</td></tr>"
            for d, sc in self.scales.items()
        )
        return (
            f"<p>{html.escape(repr(self))}</p><table><thead><tr><th>dimension</th>"
            f"<th>scale</th><th>categories</th></tr></thead><tbody>{rows}</tbody></table>"
        )

    # ------------------------------------------------------------------ accounting
    def summary(self) -> dict[str, object]:
        """Counts a user checks before trusting anything: per role, rater, dimension, status."""
        return accounting.summary(self)

    def rater_table(self) -> pd.DataFrame:
        """One row per rater × status with counts (the parse accounting table)."""
        return accounting.rater_table(self)
