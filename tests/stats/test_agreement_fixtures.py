"""Published reliability data sets used by the agreement tests (sources cited per object)."""

from __future__ import annotations

import numpy as np

nan = np.nan

# Krippendorff, K. (2011). "Computing Krippendorff's alpha-reliability", Annenberg School for
# Communication Departmental Papers 43, section "C. Nominal data, any number of observers,
# missing data": 4 observers (rows A-D) x 12 units. Published alphas: nominal .743,
# ordinal .815, interval .849, ratio .797. The same data are irrCAC's `cac.raw4raters`
# (columns permuted; kgwet/irrCAC README).
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
).T  # units x coders

# irrCAC `cac.raw4raters` exactly as printed in the kgwet/irrCAC README (subjects x raters).
CAC_RAW4RATERS = np.array(
    [
        [1, 1, nan, 1],
        [2, 2, 3, 2],
        [3, 3, 3, 3],
        [3, 3, 3, 3],
        [2, 2, 2, 2],
        [1, 2, 3, 4],
        [4, 4, 4, 4],
        [1, 1, 2, 1],
        [2, 2, 2, 2],
        [nan, 5, 5, 5],
        [nan, nan, 1, 1],
        [nan, nan, 3, nan],
    ]
)

# Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
# Bulletin 76:378-382, Table 1 (30 patients x 6 psychiatrists; 1 depression, 2 personality
# disorder, 3 schizophrenia, 4 neurosis, 5 other), in the raw form of irr's `diagnoses` data
# set as transcribed in statsmodels/stats/tests/test_inter_rater.py (`diagnoses`).
FLEISS_1971 = np.array(
    [
        [4, 4, 4, 4, 4, 4],
        [2, 2, 2, 5, 5, 5],
        [2, 3, 3, 3, 3, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3],
        [3, 3, 3, 3, 5, 5],
        [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4],
        [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4],
        [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3],
        [1, 4, 4, 4, 4, 4],
        [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5],
        [1, 1, 1, 1, 1, 2],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 4, 4, 4, 4, 4],
        [2, 2, 4, 5, 5, 5],
        [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4],
        [1, 1, 1, 1, 5, 5],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3],
        [5, 5, 5, 5, 5, 5],
    ],
    dtype=float,
)

# Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
# reliability. Psychological Bulletin 86:420-428, Table 2 (6 targets x 4 judges).
SHROUT_FLEISS_1979 = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    dtype=float,
)

# Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70:213-220, Table 1: proportions of
# N = 200 cases (rows judge B, columns judge A; personality disorder, neurosis, psychosis) and
# the disagreement weights v (1, 3, 6); as in the examples of psych::cohen.kappa ("cohen
# reports .492 and .348"; with the asymmetric weights `COHEN_1968_V_ASYM` "Cohen reports
# kw = .353").
COHEN_1968_P = np.array([[0.44, 0.07, 0.09], [0.05, 0.20, 0.05], [0.01, 0.03, 0.06]])
COHEN_1968_V = np.array([[0, 1, 3], [1, 0, 6], [3, 6, 0]], dtype=float)
COHEN_1968_V_ASYM = np.array([[0, 1, 4], [1, 0, 6], [2, 2, 0]], dtype=float)


def table_to_pairs(counts: np.ndarray) -> np.ndarray:
    """Expand a q x q count table to an (n, 2) array of (row, column) category codes."""
    counts = np.rint(np.asarray(counts)).astype(int)
    rows = [
        [i, j]
        for i in range(counts.shape[0])
        for j in range(counts.shape[1])
        for _ in range(counts[i, j])
    ]
    return np.asarray(rows, dtype=float)


# irrCAC `cont3x3abstractors` (kgwet/irrCAC README): 100 subjects, 2 abstractors.
CONT3X3_ABSTRACTORS = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])

# SAS/STAT PROC FREQ kappa example as used in statsmodels' test_inter_rater.py (`table10`):
# simple kappa 0.4842 (ASE 0.1380, 95% CI 0.2137-0.7547, ASE under H0 0.1484) and weighted
# kappa with Cicchetti-Allison (linear) weights 0.4701 (ASE 0.1457, CI 0.1845-0.7558,
# ASE under H0 0.1426).
SAS_TABLE10 = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
