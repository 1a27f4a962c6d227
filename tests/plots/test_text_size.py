"""Issue 40 item 3: figure text is at least :data:`MIN_TEXT_PT` (9.3 CSS px at natural size; the
report's browser test measures it on screen) and the subgroup heatmap is sized from its content,
so that no cell's text runs into its neighbour's."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import medjudge as mj
import pytest
from medjudge.plots.style import MIN_TEXT_PT


@pytest.fixture(scope="module")
def demo_figures():
    study = mj.datasets.demo()
    cells = mj.subgroup_accuracy(study, by=["organ_system"]).table("cells")
    ev = mj.evaluate_judges(study, bootstrap=mj.Bootstrap(30, seed=0), dimensions=["overall"])
    pairs = ev.pairs.rename(columns={"difference": "estimate"})
    audit = mj.audit_study(study, with_dawid_skene=False, ci=None)
    kappas = audit.dimensions["overall"]["pairwise"].rename(columns={"kappa": "estimate"})
    axes = [
        mj.plots.subgroup_heatmap(cells, col="organ_system", flag="small"),
        mj.plots.pairwise_matrix(pairs, p="p_holm", p_label="Holm-adjusted p"),
        mj.plots.agreement_matrix(kappas),
    ]
    yield axes
    for ax in axes:
        plt.close(ax.figure)


def test_every_text_is_at_least_the_minimum_size(demo_figures):
    for ax in demo_figures:
        fig = ax.figure
        sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
        assert min(sizes) >= MIN_TEXT_PT, (ax.get_title(), min(sizes))


def test_heatmap_cell_texts_fit_their_cells(demo_figures):
    """12 judges × 13 organ systems: each cell's text leaves a gap to the next cell's."""
    ax = demo_figures[0]
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    x0, x1 = (ax.transData.transform((j, 0))[0] for j in (0, 1))
    cell_px = abs(x1 - x0)
    widths = [t.get_window_extent(renderer).width for t in ax.texts if "n=" in t.get_text()]
    assert len(widths) == 12 * 13
    assert max(widths) < 0.85 * cell_px, (max(widths), cell_px)  # a visible gap between cells
