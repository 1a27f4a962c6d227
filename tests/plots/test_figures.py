"""The plots on small tidy frames: the expected artists, labels, order and reference lines
(the same functions draw the reports' figures)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from medjudge.plots import (
    agreement_matrix,
    bland_altman_plot,
    forest_plot,
    pairwise_matrix,
    parse_status_bars,
    position_bias_plot,
    rank_interval_plot,
    reliability_diagram,
    score_scatter,
    subgroup_heatmap,
)
from medjudge.plots.style import PALETTE, STATUS_COLORS, colors_for

JUDGES = ["gpt-x", "med-judge", "<script>alert(1)</script>"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _yticklabels(ax) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def forest_frame() -> pd.DataFrame:
    rows = []
    for d, dim in enumerate(["accuracy", "safety"]):
        for j, judge in enumerate(JUDGES):
            est = 0.6 + 0.1 * j - 0.05 * d
            rows.append((judge, dim, est, est - 0.06, est + 0.05))
    return pd.DataFrame(rows, columns=["judge", "dimension", "estimate", "ci_low", "ci_high"])


def test_forest_plot_panels_labels_and_reference_lines():
    fig = forest_plot(forest_frame(), baseline=0.5, ceiling={"accuracy": 0.85, "safety": 0.8})
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["accuracy", "safety"]
    # best judge (highest mean) on top = last tick
    assert _yticklabels(axes[0])[-1] == JUDGES[-1]
    assert set(_yticklabels(axes[0])) == set(JUDGES)
    for ax in axes:
        vlines = [ln for ln in ax.get_lines() if ln.get_label() in ("baseline", "ceiling")]
        assert len(vlines) == 2
        assert len(ax.collections) >= 1  # error bars
    legend_texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend_texts == ["trivial baseline", "expert ceiling"]


def test_forest_plot_row_and_panel_may_swap():
    """A row per dimension and a panel per judge (before: the dimension column was dropped
    before it became the rows, a KeyError)."""
    fig = forest_plot(forest_frame(), row="dimension", panel="judge")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == JUDGES
    assert set(_yticklabels(axes[0])) == {"accuracy", "safety"}
    assert [len(ln.get_xdata()) for ax in axes for ln in ax.lines if ln.get_marker() == "o"] == [
        2,
        2,
        2,
    ]


def test_forest_plot_missing_column_message():
    with pytest.raises(ValueError, match="ci_high"):
        forest_plot(forest_frame().drop(columns="ci_high"))


def test_subgroup_heatmap_annotations_and_hatching():
    organs = ["cardio", "neuro", "onco", "derm"]
    rows = []
    for j, judge in enumerate(JUDGES):
        for o, organ in enumerate(organs):
            n = 10 if (j, o) == (0, 0) else 50
            rows.append((judge, organ, 0.5 + 0.1 * j, n, 0.4, 0.9 if (j, o) == (1, 2) else 0.6))
    df = pd.DataFrame(rows, columns=["judge", "organ", "estimate", "n", "ci_low", "ci_high"])
    ax = subgroup_heatmap(df, col="organ", min_n=30, max_ci_width=0.3)
    cell_texts = [t for t in ax.texts if "n=" in t.get_text()]
    assert len(cell_texts) == len(JUDGES) * len(organs)
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == 2  # small n and wide interval
    assert sum(t.get_text().startswith("(") for t in cell_texts) == 2
    assert [t.get_text() for t in ax.get_xticklabels()] == organs


def test_pairwise_matrix_cells_and_significance():
    df = pd.DataFrame(
        {
            "judge_a": ["A", "A", "B"],
            "judge_b": ["B", "C", "C"],
            "estimate": [0.05, -0.10, -0.02],
            "p_adj": [0.01, 0.0001, 0.4],
        }
    )
    ax = pairwise_matrix(df)
    assert len(ax.texts) == 6  # off-diagonal cells
    texts = {t.get_text() for t in ax.texts}
    assert "+0.05\np = 0.010" in texts and "-0.05\np = 0.010" in texts
    assert "-0.10\np < 0.001" in texts
    assert len([p for p in ax.patches if p.get_hatch()]) == 2  # B-C both directions
    assert len(ax.figure.axes) == 2  # + colour bar


def test_agreement_matrix():
    df = pd.DataFrame(
        {"rater_a": ["r1", "r1", "r2"], "rater_b": ["r2", "r3", "r3"], "estimate": [0.6, 0.4, -0.1]}
    )
    ax = agreement_matrix(df)
    assert len(ax.texts) == 6
    assert _yticklabels(ax) == ["r1", "r2", "r3"]


def test_rank_interval_plot_order():
    df = pd.DataFrame(
        {"judge": JUDGES, "rank": [2, 1, 3], "rank_low": [1, 1, 2], "rank_high": [3, 2, 3]}
    )
    ax = rank_interval_plot(df)
    assert _yticklabels(ax)[-1] == "med-judge"  # rank 1 on top
    assert len(ax.collections) == 1 and len(ax.collections[0].get_segments()) == 3


def test_position_bias_plot_legend():
    rows = [(j, o, 0.5 + 0.05 * k, 0.45, 0.6) for k, j in enumerate(JUDGES) for o in ("AB", "BA")]
    df = pd.DataFrame(rows, columns=["judge", "order", "estimate", "ci_low", "ci_high"])
    ax = position_bias_plot(df)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["AB", "BA"]
    assert set(_yticklabels(ax)) == set(JUDGES)


def test_parse_status_bars_counts_and_colours():
    rows = [(j, s, c) for j in JUDGES for s, c in zip(STATUS_COLORS, [80, 5, 5, 10], strict=True)]
    rows.append(("gpt-x", "refused", 3))
    df = pd.DataFrame(rows, columns=["judge", "status", "count"])
    ax = parse_status_bars(df)
    assert len(ax.patches) == len(JUDGES) * 5
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["ok", "broadcast", "partial", "invalid", "refused"]
    widths = np.array([p.get_width() for p in ax.patches]).reshape(5, len(JUDGES))
    assert np.allclose(widths.sum(axis=0), 1.0)


def test_reliability_diagram():
    rows = [
        (j, c, c - 0.05 * k, 20 + k, c - 0.1, c + 0.05)
        for k, j in enumerate(JUDGES[:2])
        for c in (0.2, 0.5, 0.8)
    ]
    df = pd.DataFrame(rows, columns=["judge", "confidence", "observed", "n", "ci_low", "ci_high"])
    ax = reliability_diagram(df)
    assert len(ax.get_lines()) == 3  # diagonal + one per judge
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["perfect calibration", *JUDGES[:2]]


def test_bland_altman_and_scatter():
    rng = np.random.default_rng(0)
    ref = rng.integers(1, 6, 40).astype(float)
    pairs = pd.DataFrame(
        {
            "judge": ["A"] * 40 + ["B"] * 40,
            "reference": np.concatenate([ref, ref]),
            "value": np.concatenate([ref + rng.normal(0, 0.5, 40), ref + 0.5]),
        }
    )
    fig = bland_altman_plot(pairs)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["A", "B"]
    for ax in axes:
        assert len(ax.get_lines()) == 4  # zero, bias, two limits
    # B is a constant +0.5 shift: bias 0.5, zero-width limits
    assert axes[1].get_lines()[1].get_ydata()[0] == pytest.approx(0.5)
    limits = pd.DataFrame({"judge": ["A", "B"], "bias": [0, 0.5], "loa_low": [-1, 0.5],
                           "loa_high": [1, 0.5]})  # fmt: skip
    fig2 = bland_altman_plot(pairs, limits)
    assert fig2.axes[0].get_lines()[2].get_ydata()[0] == pytest.approx(-1)
    fig3 = score_scatter(pairs)
    assert len([ax for ax in fig3.axes if ax.get_visible()]) == 2


def test_style_palette_is_stable():
    assert colors_for(["b", "a", "b"]) == {"b": PALETTE[0], "a": PALETTE[1]}
    fig = forest_plot(forest_frame())
    w, _ = fig.get_size_inches()
    assert w <= 6.5  # fits an A4 text width
