"""Dawid–Skene EM: truth recovery (simulator, synthetic confusion matrices), EM properties,
and agreement with an independent implementation (crowd-kit, when installed)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import DEMO
from medjudge.analyses.dawid_skene import study_dawid_skene, to_gold
from medjudge.stats.dawid_skene import dawid_skene, posterior_given


def _simulate(n: int, confusion: np.ndarray, priors: np.ndarray, seed: int, p_missing: float = 0.0):
    """Labels drawn from the Dawid–Skene generative model itself."""
    rng = np.random.default_rng(seed)
    R, q, _ = confusion.shape
    truth = rng.choice(q, size=n, p=priors)
    X = np.empty((n, R))
    for r in range(R):
        u = rng.random(n)
        cum = np.cumsum(confusion[r][truth], axis=1)
        X[:, r] = (u[:, None] > cum).sum(axis=1)
    X[rng.random((n, R)) < p_missing] = np.nan
    return X.astype(float), truth


CONF = np.array(
    [
        [[0.90, 0.05, 0.05], [0.10, 0.80, 0.10], [0.05, 0.15, 0.80]],
        [[0.70, 0.20, 0.10], [0.05, 0.90, 0.05], [0.10, 0.10, 0.80]],
        [[0.60, 0.30, 0.10], [0.20, 0.70, 0.10], [0.10, 0.10, 0.80]],
        [[0.85, 0.10, 0.05], [0.10, 0.85, 0.05], [0.30, 0.10, 0.60]],
        [[0.95, 0.03, 0.02], [0.02, 0.95, 0.03], [0.02, 0.03, 0.95]],
    ]
)
PRIORS = np.array([0.5, 0.3, 0.2])


@pytest.fixture(scope="module")
def synthetic():
    X, truth = _simulate(4000, CONF, PRIORS, seed=11, p_missing=0.2)
    return X, truth, dawid_skene(X, categories=[0, 1, 2])


def test_recovers_known_confusion_matrices(synthetic):
    # 4000 items, 20% missing: each confusion cell rests on >= ~500 labels, so its sampling SE
    # is <= 0.022; tolerance 0.05 (more than 2 SE) on every cell, 0.02 on the priors.
    X, truth, fit = synthetic
    assert fit.converged
    assert np.abs(fit.confusion - CONF).max() < 0.05
    assert np.abs(fit.priors - PRIORS).max() < 0.02
    # the posterior mode beats the majority vote against the planted truth
    assert (fit.labels == truth).mean() > 0.9


def test_missing_labels_and_unlabelled_items_are_counted():
    X, _ = _simulate(300, CONF, PRIORS, seed=3, p_missing=0.3)
    X[:5] = np.nan
    empty = np.isnan(X).all(axis=1)
    assert empty.sum() >= 5
    fit = dawid_skene(X, categories=[0, 1, 2])
    assert fit.excluded["items_without_labels"] == empty.sum()
    assert np.isnan(fit.labels[empty]).all() and np.isfinite(fit.labels[~empty]).all()
    np.testing.assert_allclose(fit.posteriors[empty], np.tile(fit.priors, (empty.sum(), 1)))
    g = to_gold(fit, "d")
    assert g.counts["no_expert_label"] == empty.sum() == g.counts["no_gold"]


def test_em_loglik_non_decreasing_and_posteriors_are_bayes(synthetic):
    X, _, fit = synthetic
    ll = np.asarray(fit.log_likelihood)
    assert len(ll) >= 3
    assert (np.diff(ll) >= -1e-8 * np.abs(ll[1:])).all()
    # brute-force Bayes' rule with the fitted parameters, without logs or the E-step code
    q = fit.categories.size
    post = np.tile(fit.priors, (X.shape[0], 1))
    for r in range(X.shape[1]):
        seen = ~np.isnan(X[:, r])
        lik = np.ones((X.shape[0], q))
        lik[seen] = fit.confusion[r][:, X[seen, r].astype(int)].T
        post = post * lik
    loglik = np.log(post.sum(axis=1)).sum()
    post /= post.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(fit.posteriors, post, atol=1e-10)
    np.testing.assert_allclose(
        posterior_given(X, fit.confusion, fit.priors, fit.categories), post, atol=1e-10
    )
    assert loglik == pytest.approx(ll[-1], rel=1e-9)


def test_smoothed_objective_is_non_decreasing():
    X, _ = _simulate(200, CONF, PRIORS, seed=5, p_missing=0.4)
    fit = dawid_skene(X, categories=[0, 1, 2], smoothing=0.5, init="random", seed=2)
    ll = np.asarray(fit.log_likelihood)
    assert (np.diff(ll) >= -1e-8 * np.abs(ll[1:])).all()


def test_seeded_random_init_is_deterministic():
    X, _ = _simulate(300, CONF, PRIORS, seed=8, p_missing=0.1)
    a = dawid_skene(X, init="random", seed=4)
    b = dawid_skene(X, init="random", seed=4)
    np.testing.assert_array_equal(a.posteriors, b.posteriors)
    assert a.log_likelihood == b.log_likelihood


def test_non_convergence_is_reported():
    X, _ = _simulate(500, CONF, PRIORS, seed=9)
    fit = dawid_skene(X, max_iter=2, tol=0.0)
    assert fit.n_iter == 2 and not fit.converged
    assert "NOT converged" in to_gold(fit, "d").rule


def test_demo_bundle_recovers_simulated_expert_accuracy(demo_study):
    """Truth: data/demo/truth/params.json (expert_accuracy_vs_truth, expert_organ_drift).

    The simulator's accuracy is per organ: ``acc[e][d] + drift[e][organ]`` (physician_3 loses
    0.15 on foot and oral_cavity), so the expected accuracy on this draw is the item-weighted
    average. 1026 items give a sampling SE of about 0.011; tolerance 0.035 (~3 SE).
    """
    params = json.loads((DEMO / "truth" / "params.json").read_text())
    acc, drift = params["expert_accuracy_vs_truth"], params["expert_organ_drift"]
    organs = demo_study.items.set_index("item").loc[demo_study.item_ids, "organ_system"].to_numpy()
    for dim in demo_study.dimensions:
        fit = study_dawid_skene(demo_study, dim)
        assert fit.converged
        for r, rater in enumerate(fit.raters):
            d = drift.get(rater, {})
            expected = np.mean([acc[rater][dim] + d.get(o, 0.0) for o in organs])
            assert fit.accuracy[r] == pytest.approx(expected, abs=0.035), (dim, rater)
    creat = study_dawid_skene(demo_study, "creativity")
    assert creat.raters[int(np.argmin(creat.accuracy))] == "physician_3"
    assert creat.accuracy[creat.raters.index("physician_3")] < 0.75


def test_matches_crowd_kit():
    """Independent implementation: crowd-kit's DawidSkene (Toloka; same majority-vote start).

    crowd-kit stops as soon as its evidence lower bound fails to rise by ``tol``; with the
    default it stopped after 13 iterations on this draw at a log-likelihood 5e-4 below ours, so
    it is run for a fixed 200 iterations (``tol=-inf``) to reach the same fixed point.
    """
    ck = pytest.importorskip("crowdkit.aggregation")
    X, _ = _simulate(600, CONF, PRIORS, seed=21, p_missing=0.25)
    items, raters = np.nonzero(~np.isnan(X))
    long = pd.DataFrame({"task": items, "worker": raters, "label": X[items, raters].astype(int)})
    ref = ck.DawidSkene(n_iter=200, tol=-np.inf).fit(long)
    fit = dawid_skene(X, categories=[0, 1, 2], tol=1e-13, max_iter=5000)
    probas = ref.probas_.sort_index()[[0, 1, 2]].to_numpy()
    labelled = ~np.isnan(X).all(axis=1)
    np.testing.assert_allclose(fit.posteriors[labelled], probas, atol=1e-4)
    np.testing.assert_allclose(fit.priors, ref.priors_.sort_index().to_numpy(), atol=1e-4)
    for r in range(X.shape[1]):
        # crowd-kit errors_: index (worker, observed), columns true -> transpose to [true, observed]
        e = ref.errors_.loc[r].sort_index()[[0, 1, 2]].to_numpy().T
        np.testing.assert_allclose(fit.confusion[r], e, atol=1e-4)


def _three_binary_raters(seed: int = 0, n: int = 300):
    rng = np.random.default_rng(seed)
    t = (rng.random(n) < 0.3).astype(int)
    X = np.stack([np.where(rng.random(n) < a, t, 1 - t) for a in (0.85, 0.8, 0.75)], 1)
    return X.astype(float), t


def test_label_switching_cannot_happen():
    # issue 12 item 9: before the anchoring, random starts converged to the same likelihood
    # with accuracies (0.86, 0.81, 0.73) or the swapped (0.14, 0.19, 0.27) — 4 of 6 seeds swapped
    X, t = _three_binary_raters()
    ref = dawid_skene(X)
    for s in range(8):
        fit = dawid_skene(X, init="random", seed=s)
        # same optimum up to the EM stopping rule (tol=1e-8 relative gain per step)
        np.testing.assert_allclose(fit.log_likelihood[-1], ref.log_likelihood[-1], rtol=1e-6)
        np.testing.assert_array_equal(fit.labels, ref.labels)
        assert np.all(fit.accuracy > 0.5)
    assert (ref.labels == t).mean() > 0.85


def test_refuses_when_not_identifiable():
    X, _ = _three_binary_raters()
    with pytest.raises(ValueError, match="not identifiable with 2 raters"):
        dawid_skene(X[:, :2])
    Y = X.copy()
    Y[::2, 0] = np.nan  # every item has at most 2 of the 3 raters
    Y[1::2, 1] = np.nan
    with pytest.raises(ValueError, match="no item was labelled by 3 or more raters"):
        dawid_skene(Y)


def test_refuses_when_not_diagonally_dominant():
    # three adversarial raters who mostly report the other class: the majority anchors the
    # classes, and the fitted confusion is then anti-diagonal -> refused, or recorded on request
    rng = np.random.default_rng(5)
    t = (rng.random(400) < 0.5).astype(int)
    X = np.stack([np.where(rng.random(400) < a, t, 1 - t) for a in (0.9, 0.2, 0.2)], 1).astype(
        float
    )
    fit = dawid_skene(X, require_dominance=False)
    if fit.excluded.get("not_diagonally_dominant"):
        with pytest.raises(ValueError, match="not diagonally dominant"):
            dawid_skene(X)
    else:  # the majority anchor already points the classes at the honest rater's labels
        assert np.all(np.diag(fit.confusion.mean(axis=0)) > 0.5)


def test_random_start_matches_crowd_kit_labels():
    """crowd-kit (independent implementation, majority start) and our anchored random start agree."""
    ck = pytest.importorskip("crowdkit.aggregation")
    X, _ = _simulate(500, CONF, PRIORS, seed=8, p_missing=0.2)
    items, raters = np.nonzero(~np.isnan(X))
    long = pd.DataFrame({"task": items, "worker": raters, "label": X[items, raters].astype(int)})
    ref = ck.DawidSkene(n_iter=200, tol=-np.inf).fit(long)
    fit = dawid_skene(X, categories=[0, 1, 2], init="random", seed=4, tol=1e-13, max_iter=5000)
    labelled = ~np.isnan(X).all(axis=1)
    ck_labels = ref.labels_.sort_index().to_numpy()
    assert (fit.labels[labelled] == ck_labels).mean() > 0.99
