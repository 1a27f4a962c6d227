"""The cluster jackknife without its (clusters x items) matrix (scale measurement, issue 35).

``ResamplePlan.cluster_jackknife()`` stands for ``jackknife_weights``; the expected values are
the dense 0/1 matrix's products and kappas (and a brute-force leave-one-cluster-out loop).
"""

import numpy as np
import pytest
from medjudge.stats.confusion import gold_kappa_core
from medjudge.stats.resampling import ClusterJackknife, ResamplePlan, jackknife_weights


def _data(seed: int = 3, n: int = 61, q: int = 3, judges: int = 4):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, q, n).astype(float)
    pred = np.where(rng.random((n, judges)) < 0.6, gold[:, None], rng.integers(0, q, (n, judges)))
    pred = pred.astype(float)
    pred[rng.random((n, judges)) < 0.1] = np.nan
    clusters = np.array([f"c{i}" for i in rng.integers(0, 17, n)])
    return gold, pred, clusters


def test_product_is_totals_minus_cluster_sums_by_brute_force():
    _, _, clusters = _data()
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, (clusters.size, 7)).astype(float)
    jk = ResamplePlan(clusters.size, 100, 0, clusters=clusters).cluster_jackknife()
    labels = sorted(set(clusters))
    expected = np.array([X[clusters != c].sum(axis=0) for c in labels])
    assert jk.shape == (len(labels), clusters.size)
    assert np.array_equal(jk @ X, expected)
    assert np.array_equal(jk @ X[:, 0], expected[:, 0])


@pytest.mark.parametrize("policy", ["wrong", "exclude"])
@pytest.mark.parametrize("kind", ["identity", "quadratic"])
def test_kappa_jackknife_is_bit_identical_to_the_dense_matrix(policy, kind):
    gold, pred, clusters = _data()
    dense = jackknife_weights(gold.size, clusters=clusters)
    plan = ResamplePlan(gold.size, 100, 0, clusters=clusters)
    a = gold_kappa_core(gold, pred, 3, dense, kind=kind, policy=policy)
    b = gold_kappa_core(gold, pred, 3, plan.cluster_jackknife(), kind=kind, policy=policy)
    assert a.shape == b.shape == (len(set(clusters)), pred.shape[1])
    assert np.array_equal(a, b, equal_nan=True)


def test_items_without_clusters_leave_one_item_out():
    gold, pred, _ = _data(n=20)
    jk = ResamplePlan(gold.size, 100, 0).cluster_jackknife()
    assert isinstance(jk, ClusterJackknife) and jk.shape == (20, 20)
    a = gold_kappa_core(gold, pred, 3, jackknife_weights(gold.size))
    assert np.array_equal(a, gold_kappa_core(gold, pred, 3, jk), equal_nan=True)
