"""The columnar engine path (issue: laptop to cluster).

- DuckDB and Spark reductions give identical integers, so identical numbers to the last digit,
  whatever the row order and the number of Spark partitions;
- point estimates, McNemar discordant counts and the clustered (Durkalski 2003) statistic equal
  an independent pandas / statsmodels computation;
- the counter-based Poisson weights are Poisson(k) (mean and variance within Monte Carlo error)
  and do not depend on the order in which keys are presented or blocks are drawn;
- the Poisson cluster-bootstrap interval covers in a quick simulation with clustered items and
  item difficulty shared by judges (tolerance from the Monte Carlo SE).
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap
from medjudge.analyses.at_scale import evaluate_at_scale
from medjudge.cli import main
from medjudge.engine.reduce import reduce_verdicts
from medjudge.stats.pattern_inference import accuracy_from_patterns
from medjudge.stats.poisson_bootstrap import pattern_keys, poisson_weights
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar


def simulate_long(n_items=400, n_judges=4, per_cluster=3, seed=0, invalid=0.03, dims=("d1", "d2")):
    """Long verdict table: 3 experts, judges sharing item difficulty, clusters of items."""
    rng = np.random.default_rng(seed)
    rows = []
    skill = np.linspace(0.4, 1.4, n_judges)
    for dim in dims:
        difficulty = rng.normal(0, 1, n_items)
        gold = rng.choice(["A", "B", "T"], n_items, p=[0.5, 0.35, 0.15])
        for e in range(3):
            flip = rng.random(n_items) < 0.1
            lab = np.where(flip, rng.choice(["A", "B", "T"], n_items), gold)
            rows.append(
                pd.DataFrame(
                    {
                        "item": np.arange(n_items),
                        "rater": f"e{e}",
                        "role": "expert",
                        "dimension": dim,
                        "value": lab,
                    }
                )
            )
        for j in range(n_judges):
            p = 1 / (1 + np.exp(-(skill[j] - difficulty)))
            right = rng.random(n_items) < p
            wrong = np.where(gold == "A", "B", "A")
            val = np.where(right, gold, wrong).astype(object)
            val[rng.random(n_items) < invalid] = None
            rows.append(
                pd.DataFrame(
                    {
                        "item": np.arange(n_items),
                        "rater": f"judge{j}",
                        "role": "judge",
                        "dimension": dim,
                        "value": val,
                    }
                )
            )
    df = pd.concat(rows, ignore_index=True)
    df["item"] = "q" + df["item"].astype(str).str.zfill(5)
    df["image_id"] = "img" + (df["item"].str[1:].astype(int) // per_cluster).astype(str)
    return df


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    df = simulate_long()
    path = tmp_path_factory.mktemp("engine") / "verdicts.parquet"
    df.to_parquet(path, index=False)
    return df, path


def _independent(df: pd.DataFrame, cluster: str | None):
    """Accuracy (invalid = wrong), McNemar b/c and Durkalski statistics with pandas."""
    ex = df[df.role == "expert"]
    votes = ex.groupby(["dimension", "item"])["value"].agg(lambda s: s.value_counts().to_dict())
    gold = {}
    for key, counts in votes.items():
        n = sum(counts.values())
        top, k = max(counts.items(), key=lambda kv: kv[1])
        if 2 * k > n:
            gold[key] = top
    jd = df[df.role == "judge"].copy()
    jd["gold"] = [gold.get((d, i)) for d, i in zip(jd.dimension, jd.item, strict=True)]
    jd = jd[jd.gold.notna()]
    jd["y"] = (jd.value == jd.gold).astype(int)
    acc = jd.groupby(["dimension", "rater"])["y"].mean()
    wide = jd.pivot_table(index=["dimension", "item"], columns="rater", values="y")
    clusters = None
    if cluster:
        clusters = jd.drop_duplicates(["dimension", "item"]).set_index(["dimension", "item"])[
            cluster
        ]
    return acc, wide, clusters


def test_engine_point_estimates_and_tests_match_pandas(table):
    df, path = table
    res = evaluate_at_scale(path, cluster="image_id", bootstrap=Bootstrap(50, 3))
    acc, wide, clusters = _independent(df, "image_id")
    lb = res.leaderboard.set_index(["dimension", "judge"])["accuracy"]
    pd.testing.assert_series_equal(
        lb.sort_index(),
        acc.rename_axis(["dimension", "judge"]).sort_index(),
        check_names=False,
        rtol=0,
        atol=1e-15,
    )
    for r in res.pairs.itertuples():
        w = wide.loc[r.dimension]
        d = w[r.judge_1] - w[r.judge_2]
        assert r.difference == pytest.approx(d.mean(), abs=1e-14)
        s = d.groupby(clusters.loc[r.dimension].reindex(w.index).to_numpy()).sum()
        stat = s.sum() ** 2 / (s**2).sum()
        assert r.statistic == pytest.approx(stat, rel=1e-12)
        assert r.p_value == pytest.approx(stats.chi2.sf(stat, 1), rel=1e-10)
    assert set(res.pairs["family"]) == {"table"}
    assert set(res.pairs["n_tests"]) == {len(res.pairs)}


def test_single_item_clusters_use_midp_mcnemar(table):
    df, path = table
    res = evaluate_at_scale(path, bootstrap=Bootstrap(20, 1))
    acc, wide, _ = _independent(df, None)
    for r in res.pairs.itertuples():
        w = wide.loc[r.dimension]
        b = int(((w[r.judge_1] == 1) & (w[r.judge_2] == 0)).sum())
        c = int(((w[r.judge_1] == 0) & (w[r.judge_2] == 1)).sum())
        exact = sm_mcnemar([[0, b], [c, 0]], exact=True).pvalue
        midp = (
            exact - stats.binom.pmf(min(b, c), b + c, 0.5)
            if b != c
            else 1 - 0.5 * stats.binom.pmf(b, b + c, 0.5)
        )
        assert r.p_value == pytest.approx(midp, rel=1e-10)
        assert r.test == "McNemar mid-p"


def test_row_order_and_input_format_do_not_change_numbers(table, tmp_path):
    df, path = table
    a = evaluate_at_scale(path, cluster="image_id", bootstrap=Bootstrap(300, 11)).to_dict()
    shuffled = df.sample(frac=1.0, random_state=5)
    b = evaluate_at_scale(shuffled, cluster="image_id", bootstrap=Bootstrap(300, 11)).to_dict()
    csv = tmp_path / "v.csv"
    shuffled.to_csv(csv, index=False)
    c = evaluate_at_scale(csv, cluster="image_id", bootstrap=Bootstrap(300, 11)).to_dict()
    for other in (b, c):
        assert other["leaderboard"] == a["leaderboard"]
        assert other["pairs"] == a["pairs"]


def _spark_available() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install -e '.[spark]')"
    if shutil.which("java") is None:
        return "Java is not on PATH (Spark needs Java 17)"
    return None


@pytest.mark.skipif(_spark_available() is not None, reason=str(_spark_available()))
def test_spark_equals_duckdb_to_the_last_digit(tmp_path):
    # a 10^5-verdict study: 2 dimensions x 5,000 items x (3 experts + 7 judges)
    df = simulate_long(n_items=5000, n_judges=7, seed=2)
    assert len(df) == 100_000
    path = tmp_path / "v.parquet"
    df.to_parquet(path, index=False)
    duck = evaluate_at_scale(path, cluster="image_id", bootstrap=Bootstrap(200, 5)).to_dict()
    for parts in (1, 7):
        spark = evaluate_at_scale(
            path, engine="spark", cluster="image_id", bootstrap=Bootstrap(200, 5), partitions=parts
        ).to_dict()
        spark["settings"].pop("engine")
        d = dict(duck, settings={k: v for k, v in duck["settings"].items() if k != "engine"})
        assert spark == d


def test_poisson_weights_are_poisson_and_keyed():
    keys = pattern_keys(np.arange(60).reshape(20, 3))
    k = np.arange(1, 21)
    w = poisson_weights(keys, k, 4000, seed=9)
    m, v = w.mean(0), w.var(0)
    # mean k, variance k; MC SE of the mean sqrt(k/B), of the variance ~ k*sqrt(2/B)
    assert np.all(np.abs(m - k) < 4 * np.sqrt(k / 4000))
    assert np.all(np.abs(v - k) < 4 * (k * np.sqrt(2 / 4000) + 0.05))
    perm = np.random.default_rng(0).permutation(20)
    w2 = poisson_weights(keys[perm], k[perm], 4000, seed=9)
    assert np.array_equal(w2, w[:, perm])
    blocks = np.vstack(
        [poisson_weights(keys, k, 1000, seed=9, first_replicate=b) for b in range(0, 4000, 1000)]
    )
    assert np.array_equal(blocks, w)
    assert not np.array_equal(poisson_weights(keys, k, 10, seed=10), w[:10])


def test_clustered_accuracy_interval_covers():
    """Quick calibration: 300 studies of 60 clusters x 3 items, shared item difficulty.
    Coverage must be within 3 MC SE of 95% (MC SE = sqrt(.95*.05/300) = 0.0126)."""
    rng = np.random.default_rng(2026)
    reps, g, m, true_logit = 300, 60, 3, 1.0
    hits = 0
    # the population accuracy of this judge: E[expit(1 - u - e)], u ~ N(0, .8^2) per cluster,
    # e ~ N(0, .5^2) per item; by numerical integration
    z = np.random.default_rng(1).normal(size=2_000_000) * np.sqrt(0.8**2 + 0.5**2)
    truth = float(np.mean(1 / (1 + np.exp(-(true_logit - z)))))
    for _ in range(reps):
        u = rng.normal(0, 0.8, g)[:, None] + rng.normal(0, 0.5, (g, m))
        y = (rng.random((g, m)) < 1 / (1 + np.exp(-(true_logit - u)))).sum(1)
        vals, k = np.unique(y, return_counts=True)
        a = np.full((vals.size, 1), m)
        r = accuracy_from_patterns(
            a,
            a,
            vals[:, None],
            k,
            items=np.full(vals.size, m),
            n_resamples=400,
            seed=int(rng.integers(1 << 31)),
        )
        hits += r["ci_low"][0] <= truth <= r["ci_high"][0]
    cover = hits / reps
    assert abs(cover - 0.95) < 3 * np.sqrt(0.95 * 0.05 / reps), cover


def test_reduction_counts_exclusions_and_refuses_bad_input(tmp_path):
    df = simulate_long(n_items=30, n_judges=2, dims=("d",))
    # a split vote: item q00000 gets three different expert labels
    ex = df[(df.item == "q00000") & (df.role == "expert")].index
    df.loc[ex, "value"] = ["A", "B", "T"]
    red = reduce_verdicts(df, cluster="image_id")
    assert red.excluded["d"]["items_without_majority"] == 1
    assert red.excluded["d"]["judge_verdicts_without_gold"] == 2
    dup = pd.concat([df, df.iloc[[40]]])
    with pytest.raises(ValueError, match="rows for item"):
        reduce_verdicts(dup)
    bad = df.copy()
    bad.loc[bad.index[0], "image_id"] = "elsewhere"
    with pytest.raises(ValueError, match="cluster column"):
        reduce_verdicts(bad, cluster="image_id")
    with pytest.raises(ValueError, match="missing column"):
        reduce_verdicts(df.drop(columns="role"))


def test_cli_compare_engine(table, capsys):
    _, path = table
    assert (
        main(
            [
                "compare",
                str(path),
                "--engine",
                "duckdb",
                "--cluster",
                "image_id",
                "--resamples",
                "100",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["engine"] == "duckdb"
    assert {"ci_low", "ci_high", "level"} <= set(out["leaderboard"][0])
    assert main(["compare", str(path.with_suffix(".nope")), "--engine", "duckdb"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_smoke_one_million_verdicts(tmp_path):
    """10^6 judge verdicts (100,000 items x 10 judges + 3 experts) from Parquet through the
    DuckDB engine: every judge and all 45 pairs get finite estimates and intervals."""
    from medjudge.data.synthetic import write_verdict_parquet

    path = tmp_path / "v.parquet"
    assert write_verdict_parquet(path, 1_000_000) == 100_000
    res = evaluate_at_scale(path, cluster="image_id", bootstrap=Bootstrap(100, 1))
    assert len(res.leaderboard) == 10 and len(res.pairs) == 45
    assert res.leaderboard["n_items"].eq(res.excluded["overall"]["items_with_gold"]).all()
    assert np.isfinite(res.leaderboard[["accuracy", "ci_low", "ci_high"]].to_numpy()).all()
    assert np.isfinite(res.pairs[["difference", "ci_low", "ci_high", "p_value"]].to_numpy()).all()
    # judges were simulated with increasing skill: the ranking must come out in that order
    acc = res.leaderboard.set_index("judge")["accuracy"]
    assert acc.is_monotonic_increasing


def test_expanded_percentile_alpha():
    """Hesterberg (2015): alpha' = 2 Phi(-sqrt(G/(G-1)) t_{G-1,0.975}); by hand for G = 15:
    sqrt(15/14) = 1.035098, t_14 = 2.144787 -> 2.220063 -> alpha' = 0.026413."""
    from medjudge.stats.pattern_inference import expanded_alpha

    assert expanded_alpha(0.95, np.array([15]))[0] == pytest.approx(0.026413, abs=2e-6)
    assert expanded_alpha(0.95, np.array([10**7]))[0] == pytest.approx(0.05, abs=1e-5)
