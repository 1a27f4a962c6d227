"""Decisions carry their threshold (issue 36, items 2 and 3).

The α that makes every decision of a judge evaluation (significant pairs, letters, rank sets)
is a setting of its own (``alpha``, default 0.05), not ``1 - confidence_level``; the tables
carry it with the family, and the counts in sentences come from the pairs table, never from
the letter strings. Expected values are recomputed here from the pairs table by brute force.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap
from medjudge.analyses.evaluation import evaluate_judges
from medjudge.stats.ranking import groups_from_pairs, letter_code, letter_groups


def _codes(group: str) -> set[str]:
    """The groups of a displayed letter string (numbered, comma-separated beyond 26 groups)."""
    return set(group.split(",")) if group[:1].isdigit() else set(group)


@pytest.fixture(scope="module")
def demo_overall(demo_study):
    return {
        (level, alpha): evaluate_judges(
            demo_study,
            bootstrap=Bootstrap(100),
            confidence_level=level,
            alpha=alpha,
            dimensions=["overall", "accuracy"],
        )
        for level, alpha in ((0.9, 0.05), (0.95, 0.05), (0.95, 0.10))
    }


@pytest.mark.parametrize("level, alpha", [(0.9, 0.05), (0.95, 0.05), (0.95, 0.10)])
def test_letters_and_rank_sets_follow_alpha_not_the_level(demo_overall, level, alpha):
    ev = demo_overall[(level, alpha)]
    assert ev.settings["alpha"] == alpha and ev.settings["level"] == level
    pairs = ev.pairs
    assert (pairs["alpha"] == alpha).all() and (ev.leaderboard["alpha"] == alpha).all()
    assert (pairs["family"] == ev.settings["multiplicity"]["description"]).all()
    assert (pairs["significant"] == (pairs["p_holm"] < alpha)).all()
    for d, board in ev.leaderboard.groupby("dimension"):
        g = dict(zip(board["judge"], board["group"], strict=True))
        acc = dict(zip(board["judge"], board["accuracy"], strict=True))
        p = pairs[pairs["dimension"] == d]
        for a, b, ph in zip(p["judge_a"], p["judge_b"], p["p_holm"], strict=True):
            # share a letter exactly when the Holm-adjusted p is not below alpha
            assert bool(_codes(g[a]) & _codes(g[b])) == (not ph < alpha), (d, a, b, ph)
        k = len(board)
        for j, lo, hi in zip(board["judge"], board["rank_low"], board["rank_high"], strict=True):
            mine = p[(p["judge_a"] == j) | (p["judge_b"] == j)]
            other = np.where(mine["judge_a"] == j, mine["judge_b"], mine["judge_a"])
            sig = (mine["p_holm"] < alpha).to_numpy()
            better = sum(acc[o] > acc[j] for o, s in zip(other, sig, strict=True) if s)
            worse = sum(acc[o] < acc[j] for o, s in zip(other, sig, strict=True) if s)
            assert (lo, hi) == (1 + better, k - worse)
        assert f"< {alpha:g}" in board["rank_set"].iloc[0]


def test_a_pair_between_005_and_010_is_one_group_at_level_090(demo_overall):
    # the demo at level 0.9 has pairs with 0.05 < p_holm < 0.10: under alpha 0.05 they share a
    # letter (the old code decided at 1 - level = 0.10 and split them)
    ev = demo_overall[(0.9, 0.05)]
    p = ev.pairs
    mid = p[(p["p_holm"] > 0.05) & (p["p_holm"] < 0.10)]
    assert len(mid)
    lb = ev.leaderboard.set_index(["dimension", "judge"])
    for r in mid.itertuples():
        ga, gb = (
            lb.loc[(r.dimension, r.judge_a), "group"],
            lb.loc[(r.dimension, r.judge_b), "group"],
        )
        assert _codes(ga) & _codes(gb)


def test_alpha_is_validated(demo_study):
    with pytest.raises(ValueError, match="alpha"):
        evaluate_judges(demo_study, alpha=1.5, dimensions=["overall"])


def test_letter_codes_beyond_26_are_unambiguous():
    assert [letter_code(k) for k in (0, 25, 26, 51, 52, 701, 702)] == [
        "a", "z", "aa", "az", "ba", "zz", "aaa",
    ]  # fmt: skip
    # 31 judges in a chain: only neighbours are indistinguishable -> 30 groups {i, i+1}
    names = [f"j{i:02d}" for i in range(31)]
    sig = {
        (a, b): abs(i - k) > 1 for i, a in enumerate(names) for k, b in enumerate(names) if i < k
    }
    g = letter_groups(names, sig)
    assert g["j00"] == "1" and g["j26"] == "26,27" and g["j30"] == "30"
    for (a, b), s in sig.items():
        assert bool(_codes(g[a]) & _codes(g[b])) == (not s)


def test_top_set_and_counts_with_many_judges_come_from_the_pairs():
    # 32 judges: the leader differs from all but two; many groups (letters past "z")
    names = [f"j{i:02d}" for i in range(32)]
    board = pd.DataFrame({"judge": names, "accuracy": np.linspace(0.95, 0.3, 32)})
    rows = []
    for i, a in enumerate(names):
        for k in range(i + 1, 32):
            rows.append((a, names[k], 0.5 if k - i <= 2 else 0.001))
    pairs = pd.DataFrame(rows, columns=["judge_a", "judge_b", "p_holm"])
    out = groups_from_pairs(board, pairs, alpha=0.05)
    groups = dict(zip(out["judge"], out["group"], strict=True))
    assert any("," in v for v in groups.values())  # more than 26 groups: numbered groups
    # brute force: judges whose pair with the leader is not significant
    tied = {b for a, b, p in rows if a == "j00" and p >= 0.05}
    assert set(out.loc[out["top_set"], "judge"]) == {"j00"} | tied == {"j00", "j01", "j02"}


def test_report_headline_prints_the_alpha_and_count_of_the_decisions(demo_study):
    from medjudge.report.context import ReportContext
    from medjudge.report.sections.leaderboard import headline_findings

    for level, alpha in ((0.9, 0.05), (0.95, 0.05), (0.95, 0.10)):
        ctx = ReportContext(
            demo_study, confidence_level=level, alpha=alpha, n_resamples=100, dimension="overall"
        )
        text = headline_findings(ctx)[0].text
        from medjudge.report.sections._results import evaluation

        ev = evaluation(ctx)
        p = ev.pairs[ev.pairs["dimension"] == "overall"]
        best = ev.leaderboard[ev.leaderboard["dimension"] == "overall"].sort_values("rank")
        leader = best["judge"].iloc[0]
        mine = p[(p["judge_a"] == leader) | (p["judge_b"] == leader)]
        n_tied = int((~(mine["p_holm"] < alpha)).sum())
        assert f"α = {alpha:g}" in text
        assert re.findall(r"α = ([0-9.]+)", text) == [f"{alpha:g}"]
        if n_tied:
            assert f"{n_tied} other" in text
        else:
            assert "every other" in text


def test_a_judge_without_verdicts_in_a_dimension_is_listed_not_ranked():
    import medjudge as mj

    rng = np.random.default_rng(0)
    rows = []
    for i in range(60):
        g = ("A", "B")[i % 2]
        for e in ("e1", "e2", "e3"):
            rows += [(f"q{i}", e, "expert", d, g) for d in ("d1", "d2")]
        for j, acc in (("j1", 0.8), ("j2", 0.6), ("j3", 0.7)):
            for d in ("d1", "d2"):
                if (j, d) == ("j3", "d2"):
                    continue  # j3 was never run on d2
                v = g if rng.uniform() < acc else ("B" if g == "A" else "A")
                rows.append((f"q{i}", j, "judge", d, v))
    r = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    items = pd.DataFrame({"item": [f"q{i}" for i in range(60)]})
    study = mj.Study(r, items, {d: mj.Scale("nominal", ("A", "B")) for d in ("d1", "d2")})
    ev = evaluate_judges(study, bootstrap=Bootstrap(50))
    lb = ev.leaderboard.set_index(["dimension", "judge"])
    row = lb.loc[("d2", "j3")]
    assert np.isnan(row["rank"]) and np.isnan(row["rank_low"]) and np.isnan(row["rank_high"])
    assert row["group"] == "" and not row["top_set"] and "not ranked" in row["warning"]
    p = ev.pairs[(ev.pairs["dimension"] == "d2") & (ev.pairs["judge_b"] == "j3")]
    assert p["pvalue"].isna().all()  # no item in common: not tested (was p = 1)
    # the ranked judges' counts and rank sets ignore the untested pairs
    assert lb.loc[("d2", "j1"), "n_indistinguishable"] == int(
        (
            ev.pairs[(ev.pairs["dimension"] == "d2") & (ev.pairs["judge_a"] == "j1")]["p_holm"]
            >= 0.05
        ).sum()
    )
    assert lb.loc[("d2", "j1"), "rank_high"] <= 2


def test_every_result_decides_at_0_05_when_no_alpha_is_given(demo_study):
    """docs/inference.md: α is a setting of its own, default 0.05, never ``1 - level`` — for the
    heterogeneity, position, bias-suite and length results too (they used 1 - level: 0.10 at a
    90% level)."""
    from medjudge.analyses.bias import length_bias
    from medjudge.analyses.bias_suite import bias_suite
    from medjudge.analyses.heterogeneity import heterogeneity_table
    from medjudge.analyses.position import position_bias
    from medjudge.stats.resampling import Permutation

    level = 0.9
    results = {
        "heterogeneity": heterogeneity_table(
            demo_study, by="organ_system", confidence_level=level,
            permutation=Permutation(99, seed=1),
        ),
        "position": position_bias(demo_study, confidence_level=level),
        "bias suite": bias_suite(demo_study, dimension="overall", confidence_level=level),
        "length": length_bias(demo_study, confidence_level=level),
    }  # fmt: skip
    assert {k: r.alpha for k, r in results.items()} == dict.fromkeys(results, 0.05)
    given = bias_suite(demo_study, dimension="overall", confidence_level=level, alpha=0.01)
    assert given.alpha == 0.01


def test_bias_command_takes_alpha():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "medjudge.cli", "bias", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "--alpha" in out.stdout
