"""The study design resolved once (medjudge.data.design / medjudge.analyses.design), on the data
where each case was found: items a judge was never given, randomised presentation orders,
position bias only where positions and orders exist."""

from __future__ import annotations

import textwrap
from pathlib import Path

import medjudge as mj
import numpy as np
import pandas as pd
import pytest
from medjudge.analyses.bias_suite import bias_suite
from medjudge.analyses.judge_vs_gold import judge_vs_gold
from medjudge.data.design import presentation_design

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL, MAPPINGS = ROOT / "data" / "external", ROOT / "data" / "mappings"


@pytest.fixture(scope="module")
def llmbar():
    return mj.load(EXTERNAL / "llmbar" / "verdicts_long.csv", MAPPINGS / "llmbar_long.toml")


@pytest.fixture(scope="module")
def pandalm():
    return mj.load(
        EXTERNAL / "pandalm_testset" / "verdicts_wide.csv", MAPPINGS / "pandalm_wide.toml"
    )


def _long_study(tmp_path: Path, rows: list[tuple], categories=("A", "B"), extra: str = ""):
    df = pd.DataFrame(rows, columns=["item", "rater", "role", "order", "label"])
    df.to_csv(tmp_path / "t.csv", index=False)
    cats = ", ".join(f'"{c}"' for c in categories)
    (tmp_path / "m.toml").write_text(
        textwrap.dedent(
            f"""
            layout = "long"
            item = "item"
            rater = "rater"
            role_column = "role"
            value = "label"
            dimension = "overall"
            order = "order"
            {extra}
            [scale]
            level = "nominal"
            categories = [{cats}]
            """
        )
    )
    return mj.load(tmp_path / "t.csv", tmp_path / "m.toml")


# ---------------------------------------------------------------------------- judge design
def test_llmbar_items_a_judge_never_saw_are_not_wrong(llmbar):
    """LLMBar: 57 of 65 judges ran on 419 of 885 items. GPT-4/Vanilla was scored 0.392 (its
    466 unseen items counted wrong, below the trivial 0.503); on the items it judged it is
    0.828 under every policy."""
    o = llmbar.outcomes("preference")
    j = o.judges.index("GPT-4/Vanilla")
    assert int(o.n_not_assigned[j]) == 466
    t = mj.judge_accuracy(o.outcome, o.judges)
    row = t[t["judge"] == "GPT-4/Vanilla"].iloc[0]
    assert row["n"] == 419 and row["n_not_assigned"] == 466
    # independent count from the CSV: correct AB verdicts of this judge / its AB rows
    raw = pd.read_csv(EXTERNAL / "llmbar" / "verdicts_long.csv", dtype=str, keep_default_na=False)
    mine = raw[(raw["evaluator"] + "/" + raw["strategy"] == "GPT-4/Vanilla")]
    mine = mine[mine["order"] == "original"]
    assert len(mine) == 419
    assert row["accuracy"] == pytest.approx((mine["winner"] == mine["gold_label"]).mean())
    assert row["accuracy"] == pytest.approx(0.828, abs=5e-4)
    for policy in ("wrong", "half", "exclude"):
        a = mj.judge_accuracy(o.outcome, o.judges, policy=policy)
        assert a.loc[a["judge"] == "GPT-4/Vanilla", "n"].iloc[0] <= 419


def test_llmbar_each_judge_meets_the_baseline_on_its_own_items(llmbar):
    res = judge_vs_gold(llmbar, bootstrap=mj.Bootstrap(50))
    t = res.wide("baseline_tests")
    assert len(t) == 65
    seen = t[t["judge"] == "GPT-4/Vanilla"].iloc[0]
    full = t[t["judge"] == "GPT-4/Metrics_Reference"].iloc[0]
    # the baseline's accuracy differs between the 419-item and the 885-item judges
    assert seen["baseline_accuracy"] != full["baseline_accuracy"]
    below = t[(t["difference"] < 0) & (t["p_holm"] < 0.05)]
    assert len(below) < 57  # the false "57 of 65 judges are below the trivial baseline"
    assert res.settings["not_assigned"]["preference"]["GPT-4/Vanilla"] == 466


def test_validate_counts_not_assigned(llmbar):
    s = llmbar.summary()
    assert s["not_assigned"]["GPT-4/Vanilla"] == {"preference": 466}
    assert "GPT-4/Metrics_Reference" not in s["not_assigned"]
    assert s["presentation"] == {"preference": "swapped"}


def test_pairs_are_compared_on_the_items_both_were_given(llmbar):
    o = llmbar.outcomes("preference")
    pairs = mj.all_pairs({"preference": o.outcome}, o.judges, policy="wrong")
    pair = {"GPT-4/Vanilla", "GPT-4/Metrics_Reference"}  # 419 and 885 items
    r = pairs[[{a, b} == pair for a, b in zip(pairs["judge_a"], pairs["judge_b"], strict=True)]]
    assert int(r["n_common"].iloc[0]) <= 419


# ---------------------------------------------------------------------------- presentation
def _randomised_rows(n: int = 80, seed: int = 1) -> list[tuple]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        g = "A" if rng.random() < 0.5 else "B"
        for e in ("e1", "e2", "e3"):
            rows.append((f"q{i}", e, "expert", "AB", g))
        order = "AB" if i % 2 == 0 else "BA"  # one order per item, both occur
        right = rng.random() < 0.8
        rows.append((f"q{i}", "j1", "judge", order, g if right else ("B" if g == "A" else "A")))
    return rows


def test_randomised_orders_keep_every_verdict(tmp_path):
    """A study that randomised each item's order lost every BA verdict (scored wrong under the
    default policy: 0.775 -> 0.4125 on the reported case)."""
    rows = _randomised_rows()
    st = _long_study(tmp_path, rows)
    d = presentation_design(st, "overall")
    assert d.kind == "randomised" and d.swap_judges == ()
    o = st.outcomes("overall")
    assert np.isfinite(o.outcome).all() and o.outcome.shape == (80, 1)
    df = pd.DataFrame(rows, columns=["item", "rater", "role", "order", "label"])
    gold = df[df["role"] == "expert"].groupby("item")["label"].first()
    j = df[df["rater"] == "j1"].set_index("item")["label"]
    acc = mj.judge_accuracy(o.outcome, o.judges)["accuracy"].iloc[0]
    assert acc == pytest.approx((j == gold.loc[j.index]).mean())


def test_randomised_orders_give_a_position_estimate(tmp_path):
    rows = _randomised_rows(200, seed=2)
    # a judge that always picks the first-shown answer: A in AB, B in BA
    rows = [r if r[1] != "j1" else (*r[:4], "A" if r[3] == "AB" else "B") for r in rows]
    st = _long_study(tmp_path, rows)
    t = mj.position_bias(st)["single_order"]
    r = t.iloc[0]
    assert r["order"] == "AB/BA" and r["judge_a_rate"] == 1.0
    assert r["p_holm"] < 1e-6 and r["difference"] > 0.3


def test_pandalm_order_unknown_no_position_effect(pandalm):
    d = presentation_design(pandalm, "preference")
    assert d.kind == "unknown" and "not recorded" in d.position_reason
    pb = mj.position_bias(pandalm)
    assert pb["single_order"].empty and pb["swap"].empty
    assert "preference" in pb["not_applicable"]
    suite = bias_suite(pandalm)
    assert "position" not in set(suite.effects["effect"])
    assert "not recorded" in suite.notes["position"]
    assert (
        "position_single_order" not in mj.bias_report(pandalm)
        or mj.bias_report(pandalm)["position_single_order"].empty
    )


def test_single_response_labels_have_no_position(tmp_path):
    rows = [
        (f"q{i}", r, role, "AB", lab)
        for i in range(30)
        for r, role, lab in (
            ("e1", "expert", "safe" if i % 3 else "unsafe"),
            ("e2", "expert", "safe" if i % 3 else "unsafe"),
            ("j1", "judge", "safe" if i % 4 else "unsafe"),
        )
    ]
    st = _long_study(tmp_path, rows, categories=("safe", "unsafe"))
    d = presentation_design(st, "overall")
    assert d.kind == "single" and "no first or second position" in d.position_reason
    suite = bias_suite(st)
    assert "position" not in set(suite.effects.get("effect", pd.Series(dtype=str)))
    assert "no first or second position" in suite.notes["position"]


def test_swap_study_with_ties_uses_the_swap_data_and_excludes_ties(tmp_path):
    """Both orders with a tie category: the suite's position effect comes from the order swap
    (first-first against second-second) and ignores ties."""
    rng = np.random.default_rng(3)
    rows = []
    for i in range(300):
        g = rng.choice(["A", "B", "tie"], p=[0.45, 0.45, 0.1])
        for e in ("e1", "e2", "e3"):
            rows.append((f"q{i}", e, "expert", "AB", g))
        # a judge that prefers the SECOND-shown answer when unsure
        sure = rng.random() < 0.7
        ab = g if sure else "B"
        ba = g if sure else "A"  # original indexing: second shown in BA is answer 1
        rows += [(f"q{i}", "j1", "judge", "AB", ab), (f"q{i}", "j1", "judge", "BA", ba)]
    st = _long_study(tmp_path, rows, categories=("A", "B", "tie"))
    d = presentation_design(st, "overall")
    assert d.kind == "swapped" and d.swap_judges == ("j1",)
    suite = bias_suite(st)
    pos = suite.effects.query("effect == 'position'").iloc[0]
    assert pos["estimate"] < 0 and pos["pvalue"] < 1e-6  # second position, as simulated
    assert "both orders" in pos["method"]
    sw = mj.position_bias(st)["swap"]
    assert int(sw["second_second"].iloc[0]) > int(sw["first_first"].iloc[0])


# ---------------------------------------------------------------------------- one design, every command
def test_commands_agree_on_accuracy_n_and_interval(tmp_path, capsys):
    """compare, subgroups, run (accuracy.csv) and bias (the swap table's order-AB accuracy) give
    the same accuracy, n and interval for the same judge, dimension and policy (LLMBar, where
    bias said 0.811 and compare 0.384 for one judge)."""
    import json

    from medjudge.cli import main

    data = str(EXTERNAL / "llmbar" / "verdicts_long.csv")
    mapping = str(MAPPINGS / "llmbar_long.toml")

    def run_json(*argv: str) -> dict:
        assert main([*argv, data, "--mapping", mapping, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    comp = pd.DataFrame(run_json("compare", "--resamples", "50")["leaderboard"])
    sub = pd.DataFrame(run_json("subgroups", "--by", "dimension")["breakdown"])
    bias = pd.DataFrame(run_json("bias")["position_swap"])
    out = tmp_path / "out"
    argv = ["run", data, "--mapping", mapping, "--out", str(out), "--report", "none"]
    assert main([*argv, "--resamples", "50"]) == 0
    capsys.readouterr()
    acc = pd.read_csv(out / "accuracy.csv")
    acc = acc[acc["policy"] == "wrong"]
    for judge in ("GPT-4/Vanilla", "GPT-4/Metrics_Reference", "ChatGPT/CoT"):
        c = comp[comp["judge"] == judge].iloc[0]
        s = sub[sub["judge"] == judge].iloc[0]
        a = acc[acc["judge"] == judge].iloc[0]
        b = bias[bias["judge"] == judge].iloc[0]
        for other in (s, a):
            assert other["accuracy"] == pytest.approx(c["accuracy"], abs=1e-6)
            assert int(other["n"]) == int(c["n"])
            assert other["ci_low"] == pytest.approx(c["ci_low"], abs=1e-6)
            assert other["ci_high"] == pytest.approx(c["ci_high"], abs=1e-6)
        assert b["accuracy_ab"] == pytest.approx(c["accuracy"], abs=1e-6)
        assert int(b["accuracy_ab_n"]) == int(c["n"])


def test_logistic_effect_test_is_not_reported_under_separation(tmp_path):
    """A level where a judge is always right gives infinite log-odds: the Wald chi-square
    (27,740 on the reported study, with an empty note) is not reported; the note says why."""
    from medjudge.analyses.heterogeneity import organ_effect_tests

    rng = np.random.default_rng(4)
    rows = []
    for i in range(120):
        g = "A" if rng.random() < 0.5 else "B"
        grp = "easy" if i < 40 else "other"
        for e in ("e1", "e2", "e3"):
            rows.append((f"q{i}", e, "expert", "AB", g))
        right = grp == "easy" or rng.random() < 0.7  # always right on the easy items
        rows.append((f"q{i}", "j1", "judge", "AB", g if right else ("B" if g == "A" else "A")))
    df = pd.DataFrame(rows, columns=["item", "rater", "role", "order", "label"])
    df["subset"] = df["item"].map(lambda it: "easy" if int(it[1:]) < 40 else "other")
    df.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "m.toml").write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\n'
        'value = "label"\ndimension = "overall"\norder = "order"\nattributes = ["subset"]\n'
        '[scale]\nlevel = "nominal"\ncategories = ["A", "B"]\n'
    )
    st = mj.load(tmp_path / "t.csv", tmp_path / "m.toml")
    t = organ_effect_tests(st, "subset")
    r = t.iloc[0]
    assert np.isnan(r["wald_chi2"]) and np.isnan(r["pvalue"])
    assert "separation" in r["note"] and "easy" in r["note"]


def test_no_per_slot_expert_ceiling_for_exchangeable_slots(tmp_path):
    """compare reported a per-slot "expert ceiling" for 123 exchangeable crowd slots, which the
    audit rightly refuses: slots are not persons, so there is no per-expert ceiling."""
    from medjudge.analyses.evaluation import expert_ceiling

    rows = _randomised_rows(60, seed=5)
    st = _long_study(tmp_path, rows)
    assert len(expert_ceiling(st, "overall")) == 3  # three persons: one row each
    (tmp_path / "x").mkdir()
    slots = _long_study(tmp_path / "x", rows, extra='exchangeable = ["expert"]')
    assert slots.exchangeable == ("expert",)
    assert expert_ceiling(slots, "overall").empty
