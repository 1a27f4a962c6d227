"""A judge's stated confidence column (mapping key ``confidence``), read as probabilities."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError
from .io import LINE

__all__ = ["confidences"]


def confidences(df: pd.DataFrame, column: str, path: Path) -> np.ndarray:
    """The stated confidences of ``column`` as floats in [0, 1] (an empty cell: none stated);
    a cell that is not a number in [0, 1] is refused at its file, line and column."""
    cells = df[column].astype(str).str.strip().where(df[column].notna(), "")
    values = pd.to_numeric(cells.where(cells != ""), errors="coerce").to_numpy(dtype=float)
    bad = ((cells != "") & ~np.isfinite(values)) | (values < 0) | (values > 1)
    bad = np.asarray(bad, dtype=bool)
    if bad.any():
        k = int(bad.argmax())
        cell = cells.iloc[k]
        pct = np.isfinite(values[k]) and 1 < values[k] <= 100
        raise InputError(
            f"confidence {cell!r} is not a probability in [0, 1]",
            file=path,
            line=int(df[LINE].to_numpy()[k]),
            column=column,
            hint="a percentage must be divided by 100 in the table"
            if pct
            else "write the judge's stated confidence as a number from 0 to 1, or leave it empty",
        )
    return values
