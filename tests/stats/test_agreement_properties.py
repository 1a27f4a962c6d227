"""Property tests (hypothesis): invariances, bounds, and item weights == duplicated rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from medjudge.stats.agreement import (
    brennan_prediger_core,
    cohen_kappa_core,
    conger_kappa_core,
    fleiss_kappa_core,
    gwet_ac_core,
    icc_core,
    kendall_w_core,
    krippendorff_alpha_core,
    percent_agreement_core,
    scott_pi_core,
)

CATS = [0.0, 1.0, 2.0, 3.0]
MULTI = [
    percent_agreement_core,
    fleiss_kappa_core,
    gwet_ac_core,
    brennan_prediger_core,
    conger_kappa_core,
]


@st.composite
def ratings(draw, min_raters: int = 2, max_raters: int = 4, missing: bool = True) -> np.ndarray:
    n = draw(st.integers(6, 25))
    r = draw(st.integers(min_raters, max_raters))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, size=n)
    X = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, 4, size=(n, r))).astype(
        float
    )
    if missing:
        X[rng.random((n, r)) < 0.15] = np.nan
        X[:, :][np.isnan(X).all(axis=1)] = np.array([0.0] + [np.nan] * (r - 1))  # keep rows rated
    # every rater rates at least one item (Conger needs rater marginals)
    X[0] = truth[0]
    return X


def _close(a, b) -> None:
    np.testing.assert_allclose(
        np.asarray(a, float), np.asarray(b, float), atol=1e-10, equal_nan=True
    )


@settings(max_examples=40, deadline=None)
@given(ratings(), st.permutations([0, 1, 2, 3]))
def test_relabelling_nominal_categories(X: np.ndarray, perm: list[int]) -> None:
    Y = np.where(np.isnan(X), np.nan, np.take(np.array(perm, float), np.nan_to_num(X).astype(int)))
    for core in MULTI:
        _close(core(X, categories=CATS), core(Y, categories=CATS))
    _close(krippendorff_alpha_core(X, scale="nominal"), krippendorff_alpha_core(Y, scale="nominal"))


@settings(max_examples=40, deadline=None)
@given(ratings(), st.randoms(use_true_random=False))
def test_permuting_raters_and_items(X: np.ndarray, rnd) -> None:
    cols = list(range(X.shape[1]))
    rnd.shuffle(cols)
    rows = list(range(X.shape[0]))
    rnd.shuffle(rows)
    Y = X[rows][:, cols]
    for core in MULTI:
        _close(core(X, categories=CATS), core(Y, categories=CATS))
    for level in ("nominal", "ordinal", "interval"):
        _close(krippendorff_alpha_core(X, scale=level), krippendorff_alpha_core(Y, scale=level))


@settings(max_examples=40, deadline=None)
@given(ratings(min_raters=2, max_raters=2))
def test_two_rater_symmetry_and_bounds(X: np.ndarray) -> None:
    for core in (cohen_kappa_core, scott_pi_core):
        a = core(X, categories=CATS)
        _close(a, core(X[:, ::-1], categories=CATS))
        assert np.isnan(a) or -1 - 1e-12 <= a <= 1 + 1e-12
    pa = percent_agreement_core(X, categories=CATS)
    assert 0 <= pa <= 1


@settings(max_examples=40, deadline=None)
@given(ratings())
def test_bounds(X: np.ndarray) -> None:
    for core in MULTI:
        v = core(X, categories=CATS)
        assert np.isnan(v) or v <= 1 + 1e-12
    for level in ("nominal", "ordinal", "interval", "ratio"):
        a = krippendorff_alpha_core(X + 1, scale=level)
        assert np.isnan(a) or a <= 1 + 1e-12


def _all_cores(X: np.ndarray, w=None) -> list:
    out = [core(X, w, categories=CATS) for core in MULTI]
    out += [core(X, w, categories=CATS, weights="quadratic") for core in MULTI[1:]]
    out += [
        krippendorff_alpha_core(X + 1, w, scale=lvl)
        for lvl in ("nominal", "ordinal", "interval", "ratio")
    ]
    out += [
        cohen_kappa_core(X[:, :2], w, categories=CATS, weights="linear"),
        scott_pi_core(X[:, :2], w, categories=CATS),
    ]
    Xc = np.nan_to_num(X, nan=1.0)
    out += [icc_core(Xc, w), kendall_w_core(Xc, w)]
    return out


@settings(max_examples=30, deadline=None)
@given(ratings())
def test_unit_weights_equal_unweighted(X: np.ndarray) -> None:
    for a, b in zip(_all_cores(X), _all_cores(X, np.ones(X.shape[0])), strict=True):
        _close(a, b)


@settings(max_examples=30, deadline=None)
@given(ratings(), st.integers(0, 2**31 - 1))
def test_integer_weights_equal_duplicated_rows(X: np.ndarray, seed: int) -> None:
    w = np.random.default_rng(seed).integers(0, 4, size=X.shape[0])
    w[0] = max(w[0], 1)
    Xd = np.repeat(X, w, axis=0)
    for a, b in zip(_all_cores(X, w.astype(float)), _all_cores(Xd), strict=True):
        _close(a, b)


@settings(max_examples=15, deadline=None)
@given(ratings(), st.integers(0, 2**31 - 1))
def test_batched_weights_equal_rowwise_calls(X: np.ndarray, seed: int) -> None:
    W = (
        np.random.default_rng(seed)
        .multinomial(X.shape[0], np.full(X.shape[0], 1 / X.shape[0]), size=3)
        .astype(float)
    )
    for core in MULTI:
        _close(core(X, W, categories=CATS), [core(X, w, categories=CATS) for w in W])
    _close(
        krippendorff_alpha_core(X, W, scale="ordinal"),
        [krippendorff_alpha_core(X, w, scale="ordinal") for w in W],
    )


def test_weights_are_by_value_not_position() -> None:
    # categories [1, 2, 4]: linear distance 2-4 is twice 1-2 (Gwet 2014, ch. 3)
    from medjudge.stats.agreement import weight_matrix

    w = weight_matrix(np.array([1.0, 2.0, 4.0]), "linear")
    assert w[1, 2] == pytest.approx(1 - 2 / 3) and w[0, 1] == pytest.approx(1 - 1 / 3)
    X = np.array([[1, 2], [1, 2], [2, 4], [4, 4], [1, 1], [4, 1]], float)
    by_value = 1 - np.abs(np.subtract.outer([1, 2, 4], [1, 2, 4])) / 3
    by_position = 1 - np.abs(np.subtract.outer([0, 1, 2], [0, 1, 2])) / 2
    k = cohen_kappa_core(X, weights="linear")
    assert k == pytest.approx(cohen_kappa_core(X, weights=by_value), abs=1e-12)
    assert abs(k - cohen_kappa_core(X, weights=by_position)) > 1e-3


def test_unused_declared_category_counts() -> None:
    X = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [0, 0]], float)
    # AC1's chance agreement depends on q: declaring an unused third category changes it
    assert gwet_ac_core(X) != pytest.approx(gwet_ac_core(X, categories=[0, 1, 2]))
    assert brennan_prediger_core(X, categories=[0, 1, 2]) == pytest.approx(
        (0.8 - 1 / 3) / (1 - 1 / 3)
    )


def test_undeclared_value_error_names_cell() -> None:
    X = np.array([[0, 1], [1, 7]], float)
    with pytest.raises(ValueError, match="row 1, column 1"):
        fleiss_kappa_core(X, categories=[0, 1])
