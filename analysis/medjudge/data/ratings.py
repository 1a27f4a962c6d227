"""The ratings table: its columns, their normalisation, and the checks a Study runs once.

``RATING_COLUMNS`` (one row per verdict), ``ROLES``, the duplicate ``KEY``;
:func:`_normalise_ratings` (defaults for the optional columns, text ids, status from value) and
:func:`_validate` (roles, dimensions, statuses and labels within the declared scales, no
duplicate verdicts, raters in one role, every rated item in the items table, supplied gold on
the scale), each error naming the file, line and column it came from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from .errors import InputError
from .parse import STATUSES
from .scale import Scale

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


def _validate(
    r: pd.DataFrame,
    items: pd.DataFrame,
    scales: Mapping[str, Scale],
    gold_table: pd.DataFrame | None,
    rows: Callable[[str], np.ndarray],
) -> pd.DataFrame | None:
    """Check normalised ratings ``r`` against the items, the scales and the supplied gold.

    ``rows(dimension)`` gives the boolean mask of the rows of one dimension. Returns the gold
    table with text item ids (None when there is none); raises :class:`InputError` naming the
    file, line and column of the first bad row.
    """
    bad_role = ~r["role"].isin(ROLES)
    if bad_role.any():
        row = r[bad_role].iloc[0]
        raise _at_row(row, "role", f"role {row['role']!r} is not one of {ROLES}")
    _refuse_unknown(
        r, "dimension", set(scales),
        lambda u: f"dimension {u[0]!r} has no declared scale",
        lambda u: f"declared: {sorted(scales)}",
    )  # fmt: skip
    bad_status = ~r["status"].isin(STATUSES)
    if bad_status.any():
        row = r[bad_status].iloc[0]
        raise _at_row(row, "status", f"status {row['status']!r} is not one of {STATUSES}")
    has_value = r["value"].notna().to_numpy()
    for dim, scale in scales.items():
        sub = r.loc[rows(dim) & has_value, "value"]
        # each distinct label checked once (the first row holding a bad one is named);
        # categories compare as text, as Scale.contains does (1 and 1.0 are different)
        keys = sub.astype(str) if scale.is_categorical else sub
        bad = [v for v in pd.unique(keys) if not scale.contains(v)]
        if bad:
            row = r.loc[sub.index[keys.isin(bad).to_numpy()][0]]
            allowed = (
                list(scale.categories) if scale.is_categorical else f"[{scale.low}, {scale.high}]"
            )
            raise _at_row(
                row,
                "value",
                f"label {row['value']!r} for dimension {dim!r} is outside the declared scale",
                hint=f"allowed: {allowed}; declare unparseable tokens as invalid in the mapping",
            )
    dup = r.duplicated(KEY, keep=False)
    if dup.any():
        pair = r[dup].sort_values(KEY).head(2)
        first, second = pair.iloc[0], pair.iloc[1]
        raise _at_row(
            first,
            "item/rater/dimension/order",
            f"duplicate rating for item {first['item']!r}, rater {first['rater']!r}, dimension "
            f"{first['dimension']!r}, order {first['order']!r} (also at {second['source']}"
            f"{', line ' + str(_line(second)) if _line(second) else ''})",
            hint="remove the repeat, or give repeats distinct 'run' values",
        )
    role_per_rater = r.groupby("rater")["role"].nunique()
    if (role_per_rater > 1).any():
        rater = role_per_rater[role_per_rater > 1].index[0]
        raise InputError(f"rater {rater!r} appears both as expert and as judge")
    _refuse_unknown(
        r, "item", {str(i) for i in items["item"].unique()},
        lambda u: f"rating refers to item {u[0]!r}, which is not in the items table",
        lambda u: f"{len(u)} unknown item id(s) in all",
    )  # fmt: skip
    if gold_table is None:
        return None
    g = gold_table.copy()
    g["item"] = g["item"].astype(str)
    for dim, scale in scales.items():
        vals = g.loc[(g["dimension"] == dim) & g["value"].notna(), "value"]
        bad = ~vals.map(scale.contains)
        if bad.any():
            raise InputError(
                f"gold label {vals[bad].iloc[0]!r} for {dim!r} is outside the declared scale"
            )
    return g


def _refuse_unknown(
    r: pd.DataFrame,
    column: str,
    known: set[str],
    message: Callable[[list[str]], str],
    hint: Callable[[list[str]], str],
) -> None:
    """Refuse the values of ``column`` outside ``known``: the first unknown value (sorted)
    is named at its first row; ``message`` and ``hint`` are given all the unknown values."""
    unknown = sorted({str(v) for v in r[column].unique()} - known)
    if unknown:
        row = r[r[column] == unknown[0]].iloc[0]
        raise _at_row(row, column, message(unknown), hint=hint(unknown))


def _at_row(row: pd.Series, column: str, message: str, hint: str | None = None) -> InputError:
    """The error for a bad value in ``column`` of ``row``, naming the row's file and line."""
    return InputError(
        message, file=row["source"] or None, line=_line(row), column=column, hint=hint
    )


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
