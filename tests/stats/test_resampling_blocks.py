"""The resampling plan computes ``W @ X`` block by block without the ``B x n`` weight matrix.

The reference is the definition the library followed before: the dense weight matrix of
``resample_weights`` (one call to numpy's generator) multiplied by ``X``. The plan draws the same
stream in blocks of replicates and multiplies per-cluster sums, so for whole-number data the
products are equal bit for bit, and whole analyses (the judge evaluation and the judges-against-
gold tables on the demo and LLMBar) agree with the dense path to 1e-9.
"""

from __future__ import annotations

from pathlib import Path

import medjudge as mj
import numpy as np
import pandas as pd
import pytest
from medjudge.analyses.judge_vs_gold import judge_vs_gold
from medjudge.stats import resampling as R
from medjudge.stats.resampling_counts import _multinomial_counts


def dense_products(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every plan multiply the dense matrix of ``resample_weights`` (the old path)."""

    def W(plan: R.ResamplePlan) -> np.ndarray:
        return R.resample_weights(
            plan.n_items, plan.n_resamples, seed=plan.seed, clusters=plan.clusters,
            strata=plan.strata, method=plan.method,
        )  # fmt: skip

    def sums(plan: R.ResamplePlan, X: np.ndarray) -> np.ndarray:
        X = X.toarray() if R.issparse(X) else np.asarray(X, dtype=float)
        return (W(plan) @ X.reshape(X.shape[0], -1)).reshape((plan.n_resamples, *X.shape[1:]))

    monkeypatch.setattr(R.ResamplePlan, "sums", sums)
    monkeypatch.setattr(R.ResamplePlan, "__matmul__", sums)
    monkeypatch.setattr(R.ResamplePlan, "apply", lambda plan, f: np.asarray(f(W(plan))))


@pytest.mark.parametrize("method", ["multinomial", "poisson"])
@pytest.mark.parametrize("stratified", [False, True])
@pytest.mark.parametrize("block_rows", [1, 7, 10_000])
def test_blocks_reproduce_the_dense_product(monkeypatch, method, stratified, block_rows):
    rng = np.random.default_rng(3)
    n = 120
    strata = np.repeat(["a", "b", "c"], 40) if stratified else None
    clusters = np.array([f"{i // 40}-{c}" for i, c in enumerate(rng.integers(0, 25, n))])
    X = rng.integers(0, 2, size=(n, 4)).astype(float)
    W = R.resample_weights(n, 301, seed=11, clusters=clusters, strata=strata, method=method)
    monkeypatch.setattr(R, "BLOCK_BYTES", block_rows * 8 * 25)
    plan = R.ResamplePlan(n, 301, 11, clusters=clusters, strata=strata, method=method)
    assert np.array_equal(plan @ X, W @ X)
    assert np.array_equal(plan.sum(axis=1), W.sum(1))
    keep = rng.random(n) < 0.6
    assert np.array_equal(plan.restrict(keep) @ X[keep], W[:, keep] @ X[keep])
    assert np.array_equal(plan.apply(lambda w: w), W)
    J = R.jackknife_weights(n, clusters=clusters)
    assert np.array_equal(plan.jackknife_apply(lambda w: w), J)
    assert np.array_equal(plan.cluster_jackknife() @ X, J @ X)


def test_many_clusters_counted_row_by_row_as_in_one_bincount():
    """From 4,096 clusters the counts are taken row by row: the same numbers as counting the
    whole block's indices in one ``bincount`` (the definition), for the same stream."""
    m, rows = 5000, 6
    idx = np.random.default_rng(4).integers(0, m, size=(rows, m))
    ref = np.zeros((rows, m))
    np.add.at(ref, (np.repeat(np.arange(rows), m), idx.ravel()), 1.0)
    got = _multinomial_counts(np.random.default_rng(4), m, rows)
    assert got.dtype == np.float64 and np.array_equal(got, ref)
    assert np.array_equal(got.sum(1), np.full(rows, m))


def test_sparse_cells_multiplied_dense_equal_the_dense_product():
    """One-hot cells (sparse) of 6,000 items in 5,000 clusters: the per-cluster sums are
    multiplied as a dense array, bit for bit the product of the dense weights."""
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(6)
    n, m = 6000, 12
    cl = rng.integers(0, 5000, n)
    X = csr_matrix((np.ones(n), (np.arange(n), rng.integers(0, m, n))), shape=(n, m))
    W = R.resample_weights(n, 40, seed=9, clusters=cl)
    plan = R.ResamplePlan(n, 40, 9, clusters=cl)
    assert np.array_equal(plan @ X, W @ X.toarray())
    keep = rng.random(n) < 0.5
    assert np.array_equal(plan.restrict(keep) @ X[keep], W[:, keep] @ X[keep].toarray())


def test_along_shares_one_pass_and_changes_no_number(monkeypatch):
    """``plan.along(Y)``: the next product also takes ``plan @ Y``; both equal the dense
    products bit for bit, and the replicates are drawn once, not twice."""
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(8)
    n = 5000
    cl = rng.integers(0, 4500, n)
    cells = csr_matrix((np.ones(n), (np.arange(n), rng.integers(0, 9, n))), shape=(n, 9))
    Y = rng.integers(0, 2, size=(n, 3)).astype(float)
    W = R.resample_weights(n, 60, seed=4, clusters=cl)
    passes = []
    real = R.ResamplePlan.count_blocks

    def counted(plan, rows=None):
        passes.append(1)
        yield from real(plan, rows)

    monkeypatch.setattr(R.ResamplePlan, "count_blocks", counted)
    shared = R.ResamplePlan(n, 60, 4, clusters=cl).along(Y)
    assert np.array_equal(shared @ cells, W @ cells.toarray())
    assert np.array_equal(shared @ Y, W @ Y) and len(passes) == 1


def test_single_precision_only_when_exact():
    """Whole-number sums go through float32 (exact: partial sums below 2**24); fractions and
    sums too large for that stay double."""
    assert R._exact_in_single(np.array([[1.0, 0.0], [2.0, 3.0]]))
    assert not R._exact_in_single(np.array([[0.5], [1.0]]))
    assert not R._exact_in_single(np.full((2, 1), 2.0**20))
    n = 400
    cl = np.repeat(np.arange(200), 2)
    X = np.c_[np.ones(n), np.arange(n) % 3, np.full(n, 0.1)]
    W = R.resample_weights(n, 50, seed=1, clusters=cl)
    got = R.ResamplePlan(n, 50, 1, clusters=cl) @ X
    assert np.array_equal(got[:, :2], W @ X[:, :2])
    assert np.allclose(got[:, 2], W @ X[:, 2], rtol=0, atol=1e-12)


def test_non_integer_data_agree_to_rounding():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    cl = np.repeat(np.arange(30), 3)
    W = R.resample_weights(90, 200, seed=2, clusters=cl)
    got = R.ResamplePlan(90, 200, 2, clusters=cl) @ X
    assert np.allclose(got, W @ X, rtol=0, atol=1e-12)


def test_memory_does_not_hold_the_weight_matrix(monkeypatch):
    """No array of B x n (or B x clusters) numbers is formed: blocks stay within the budget."""
    monkeypatch.setattr(R, "BLOCK_BYTES", 8 * 1000 * 4)  # 4 replicates of 1,000 clusters
    seen = []
    real = R._draw_counts

    def spy(rng, rows, *a, **k):
        out = real(rng, rows, *a, **k)
        seen.append(out.shape)
        return out

    monkeypatch.setattr(R, "_draw_counts", spy)
    plan = R.ResamplePlan(3000, 2000, 0, clusters=np.repeat(np.arange(1000), 3))
    plan @ np.ones((3000, 2))
    assert max(s[0] for s in seen) == 4 and len(seen) == 500


def frames(result) -> dict[str, pd.DataFrame]:
    return {k: v for k, v in vars(result).items() if isinstance(v, pd.DataFrame)}


def assert_frames_close(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        assert list(x.columns) == list(y.columns) and len(x) == len(y), k
        for c in x.columns:
            if pd.api.types.is_float_dtype(x[c]):
                assert np.allclose(x[c], y[c], rtol=0, atol=1e-9, equal_nan=True), (k, c)
            else:
                assert x[c].astype(str).tolist() == y[c].astype(str).tolist(), (k, c)


@pytest.mark.parametrize("data", ["demo", "llmbar"])
def test_analyses_equal_the_dense_path(monkeypatch, data):
    if data == "demo":
        study = mj.datasets.demo()
    else:
        root = Path(__file__).resolve().parents[2]
        study = mj.load(
            root / "data/external/llmbar/verdicts_long.csv",
            mapping=root / "data/mappings/llmbar_long.toml",
        )
    boot = mj.Bootstrap(300, seed=5)
    new_ev = mj.evaluate_judges(study, bootstrap=boot)
    new_gold = judge_vs_gold(study, bootstrap=boot)
    with monkeypatch.context() as m:
        dense_products(m)
        old_ev = mj.evaluate_judges(study, bootstrap=boot)
        old_gold = judge_vs_gold(study, bootstrap=boot)
    assert_frames_close(frames(new_ev), frames(old_ev))
    assert_frames_close(frames(new_gold), frames(old_gold))
