"""Paired comparisons of score judges in the score study, compare and the judges report
(issue 37, item 6): the pairs table equals :func:`paired_score_difference` pair by pair (the
judges with missing scores too), its interval is the set of differences a brute-force
sign-flip test does not reject, and compare and the report show it from the result."""

from __future__ import annotations

import json
from itertools import product

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap
from medjudge.analyses.score_pairs import PAIR_COLUMNS, judge_pairs_table
from medjudge.analyses.score_study import score_study
from medjudge.data.model import Study
from medjudge.data.scale import Scale
from medjudge.stats.multiplicity import adjust_pvalues
from medjudge.stats.resampling import Permutation
from medjudge.stats.score_tests import paired_score_difference


def _study(n_images: int = 12, seed: int = 4) -> tuple[Study, pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    rows, items = [], []
    for g in range(n_images):
        for q in range(int(rng.integers(2, 5))):
            it = f"im{g}-q{q}"
            items.append((it, f"im{g}"))
            t = float(rng.integers(1, 6))
            rows.append((it, "gold", t))
            for judge, k in (("a", 1), ("b", 2), ("c", 1)):
                v = float(np.clip(t + rng.integers(-k, k + 1), 1, 5))
                if judge == "c" and rng.random() < 0.15:
                    continue  # judge c leaves some items unscored
                rows.append((it, judge, v))
    long = pd.DataFrame(rows, columns=["item", "rater", "value"])
    gold = long[long["rater"] == "gold"].set_index("item")["value"]
    ratings = long[long["rater"] != "gold"].assign(role="judge", dimension="q")
    item_table = pd.DataFrame(items, columns=["item", "image_id"])
    st = Study(
        ratings[["item", "rater", "role", "dimension", "value"]],
        item_table,
        {"q": Scale("interval", low=1, high=5)},
        gold_table=pd.DataFrame({"item": gold.index, "dimension": "q", "value": gold.values}),
    )
    wide = ratings.pivot(index="item", columns="rater", values="value").reindex(gold.index)
    return st, wide.assign(gold=gold), item_table.set_index("item").loc[gold.index].to_numpy()[:, 0]


def test_score_study_pairs_equal_paired_score_difference_with_missing_scores() -> None:
    st, wide, img = _study()
    res = score_study(st, bootstrap=Bootstrap(50), cluster="image_id")
    p = res.wide("pairs")
    assert list(p.columns) == PAIR_COLUMNS
    assert len(p) == 3 * 2  # 3 pairs x (MAE, bias)
    for r in p.itertuples():
        want = paired_score_difference(
            wide[r.judge_a].to_numpy(), wide[r.judge_b].to_numpy(), wide["gold"].to_numpy(),
            metric=r.metric, clusters=img,
        )  # fmt: skip
        for key in ("estimate_a", "estimate_b", "difference", "p_value"):
            assert getattr(r, key) == pytest.approx(want[key], rel=1e-12), (r, key)
        assert (r.ci_low, r.ci_high) == pytest.approx((want["ci_low"], want["ci_high"]), abs=1e-7)
        assert (r.n, r.n_clusters) == (want["n"], want["n_clusters"])
    np.testing.assert_allclose(p["p_holm"], adjust_pvalues(p["p_value"].to_numpy(), "holm"))
    # the contract's table: one family per dimension, named
    t = res.table("pairs")
    assert t["family"].str.startswith("Holm over every judge pair").all()
    assert (t["family_size"] == 6).all()
    assert "differ" in " ".join(res.findings())


def _brute_p(d: np.ndarray, codes: np.ndarray, theta: float) -> float:
    """Exact two-sided sign-flip p-value of mean(d) = theta, every pattern enumerated."""
    G = codes.max() + 1
    s = np.bincount(codes, weights=d - theta, minlength=G)
    t = abs(s.sum())
    hits = sum(abs(np.dot(e, s)) >= t - 1e-9 * (1 + np.abs(s).sum())
               for e in product((1.0, -1.0), repeat=G))  # fmt: skip
    return hits / 2**G


def test_closed_form_interval_is_the_set_brute_force_does_not_reject() -> None:
    rng = np.random.default_rng(7)
    n, G = 30, 9
    codes = np.sort(rng.integers(0, G, n))
    codes = np.unique(codes, return_inverse=True)[1]
    gold = rng.integers(1, 6, n).astype(float)
    X = np.c_[gold + rng.integers(-1, 2, n), gold + rng.integers(-2, 3, n)]
    t = judge_pairs_table("q", ["a", "b"], X, gold, codes, confidence_level=0.9)
    for r in t.itertuples():
        e = X - gold[:, None]
        e = np.abs(e) if r.metric == "mae" else e
        d = e[:, 0] - e[:, 1]
        assert r.p_value == pytest.approx(_brute_p(d, codes, 0.0))
        eps = 1e-6
        assert _brute_p(d, codes, r.ci_low + eps) > 0.1  # inside: not rejected at 10%
        assert _brute_p(d, codes, r.ci_high - eps) > 0.1
        assert _brute_p(d, codes, r.ci_low - eps) <= 0.1  # just outside: rejected
        assert _brute_p(d, codes, r.ci_high + eps) <= 0.1


def test_random_patterns_are_those_of_the_function() -> None:
    st, wide, img = _study(n_images=20, seed=9)
    t = judge_pairs_table(
        "q", ["a", "b", "c"], wide[["a", "b", "c"]].to_numpy(), wide["gold"].to_numpy(), img,
        permutation=Permutation(499, seed=3),
    )  # fmt: skip
    for r in t.itertuples():
        want = paired_score_difference(
            wide[r.judge_a].to_numpy(), wide[r.judge_b].to_numpy(), wide["gold"].to_numpy(),
            metric=r.metric, clusters=img, permutation=Permutation(499, seed=3),
        )  # fmt: skip
        assert r.p_value == pytest.approx(want["p_value"], rel=1e-12)
        assert (r.ci_low, r.ci_high) == pytest.approx((want["ci_low"], want["ci_high"]), abs=1e-7)


def test_compare_prints_and_dumps_the_pairs(tmp_path, capsys) -> None:  # noqa: ANN001
    from medjudge.cli import main

    st, wide, img = _study()
    long = st.ratings.merge(st.items, on="item")
    gold = wide["gold"].rename("value").reset_index().assign(rater="gold", role="expert")
    rows = pd.concat([long, gold.merge(st.items, on="item").assign(dimension="q")])
    f = tmp_path / "scores.csv"
    rows[["item", "image_id", "rater", "role", "dimension", "value"]].to_csv(f, index=False)
    mapping = tmp_path / "m.toml"
    mapping.write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\n'
        'value = "value"\ndimension_column = "dimension"\nattributes = ["image_id"]\n'
        'cluster = "image_id"\n[scale]\nlevel = "interval"\nlow = 1\nhigh = 5\n'
    )
    rc = main(["compare", str(f), "--mapping", str(mapping), "--resamples", "50"])
    out = capsys.readouterr().out
    res = score_study(st, bootstrap=Bootstrap(50), cluster="image_id")
    assert rc == 0
    assert res.pair_findings("q")[0].split("(")[0] in out  # the result's sentence
    assert "judge_a" in out and "p_holm" in out  # the result's table
    rc = main(["compare", str(f), "--mapping", str(mapping), "--resamples", "50", "--json"])
    pairs = json.loads(capsys.readouterr().out)["scores"]["pairs"]
    assert len(pairs) == 6


def test_judges_report_shows_the_pairs_from_the_result() -> None:
    from medjudge.report.judges import judges_report

    st, _, _ = _study()
    sec = judges_report(st, n_resamples=50)["scores"]
    res = score_study(st, bootstrap=Bootstrap(50), baselines=True)
    text = " ".join(str(getattr(b, "markdown", "")) for b in sec.blocks)
    assert "judge pair" in text and "sign" in text
    pairs = [t for t in sec.tables.values() if "pair" in t.columns]
    assert len(pairs) == 1 and len(pairs[0]) == len(res.wide("pairs"))
    assert any(m.startswith("Judge pairs: Holm over every judge pair") for m in sec.methods)


def test_one_judge_has_no_pairs() -> None:
    st, wide, img = _study()
    t = judge_pairs_table("q", ["a"], wide[["a"]].to_numpy(), wide["gold"].to_numpy(), img)
    assert t.empty and list(t.columns) == PAIR_COLUMNS
