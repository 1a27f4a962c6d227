"""Issue 35: every resampling below the door takes ``bootstrap=``/``permutation=``; the former
``n_resamples=``/``n_flips=``/``seed=`` still give the same numbers, with a DeprecationWarning,
and are refused beside the new keyword."""

from __future__ import annotations

import numpy as np
import pytest
from medjudge.stats.mcnemar import swap_position_test
from medjudge.stats.ppi.rogan_gladen import rogan_gladen
from medjudge.stats.ranking import leaderboard
from medjudge.stats.resampling import Bootstrap, Permutation
from medjudge.stats.score_tests import invert_sign_flip

RNG = np.random.default_rng(5)
SUMS, SIZES = RNG.normal(0.3, 1, 20), np.ones(20)  # 20 clusters: random sign patterns
FF = (RNG.random(60) < 0.4).astype(float)
SS = (1 - FF) * (RNG.random(60) < 0.3)
CL = np.repeat(np.arange(20), 3)
Y = (RNG.random((80, 3)) < [0.8, 0.7, 0.6]).astype(float)
RG = (300, 1000, 90, 100, 180, 200)

CASES = [
    # (call with the new keyword, call with the former ones, the default's equivalent)
    (lambda: invert_sign_flip(SUMS, SIZES, permutation=Permutation(499, 3)),
     lambda: invert_sign_flip(SUMS, SIZES, n_flips=499, seed=3),
     lambda: invert_sign_flip(SUMS, SIZES, permutation=Permutation(9999, 0))),
    (lambda: swap_position_test(FF, SS, CL, permutation=Permutation(499, 3)),
     lambda: swap_position_test(FF, SS, CL, n_flips=499, seed=3),
     lambda: swap_position_test(FF, SS, CL, permutation=Permutation(9999, 0))),
    (lambda: rogan_gladen(*RG, method="bootstrap", bootstrap=Bootstrap(500, 3)),
     lambda: rogan_gladen(*RG, method="bootstrap", n_resamples=500, seed=3),
     lambda: rogan_gladen(*RG, method="bootstrap", bootstrap=Bootstrap(4000, 0))),
    (lambda: leaderboard(Y, ["a", "b", "c"], bootstrap=Bootstrap(200, 3)),
     lambda: leaderboard(Y, ["a", "b", "c"], n_resamples=200, seed=3),
     lambda: leaderboard(Y, ["a", "b", "c"], bootstrap=Bootstrap(2000, 0))),
]  # fmt: skip


def _same(a, b) -> bool:
    if hasattr(a, "equals"):
        return a.equals(b)
    if hasattr(a, "to_dict") and not isinstance(a, dict):
        return a.to_dict() == b.to_dict()
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize(("new", "old", "default"), CASES)
def test_former_keywords_warn_and_give_the_same_numbers(new, old, default):
    with pytest.warns(DeprecationWarning, match="is deprecated: use"):
        former = old()
    assert _same(new(), former)


def test_the_defaults_are_the_former_defaults():
    # the former defaults: 9,999 sign patterns / 4,000 and 2,000 bootstrap draws, seed 0
    r = invert_sign_flip(SUMS, SIZES)
    assert r["method"].startswith("cluster sign-flip test (9999 random patterns, seed 0")
    assert _same(r, CASES[0][2]())
    assert _same(swap_position_test(FF, SS, CL), CASES[1][2]())
    e = rogan_gladen(*RG, method="bootstrap")
    assert e.extra["n_resamples"] == 4000 and _same(e, CASES[2][2]())
    assert _same(leaderboard(Y, ["a", "b", "c"]), CASES[3][2]())


def test_old_and_new_together_or_unknown_keywords_are_refused():
    with pytest.raises(ValueError, match="give permutation= only"):
        invert_sign_flip(SUMS, SIZES, permutation=Permutation(99), seed=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_resample'"):
        leaderboard(Y, n_resample=10)
    with pytest.raises(ValueError, match="a medjudge.Bootstrap"):
        rogan_gladen(*RG, method="bootstrap", bootstrap=Permutation(99))
