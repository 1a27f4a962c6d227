"""Bootstrap intervals, paired differences, tables and a small coverage simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from medjudge.stats.agreement import (
    agreement,
    agreement_difference,
    agreement_table,
    cohen_kappa,
    cohen_kappa_core,
    fleiss_kappa,
    icc,
    kendall_w,
    krippendorff_alpha,
    long_to_wide,
    pabak,
)
from medjudge.stats.resampling import Bootstrap, ResamplePlan


def _sim(rng: np.random.Generator, n: int, r: int, acc: float = 0.7, q: int = 3) -> np.ndarray:
    truth = rng.choice(q, size=n, p=[0.5, 0.3, 0.2][:q] if q == 3 else None)
    keep = rng.random((n, r)) < acc
    return np.where(keep, truth[:, None], rng.integers(0, q, size=(n, r))).astype(float)


def test_bootstrap_estimate_is_seeded_and_labelled() -> None:
    X = _sim(np.random.default_rng(0), 120, 3)
    boot = Bootstrap(n_resamples=500, seed=7)
    a = fleiss_kappa(X, ci="bootstrap", bootstrap=boot)
    b = fleiss_kappa(X, ci="bootstrap", bootstrap=boot)
    assert a == b
    assert a.ci_low < a.estimate < a.ci_high
    assert a.ci_method.startswith("bootstrap-bca (items, B=500, seed=7)")
    analytic = fleiss_kappa(X)
    assert a.se == pytest.approx(analytic.se, rel=0.25)


def test_cluster_bootstrap_is_wider_with_correlated_items() -> None:
    rng = np.random.default_rng(1)
    X = np.repeat(_sim(rng, 40, 2), 5, axis=0)  # 40 cases, each with 5 identical items
    clusters = np.repeat(np.arange(40), 5)
    boot = Bootstrap(1000, seed=1, method="percentile")
    items = cohen_kappa(X, ci="bootstrap", bootstrap=boot)
    cases = cohen_kappa(X, ci="bootstrap", bootstrap=boot, clusters=clusters)
    assert cases.se > 1.8 * items.se
    assert "clusters" in cases.ci_method


def test_paired_difference_of_two_judges() -> None:
    rng = np.random.default_rng(2)
    n = 300
    gold = rng.integers(0, 3, n).astype(float)
    good = np.where(rng.random(n) < 0.8, gold, rng.integers(0, 3, n)).astype(float)
    bad = np.where(rng.random(n) < 0.5, gold, rng.integers(0, 3, n)).astype(float)
    plan = ResamplePlan(n, 1000, seed=3)
    d = agreement_difference(np.c_[good, gold], np.c_[bad, gold], "cohen_kappa", plan=plan)
    ka, kb = cohen_kappa_core(np.c_[good, gold]), cohen_kappa_core(np.c_[bad, gold])
    assert d.estimate == pytest.approx(ka - kb)
    assert d.extra["estimate_a"] == pytest.approx(ka)
    assert d.ci_low > 0 and d.extra["p_two_sided"] < 0.01
    # a coefficient minus itself is exactly 0 in every resample
    z = agreement_difference(
        np.c_[good, gold], np.c_[good, gold], "krippendorff_alpha", plan=plan, scale="nominal"
    )
    assert z.estimate == 0 and z.se == 0


def test_icc_and_kendall_bootstrap() -> None:
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 1)) + rng.normal(scale=0.5, size=(60, 3))
    boot = Bootstrap(400, seed=0)
    res = icc(X, ci="bootstrap", bootstrap=boot)
    assert [e.name for e in res] == ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
    assert all(e.ci_low < e.estimate < e.ci_high for e in res)
    w = kendall_w(X, ci="bootstrap", bootstrap=boot)
    assert w.ci_low < w.estimate < w.ci_high and w.extra["p_value"] < 1e-6


def test_pabak_shows_kappa_paradox() -> None:
    # 95 % agreement with 90 % prevalence: kappa is only ~0.64 while PABAK is 0.90 (Byrt 1993)
    a, b, c, d = 90, 3, 2, 5
    X = np.array([[1, 1]] * a + [[1, 0]] * b + [[0, 1]] * c + [[0, 0]] * d, float)
    e = pabak(X, categories=[0, 1])
    assert e.estimate == pytest.approx(0.90)
    # categories are in sorted order: "first" = 0, so PI = p00 - p11 and BI = p01 - p10
    pi, bi = e.extra["prevalence_index"], e.extra["bias_index"]
    assert pi == pytest.approx(-0.85) and bi == pytest.approx(-0.01)
    # Byrt et al. (1993): kappa = (PABAK - PI^2 + BI^2) / (1 - PI^2 + BI^2)
    assert e.extra["cohen_kappa"] == pytest.approx((0.9 - pi**2 + bi**2) / (1 - pi**2 + bi**2))
    assert e.extra["cohen_kappa"] < 0.7


def test_agreement_table_levels() -> None:
    rng = np.random.default_rng(5)
    X = _sim(rng, 150, 2)
    t = agreement_table(X, scale="nominal", categories=[0, 1, 2])
    assert list(t.coefficient) == [
        "percent_agreement",
        "cohen_kappa",
        "scott_pi",
        "pabak",
        "fleiss_kappa",
        "conger_kappa",
        "brennan_prediger",
        "gwet_ac1",
        "krippendorff_alpha",
    ]
    assert t[["estimate", "se", "ci_low", "ci_high"]].notna().all().all()
    o = agreement_table(X + 1, scale="ordinal", ci="bootstrap", bootstrap=Bootstrap(300, seed=1))
    assert "kendall_w" in set(o.coefficient) and "gwet_ac2" in set(o.coefficient)
    assert (o.weights.iloc[0] == "ordinal") and o.ci_method.str.startswith("bootstrap").all()
    S = rng.normal(size=(80, 1)) + rng.normal(size=(80, 3))
    i = agreement_table(S, scale="interval")
    assert {"ICC(2,1)", "krippendorff_alpha", "kendall_w"} <= set(i.coefficient)
    assert "fleiss_kappa" not in set(i.coefficient)  # 240 distinct scores: no q x q weights
    with pytest.raises(ValueError, match="scale"):
        agreement_table(X)  # the measurement level is required for a plain array


def test_long_table_wrapper_and_duplicates() -> None:
    df = pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3, 4],
            "rater": ["a", "b"] * 3 + ["a"],
            "value": [0, 0, 1, 1, 0, 1, 1],
        }
    )
    wide = long_to_wide(df)
    assert wide.shape == (4, 2) and np.isnan(wide.loc[4, "b"])
    e = agreement(df, "krippendorff_alpha", scale="nominal")
    assert e.estimate == pytest.approx(
        krippendorff_alpha(wide.to_numpy(), scale="nominal").estimate
    )
    with pytest.raises(ValueError, match="more than one rating"):
        long_to_wide(pd.concat([df, df.iloc[:1]]))


def test_degenerate_single_category_is_nan_not_error() -> None:
    X = np.zeros((10, 3))
    assert np.isnan(fleiss_kappa(X, categories=[0, 1]).estimate)
    assert np.isnan(krippendorff_alpha(X, scale="nominal").estimate)


def _coverage(n_sims: int, n: int, seed: int) -> dict[str, float]:
    """Share of 95 % intervals covering the population kappa / alpha (simulated raters)."""
    rng = np.random.default_rng(seed)
    # population value from one very large sample of the same design
    big = _sim(np.random.default_rng(999), 200_000, 2)
    k_true = cohen_kappa(big, ci=None).estimate
    a_true = krippendorff_alpha(big, scale="nominal", ci=None).estimate
    hits = {"kappa_analytic": 0, "kappa_bca": 0, "alpha_analytic": 0, "alpha_bca": 0}
    for s in range(n_sims):
        X = _sim(rng, n, 2)
        boot = Bootstrap(400, seed=s)
        for key, e, true in (
            ("kappa_analytic", cohen_kappa(X), k_true),
            ("kappa_bca", cohen_kappa(X, ci="bootstrap", bootstrap=boot), k_true),
            ("alpha_analytic", krippendorff_alpha(X, scale="nominal"), a_true),
            (
                "alpha_bca",
                krippendorff_alpha(X, scale="nominal", ci="bootstrap", bootstrap=boot),
                a_true,
            ),
        ):
            hits[key] += e.ci_low <= true <= e.ci_high
    return {k: v / n_sims for k, v in hits.items()}


def test_small_coverage_simulation() -> None:
    # 150 simulated studies of 80 items: every 95 % interval should cover 88-100 % of the time
    # (binomial sd of a coverage estimate from 150 runs is ~1.8 points). The full simulation
    # is benchmarks/coverage_agreement.py (table in docs/agreement.md).
    cov = _coverage(150, 80, seed=2024)
    for key, c in cov.items():
        assert 0.88 <= c <= 1.0, (key, c)
