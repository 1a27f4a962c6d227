"""Issue 38, item 1: a statistic that cannot be computed is "not defined" with its reason —
in tables, JSON (``null`` plus a reason) and the CLI text — never NaN, ``-inf`` or a number.

* Every expert labels every item "A": Fleiss' kappa, Conger's kappa and Krippendorff's alpha
  are 0/0 (chance agreement 1) — "not defined (one category used ...)".
* A judge giving every item the same score: its Pearson/Spearman/Kendall correlations are not
  defined (Pearson was printed as ``-inf``: a rounding residue divided by zero).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _studies import SCORE_MAPPING
from medjudge.stats.agreement.frame import agreement_table
from medjudge.stats.score_agreement import pearson_interval, score_agreement_core
from robust_support import cli

ONE_CATEGORY = (
    'layout = "wide"\nitem = "item"\ninvalid = ["NA"]\n[scale]\nlevel = "nominal"\n'
    'categories = ["A", "B"]\n'
    + "".join(f'[raters.{r}]\nrole = "expert"\n' for r in ("e1", "e2", "e3"))
    + "".join(f'[raters.{r}]\nrole = "judge"\n' for r in ("j1", "j2"))
)


@pytest.fixture()
def one_category(tmp_path):
    n = 20
    df = pd.DataFrame({"item": [f"i{i}" for i in range(n)], "e1": ["A"] * n, "e2": ["A"] * n,
                       "e3": ["A"] * n, "j1": ["A", "B"] * 10, "j2": ["A"] * n})  # fmt: skip
    df.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "m.toml").write_text(ONE_CATEGORY)
    return tmp_path / "t.csv", tmp_path / "m.toml"


UNDEFINED = {"fleiss_kappa", "conger_kappa", "krippendorff_alpha"}


def test_one_category_table_says_why(one_category):
    t = agreement_table(np.zeros((10, 3)), scale="nominal", categories=[0.0, 1.0], ci=None)
    rows = t.set_index("coefficient")
    for c in UNDEFINED:
        assert math.isnan(rows.loc[c, "estimate"])
        assert rows.loc[c, "note"] == "not defined (one category used: chance agreement is 1)"
    assert rows.loc["percent_agreement", "estimate"] == 1.0
    assert rows.loc["percent_agreement", "note"] == ""


def test_one_category_agreement_json_is_null_with_a_reason(one_category):
    path, mapping = one_category
    rc, out, err = cli(["agreement", path, "--mapping", mapping, "--role", "expert", "--json",
                        "--ci", "none"])  # fmt: skip
    assert rc == 0, err
    rows = {r["coefficient"]: r for r in json.loads(out)["coefficients"]}
    for c in UNDEFINED:
        assert rows[c]["estimate"] is None
        assert rows[c]["note"].startswith("not defined (one category used")
    assert "note" not in rows["percent_agreement"]  # only where something is not defined


@pytest.mark.parametrize("command", ["agreement", "audit"])
def test_one_category_text_says_not_defined_never_nan(one_category, command):
    path, mapping = one_category
    argv = [command, path, "--mapping", mapping, "--resamples", "20"]
    if command == "agreement":
        argv += ["--role", "expert"]
    rc, out, err = cli(argv)
    assert rc == 0, err
    assert "not defined (one category used" in out
    assert not [w for w in out.split() if w in ("NaN", "nan", "inf", "-inf")], out


def test_constant_scores_have_no_correlation():
    theta = score_agreement_core([5.0] * 6, [1.0, 2, 3, 4, 5, 6])
    assert math.isnan(theta[6])  # pearson (was -inf or +inf from rounding)
    e = pearson_interval([5.0] * 6, [1.0, 2, 3, 4, 5, 6])
    assert math.isnan(e.estimate)
    assert e.extra["not_defined"] == "not defined: the rater gives every item the same score (5)"
    assert np.isfinite(score_agreement_core([1.0, 2, 3, 4], [1.0, 2, 3, 5])[6])


def test_constant_judge_correlations_are_not_defined_in_json(tmp_path):
    n = 30
    rng = np.random.default_rng(0)
    cols = {"answer_id": [f"a{i:03d}" for i in range(n)], "topic": ["t"] * n}
    cols.update({r: rng.integers(1, 11, n) for r in ("e1", "e2", "e3")})
    cols.update({r: [5] * n for r in ("j1", "j2")})
    pd.DataFrame(cols).to_csv(tmp_path / "s.csv", index=False)
    (tmp_path / "s.toml").write_text(SCORE_MAPPING, encoding="utf-8")
    rc, out, err = cli(["compare", tmp_path / "s.csv", "--mapping", tmp_path / "s.toml",
                        "--json", "--resamples", "50"])  # fmt: skip
    assert rc == 0, err
    metrics = pd.DataFrame(json.loads(out)["scores"]["metrics"])
    corr = metrics[metrics["rater"].isin(["j1", "j2"]) & metrics["metric"].isin(
        ["pearson", "spearman", "kendall_tau_b"])]  # fmt: skip
    assert len(corr) == 6
    assert corr["estimate"].isna().all()
    assert (corr["note"] == "not defined: the rater gives every item the same score (5)").all()
    experts = metrics[metrics["rater"] == "e1"]
    assert experts["estimate"].notna().all() and (experts["note"] == "").all()


# ------------------------------------------------ a judge with no usable verdict (exclude)
def _invalid_judge(tmp_path):
    rng = np.random.default_rng(0)
    n = 80
    truth = rng.choice(["A", "B"], n)
    flip = np.where(truth == "A", "B", "A")
    df = pd.DataFrame({"item": [f"i{i}" for i in range(n)]})
    for e in ("e1", "e2", "e3"):
        df[e] = np.where(rng.random(n) < 0.9, truth, flip)
    df["j1"] = np.where(rng.random(n) < 0.8, truth, flip)
    df["j2"] = np.where(rng.random(n) < 0.7, truth, flip)
    df["j3"] = "NA"  # every verdict unparseable
    df.to_csv(tmp_path / "t.csv", index=False)
    mapping = ONE_CATEGORY.replace('[raters.j2]\nrole = "judge"\n',
                                   '[raters.j2]\nrole = "judge"\n[raters.j3]\nrole = "judge"\n')  # fmt: skip
    (tmp_path / "m.toml").write_text(mapping)
    return tmp_path / "t.csv", tmp_path / "m.toml"


def test_a_judge_without_usable_verdicts_is_listed_not_ranked(tmp_path):
    """It was ranked first (``1  j3  NaN``) and its pairs showed p = 1 for tests that could
    not run; now it has no rank, no letter, and its pairs are "not tested" and left out of
    the Holm family (so the one real test is not adjusted for two that never ran)."""
    path, mapping = _invalid_judge(tmp_path)
    rc, out, err = cli(["compare", path, "--mapping", mapping, "--policy", "exclude", "--json",
                        "--resamples", "50"])  # fmt: skip
    assert rc == 0, err
    doc = json.loads(out)
    board = {r["judge"]: r for r in doc["leaderboard"]}
    assert board["j3"]["rank"] is None and board["j3"]["accuracy"] is None
    assert board["j3"]["group"] == "" and board["j3"]["rank_low"] is None
    assert "not ranked" in board["j3"]["warning"]
    assert sorted(board[j]["rank"] for j in ("j1", "j2")) == [1, 2]
    pairs = {(r["judge_a"], r["judge_b"]): r for r in doc["pairs"]}
    for pair in (("j1", "j3"), ("j2", "j3")):
        assert pairs[pair]["pvalue"] is None and pairs[pair]["p_holm"] is None
        assert pairs[pair]["test"].startswith("not tested")
    tested = pairs[("j1", "j2")]
    assert tested["p_holm"] == pytest.approx(tested["pvalue"])  # a family of one test
    rc, text, err = cli(["compare", path, "--mapping", mapping, "--policy", "exclude",
                         "--resamples", "50"])  # fmt: skip
    assert "no verdict" in text and "not tested" in text
    assert not [w for w in text.split() if w in ("NaN", "nan", "<NA>")], text


def test_accuracy_csv_says_why_a_cell_is_empty(tmp_path):
    path, mapping = _invalid_judge(tmp_path)
    out = tmp_path / "O"
    rc, _, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    assert rc == 0, err
    acc = pd.read_csv(out / "accuracy.csv", keep_default_na=False)
    row = acc[(acc["judge"] == "j3") & (acc["policy"] == "exclude")].iloc[0]
    assert (
        row["accuracy"] == ""
        and row["ci_method"] == "not defined: no usable verdict (policy exclude)"
    )


# ------------------------------------------------ a subgroup of one item
def test_a_one_item_subgroup_is_excluded_from_the_group_effect_test(tmp_path):
    """One item decided a "significant" group effect (20.1 on 2 df, p < 0.001, flagged);
    without it the test reads 0.71 on 1 df, p = 0.40. The item's level is now excluded from
    the test, which says so; the statistic equals the test on the data without that item."""
    from medjudge.analyses.heterogeneity import organ_effect_tests
    from medjudge.data.tables import load_any

    rng = np.random.default_rng(3)
    n = 61
    truth = rng.choice(["A", "B"], n)
    flip = np.where(truth == "A", "B", "A")
    df = pd.DataFrame({"item": [f"i{i}" for i in range(n)], "grp": ["x"] * 30 + ["y"] * 30 + ["z"]})
    for e in ("e1", "e2", "e3"):
        df[e] = truth
    df["j1"] = np.where(rng.random(n) < 0.8, truth, flip)
    df["j2"] = np.where(rng.random(n) < 0.7, truth, flip)
    mapping = ONE_CATEGORY.replace('item = "item"\n', 'item = "item"\nattributes = ["grp"]\n')
    (tmp_path / "m.toml").write_text(mapping)
    df.to_csv(tmp_path / "t.csv", index=False)
    df.iloc[:60].to_csv(tmp_path / "without.csv", index=False)
    with_one = organ_effect_tests(load_any(tmp_path / "t.csv", tmp_path / "m.toml"), "grp")
    without = organ_effect_tests(load_any(tmp_path / "without.csv", tmp_path / "m.toml"), "grp")
    for j in ("j1", "j2"):
        a = with_one.set_index("judge").loc[j]
        b = without.set_index("judge").loc[j]
        assert a["df"] == 1 and a["wald_chi2"] == pytest.approx(b["wald_chi2"], rel=1e-9)
        assert a["note"] == "excluded from the test: z (1 item)"
        assert b["note"] == ""
    rc, out, err = cli(["subgroups", tmp_path / "t.csv", "--mapping", tmp_path / "m.toml",
                        "--by", "grp"])  # fmt: skip
    assert rc == 0, err
    assert "excluded from the test: z (1 item)" in out
    effect = out.split("effect per judge")[1].split("# best")[0]
    assert "NaN" not in effect and "nan" not in effect
