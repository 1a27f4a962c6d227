"""Page layout of report figures (size and legend placement; no content changes).

The plots (:mod:`medjudge.plots`) return the axes they drew on, or the figure of a multi-panel
plot; both functions here take either and return the figure the report embeds.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..plots.style import PAGE_WIDTH_IN

__all__ = ["at_page_width", "legend_above"]


def at_page_width(fig: Figure | Axes, width: float = PAGE_WIDTH_IN) -> Figure:
    """Widen a narrow figure to the page's text width (keeping its height).

    Report figures are placed at full text width, so a narrow figure would be scaled *up* and
    its 8 pt text printed larger than the body text; at page width it prints at its own size.
    An invisible figure-sized frame keeps the inline backend's tight bounding box from
    cropping the added margin again (square matrices keep their aspect ratio and are centred).
    """
    fig = fig.figure  # an Axes' figure; a Figure's is itself
    w, h = fig.get_size_inches()
    if w < width:
        fig.set_size_inches(width, h)
        fig.tight_layout()
        frame = Rectangle(
            (0, 0), 1, 1, transform=fig.transFigure, fill=False, edgecolor="none", figure=fig
        )
        fig.patches.append(frame)
    return fig


def legend_above(fig: Figure | Axes, title: str | None = None) -> Figure:
    """Move the first panel's legend above the plot (it otherwise may cover the points)."""
    fig = fig.figure  # an Axes' figure; a Figure's is itself
    ax = fig.axes[0]
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(
            handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(handles),
            title=title, frameon=False,
        )  # fmt: skip
        fig.tight_layout()
    return fig
