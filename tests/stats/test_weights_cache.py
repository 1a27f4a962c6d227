"""Resampling weights cached per plan (medjudge.stats.resampling): the cached matrix is the one
resample_weights draws, shared only between plans with the same partition, read-only, and the
cache stays within its memory bound."""

from __future__ import annotations

import medjudge.stats.resampling as R
import numpy as np
import pytest
from medjudge.stats.resampling import ResamplePlan, resample_weights


def test_same_partition_shares_one_read_only_matrix():
    cl = np.array(list("aabbccdde"))
    w1 = ResamplePlan(9, 100, 3, clusters=cl).weights()
    # other names, same partition in the same sorted order -> the same draw
    assert ResamplePlan(9, 100, 3, clusters=np.array(list("ppqqrrsst"))).weights() is w1
    assert np.array_equal(w1, resample_weights(9, 100, seed=3, clusters=cl))
    assert ResamplePlan(9, 100, 4, clusters=cl).weights() is not w1
    assert ResamplePlan(9, 100, 3).weights() is not w1  # items independent
    with pytest.raises(ValueError):
        w1[0, 0] = 5.0
    j = ResamplePlan(9, 100, 3, clusters=cl).jackknife()
    assert j.shape == (5, 9) and not j.flags.writeable


def test_cache_stays_within_its_bound(monkeypatch):
    monkeypatch.setattr(R, "WEIGHTS_CACHE_BYTES", 100 * 9 * 8 * 2)  # room for two matrices
    for seed in range(10, 15):
        ResamplePlan(9, 100, seed).weights()
    assert sum(v.nbytes for v in R._WEIGHTS.values()) <= R.WEIGHTS_CACHE_BYTES
    big = ResamplePlan(9, 1000, 99).weights()  # larger than the bound: returned, not kept
    assert all(v is not big for v in R._WEIGHTS.values())
