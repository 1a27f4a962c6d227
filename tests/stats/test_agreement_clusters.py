"""Agreement coefficients keep their clusters (issue 37, item 1).

Expected values come from brute force: the leave-one-cluster-out jackknife by an explicit loop
over the public functions on the remaining rows, and Gwet's per-item linearised terms summed
within clusters by a loop.
"""

from __future__ import annotations

import math

import medjudge as mj
import numpy as np
import pytest
from medjudge.stats.agreement.bootstrap import cluster_robust_se
from medjudge.stats.agreement.gwet_framework import _family, _prepare


def _data(n_clusters=36, seed=3, raters=3, q=3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, n_clusters)
    cl = np.repeat(np.arange(n_clusters), sizes)
    truth = rng.integers(0, q, cl.size)
    X = np.column_stack(
        [
            np.where(rng.random(cl.size) < 0.7, truth, rng.integers(0, q, cl.size))
            for _ in range(raters)
        ]
    ).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, np.array([f"img{c:03d}" for c in cl])


COEFS = {
    "fleiss_kappa": mj.fleiss_kappa,
    "gwet_ac1": mj.gwet_ac,
    "percent_agreement": mj.percent_agreement,
    "brennan_prediger": mj.brennan_prediger,
    "conger_kappa": mj.conger_kappa,
    "krippendorff_alpha": lambda X, **k: mj.krippendorff_alpha(X, scale="nominal", **k),
    "cohen_kappa": lambda X, **k: mj.cohen_kappa(X[:, :2], **k),
    "scott_pi": lambda X, **k: mj.scott_pi(X[:, :2], **k),
}


@pytest.mark.parametrize("name", sorted(COEFS))
def test_cluster_interval_is_the_cluster_jackknife_by_brute_force(name):
    fn = COEFS[name]
    X, cl = _data()
    e = fn(X, clusters=cl)  # ci="auto"
    labels = np.unique(cl)
    loo = np.array([fn(X[cl != c], ci=None).estimate for c in labels])
    g = labels.size
    se = math.sqrt((g - 1) / g * ((loo - loo.mean()) ** 2).sum())
    q = __import__("scipy").stats.t.ppf(0.975, g - 1)
    assert e.se == pytest.approx(se, rel=1e-9)
    assert e.ci_low == pytest.approx(e.estimate - q * se, rel=1e-9)
    assert e.ci_high == pytest.approx(min(1.0, e.estimate + q * se), rel=1e-9)
    assert e.ci_method == f"cluster jackknife ({g} clusters, t df={g - 1})"
    assert e.extra["n_clusters"] == g and "warning" not in e.extra


@pytest.mark.parametrize("n_clusters", [20, 60])
def test_auto_never_drops_the_clusters_and_warns_below_30(n_clusters):
    X, cl = _data(n_clusters=n_clusters)
    for fn in COEFS.values():
        e = fn(X, clusters=cl)
        assert e.ci_method.startswith("cluster jackknife")
        assert ("warning" in e.extra) == (n_clusters < 30)
        boot = fn(X, clusters=cl, ci="bootstrap", bootstrap=mj.Bootstrap(50))
        assert boot.extra["n_clusters"] == n_clusters
    # without clusters the old rule holds: item-level linearisation from 100 items on
    assert mj.fleiss_kappa(X).ci_method.startswith("analytic" if len(X) >= 100 else "bootstrap")


@pytest.mark.parametrize("kind", ["percent", "fleiss", "gwet", "bp", "conger"])
def test_cluster_linearisation_is_gwets_terms_summed_within_clusters(kind):
    X, cl = _data(seed=5)
    p = _prepare(X, None, None, "identity")
    n = X.shape[0]

    def stat(W):
        return _family(p, kind, W)[0]

    coef = float(stat(np.ones((1, n)))[0])
    # Gwet's per-item linearised term, by the numerical derivative of each item's weight
    h = 1e-6
    d_item = np.empty(n)
    for i in range(n):
        w = np.ones((2, n))
        w[0, i] += h
        w[1, i] -= h
        up, down = stat(w)
        d_item[i] = (up - down) / (2 * h)
    sums = {}
    for i, c in enumerate(cl):
        sums[c] = sums.get(c, 0.0) + d_item[i]
    t = np.array(list(sums.values()))
    g = t.size
    se = math.sqrt(g / (g - 1) * ((t - t.mean()) ** 2).sum())
    got, g_got = cluster_robust_se(stat, n, cl)
    assert g_got == g and got == pytest.approx(se, rel=1e-6)
    assert np.isfinite(coef)
    # one item per cluster and every item rated by all: Gwet's (2008) linearisation, as
    # irrCAC computes it (with items rated once, irrCAC's terms treat n2/n as fixed)
    Xc = np.nan_to_num(X, nan=0.0)
    pc = _prepare(Xc, None, None, "identity")
    e = COEFS[{"percent": "percent_agreement", "fleiss": "fleiss_kappa", "gwet": "gwet_ac1",
               "bp": "brennan_prediger", "conger": "conger_kappa"}[kind]](Xc, ci="analytic")  # fmt: skip
    got = cluster_robust_se(lambda W: _family(pc, kind, W)[0], n, np.arange(n))[0]
    assert got == pytest.approx(e.se, rel=1e-7)
