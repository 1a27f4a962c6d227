"""One figure style for medjudge: colour-blind-safe colours, print-sized fonts.

Colours are the Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"), which stays
distinguishable under the common colour-vision deficiencies; continuous values use
``cividis`` (Nuñez et al. 2018), designed to be perceptually uniform for deuteranopes too.
Sizes assume an A4 page with ~16 cm of text width: 8 pt text on a 6.3 in wide figure is
legible when the figure is printed at full text width.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib as mpl
from cycler import cycler
from matplotlib.colors import LinearSegmentedColormap

__all__ = [
    "OKABE_ITO",
    "PALETTE",
    "STATUS_COLORS",
    "SEQUENTIAL_CMAP",
    "DIVERGING_CMAP",
    "PAGE_WIDTH_IN",
    "MIN_TEXT_PT",
    "RC",
    "style_context",
    "use_style",
    "colors_for",
    "figsize",
]

OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}

#: Categorical order (most distinct first; yellow late because it is faint on white).
PALETTE: list[str] = [
    OKABE_ITO[k]
    for k in ("blue", "orange", "green", "vermillion", "purple", "sky_blue", "black", "yellow")
]

#: Parse status colours: ok → green, broadcast → sky blue, partial → orange, invalid → vermillion.
STATUS_COLORS: dict[str, str] = {
    "ok": OKABE_ITO["green"],
    "broadcast": OKABE_ITO["sky_blue"],
    "partial": OKABE_ITO["orange"],
    "invalid": OKABE_ITO["vermillion"],
}

SEQUENTIAL_CMAP = "cividis"

#: Diverging map blue (negative) – white – vermillion (positive), Okabe–Ito end points.
DIVERGING_CMAP = LinearSegmentedColormap.from_list(
    "medjudge_diverging", [OKABE_ITO["blue"], "#FFFFFF", OKABE_ITO["vermillion"]]
)

#: Full text width of an A4 page with ~2.2 cm margins, in inches.
PAGE_WIDTH_IN = 6.3

#: Smallest text in any figure, in points (cell values, notes). A report shows a figure at no
#: less than its natural size (HTML: 1 pt = 4/3 CSS px), so 7 pt is 9.3 px on screen at 100%
#: zoom, above the 9 px the report's browser test requires.
MIN_TEXT_PT = 7.0

RC: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 8.5,
    "axes.titleweight": "bold",
    "axes.labelsize": 8,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "legend.fontsize": 7.5,
    "legend.frameon": False,
    "figure.titlesize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "axes.grid": False,
    "grid.color": "0.88",
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.2,
    "lines.markersize": 4.5,
    "errorbar.capsize": 0,
    "axes.prop_cycle": cycler(color=PALETTE),
    "image.cmap": SEQUENTIAL_CMAP,
    "hatch.linewidth": 0.6,
    "svg.fonttype": "path",
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
}


@contextmanager
def style_context(**overrides: Any) -> Iterator[None]:
    """Context manager applying :data:`RC` (plus ``overrides``) to figures created inside."""
    with mpl.rc_context({**RC, **overrides}):
        yield


def use_style(**overrides: Any) -> None:
    """Apply the medjudge style globally (e.g. at the top of a notebook)."""
    mpl.rcParams.update({**RC, **overrides})


def colors_for(names: Iterable[Any]) -> dict[Any, str]:
    """Stable colour per name, in first-seen order (cycles after 8 names)."""
    out: dict[Any, str] = {}
    for name in names:
        if name not in out:
            out[name] = PALETTE[len(out) % len(PALETTE)]
    return out


def figsize(
    n_rows: int = 1, *, width: float = PAGE_WIDTH_IN, row_height: float = 0.22, extra: float = 0.9
) -> tuple[float, float]:
    """Figure size for a plot with ``n_rows`` labelled rows (judges): height grows per row."""
    return (width, max(1.8, extra + row_height * n_rows))
