"""What every figure shares: the reference-line styles and small layout helpers.

``BASELINE_STYLE`` / ``CEILING_STYLE`` (the dashed baseline and dotted expert-ceiling lines),
the column check every figure runs on its input table (:func:`_require`), category order,
per-panel reference values, the panel grid, cell text colour and pivoting to a matrix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..style import OKABE_ITO

BASELINE_STYLE = {"color": "0.45", "linestyle": "--", "linewidth": 0.9}
CEILING_STYLE = {"color": OKABE_ITO["vermillion"], "linestyle": ":", "linewidth": 1.2}


def _require(df: pd.DataFrame, columns: Sequence[str], func: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(
            f"{func}: missing column(s) {missing}; got {list(df.columns)}. "
            "Pass the tidy result table (e.g. stacked Estimate.to_frame() rows)."
        )
    if df.empty:
        raise ValueError(f"{func}: the table is empty")


def _order(values: pd.Series, order: Sequence[Any] | None) -> list[Any]:
    if order is not None:
        return list(order)
    return list(dict.fromkeys(values.tolist()))


def _per_group_value(value: Any, key: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        v = value.get(key)
        return None if v is None else float(v)
    return float(value)


def _grid(n: int, max_cols: int) -> tuple[int, int]:
    cols = min(n, max_cols)
    return int(np.ceil(n / cols)), cols


def _text_color(rgba: Sequence[float]) -> str:
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _matrix(
    df: pd.DataFrame, row: str, col: str, value: str, rows: list[Any], cols: list[Any]
) -> np.ndarray:
    table = df.pivot_table(index=row, columns=col, values=value, aggfunc="first")
    return table.reindex(index=rows, columns=cols).to_numpy(dtype=float)
