"""Rule 2 of the presentation design: two non-tie categories swapped consistently by order
(issue 36, item 1; :mod:`medjudge.data.design`).

A pairwise study coded "0" (tie), "1" (response 1), "2" (response 2) — the tie first in the
scale's order, so reading the first two categories as the answers would take the tie for
response 1 — judged in both orders by one judge with a preference for the first-shown answer.
Without a declaration the categories that swap between the orders must be found to be the
answers, the position result must have the right sign (more first-first than second-second
pairs, counted here from the generated verdicts), and ``validate`` must name the rule that
fired, on both engines. The same study with its orders labelled "original"/"swapped" (not
AB/BA) is pairwise by rule 2 alone.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from medjudge.analyses.position import position_bias
from medjudge.cli import main
from medjudge.data.design import presentation_design, swapped_categories
from medjudge.data.scale import Scale
from medjudge.data.tables import TableMapping, load_table

MAPPING = """\
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "value"
order = "order"
gold = "gold"
"""


def _write(folder, orders=("AB", "BA"), n=200, seed=4):
    rng = np.random.default_rng(seed)
    rows, ff, ss = [], 0, 0
    for i in range(n):
        g = 1 + int(rng.integers(2))  # 1 = response 1, 2 = response 2
        got = {}
        for o, first_shown in zip(orders, (1, 2), strict=True):
            u = rng.uniform()
            v = 0 if u < 0.05 else (first_shown if u < 0.35 else g)
            got[o] = v
            rows.append((f"q{i:03d}", "judge-x", "judge", str(v), o, str(g)))
        ff += int(got[orders[0]] == 1 and got[orders[1]] == 2)
        ss += int(got[orders[0]] == 2 and got[orders[1]] == 1)
    path, mapping = folder / "s.csv", folder / "s.toml"
    cols = ["item", "rater", "role", "value", "order", "gold"]
    pd.DataFrame(rows, columns=cols).to_csv(path, index=False)
    mapping.write_text(MAPPING)
    return path, mapping, ff, ss


def _out(argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def test_swapped_categories_needs_one_clear_pair():
    s = Scale("nominal", categories=("0", "1", "2"))
    assert swapped_categories(s, {("1", "2"): 4, ("2", "1"): 4})[:3] == ("1", "2", "0")
    assert swapped_categories(s, {("1", "2"): 4}) is None  # fewer than MIN_SWAPS
    assert swapped_categories(s, {("1", "2"): 6, ("0", "1"): 6}) is None  # no clear pair
    assert swapped_categories(s, {("1", "1"): 50}) is None  # nothing changes


def test_rule_2_finds_the_answers_and_the_sign(tmp_path):
    path, mapping, ff, ss = _write(tmp_path)
    assert ff > ss  # the generated judge prefers the first-shown answer
    study = load_table(path, TableMapping.from_toml(mapping))
    d = presentation_design(study, "overall")
    assert (d.pairwise, d.first, d.second, d.tie) == (True, "1", "2", "0")
    assert "rule 1" in d.source["presentation"] and "rule 2" in d.source["categories"]
    sw = position_bias(study).swap
    row = sw[sw["dimension"] == "overall"].iloc[0]
    assert (int(row["first_first"]), int(row["second_second"])) == (ff, ss)
    for engine in ("memory", "duckdb"):
        out = _out(["validate", str(path), "--mapping", str(mapping), "--engine", engine])
        assert "first '1', second '2', tie '0' (inferred (rule 2)" in out, out
        doc = json.loads(
            _out(["validate", str(path), "--mapping", str(mapping), "--engine", engine, "--json"])
        )
        assert doc["design"]["overall"]["source"]["categories"].startswith("inferred (rule 2)")


def test_rule_2_alone_makes_other_order_labels_pairwise(tmp_path):
    path, mapping, _, _ = _write(tmp_path, orders=("original", "swapped"))
    study = load_table(path, TableMapping.from_toml(mapping))
    d = presentation_design(study, "overall")
    assert d.pairwise and d.source["presentation"].startswith("inferred (rule 2)")
    assert d.kind == "unknown"  # which label is AB is not recorded: no position estimate
    assert d.position_reason is not None and "not recorded" in d.position_reason


@pytest.mark.parametrize("seed", [1, 2])
def test_rule_1_study_without_swaps_keeps_the_scale_order(tmp_path, seed):
    # a study with both orders but no judge seen twice: the categories come from the scale
    rng = np.random.default_rng(seed)
    rows = [(f"q{i}", "j", "judge", str(int(rng.integers(3))), ("AB", "BA")[i % 2], "0")
            for i in range(60)]  # fmt: skip
    path, mapping = tmp_path / "r.csv", tmp_path / "r.toml"
    pd.DataFrame(rows, columns=["item", "rater", "role", "value", "order", "gold"]).to_csv(
        path, index=False
    )
    mapping.write_text(MAPPING)
    d = presentation_design(load_table(path, TableMapping.from_toml(mapping)), "overall")
    assert (d.first, d.second, d.tie) == ("0", "1", "2")
    assert "rule 2" not in d.source["categories"]
