"""medjudge — trustworthy statistics for LLM/MLLM judges versus expert labels.

The front door: ``import medjudge as mj`` gives the curated API below. Names are imported lazily
(PEP 562), so ``import medjudge`` costs almost nothing until a function is used.

Loading
    load, Study, Scale, simulate, datasets (``mj.datasets.demo()``, ``mj.datasets.example()``)
Agreement coefficients (arrays in, :class:`Estimate` out)
    cohen_kappa, scott_pi, pabak, fleiss_kappa, conger_kappa, gwet_ac, brennan_prediger,
    percent_agreement, krippendorff_alpha, icc, kendall_w, agreement_table
Accuracy, intervals and tests between judges (arrays in)
    judge_accuracy, proportion_ci, paired_difference_ci, mcnemar, paired_bootstrap, all_pairs,
    paired_score_difference (MAE/RMSE/bias/CCC of two score judges, clustered),
    adjust_pvalues, alt_test, dawid_skene, rank_correlations
Study-level analyses (a :class:`Study` in, tables/results out)
    evaluate_judges, audit_study, study_alt_test, study_stand_in, subgroup_accuracy,
    heterogeneity_table, position_bias, bias_report, run_consistency, judge_assisted_estimate
Planning
    ppi_pilot, plan_ppi (expert labels needed with and without a judge)
Rerunning published analyses
    published (``mj.published.check_published``, ``fmt_ci``, ``parse_pct``, ``parse_choices``,
    ``reference_rule_table``: the self-checking notebooks' helpers)
Settings and results
    Bootstrap (the one way to configure resampling), Permutation (permutation tests), Estimate, TestResult
Plots
    plots (``mj.plots.forest_plot(table, ax=ax)``, ...: one figure per module, each drawing a
    result table on a given matplotlib axes or a new figure; the reports call the same ones)

One vocabulary: ``confidence_level`` is an interval's coverage (results report it as ``level``
next to ``ci_low`` and ``ci_high``); ``scale`` is the measurement level; ``bootstrap=Bootstrap(
n_resamples, seed, method, scheme)`` configures every resampling; ``clusters=`` (arrays: one
label per item) or ``cluster=`` (studies: a column) names what is resampled and tested together.
Every function checks its arguments and names the bad one, its value and what is allowed.

Examples
--------
>>> import medjudge as mj
>>> round(mj.cohen_kappa([[0, 0], [1, 1], [0, 1], [1, 1]]).estimate, 3)
0.5
"""

from __future__ import annotations

import importlib
from typing import Any

from .stats.coefficients import AGREEMENT_MODULE, COEFFICIENT_TABLE

__version__ = "0.1.0"

#: public name -> module that defines it (imported on first use)
_API: dict[str, str] = {
    # loading
    "load": "medjudge.data.tables:load_any",
    "Study": "medjudge.data.model",
    "Scale": "medjudge.data.scale",
    "simulate": "medjudge.data.simulate",
    "datasets": "medjudge.data.datasets:*",  # the module: mj.datasets.demo(), .example()
    # agreement coefficients: one row each in the registry, medjudge.stats.coefficients
    **{c.name: AGREEMENT_MODULE for c in COEFFICIENT_TABLE},
    "agreement_table": AGREEMENT_MODULE,
    # accuracy, intervals, tests
    "judge_accuracy": "medjudge.stats.accuracy",
    "proportion_ci": "medjudge.stats.intervals",
    "paired_difference_ci": "medjudge.stats.paired_intervals",
    "mcnemar": "medjudge.stats.mcnemar",
    "paired_bootstrap": "medjudge.stats.paired_bootstrap",
    "paired_score_difference": "medjudge.stats.score_tests",
    "all_pairs": "medjudge.stats.pairwise",
    "adjust_pvalues": "medjudge.stats.multiplicity",
    "alt_test": "medjudge.stats.judge_vs_experts",
    "dawid_skene": "medjudge.stats.dawid_skene",
    "rank_correlations": "medjudge.stats.scores",
    # study-level analyses
    "evaluate_judges": "medjudge.analyses.evaluation",
    "audit_study": "medjudge.analyses.audit",
    "study_alt_test": "medjudge.analyses.judge_vs_experts",
    "study_stand_in": "medjudge.analyses.judge_vs_experts",
    "subgroup_accuracy": "medjudge.analyses.subgroups",
    "heterogeneity_table": "medjudge.analyses.heterogeneity",
    "position_bias": "medjudge.analyses.position",
    "bias_report": "medjudge.analyses.bias",
    "run_consistency": "medjudge.analyses.consistency",
    "judge_assisted_estimate": "medjudge.analyses.judge_assisted",
    # planning
    "ppi_pilot": "medjudge.stats.planning",
    "plan_ppi": "medjudge.stats.planning",
    # rerunning published analyses (the notebooks' helpers)
    "published": "medjudge.published:*",  # the module: mj.published.check_published(...)
    # settings and results
    "Bootstrap": "medjudge.stats.resampling",
    "Permutation": "medjudge.stats.resampling",
    "Estimate": "medjudge.stats.results",
    "TestResult": "medjudge.stats.results",
    # plots (the module: mj.plots.forest_plot(...), one figure per module, each with ax=)
    "plots": "medjudge.plots:*",
}

__all__ = ["__version__", *sorted(_API)]


def __getattr__(name: str) -> Any:
    target = _API.get(name)
    if target is None:
        raise AttributeError(f"module 'medjudge' has no attribute {name!r}")
    module, _, attr = target.partition(":")
    mod = importlib.import_module(module)
    value = mod if attr == "*" else getattr(mod, attr or name)
    globals()[name] = value  # cache: the next access is a plain attribute lookup
    return value


def __dir__() -> list[str]:
    return list(__all__)
