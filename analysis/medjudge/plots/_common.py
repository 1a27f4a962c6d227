"""What every plot shares: the reference-line styles, the axes it draws on, small helpers.

``BASELINE_STYLE`` / ``CEILING_STYLE`` (the dashed baseline and dotted expert-ceiling lines),
the column check every plot runs on its input table (:func:`_require`), the axes to draw on
(:func:`_one_axes`: the given one or a new figure; :func:`_panel_axes`: one per panel), category
order, per-panel reference values, the panel grid, cell text colour and number formatting,
and pivoting to a matrix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .style import OKABE_ITO, PAGE_WIDTH_IN

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

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


def _check_axes(ax: Any, func: str) -> None:
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise ValueError(f"{func}: ax must be a matplotlib Axes or None, got {type(ax).__name__}")


def _one_axes(ax: Axes | None, size: tuple[float, float], func: str) -> tuple[Figure, Axes, bool]:
    """``(figure, axes, owned)``: the given ``ax`` and its figure, or a new figure of ``size``
    (``owned``: the plot may lay the figure out; it never does so on the caller's figure)."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, new = plt.subplots(figsize=size)
        return fig, new, True
    _check_axes(ax, func)
    return ax.figure, ax, False


def _panel_axes(
    ax: Any, n: int, max_cols: int, size: tuple[float, float], func: str, **subplots: Any
) -> tuple[Figure, list[Axes], bool]:
    """One axes per panel: the given ones (an Axes for one panel, or a sequence or array of at
    least ``n``), or a new grid of ``max_cols`` columns with the unused cells hidden."""
    import matplotlib.pyplot as plt

    if ax is None:
        nrows, ncols = _grid(n, max_cols)
        fig, grid = plt.subplots(nrows, ncols, figsize=size, squeeze=False, **subplots)
        cells = list(grid.ravel())
        for extra in cells[n:]:
            extra.set_visible(False)
        return fig, cells[:n], True
    given = [ax] if not isinstance(ax, Sequence | np.ndarray) else list(np.ravel(ax))
    for a in given:
        _check_axes(a, func)
    if len(given) < n:
        raise ValueError(
            f"{func}: the table has {n} panels but ax holds {len(given)} axes; pass one axes per "
            "panel (e.g. plt.subplots(1, n)[1]) or ax=None"
        )
    return given[0].figure, given[:n], False


def _num(x: float, digits: int = 2) -> str:
    """Fixed-point with ``digits`` decimals, never ``-0.00``."""
    out = f"{float(x):.{digits}f}"
    return "0" + out[2:] if out.startswith("-0") and float(out) == 0 else out


def _pvalue(p: float, digits: int = 3) -> str:
    """``p = 0.012`` or ``p < 0.001`` below the display precision."""
    if not np.isfinite(p):
        return "p = –"
    floor = 10.0**-digits
    return f"p < {floor:.{digits}f}" if p < floor else f"p = {p:.{digits}f}"


def _pair_names(results: pd.DataFrame, a: str, b: str, order: Sequence[Any] | None) -> list[Any]:
    """The raters of a table of pairs (columns ``a``, ``b``), in ``order`` or first-seen order."""
    return list(order) if order is not None else _order(pd.concat([results[a], results[b]]), None)


def _matrix_axes(
    fig: Figure, ax: Axes, image: Any, cols: list[Any], rows: list[Any], label: str, fraction: float
) -> None:
    """Cell labels on both axes, no frame or tick marks, and a colour bar labelled ``label``."""
    ax.set_xticks(range(len(cols)), [str(c) for c in cols], rotation=35, ha="right")
    ax.set_yticks(range(len(rows)), [str(r) for r in rows])
    ax.spines[:].set_visible(False)
    ax.tick_params(length=0)
    cbar = fig.colorbar(image, ax=ax, fraction=fraction, pad=0.02)
    cbar.set_label(label)
    cbar.outline.set_visible(False)


def _score_panels(
    pairs: pd.DataFrame, ax: Any, max_cols: int, top: float, func: str, labels: tuple[str, str]
) -> tuple[Figure, bool, list[tuple[Axes, pd.DataFrame]]]:
    """A titled panel per judge of a table of ``judge, reference, value`` score pairs (checked):
    ``(figure, owned, [(axes, that judge's rows), ...])``. ``labels`` (x, y): the y label on
    each row's first panel and one x label under a new figure, or both on every given axes."""
    _require(pairs, ["judge", "reference", "value"], func)
    judges = _order(pairs["judge"], None)
    nrows, ncols = _grid(len(judges), max_cols)
    size = (PAGE_WIDTH_IN, top + 2.1 * nrows)
    fig, axes, owned = _panel_axes(ax, len(judges), max_cols, size, func, sharex=True, sharey=True)
    for k, (j, a) in enumerate(zip(judges, axes, strict=True)):
        a.set_title(str(j))
        if not owned or k % ncols == 0:
            a.set_ylabel(labels[1])
        if not owned:
            a.set_xlabel(labels[0])
    if owned:
        fig.supxlabel(labels[0], fontsize=8)
    return fig, owned, [(a, pairs[pairs["judge"] == j]) for j, a in zip(judges, axes, strict=True)]
