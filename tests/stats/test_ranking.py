"""Leaderboard: rank intervals and groups of indistinguishable judges."""

from __future__ import annotations

import numpy as np
import pandas as pd
from medjudge.stats.ranking import bootstrap_ranks, leaderboard, letter_groups, rank_intervals
from medjudge.stats.resampling import Bootstrap


def test_bootstrap_ranks_competition_ties():
    r = bootstrap_ranks(np.array([[0.5, 0.7, 0.7, 0.1]]))
    assert r.tolist() == [[3, 1, 1, 4]]


def test_rank_intervals_integer_and_ordered():
    rng = np.random.default_rng(0)
    ranks = rng.integers(1, 5, (500, 4))
    lo, hi = rank_intervals(ranks)
    assert (lo <= hi).all() and lo.dtype.kind == "i"


def test_letter_groups_textbook_lines():
    # sorted a, b, c, d; significant: a-c, a-d, b-d. Maximal runs without a significant pair:
    # {a, b}, {b, c}, {c, d} -> letters a / ab / bc / c
    order = ["a", "b", "c", "d"]
    sig = {("a", "c"): True, ("a", "d"): True, ("b", "d"): True}
    g = letter_groups(order, sig)
    assert g == {"a": "a", "b": "ab", "c": "bc", "d": "c"}
    assert letter_groups(order, {}) == {k: "a" for k in order}


def test_leaderboard_separates_clear_gaps_and_ties_close_judges():
    rng = np.random.default_rng(1)
    p = np.array([0.55, 0.56, 0.85, 0.86])
    y = (rng.random((800, 4)) < p).astype(float)
    lb = leaderboard(y, ["w1", "w2", "s1", "s2"], bootstrap=Bootstrap(1000))
    assert set(lb["judge"][:2]) == {"s1", "s2"}
    assert lb["top_set"].tolist() == [True, True, False, False]
    # the two strong judges share a letter, the weak ones share another, none across
    g = dict(zip(lb["judge"], lb["group"], strict=True))
    assert g["s1"] == g["s2"] and g["w1"] == g["w2"] and g["s1"] != g["w1"]
    assert lb["rank_low"].iloc[0] == 1 and lb["rank_high"].iloc[-1] == 4
    assert (lb["rank_low"] <= lb["rank"]).all() and (lb["rank"] <= lb["rank_high"]).all()
    assert lb["share_ranked_first"].iloc[:2].sum() >= 0.99


def test_piepho_letters_for_a_non_transitive_pattern():
    """Piepho (2004) insert-and-absorb on A<->C and B<->D significant (A-B, A-D, B-C, C-D not):
    columns {A,B}, {A,D}, {B,C}, {C,D} — every non-significant pair shares a letter. The
    run-based display gave A and D no common letter (a contradiction)."""
    g = letter_groups(["A", "B", "C", "D"], {("A", "C"): True, ("B", "D"): True})
    assert g == {"A": "ab", "B": "ac", "C": "cd", "D": "bd"}


def test_letters_represent_every_decision_exactly():
    """Property of a letter display (Piepho 2004, p. 457): two judges share a letter if and
    only if their difference is not significant — checked on random decision patterns."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        k = int(rng.integers(2, 8))
        names = [f"j{i}" for i in range(k)]
        sig = {
            (a, b): bool(rng.random() < 0.4) for i, a in enumerate(names) for b in names[i + 1 :]
        }
        g = letter_groups(names, sig)
        for (a, b), s in sig.items():
            assert bool(set(g[a]) & set(g[b])) == (not s), (sig, g)


def test_leaderboard_groups_and_rank_sets_follow_the_pairs_table():
    from medjudge.stats.ranking import groups_from_pairs

    board = pd.DataFrame({"judge": ["A", "B", "C"], "accuracy": [0.9, 0.8, 0.7]})
    pairs = pd.DataFrame(
        {"judge_a": ["A", "A", "B"], "judge_b": ["B", "C", "C"], "p_holm": [0.2, 0.01, 0.3]}
    )
    out = groups_from_pairs(board, pairs)
    assert out["group"].tolist() == ["a", "ab", "b"]
    assert out["top_set"].tolist() == [True, True, False]
    assert out["rank_low"].tolist() == [1, 1, 2] and out["rank_high"].tolist() == [2, 3, 3]
