"""Plots of medjudge results: one figure per module, each drawing on a given matplotlib axes.

``mj.plots.NAME(table, ..., ax=None)`` draws the tidy result table it is given (the columns
are listed in each docstring) on ``ax``, or on a new figure sized for an A4 page when ``ax``
is ``None``, in the medjudge style (:mod:`medjudge.plots.style`: Okabe–Ito colours, print-sized
fonts). A one-panel plot returns its :class:`~matplotlib.axes.Axes`; a plot with one panel per
dimension or judge returns its :class:`~matplotlib.figure.Figure` (and takes one axes per panel).
Nothing is computed beyond layout (the Bland–Altman fallback limits are the one documented
exception); nothing is saved or shown. A missing column, an empty table or a wrong ``ax`` is a
:class:`ValueError` naming the plot and what it needs. Names in the data are drawn literally
(a ``$`` in a judge's name is not mathtext). The reports call these same functions.

==========================  ======================================  ==========================
function                    what a reader looks for                 module
==========================  ======================================  ==========================
``forest_plot``             estimates with intervals per judge      :mod:`.forest`
``rank_interval_plot``      how certain the ranking is              :mod:`.rank_intervals`
``pairwise_matrix``         which pairs of judges differ            :mod:`.pairwise`
``subgroup_heatmap``        accuracy per judge and subgroup         :mod:`.heatmap`
``agreement_matrix``        agreement between every two raters      :mod:`.agreement`
``position_bias_plot``      an estimate per presentation order      :mod:`.position_bias`
``parse_status_bars``       how many verdicts parsed                :mod:`.parse_status`
``reliability_diagram``     calibration of stated confidence        :mod:`.calibration`
``bland_altman_plot``       bias and limits of agreement of scores  :mod:`.bland_altman`
``score_scatter``           judge score against the reference       :mod:`.scatter`
==========================  ======================================  ==========================

The functions are imported on first use (``import medjudge.plots`` loads no matplotlib). A
module is named after what it draws and never after its function, so that importing a module
cannot shadow the function of the same name on this package.

Examples
--------
>>> import medjudge as mj
>>> import matplotlib.pyplot as plt
>>> fig, (left, right) = plt.subplots(1, 2)
>>> raters = mj.datasets.demo().rater_table()
>>> judges = raters[raters["role"] == "judge"].rename(columns={"rater": "judge"})
>>> counts = judges.melt(id_vars="judge", value_vars=["ok", "invalid"], var_name="status",
...                      value_name="count")
>>> mj.plots.parse_status_bars(counts, ax=left) is left
True
>>> plt.close(fig)
"""

from __future__ import annotations

from typing import Any

#: public name -> module of this package that defines it
_PLOTS: dict[str, str] = {
    "forest_plot": "forest",
    "rank_interval_plot": "rank_intervals",
    "pairwise_matrix": "pairwise",
    "subgroup_heatmap": "heatmap",
    "agreement_matrix": "agreement",
    "position_bias_plot": "position_bias",
    "parse_status_bars": "parse_status",
    "reliability_diagram": "calibration",
    "bland_altman_plot": "bland_altman",
    "score_scatter": "scatter",
}

__all__ = sorted(_PLOTS)


def __getattr__(name: str) -> Any:
    module = _PLOTS.get(name)
    if module is None:
        raise AttributeError(f"module 'medjudge.plots' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
