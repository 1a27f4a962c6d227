"""Accounting of a study: the counts a user checks before trusting anything.

:func:`summary` (items, ratings, raters per role, parse statuses per judge, gold method and
coverage per dimension, supplied-versus-majority mismatches, the study-model facts) and
:func:`rater_table` (one row per rater × parse status), behind :meth:`Study.summary
<medjudge.data.model.Study.summary>` and :meth:`Study.rater_table
<medjudge.data.model.Study.rater_table>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .interface import StudyLike
from .parse import STATUSES
from .scale import Scale


def summary(study: StudyLike) -> dict[str, object]:
    """Counts a user checks before trusting anything: per role, rater, dimension, status."""
    r = study.ratings
    out: dict[str, object] = {
        "name": study.name,
        "n_items": len(study.items),
        "n_ratings": len(r),
        "dimensions": study.dimensions,
        "roles": {k: int(v) for k, v in r.groupby("role")["rater"].nunique().items()},
        "ratings_per_role": {k: int(v) for k, v in r["role"].value_counts().sort_index().items()},
        "experts": study.experts,
        "judges": study.judges,
        "orders": study.orders,
        "status": _most_common(r["status"]),
        "status_per_judge": {
            rater: {k: int(v) for k, v in g["status"].value_counts().sort_index().items()}
            for rater, g in r.loc[r["role"] == "judge", ["rater", "status"]].groupby("rater")
        },
        "verdicts_without_value": int(r["value"].isna().sum()),
        "not_ok_reasons": (
            {k: int(v) for k, v in r.loc[r["status"] != "ok", "note"].value_counts().items()}
            if "note" in r.columns
            else {}
        ),
        "duplicates": 0,
        "load_counts": dict(study.load_counts),
        "notes": list(study.notes),
    }
    out.update(study_facts(study))
    return out


def study_facts(study: StudyLike) -> dict[str, object]:
    """The summary's facts about the study model, read through the study's interface only
    (gold, presentation design, the judge design, supplied vs majority gold, settings), so a
    study reduced on an engine (:class:`medjudge.engine.matrices.MatrixStudy`) states the same."""
    from .design import assignment, presentation_design

    out: dict[str, object] = {"gold": gold_summary(study)}
    out["presentation"] = {d: presentation_design(study, d).kind for d in study.dimensions}
    out["design"] = {d: presentation_design(study, d).to_dict() for d in study.dimensions}
    if study.judges:
        # item x dimension cells a judge has no verdict row for: it was not given the item
        # (left out of its estimates under every invalid-verdict policy, not counted as invalid)
        lacking: dict[str, dict[str, int]] = {}
        for dim in study.dimensions:
            absent = (~assignment(study, dim, study.judges)).sum(0)
            for j, n in zip(study.judges, absent, strict=True):
                if n:
                    lacking.setdefault(j, {})[dim] = int(n)
        if lacking:
            out["not_assigned"] = lacking
    if study.gold_table is not None and study.experts:
        mism = {}
        for dim in [d for d in study.dimensions if study.scales[d].is_categorical]:
            sup, maj = study.gold(dim, "supplied").codes, study.gold(dim, "majority").codes
            both = np.isfinite(sup) & np.isfinite(maj)
            mism[dim] = int((sup[both] != maj[both]).sum())
        out["supplied_vs_majority_mismatch"] = mism
    # study-model facts beyond the defaults are listed (absent keys: the defaults)
    out.update(model_settings(study.scales, study.dimensions, study))
    return out


def gold_summary(study: StudyLike) -> dict[str, dict[str, object]]:
    """Per dimension: the gold method ``auto`` picks, the items with gold and the counts of
    those without (by reason), as :meth:`Study.gold <medjudge.data.model.Study.gold>` says."""
    rows: dict[str, dict[str, object]] = {}
    for dim in study.dimensions:
        try:
            g = study.gold(dim)
        except ValueError as e:  # no experts and no supplied gold
            rows[dim] = {"method": "none", "error": str(e)}
            continue
        rows[dim] = {"method": g.method, "with_gold": g.n_with_gold, **g.counts}
    return rows


def model_settings(scales: dict[str, Scale], dims: Sequence[str], source: Any) -> dict[str, Any]:
    """The summary's study-model facts beyond the defaults (absent keys: the defaults).

    ``scales`` (each dimension's level and categories) when the dimensions' scales differ, and
    ``cluster``, ``exchangeable`` and ``role_names`` of ``source`` (a study or a table
    mapping) when set. The in-memory summary and the engine path
    (:mod:`medjudge.engine.summary`) both report them from here.
    """
    out: dict[str, Any] = {}
    if len({(s.level, s.categories) for s in scales.values()}) > 1:
        out["scales"] = {
            d: {"level": scales[d].kind, "categories": list(scales[d].categories)} for d in dims
        }
    if source.cluster:
        out["cluster"] = source.cluster
    if source.exchangeable:
        out["exchangeable"] = list(source.exchangeable)
    if source.role_names:
        out["role_names"] = dict(source.role_names)
    return out


def rater_table(study: StudyLike) -> pd.DataFrame:
    """One row per rater × status with counts (the parse accounting table), in one canonical
    order whatever the order of the input's rows: roles, then raters, by their names sorted."""
    r = study.ratings
    return status_table(
        r.groupby(["role", "rater", "status"], sort=False).size().unstack("status", fill_value=0)
    )


def status_table(counts: pd.DataFrame) -> pd.DataFrame:
    """``(role, rater) × status`` counts as the rater table: every status of :data:`STATUSES`
    (0 where absent), ``total``, and the rows by role, then rater, names sorted."""
    t = counts
    for s in STATUSES:
        if s not in t.columns:
            t[s] = 0
    t = t[list(STATUSES)]
    t["total"] = t.sum(axis=1)
    t = t.reset_index()
    key = np.lexsort((t["rater"].astype(str).to_numpy(), t["role"].astype(str).to_numpy()))
    return t.iloc[key].reset_index(drop=True)


def parse_status(study: StudyLike, role: str = "judge") -> pd.DataFrame:
    """Rows per rater of ``role`` and parse status, long: columns ``<role>, status, count``
    (statuses in :data:`STATUSES` order, raters as in :func:`rater_table`; no zero counts).

    Examples
    --------
    >>> import medjudge as mj
    >>> parse_status(mj.datasets.example()).columns.tolist()
    ['judge', 'status', 'count']
    """
    t = rater_table(study)
    t = t[t["role"] == role]
    statuses = [c for c in t.columns if c not in ("role", "rater", "total")]
    long = t.melt(id_vars="rater", value_vars=statuses, var_name="status", value_name="count")
    return long[long["count"] > 0].rename(columns={"rater": role}).reset_index(drop=True)


def unusable_reasons(study: StudyLike) -> pd.DataFrame:
    """Why rating rows have no usable value: ``reason, rows`` by decreasing count, one count
    per row (the rows add up to ``summary()["verdicts_without_value"]``; a ``partial`` row that
    kept a value is usable and not counted). No rows when every row has a value."""
    r = study.ratings
    bad = r[r["value"].isna()]
    notes = bad["note"] if "note" in bad.columns else pd.Series(index=bad.index, dtype=object)
    notes = notes.fillna("").astype(str).replace("", "(no reason recorded)")
    counts = notes.value_counts().sort_values(ascending=False, kind="stable")
    return pd.DataFrame({"reason": counts.index.astype(str), "rows": counts.to_numpy(int)})


def _most_common(col: pd.Series) -> dict[str, int]:
    """``{value: count}`` by decreasing count, ties in order of first appearance
    (``collections.Counter(col).most_common()``, without iterating the column in Python)."""
    counts = col.value_counts(dropna=False)
    first = pd.unique(col)
    return {str(k): int(counts[k]) for k in sorted(first, key=lambda k: -int(counts[k]))}
