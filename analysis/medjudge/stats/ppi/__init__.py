"""Prediction-powered inference (PPI, PPI++) for a mean or proportion of the gold label.

Setting: ``n`` *labelled* items carry the gold label ``Y`` and a judge prediction ``f``; ``N``
*unlabelled* items carry only ``f``. The labelled items must be a random sample of all items
(missing completely at random) — that is what makes every estimator here unbiased. The judge may
be arbitrarily wrong: its errors are measured on the labelled items and removed.

Estimator (Angelopoulos et al. 2023, eq. 2; PPI++ with power tuning ``lam``, Angelopoulos,
Duchi & Zrnic 2023, eq. 4 and Example 6.1)::

    theta_hat(lam) = lam * mean_U(f) + mean_L(Y - lam * f)

``lam = 1`` is PPI, ``lam = 0`` the classical expert-only mean, and the power-tuned value
(PPI++) is the plug-in minimiser of the variance, clipped to ``[0, 1]``::

    lam_hat = Cov_L(Y, f) / ((1 + n/N) Var_{L+U}(f))

Variance: ``theta_hat`` is a sum of per-item contributions
``psi_i = (r_i - mean_L r)/n`` (labelled, ``r = Y - lam f``) and
``psi_j = lam (f_j - mean_U f)/N`` (unlabelled). Without clusters
``Var = sum psi^2`` — exactly ppi-python's ``ppi_mean_ci`` (ddof 0, normal quantile). With
clusters (several questions per image, several items per patient), contributions are summed
within each cluster first, whether the cluster's items are labelled, unlabelled or both, and
``Var = G/(G-1) sum_c (sum_{i in c} psi_i)^2`` (Liang & Zeger 1986 with the usual small-sample
factor, ``G`` clusters); the tuned ``lam`` then minimises this clustered variance.

Also here: the paired difference of two means on the same items, stratified PPI (Fisch et al.
2024) with per-stratum ``lam``, cross-fitted PPI for several judges (pick the best judge or
combine them without using any labelled item twice; Zrnic & Candès 2024), and the Rogan–Gladen
prevalence correction with an interval that carries the uncertainty of the judge's positive
rate *and* of its sensitivity and specificity.

References
----------
Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023). Prediction-powered inference. Science
382:669-674 (eq. 2 and Theorem 1: the mean).
Angelopoulos, Duchi & Zrnic (2023). PPI++: Efficient prediction-powered inference.
arXiv:2311.01453 (Sec. 2, eq. 4; Example 6.1: the optimal ``lam`` for a mean).
Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen (2024). Stratified prediction-powered inference
for hybrid language model evaluation. NeurIPS 2024 (Sec. 3, eq. 8).
Zrnic & Candès (2024). Cross-prediction-powered inference. PNAS 121(15):e2322083121 (eq. 3-4).
Rogan & Gladen (1978). Estimating prevalence from the results of a screening test. Am J
Epidemiol 107:71-76.
Liang & Zeger (1986). Longitudinal data analysis using generalized linear models. Biometrika
73:13-22 (cluster-robust variance).

Modules
-------
:mod:`~medjudge.stats.ppi.mean`
    ``ppi_mean``, ``ppi_proportion``, ``classical_mean``, ``ppi_paired_difference``,
    ``tuned_lambda``.
:mod:`~medjudge.stats.ppi.stratified`
    ``ppi_mean_stratified``.
:mod:`~medjudge.stats.ppi.crossfit`
    ``ppi_mean_crossfit``.
:mod:`~medjudge.stats.ppi.rogan_gladen`
    ``rogan_gladen``.
:mod:`~medjudge.stats.ppi.linearisation`
    the argument checks and the (cluster-robust, small-sample) variance they share.
"""
