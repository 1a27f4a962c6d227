"""Agreement coefficients reproduce published values (source cited on every test)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import EXTERNAL  # noqa: E402
from medjudge.stats.agreement import (
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_category_kappas,
    fleiss_kappa,
    gwet_ac,
    icc,
    krippendorff_alpha,
    pabak,
    percent_agreement,
    scott_pi,
)
from test_agreement_fixtures import (
    CAC_RAW4RATERS,
    COHEN_1968_P,
    COHEN_1968_V,
    COHEN_1968_V_ASYM,
    CONT3X3_ABSTRACTORS,
    FLEISS_1971,
    KRIPPENDORFF_2011,
    SAS_TABLE10,
    SHROUT_FLEISS_1979,
    table_to_pairs,
)

PANDALM = EXTERNAL / "pandalm_testset" / "verdicts_wide.csv"


@pytest.mark.parametrize(
    "level, published",
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_reliability_data(level: str, published: float) -> None:
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 coders x 12 units
    # with missing values: alpha_nominal .743, ordinal .815, interval .849, ratio .797.
    e = krippendorff_alpha(KRIPPENDORFF_2011, scale=level)
    assert round(e.estimate, 3) == published
    assert e.n == 12 and e.extra["pairable_units"] == 11


def test_krippendorff_nominal_matches_irrcac_readme() -> None:
    # kgwet/irrCAC README, krippen.alpha.raw(cac.raw4raters): alpha 0.74342, pa 0.805, pe 0.24,
    # se 0.14557, CI (0.419, 1). Our linearised SE follows the current irrCAC source
    # (R/agree.coeff3.raw.r, 2021) and gives 0.14548 (0.06 % lower; see docs/agreement.md).
    e = krippendorff_alpha(CAC_RAW4RATERS, scale="nominal", ci="analytic")
    assert e.estimate == pytest.approx(0.74342, abs=5e-6)
    assert e.extra["pa"] == pytest.approx(0.805)
    assert e.se == pytest.approx(0.14557, abs=2e-4)
    assert e.ci_high == 1.0


@pytest.mark.parametrize(
    "fn, coef, se, pe, ci_low",
    [
        # kgwet/irrCAC README, raw ratings `cac.raw4raters` (12 subjects, 4 raters, missing):
        (percent_agreement, 0.8181818, 0.12561, 0.0, 0.542),
        (gwet_ac, 0.77544, 0.14295, 0.1903212, 0.461),
        (fleiss_kappa, 0.76117, 0.15302, 0.2387153, 0.424),
        (conger_kappa, 0.76282, 0.14917, 0.2334252, 0.435),
        (brennan_prediger, 0.77273, 0.14472, 0.2, 0.454),
    ],
)
def test_irrcac_readme_raw_ratings(fn, coef, se, pe, ci_low) -> None:
    # Gwet (2008, 2014) linearisation variance; t interval with n-1 df, upper limit clipped at 1
    e = fn(CAC_RAW4RATERS, ci="analytic")  # irrCAC's analytic interval (default: BCa at n < 100)
    assert e.estimate == pytest.approx(coef, abs=5e-6)
    assert e.se == pytest.approx(se, abs=5e-6)
    assert e.extra["pe"] == pytest.approx(pe, abs=5e-8)
    assert round(e.ci_low, 3) == ci_low
    assert e.ci_high == 1.0


def test_irrcac_readme_contingency_table() -> None:
    # kgwet/irrCAC README, cont3x3abstractors: Cohen 0.7964094 (se 0.05891072), Scott
    # 0.7962397, AC1 0.8493305, BP 0.835, Krippendorff 0.7972585, percent agreement 0.89.
    X = table_to_pairs(CONT3X3_ABSTRACTORS)
    k = cohen_kappa(X)
    assert k.estimate == pytest.approx(0.7964094, abs=5e-8)
    assert k.se == pytest.approx(0.05891072, abs=5e-9)  # Fleiss-Cohen-Everitt == Gwet 2-rater
    assert scott_pi(X).estimate == pytest.approx(0.7962397, abs=5e-8)
    assert gwet_ac(X).estimate == pytest.approx(0.8493305, abs=5e-8)
    assert brennan_prediger(X).estimate == pytest.approx(0.835)
    assert pabak(X).estimate == pytest.approx(0.835)
    assert krippendorff_alpha(X, scale="nominal").estimate == pytest.approx(0.7972585, abs=5e-8)
    pa = percent_agreement(X)
    assert pa.estimate == pytest.approx(0.89)
    # irrCAC's table functions divide the variance by n^2 instead of n(n-1):
    assert pa.se * np.sqrt(99 / 100) == pytest.approx(0.03128898, abs=5e-9)


def test_fleiss_1971_diagnoses() -> None:
    # Fleiss (1971), Psychol. Bull. 76:378-382: kappa = .430 over 30 subjects x 6 raters;
    # per-category kappas .245 (depression), .245 (personality disorder), .520
    # (schizophrenia), .471 (neurosis), .566 (other). Null SE of Fleiss, Nee & Landis (1979):
    # irr::kappam.fleiss(diagnoses) reports z = 17.7.
    e = fleiss_kappa(FLEISS_1971)
    assert round(e.estimate, 3) == 0.430
    assert round(e.extra["z"], 1) == 17.7
    per = fleiss_category_kappas(FLEISS_1971)
    assert [round(c.estimate, 3) for c in per] == [0.245, 0.245, 0.520, 0.471, 0.566]
    assert [c.extra["category"] for c in per] == [1.0, 2.0, 3.0, 4.0, 5.0]
    # per-category null SE sqrt(2 / (n m (m-1)))
    assert per[0].extra["se0"] == pytest.approx(np.sqrt(2 / (30 * 6 * 5)))


def test_shrout_fleiss_1979_table2() -> None:
    # Shrout & Fleiss (1979), Table 4: ICC(1,1)=.17, ICC(2,1)=.29, ICC(3,1)=.71,
    # ICC(1,4)=.44, ICC(2,4)=.62, ICC(3,4)=.91 for the Table 2 data.
    got = {e.extra["shrout_fleiss"]: round(e.estimate, 2) for e in icc(SHROUT_FLEISS_1979)}
    assert got == {
        "ICC(1,1)": 0.17,
        "ICC(2,1)": 0.29,
        "ICC(3,1)": 0.71,
        "ICC(1,k)": 0.44,
        "ICC(2,k)": 0.62,
        "ICC(3,k)": 0.91,
    }


def test_cohen_1968_weighted_kappa() -> None:
    # Cohen (1968), Table 1 (N = 200): kappa = .492, weighted kappa .348 with disagreement
    # weights (1, 3, 6), .353 with the asymmetric weights (values as quoted in the examples of
    # psych::cohen.kappa). Agreement weights w = 1 - v / max v give the same kappa_w.
    X = table_to_pairs(COHEN_1968_P * 200)
    assert round(cohen_kappa(X).estimate, 3) == 0.492
    assert round(cohen_kappa(X, weights=1 - COHEN_1968_V / 6).estimate, 3) == 0.348
    assert round(cohen_kappa(X, weights=1 - COHEN_1968_V_ASYM / 6).estimate, 3) == 0.353


def test_sas_proc_freq_kappa_example() -> None:
    # SAS/STAT PROC FREQ output quoted in statsmodels' test_inter_rater.py (table10):
    # simple kappa 0.4842, ASE 0.1380, CI (0.2137, 0.7547), ASE under H0 0.1484;
    # Cicchetti-Allison weighted kappa 0.4701, ASE 0.1457, CI (0.1845, 0.7558), ASE0 0.1426.
    X = table_to_pairs(SAS_TABLE10)
    for w, ref in [
        ("identity", (0.4842, 0.1380, 0.2137, 0.7547, 0.1484)),
        ("linear", (0.4701, 0.1457, 0.1845, 0.7558, 0.1426)),
    ]:
        e = cohen_kappa(X, weights=w, ci="analytic")
        got = (e.estimate, e.se, e.ci_low, e.ci_high, e.extra["se0"])
        assert np.round(got, 4).tolist() == list(ref)


def test_pandalm_annotators_pairwise_cohen() -> None:
    # PandaLM README (WeOpenML/PandaLM @3871806): annotator kappas 1-2 0.85, 1-3 0.88,
    # 2-3 0.86; recomputed in data/external/pandalm_testset/SOURCE.md as 0.852,
    # 0.879, 0.862 and Fleiss' kappa 0.864.
    d = pd.read_csv(PANDALM)
    X = d[["annotator1", "annotator2", "annotator3"]].to_numpy(float)
    got = [
        round(cohen_kappa(X[:, p], categories=[0, 1, 2]).estimate, 3)
        for p in ([0, 1], [0, 2], [1, 2])
    ]
    assert got == [0.852, 0.879, 0.862]
    assert round(fleiss_kappa(X, categories=[0, 1, 2]).estimate, 3) == 0.864
