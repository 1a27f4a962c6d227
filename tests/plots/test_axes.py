"""Every plot draws on the axes it is given (one artist per row of its table), makes its own
figure when ``ax`` is None, and refuses a bad table or a bad ``ax`` with one clear ValueError."""

from __future__ import annotations

import matplotlib.pyplot as plt
import medjudge as mj
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

JUDGES = ["gpt-x", "med-judge", "$a$"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _forest() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "judge": JUDGES,
            "dimension": "overall",
            "estimate": [0.6, 0.7, 0.8],
            "ci_low": [0.5, 0.6, 0.7],
            "ci_high": [0.7, 0.8, 0.9],
        }
    )


def _ranks() -> pd.DataFrame:
    return pd.DataFrame(
        {"judge": JUDGES, "rank": [2, 1, 3], "rank_low": [1, 1, 2], "rank_high": [3, 2, 3]}
    )


def _pairs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "judge_a": ["A", "A", "B", "A"],
            "judge_b": ["B", "C", "C", "D"],
            "estimate": [0.05, -0.1, -0.02, 0.2],
            "p_adj": [0.01, 0.0001, 0.4, np.nan],
        }
    )


def _agreement() -> pd.DataFrame:
    return pd.DataFrame(
        {"rater_a": ["r1", "r1", "r2"], "rater_b": ["r2", "r3", "r3"], "estimate": [0.6, 0.4, -0.1]}
    )


def _cells() -> pd.DataFrame:
    rows = [(j, g, 0.5 + 0.1 * k, 40) for k, j in enumerate(JUDGES) for g in ("cardio", "neuro")]
    return pd.DataFrame(rows, columns=["judge", "subgroup", "estimate", "n"])


def _orders() -> pd.DataFrame:
    rows = [(j, o, 0.5, 0.4, 0.6) for j in JUDGES for o in ("AB", "BA")]
    return pd.DataFrame(rows, columns=["judge", "order", "estimate", "ci_low", "ci_high"])


def _status() -> pd.DataFrame:
    rows = [(j, s, c) for j in JUDGES for s, c in (("ok", 90), ("invalid", 8), ("refused", 2))]
    return pd.DataFrame(rows, columns=["judge", "status", "count"])


def _bins() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "judge": ["A"] * 4,
            "confidence": [0.2, 0.4, 0.6, 0.8],
            "observed": [0.3, 0.4, 0.5, 0.9],
            "n": [10, 20, 30, 40],
        }
    )


def _scores(judges=("A",)) -> pd.DataFrame:
    ref = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    return pd.concat(
        pd.DataFrame({"judge": j, "reference": ref, "value": ref + k}) for k, j in enumerate(judges)
    )


def _offsets(ax: Axes) -> int:
    return sum(len(c.get_offsets()) for c in ax.collections if hasattr(c, "get_offsets"))


#: name -> (table, keyword arguments, number of drawn marks on the axes for that table)
ONE_PANEL = {
    "rank_interval_plot": (_ranks, {}, lambda ax: len(ax.collections[0].get_segments())),
    "pairwise_matrix": (_pairs, {}, lambda ax: len(ax.texts) // 2),
    "agreement_matrix": (_agreement, {}, lambda ax: len(ax.texts) // 2),
    "subgroup_heatmap": (_cells, {}, lambda ax: sum("n=" in t.get_text() for t in ax.texts)),
    "position_bias_plot": (
        _orders,
        {},
        lambda ax: sum(len(c.get_segments()) for c in ax.collections),
    ),
    "parse_status_bars": (_status, {}, lambda ax: len(ax.patches)),
    "reliability_diagram": (_bins, {}, _offsets),
}
MULTI_PANEL = {
    "forest_plot": (_forest, {}, lambda ax: len(ax.collections[0].get_segments())),
    "bland_altman_plot": (_scores, {}, _offsets),
    "score_scatter": (_scores, {}, _offsets),
}


def test_the_door_lists_every_plot():
    assert set(mj.plots.__all__) == set(ONE_PANEL) | set(MULTI_PANEL)
    assert "pairwise_matrix" in dir(mj.plots)
    for name in mj.plots.__all__:
        assert callable(getattr(mj.plots, name)), name  # a function, never its module


def test_a_module_imported_first_does_not_hide_its_function():
    import importlib

    for module in ("pairwise", "agreement", "scatter", "forest"):
        importlib.import_module(f"medjudge.plots.{module}")
    assert callable(mj.plots.pairwise_matrix) and callable(mj.plots.score_scatter)


@pytest.mark.parametrize("name", sorted(ONE_PANEL))
def test_draws_on_the_given_axes(name):
    table, kw, marks = ONE_PANEL[name]
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3))
    size = tuple(fig.get_size_inches())
    out = getattr(mj.plots, name)(table(), ax=right, **kw)
    assert out is right
    assert marks(right) == len(table())
    assert not left.has_data() and not left.texts  # the other axes is left alone
    assert tuple(fig.get_size_inches()) == size  # the caller's figure is not resized
    assert len(plt.get_fignums()) == 1


@pytest.mark.parametrize("name", sorted(ONE_PANEL))
def test_makes_its_own_figure_without_axes(name):
    table, kw, marks = ONE_PANEL[name]
    before = set(plt.get_fignums())
    ax = getattr(mj.plots, name)(table(), **kw)
    assert isinstance(ax, Axes)
    assert set(plt.get_fignums()) - before == {ax.figure.number}
    assert marks(ax) == len(table())
    assert ax.figure.get_size_inches()[0] <= 7.2  # sized for the page


@pytest.mark.parametrize("name", sorted(MULTI_PANEL))
def test_multi_panel_plots_draw_one_panel_per_axes(name):
    table, kw, marks = MULTI_PANEL[name]
    fig, axes = plt.subplots(1, 3)
    out = getattr(mj.plots, name)(table(), ax=axes[1], **kw)
    assert out is fig
    assert marks(axes[1]) == len(table())
    assert not axes[0].has_data() and not axes[2].has_data()
    own = getattr(mj.plots, name)(table(), **kw)
    assert isinstance(own, Figure) and own is not fig
    assert marks(own.axes[0]) == len(table())


def test_forest_plot_takes_one_axes_per_dimension():
    two = pd.concat([_forest(), _forest().assign(dimension="safety")])
    fig, axes = plt.subplots(2, 1)
    assert mj.plots.forest_plot(two, baseline=0.5, ax=axes) is fig
    assert [a.get_title() for a in axes] == ["overall", "safety"]
    assert all(len(a.collections[0].get_segments()) == 3 for a in axes)
    assert axes[0].get_legend() is not None and not fig.legends  # legend on the caller's axes
    with pytest.raises(ValueError, match="2 panels but ax holds 1 axes"):
        mj.plots.forest_plot(two, ax=axes[0])


def test_score_plots_take_one_axes_per_judge():
    pairs = _scores(("A", "B"))
    fig, axes = plt.subplots(1, 2)
    mj.plots.bland_altman_plot(pairs, ax=axes)
    assert [a.get_title() for a in axes] == ["A", "B"]
    assert axes[1].get_lines()[1].get_ydata()[0] == pytest.approx(1.0)  # B is shifted by 1
    with pytest.raises(ValueError, match="score_scatter: the table has 2 panels"):
        mj.plots.score_scatter(pairs, ax=axes[:1])


ALL = {**ONE_PANEL, **MULTI_PANEL}


@pytest.mark.parametrize("name", sorted(ALL))
def test_a_missing_column_is_named(name):
    table, kw, _ = ALL[name]
    t = table()
    gone = t.columns[-1]
    with pytest.raises(ValueError, match=rf"{name}: missing column\(s\) \['{gone}'\]"):
        getattr(mj.plots, name)(t.drop(columns=gone), **kw)


@pytest.mark.parametrize("name", sorted(ALL))
def test_an_empty_table_is_refused(name):
    table, kw, _ = ALL[name]
    with pytest.raises(ValueError, match=f"{name}: the table is empty"):
        getattr(mj.plots, name)(table().iloc[:0], **kw)


@pytest.mark.parametrize("name", sorted(ALL))
def test_ax_must_be_matplotlib_axes(name):
    table, kw, _ = ALL[name]
    fig = plt.figure()
    with pytest.raises(ValueError, match=f"{name}: ax must be a matplotlib Axes or None, got Fig"):
        getattr(mj.plots, name)(table(), ax=fig, **kw)


def test_dollar_names_stay_literal_on_given_axes_only():
    """A judge named ``$a$`` is drawn as text; the caller's own mathtext elsewhere is kept."""
    fig, (mine, theirs) = plt.subplots(1, 2)
    theirs.set_title(r"$\kappa$")
    mj.plots.rank_interval_plot(_ranks(), ax=mine)
    fig.canvas.draw()
    assert "\\$a\\$" in [t.get_text() for t in mine.get_yticklabels()]
    assert theirs.get_title() == r"$\kappa$"


def test_importing_the_plots_package_loads_no_matplotlib():
    import subprocess
    import sys

    code = "import medjudge.plots, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
