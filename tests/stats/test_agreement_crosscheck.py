"""Agreement with independent implementations: statsmodels, pingouin, krippendorff (1e-9)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from medjudge.stats.agreement import (
    cohen_kappa,
    fleiss_kappa,
    icc,
    krippendorff_alpha,
    krippendorff_alpha_core,
)
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

TOL = 1e-9


def _random_ratings(seed: int, n: int, r: int, q: int, p_missing: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, size=n)
    X = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, q, size=(n, r))).astype(
        float
    )
    X[rng.random((n, r)) < p_missing] = np.nan
    return X


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("wt", [None, "linear", "quadratic"])
def test_cohen_matches_statsmodels(seed: int, wt: str | None) -> None:
    X = _random_ratings(seed, 80, 2, 4, 0.0)
    table = np.zeros((4, 4))
    np.add.at(table, (X[:, 0].astype(int), X[:, 1].astype(int)), 1)
    ref = cohens_kappa(table, wt=wt) if wt else cohens_kappa(table)
    e = cohen_kappa(X, categories=[0, 1, 2, 3], weights=wt or "identity", ci="analytic")
    assert e.estimate == pytest.approx(ref.kappa, abs=TOL)
    assert e.se == pytest.approx(ref.std_kappa, abs=TOL)  # Fleiss-Cohen-Everitt variance
    assert e.extra["se0"] == pytest.approx(ref.std_kappa0, abs=TOL)
    assert e.ci_low == pytest.approx(ref.kappa_low, abs=TOL)


@pytest.mark.parametrize("seed", range(5))
def test_fleiss_matches_statsmodels_complete_data(seed: int) -> None:
    # statsmodels needs the same number of raters per item: compare on complete data
    X = _random_ratings(seed, 60, 5, 3, 0.0)
    counts, _ = aggregate_raters(X.astype(int), n_cat=3)
    assert fleiss_kappa(X, categories=[0, 1, 2]).estimate == pytest.approx(
        sm_fleiss(counts), abs=TOL
    )
    assert fleiss_kappa(X, categories=[0, 1, 2]).extra["pe"] == pytest.approx(
        ((counts.sum(0) / counts.sum()) ** 2).sum(), abs=TOL
    )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_matches_krippendorff_package_with_missing(seed: int, level: str) -> None:
    X = _random_ratings(seed, 70, 4, 5, 0.3) + 1.0  # values 1..5 (ratio needs > 0 sums)
    ref = krippendorff.alpha(reliability_data=X.T, level_of_measurement=level)
    assert krippendorff_alpha(X, scale=level).estimate == pytest.approx(ref, abs=TOL)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_weights_equal_krippendorff_on_duplicated_units(level: str) -> None:
    X = _random_ratings(11, 40, 3, 4, 0.25) + 1.0
    W = np.random.default_rng(3).multinomial(40, np.full(40, 1 / 40), size=4).astype(float)
    got = krippendorff_alpha_core(X, W, scale=level)
    ref = [
        krippendorff.alpha(np.repeat(X, w.astype(int), axis=0).T, level_of_measurement=level)
        for w in W
    ]
    np.testing.assert_allclose(got, ref, atol=TOL, rtol=0)


def test_alpha_interval_on_continuous_scores() -> None:
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 1)) + rng.normal(scale=0.7, size=(200, 3))
    X[rng.random(X.shape) < 0.2] = np.nan
    ref = krippendorff.alpha(reliability_data=X.T, level_of_measurement="interval")
    assert krippendorff_alpha(X, scale="interval").estimate == pytest.approx(ref, abs=TOL)


@pytest.mark.parametrize("seed", range(4))
def test_icc_matches_pingouin(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = 25, 4
    X = rng.normal(size=(n, 1)) * 2 + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    df = pd.DataFrame(
        [(i, j, X[i, j]) for i in range(n) for j in range(k)], columns=["t", "r", "s"]
    )
    ref = pg.intraclass_corr(df, targets="t", raters="r", ratings="s").set_index("Type")
    names = ["ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"]
    for e, name in zip(icc(X), names, strict=True):
        assert e.estimate == pytest.approx(ref.loc[name, "ICC"], abs=TOL)
        assert e.extra["F"] == pytest.approx(ref.loc[name, "F"], abs=1e-7)
        assert e.extra["p_value"] == pytest.approx(ref.loc[name, "pval"], abs=1e-9)
        # pingouin rounds CI95 to 2 decimals
        assert [round(e.ci_low, 2), round(e.ci_high, 2)] == pytest.approx(
            list(ref.loc[name, "CI95"]), abs=0.0101
        )


def test_icc_excludes_incomplete_items_like_pingouin_omit() -> None:
    X = np.array([[1, 2, 3], [2, 2, 4], [5, 6, 6], [np.nan, 1, 2], [3, 4, 4], [6, 7, 9]], float)
    e = icc(X)[2]
    assert e.n == 5 and e.excluded == {"items_with_missing_rating": 1}
    df = pd.DataFrame(
        [(i, j, X[i, j]) for i in range(6) for j in range(3)], columns=["t", "r", "s"]
    )
    ref = pg.intraclass_corr(df, "t", "r", "s", nan_policy="omit").set_index("Type")
    assert e.estimate == pytest.approx(ref.loc["ICC(C,1)", "ICC"], abs=TOL)
