"""Generated studies through ``medjudge compare``: the text against the result tables
(issue 36, item 6).

Random pairwise studies coded "0"/"1"/"2" (response 1, response 2, tie), judged in both orders
by some judges, with 1, 2 and 30 judges, at confidence levels 0.9 and 0.95 and α 0.05 / 0.10.
For each, the text output's α, family and count of significant pairs must equal what the JSON
result records, the letters must follow the pairs' decisions, and a one-judge study must get
no pairwise language.
"""

from __future__ import annotations

import contextlib
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from medjudge.cli import main

MAPPING = """\
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "value"
order = "order"
gold = "gold"
attributes = ["image"]
cluster = "image"
"""


def _study(folder, n_judges: int, seed: int, n_items: int = 150):
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.45, 0.9, n_judges)
    swap = rng.uniform(size=n_judges) < 0.5  # these judges see every item in both orders
    rows = []
    for i in range(n_items):
        g = int(rng.integers(2))
        for j in range(n_judges):
            orders = ("AB", "BA") if swap[j] else (("AB", "BA")[int(rng.integers(2))],)
            for o in orders:
                u = rng.uniform()
                v = 2 if u < 0.05 else (g if u < 0.05 + skill[j] else 1 - g)
                rows.append((f"q{i:03d}", f"judge{j:02d}", "judge", str(v), o, str(g), i // 3))
    path = folder / f"study_{n_judges}_{seed}.csv"
    cols = ["item", "rater", "role", "value", "order", "gold", "image"]
    pd.DataFrame(rows, columns=cols).to_csv(path, index=False)
    mapping = folder / "mapping.toml"
    mapping.write_text(MAPPING)
    return path, mapping


def _run(argv: list[str]) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def _codes(group: str) -> set[str]:
    return set(group.split(",")) if group[:1].isdigit() else set(group)


@pytest.mark.parametrize(
    "n_judges, level, alpha, seed, engine",
    [
        (1, 0.95, 0.05, 1, "memory"),
        (2, 0.9, 0.05, 2, "memory"),
        (30, 0.9, 0.05, 3, "memory"),
        (30, 0.95, 0.10, 4, "memory"),
        (5, 0.9, 0.10, 6, "duckdb"),
    ],
)
def test_compare_text_states_the_alpha_family_and_counts_of_its_result(
    tmp_path, n_judges, level, alpha, seed, engine
):
    path, mapping = _study(tmp_path, n_judges, seed)
    args = ["compare", str(path), "--mapping", str(mapping), "--resamples", "50",
            "--confidence-level", str(level), "--alpha", str(alpha), "--engine", engine]  # fmt: skip
    res = json.loads(_run([*args, "--json"]))
    text = _run(args)
    settings, pairs = res["settings"], pd.DataFrame(res["pairs"])
    board = pd.DataFrame(res["leaderboard"])
    assert settings["alpha"] == alpha and settings["level"] == level
    if settings["order"] != "single order":  # some judges saw both orders: the text says which
        assert f"accuracy uses order {settings['order']}" in text
    if n_judges == 1:
        assert pairs.empty
        assert "pairwise:" not in text and "Holm over all 0" not in text
        assert "(no pairs: 1 judge" in text
        return
    m = re.search(
        r"pairwise: (\d+) comparisons .*?; (.*); significant at α = ([0-9.]+): (\d+)", text
    )
    assert m, text
    n_pairs, family, a_text, n_sig = m.groups()
    assert int(n_pairs) == len(pairs) == n_judges * (n_judges - 1) // 2
    assert family == settings["multiplicity"]["description"]
    assert float(a_text) == alpha
    assert int(n_sig) == int((pairs["p_holm"] < alpha).sum())
    # letters follow the decisions at alpha (brute force over every pair)
    g = dict(zip(board["judge"], board["group"], strict=True))
    for a, b, p in zip(pairs["judge_a"], pairs["judge_b"], pairs["p_holm"], strict=True):
        assert bool(_codes(g[a]) & _codes(g[b])) == (not p < alpha)
    # the leader's count of indistinguishable judges is its non-significant pairs
    lead = board.sort_values("rank").iloc[0]
    mine = pairs[(pairs["judge_a"] == lead["judge"]) | (pairs["judge_b"] == lead["judge"])]
    assert lead["n_indistinguishable"] == int((~(mine["p_holm"] < alpha)).sum())
    assert int(lead["rank_high"]) == n_judges - int((mine["p_holm"] < alpha).sum())


def test_validate_on_a_generated_study_says_pairwise_from_the_orders(tmp_path):
    path, mapping = _study(tmp_path, 2, 7)
    out = _run(["validate", str(path), "--mapping", str(mapping)])
    line = next(ln for ln in out.splitlines() if ln.startswith("design ("))
    assert "pairwise (inferred (rule 1): the judges' rows record both answer orders" in line
    assert "first '0', second '1', tie '2'" in line


def test_subgroups_on_a_one_judge_study_says_why_instead_of_failing(tmp_path):
    # one judge, a grouping attribute, and a level on which the judge is always right
    # (separation): no internal error, and the untested row says why, never a bare NaN
    path, mapping = _study(tmp_path, 1, 5)
    d = pd.read_csv(path)
    d["grp"] = (d["item"].str[1:].astype(int) % 3).map({0: "x", 1: "y", 2: "z"})
    d.loc[d["grp"] == "x", "value"] = d.loc[d["grp"] == "x", "gold"]
    d.to_csv(path, index=False)
    mapping.write_text(MAPPING.replace('["image"]', '["image", "grp"]'))
    out = _run(["subgroups", str(path), "--mapping", str(mapping), "--by", "grp"])
    effect = out.split("effect per judge")[1].split("\n\n")[0]
    assert "NaN" not in effect
    # the level without variation is named: left out of the test, or the test not run
    assert "excluded from the test: x" in effect or "not tested: separation" in effect
    assert "best judge per cell: not computed (1 judge" in out


def test_compare_refuses_to_rank_exchangeable_judge_slots(tmp_path, capsys):
    path, mapping = _study(tmp_path, 3, 9, n_items=40)
    mapping.write_text(MAPPING + 'exchangeable = ["judge"]\n')
    assert main(["compare", str(path), "--mapping", str(mapping), "--resamples", "50"]) == 2
    err = capsys.readouterr().err
    assert "exchangeable slots" in err and "Traceback" not in err
