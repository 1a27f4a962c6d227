"""Inter-rater reliability: chance-corrected agreement, Krippendorff's alpha, ICC, Kendall's W.

Every coefficient takes an ``items x raters`` float array (category codes or scores, NaN =
missing), returns an :class:`~medjudge.stats.results.Estimate`, and has a ``*_core(X, w)``
numpy function of item weights so that bootstrap intervals (percentile / BCa; item-, cluster-
and stratum-level) come from the shared resampling engine in one vectorised call.
The coefficients are listed once, in :mod:`medjudge.stats.coefficients` (resolved to their
functions in :mod:`.registry`). See ``docs/agreement.md`` for formulas, references and how
results compare with other packages.
"""

from .bootstrap import analytic_estimate, bootstrap_estimate, paired_difference
from .compare import agreement_difference
from .frame import agreement, agreement_table, agreement_table_long, long_to_wide
from .gwet_framework import (
    brennan_prediger_core,
    conger_kappa_core,
    fleiss_kappa_core,
    gwet_ac_core,
    percent_agreement_core,
)
from .icc import ICC_FORMS, icc, icc_core
from .kappa import (
    brennan_prediger,
    conger_kappa,
    fleiss_category_kappas,
    fleiss_kappa,
    gwet_ac,
    percent_agreement,
)
from .kendall import kendall_w, kendall_w_core
from .krippendorff import krippendorff_alpha, krippendorff_alpha_core
from .registry import COEFFICIENTS, CORES
from .two_raters import (
    cohen_kappa,
    cohen_kappa_core,
    pabak,
    prevalence_bias_indices,
    scott_pi,
    scott_pi_core,
)
from .weights import LEVEL_WEIGHTS, WEIGHT_KINDS, weight_matrix

__all__ = [
    "CORES",
    "COEFFICIENTS",
    "ICC_FORMS",
    "agreement",
    "agreement_difference",
    "agreement_table",
    "agreement_table_long",
    "icc",
    "icc_core",
    "kendall_w",
    "kendall_w_core",
    "krippendorff_alpha",
    "krippendorff_alpha_core",
    "long_to_wide",
    "LEVEL_WEIGHTS",
    "WEIGHT_KINDS",
    "analytic_estimate",
    "bootstrap_estimate",
    "brennan_prediger",
    "brennan_prediger_core",
    "cohen_kappa",
    "cohen_kappa_core",
    "conger_kappa",
    "conger_kappa_core",
    "fleiss_category_kappas",
    "fleiss_kappa",
    "fleiss_kappa_core",
    "gwet_ac",
    "gwet_ac_core",
    "pabak",
    "paired_difference",
    "percent_agreement",
    "percent_agreement_core",
    "prevalence_bias_indices",
    "scott_pi",
    "scott_pi_core",
    "weight_matrix",
]
