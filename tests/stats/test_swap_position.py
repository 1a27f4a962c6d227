"""The clustered swap-design position test (issue 37, item 3): sign-flip test and its interval."""

from __future__ import annotations

import itertools

import medjudge as mj
import numpy as np
import pytest
from medjudge.stats.mcnemar import swap_position_test
from medjudge.stats.resampling import Permutation


def _brute_p(fc, nc, pi0):
    """Two-sided sign-flip p-value by explicit enumeration of every sign pattern."""
    d = fc - pi0 * nc
    t = abs(d.sum())
    hits = [abs(np.dot(e, d)) >= t - 1e-9 for e in itertools.product((1, -1), repeat=d.size)]
    return float(np.mean(hits))


def test_exact_sign_flip_matches_enumeration_and_interval_inverts_it():
    rng = np.random.default_rng(4)
    cl = np.repeat(np.arange(12), rng.integers(1, 5, 12))
    ff = (rng.random(cl.size) < 0.5).astype(float)
    ss = ((ff == 0) & (rng.random(cl.size) < 0.6)).astype(float)
    r = swap_position_test(ff, ss, cl)
    fc = np.bincount(cl, weights=ff)
    nc = fc + np.bincount(cl, weights=ss)
    fc, nc = fc[nc > 0], nc[nc > 0]
    assert r["n_clusters"] == fc.size
    assert r["p_value"] == pytest.approx(_brute_p(fc, nc, 0.5), abs=1e-12)
    assert r["estimate"] == pytest.approx(fc.sum() / nc.sum())
    for lim, inside in ((r["ci_low"], 1), (r["ci_high"], -1)):
        if 0 < lim < 1:  # a limit is where the same test starts to reject
            assert _brute_p(fc, nc, lim + inside * 1e-6) > 0.05
            assert _brute_p(fc, nc, lim - inside * 1e-4) <= 0.05


def test_interval_and_test_agree_on_random_data():
    rng = np.random.default_rng(8)
    for rep in range(30):
        g = int(rng.integers(15, 60))
        cl = np.repeat(np.arange(g), rng.integers(1, 6, g))
        u = rng.normal(0.4 * (rep % 3 == 0), 1.2, g)[cl]
        inc = rng.random(cl.size) < 0.3
        ff = (inc & (rng.random(cl.size) < 1 / (1 + np.exp(-u)))).astype(float)
        ss = (inc & (ff == 0)).astype(float)
        r = swap_position_test(ff, ss, cl, permutation=Permutation(1999, rep))
        assert (r["p_value"] <= 0.05) == (not r["ci_low"] <= 0.5 <= r["ci_high"])
        assert r["ci_low"] <= r["estimate"] <= r["ci_high"]


def test_singleton_clusters_give_the_exact_binomial():
    from scipy import stats

    ff = np.r_[np.ones(9), np.zeros(3)]
    ss = 1 - ff
    r = swap_position_test(ff, ss, None)
    assert r["p_value"] == pytest.approx(stats.binomtest(9, 12, 0.5).pvalue, rel=1e-12)


def test_swap_table_uses_the_clustered_test_and_names_it():
    study = mj.datasets.example()
    plain = mj.position_bias(study, cluster=None)["swap"]
    clus = mj.position_bias(study, cluster="image_id")["swap"]
    assert set(plain["p_first_test"]) == {"exact binomial (Clopper-Pearson interval)"}
    assert (plain["p_first_pvalue"] == plain["p_first_binom"]).all()
    assert clus["p_first_test"].str.startswith("cluster sign-flip test").all()
    reject = clus["p_first_pvalue"] <= 0.05
    inside = (clus["p_first_ci_low"] <= 0.5) & (0.5 <= clus["p_first_ci_high"])
    assert (reject == ~inside).all()
