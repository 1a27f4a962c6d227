"""``position_bias(..., by=)``: per-group rows checked against independent computations.

Single order (the demo): each group's paired counts are recomputed with pandas from the tidy
verdicts and the gold; the exact McNemar p-value is ``scipy.stats.binomtest(b, b + c, 0.5)`` and
the mid-p is P(more extreme) + P(as extreme)/2 summed over the ``scipy.stats.binom``
support (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91); with clusters the
interval of the difference is the cluster-robust (CR1) t interval of ``statsmodels`` OLS on a
constant with ``C - 1`` degrees of freedom. Both orders (LLMBar, data/external/llmbar): first-first and second-second pairs per
subset and judge are counted with pandas from the raw CSV and tested with
``scipy.stats.binomtest``.
"""

from __future__ import annotations

import medjudge as mj
import numpy as np
import pandas as pd
import pytest
from conftest import EXTERNAL
from scipy import stats


@pytest.fixture(scope="module")
def demo():
    return mj.datasets.demo()


def _single_order_counts(study, dimension: str, by: str) -> pd.DataFrame:
    """b (judge first-shown, gold not) and c (the reverse) per group and judge, with pandas."""
    r = study.ratings
    judges = r[r["role"] == "judge"]
    both = judges.groupby("rater")["order"].nunique()
    single = both[both == 1].index
    v = judges[(judges["dimension"] == dimension) & judges["rater"].isin(single)]
    v = v[v["value"].isin(["A", "B"]) & (v["order"] == "AB")]
    gold = pd.Series(study.gold(dimension).codes, index=study.item_ids, name="gold")
    v = v.join(gold, on="item").join(study.items.set_index("item")[by], on="item")
    v = v[v["gold"].isin([0.0, 1.0])]  # usable gold naming one answer
    judge_a, gold_a = v["value"] == "A", v["gold"] == 0.0  # order AB: answer 1 is first shown
    v = v.assign(b=judge_a & ~gold_a, c=~judge_a & gold_a, n=1)
    return v.groupby([by, "rater"])[["b", "c", "n"]].sum().reset_index()


def test_single_order_groups_match_pandas_counts_and_scipy(demo):
    got = mj.position_bias(demo, by="organ_system", cluster=None)["single_order"]
    got = got[got["dimension"] == "overall"]
    ref = _single_order_counts(demo, "overall", "organ_system")
    m = ref.merge(got, left_on=["organ_system", "rater"], right_on=["organ_system", "judge"])
    assert len(m) == len(ref) == len(got) > 12  # every group x judge, nothing lost or invented
    assert (m["judge_a_gold_b"] == m["b"]).all() and (m["judge_b_gold_a"] == m["c"]).all()
    assert (m["n_x"] == m["n_y"]).all() and set(m["n_unit"]) == {"items"}
    for _, row in m.iterrows():
        b, k = int(row["b"]), int(row["b"] + row["c"])
        exact = stats.binomtest(b, k, 0.5).pvalue if k else 1.0
        assert row["p_mcnemar_exact"] == pytest.approx(exact, rel=1e-9)
        # mid-p: P(strictly more extreme) + P(as extreme) / 2, over the Bin(k, 1/2) support
        x = np.arange(k + 1)
        dist, obs = np.abs(x - k / 2), abs(b - k / 2)
        pmf = stats.binom.pmf(x, k, 0.5)
        midp = pmf[dist > obs + 1e-9].sum() + 0.5 * pmf[np.abs(dist - obs) <= 1e-9].sum()
        assert row["p_mcnemar_midp"] == pytest.approx(midp, rel=1e-9, abs=1e-12)
        assert row["difference"] == pytest.approx((row["b"] - row["c"]) / row["n_x"], rel=1e-12)


def test_single_order_groups_respect_clusters(demo):
    got = mj.position_bias(demo, by=["organ_system"], cluster="image_id")["single_order"]
    row = got[(got["dimension"] == "overall") & (got["judge"] == "sim-critic-7b")].iloc[0]
    assert row["ci_method"].startswith("inverted clustered McNemar") and "Durkalski" in row["test"]
    r, items = demo.ratings, demo.items.set_index("item")
    v = r[(r["rater"] == "sim-critic-7b") & (r["dimension"] == "overall")]
    v = v[v["value"].isin(["A", "B"])]
    gold = pd.Series(demo.gold("overall").codes, index=demo.item_ids, name="gold")
    v = v.join(gold, on="item").join(items[["organ_system", "image_id"]], on="item")
    v = v[v["gold"].isin([0.0, 1.0]) & (v["organ_system"] == row["organ_system"])]
    d = (v["value"] == "A").astype(float) - (v["gold"] == 0.0).astype(float)
    assert (row["n"], row["n_clusters"]) == (len(d), v["image_id"].nunique())
    # the interval inverts the Durkalski test: at each limit the statistic of the shifted
    # differences is the chi^2_1 quantile, and the p-value is the test at 0 (brute force)
    by_image = pd.DataFrame({"d": d.to_numpy(), "img": v["image_id"].to_numpy()})
    sums = by_image.groupby("img")["d"].agg(["sum", "size"])

    def durkalski(delta):
        t = sums["sum"] - delta * sums["size"]
        return t.sum() ** 2 / (t**2).sum()

    crit = stats.chi2.ppf(0.95, 1)
    for lim in (row["ci_low"], row["ci_high"]):
        assert -1 < lim < 1 and durkalski(lim) == pytest.approx(crit, rel=1e-7)
    assert row["p_value"] == pytest.approx(stats.chi2.sf(durkalski(0.0), 1), rel=1e-9)
    assert (row["p_value"] < 0.05) == (not row["ci_low"] <= 0 <= row["ci_high"])


def test_swap_groups_match_llmbar_counts_and_binomtest(llmbar_study):
    got = mj.position_bias(llmbar_study, by="subset")["swap"]
    raw = pd.read_csv(EXTERNAL / "llmbar" / "verdicts_long.csv", dtype={"winner": "string"})
    raw["judge"] = raw["evaluator"] + "/" + raw["strategy"]
    w = raw.pivot_table(index=["subset", "item_idx", "judge"], columns="order", values="winner",
                        aggfunc="first", dropna=False)  # fmt: skip
    w = w.dropna(how="any").reset_index()  # items with a verdict row in both orders
    # verdicts are in the original indexing: first-first = 1 (original), 2 (swapped)
    w = w.assign(ff=(w["original"] == "1") & (w["swapped"] == "2"),
                 ss=(w["original"] == "2") & (w["swapped"] == "1"))  # fmt: skip
    ref = w.groupby(["subset", "judge"])[["ff", "ss"]].sum().reset_index()
    m = ref.merge(got, on=["subset", "judge"])
    assert len(m) == len(got) == len(ref) > 300
    assert (m["first_first"] == m["ff"]).all() and (m["second_second"] == m["ss"]).all()
    for _, row in m.iterrows():
        k = int(row["ff"] + row["ss"])
        if k:
            p = stats.binomtest(int(row["ff"]), k, 0.5).pvalue
            assert row["p_first_binom"] == pytest.approx(p, rel=1e-9)
    assert set(m["n_unit"]) == {"items"}


def test_by_none_is_the_ungrouped_table(demo):
    plain = mj.position_bias(demo)
    assert "organ_system" not in plain["single_order"].columns
    grouped = mj.position_bias(demo, by="organ_system")["single_order"]
    one = grouped.groupby(["dimension", "judge"])["n"].sum()
    whole = plain["single_order"].set_index(["dimension", "judge"])["n"]
    pd.testing.assert_series_equal(one.sort_index(), whole.sort_index(), check_names=False)


@pytest.mark.parametrize("by", ["nope", ["organ_system", "nope"], 3])
def test_unknown_by_is_one_clear_line(demo, by):
    with pytest.raises(ValueError) as err:
        mj.position_bias(demo, by=by)
    msg = str(err.value)
    assert msg.startswith("by: ") and "not allowed" in msg and "'organ_system'" in msg
    assert "\n" not in msg


def test_items_without_the_attribute_are_a_group_not_dropped():
    study = mj.datasets.example()
    items = study.items.copy()
    items.loc[items.index[:5], "organ_system"] = np.nan
    study = mj.Study(study.ratings, items, scales=study.scales)
    grouped = mj.position_bias(study, by="organ_system", cluster=None)
    whole = mj.position_bias(study, cluster=None)
    for table in ("single_order", "swap"):  # the swap table used to drop such items
        assert grouped[table]["organ_system"].isna().any()
        assert grouped[table]["n"].sum() == whole[table]["n"].sum() > 0
