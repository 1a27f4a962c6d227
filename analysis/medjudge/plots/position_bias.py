"""Position bias: an estimate per presentation order (or per measure), per judge.

Without position bias a judge picks the first-shown response half of the time and is as
accurate in either order; the plot sets the orders side by side with their intervals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ._common import BASELINE_STYLE, _one_axes, _order, _require
from ._literal import literal_figure_args
from .style import PAGE_WIDTH_IN, PALETTE, figsize, style_context

__all__ = ["position_bias_plot"]


@literal_figure_args
def position_bias_plot(
    results: pd.DataFrame,
    *,
    reference: float | None = 0.5,
    xlabel: str = "proportion choosing the first response",
    order_labels: Mapping[Any, str] | None = None,
    group: str = "order",
    legend_title: str = "presentation order",
    ax: Axes | None = None,
) -> Axes:
    """Position bias: an estimate per presentation order, per judge, with intervals.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``judge, order, estimate, ci_low, ci_high`` (one row per judge and order);
        ``order`` is the presentation order (e.g. ``"AB"`` / ``"BA"``) or the measure.
        ``estimate`` is e.g. P(verdict = first position) or accuracy under that order — say
        which in ``xlabel``.
    reference : float, optional
        Value expected without bias (dashed line), e.g. 0.5; ``None`` for none.
    xlabel : str
        Label of the x axis.
    order_labels : dict, optional
        Legend label of each order (default: the order itself).
    group : str, default "order"
        The column whose values are set side by side (e.g. ``estimand`` of a result table
        holding one row per judge and measure).
    legend_title : str, default "presentation order"
        Title of the legend of the ``group`` values.
    ax : matplotlib.axes.Axes, optional
        Where to draw; ``None`` creates a figure (5.2 in wide, a row per judge).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: one error bar per row of ``results``, a legend of the orders.

    Raises
    ------
    ValueError
        ``results`` has no row or lacks ``judge``, ``order``, ``estimate``, ``ci_low`` or
        ``ci_high``; ``ax`` is not an Axes.

    Examples
    --------
    >>> import medjudge as mj
    >>> import pandas as pd
    >>> swap = mj.position_bias(mj.datasets.demo())["swap"]
    >>> swap = swap[swap["dimension"] == "overall"]
    >>> ab = swap.assign(order="AB", estimate=swap["accuracy_ab"],
    ...                  ci_low=swap["accuracy_ab_ci_low"], ci_high=swap["accuracy_ab_ci_high"])
    >>> ba = swap.assign(order="BA", estimate=swap["accuracy_ba"],
    ...                  ci_low=swap["accuracy_ba_ci_low"], ci_high=swap["accuracy_ba_ci_high"])
    >>> ax = mj.plots.position_bias_plot(pd.concat([ab, ba]), reference=None, xlabel="accuracy")
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['AB', 'BA']
    >>> rows = mj.position_bias(mj.datasets.demo()).table("position", dimension="overall")
    >>> ax = mj.plots.position_bias_plot(rows, group="estimand")
    """
    _require(results, ["judge", group, "estimate", "ci_low", "ci_high"], "position_bias_plot")
    if group != "order":
        results = results.drop(columns="order", errors="ignore").rename(columns={group: "order"})
    judges = _order(results["judge"], None)[::-1]
    orders = _order(results["order"], None)
    ypos = {j: i for i, j in enumerate(judges)}
    offs = np.linspace(-0.15, 0.15, len(orders)) if len(orders) > 1 else np.zeros(1)
    labels = dict(order_labels or {})
    with style_context():
        size = figsize(len(judges), width=min(PAGE_WIDTH_IN, 5.2))
        fig, ax, owned = _one_axes(ax, size, "position_bias_plot")
        for j in judges:
            sub = results[results["judge"] == j].set_index("order").reindex(orders)
            ax.plot(sub["estimate"], ypos[j] + offs, color="0.7", linewidth=0.8, zorder=1)
        for k, o in enumerate(orders):
            sub = results[results["order"] == o]
            y = sub["judge"].map(ypos).to_numpy(float) + offs[k]
            est = sub["estimate"].to_numpy(float)
            err = np.abs(np.vstack([est - sub["ci_low"].to_numpy(float),
                                    sub["ci_high"].to_numpy(float) - est]))  # fmt: skip
            ax.errorbar(
                est, y, xerr=err, fmt="os"[k % 2], color=PALETTE[k % len(PALETTE)],
                label=labels.get(o, str(o)), zorder=3,
            )  # fmt: skip
        if reference is not None:
            ax.axvline(reference, **BASELINE_STYLE)
        ax.set_yticks(range(len(judges)), [str(j) for j in judges])
        ax.set_xlabel(xlabel)
        ax.grid(axis="x")
        ax.legend(title=legend_title, loc="best")
        if owned:
            fig.tight_layout()
    return ax
