"""group_codes (medjudge.stats.groups) against numpy's own np.unique inverse."""

from __future__ import annotations

import numpy as np
import pytest
from medjudge.stats.groups import group_codes


def _unique(labels: np.ndarray) -> tuple[np.ndarray, int]:
    u, inv = np.unique(labels, return_inverse=True)
    return inv.ravel(), u.size


@pytest.mark.parametrize("seed", range(6))
def test_integer_labels_give_np_unique_codes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    high = int(rng.choice([1, 5, n, 4 * n + 1024, 10**9]))  # the last one: the sort path
    labels = rng.integers(0, high + 1, size=n).astype(rng.choice([np.int64, np.int32, np.uint16]))
    codes, g = group_codes(labels)
    want, want_g = _unique(labels)
    assert g == want_g
    assert codes.dtype == want.dtype and np.array_equal(codes, want)


def test_subset_of_codes_and_text_and_negative_labels() -> None:
    rng = np.random.default_rng(1)
    text = np.array([f"img{k}" for k in rng.integers(0, 400, 2000)], dtype=object)
    codes, g = group_codes(text)
    assert g == _unique(text)[1] and np.array_equal(codes, _unique(text)[0])
    rows = rng.random(2000) < 0.3  # a subset of the codes groups as the subset of the text
    assert np.array_equal(group_codes(codes[rows])[0], _unique(text[rows])[0])
    neg = np.array([-3, 5, -3, 0])
    assert np.array_equal(group_codes(neg)[0], _unique(neg)[0])
    assert group_codes(np.array([], dtype=np.int64))[1] == 0


def test_clustered_statistics_unchanged_with_codes_instead_of_labels() -> None:
    # what judge_vs_gold relies on: integer codes in sorted-label order give the same numbers
    from medjudge.stats.confusion import rate_intervals
    from medjudge.stats.intervals import mean_ci
    from medjudge.stats.mcnemar import clustered_mcnemar
    from medjudge.stats.resampling import resample_weights

    rng = np.random.default_rng(7)
    labels = np.array([f"case-{k:03d}" for k in rng.integers(0, 150, 600)], dtype=object)
    codes = group_codes(labels)[0]
    y = (rng.random((600, 3)) < 0.7).astype(float)
    mask = rng.random((600, 3)) < 0.8
    for cl in (labels, codes):
        r = mean_ci(y[:, 0], cl)
        t = clustered_mcnemar(y[:, 0], y[:, 1], cl)
        w = resample_weights(600, 50, seed=3, clusters=cl)
        ri = rate_intervals(y, mask, cl)
        if cl is labels:
            first = (r, t, w, ri)
    assert all(np.array_equal(first[0][k], r[k]) for k in r)
    assert (first[1].statistic, first[1].pvalue) == (t.statistic, t.pvalue)
    assert np.array_equal(first[2], w)
    assert all(np.array_equal(first[3][k], ri[k], equal_nan=True) for k in ri)
