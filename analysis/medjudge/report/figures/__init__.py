"""Figures for judge evaluation and annotation audits.

Every function takes a **tidy result table** (the ``to_frame()`` output of the library's
result objects, stacked with identifying columns) and returns a :class:`matplotlib.figure.Figure`
drawn in the medjudge style (:mod:`medjudge.report.style`). Nothing is computed here beyond
layout (the Bland–Altman fallback limits are the one documented exception); nothing is saved
or shown. Figures are created through :mod:`matplotlib.pyplot`, so notebooks and report chunks
display them automatically; scripts should ``plt.close(fig)`` when done.

Column names follow :class:`medjudge.stats.results.Estimate` (``estimate``, ``ci_low``,
``ci_high``, ``n``); each docstring lists what it needs.

Modules
-------
:mod:`~medjudge.report.figures.intervals`
    ``forest_plot``, ``rank_interval_plot``, ``position_bias_plot``.
:mod:`~medjudge.report.figures.matrices`
    ``organ_heatmap``, ``pairwise_matrix``, ``agreement_matrix``.
:mod:`~medjudge.report.figures.diagnostics`
    ``parse_status_bars``, ``reliability_diagram``.
:mod:`~medjudge.report.figures.scores`
    ``bland_altman_plot``, ``score_scatter``.
:mod:`~medjudge.report.figures.common`
    reference-line styles and the layout helpers they share.
"""
