"""Presentation designs declared or inferred from the data, never from category names
(issue 36, item 1).

A pairwise study whose answers are coded "0" (response 1), "1" (response 2), "2" (tie), judged
in both orders, by one judge with a strong preference for the second-shown answer. Its swap
analysis and position result must exist, with the right sign, without a declaration in the
mapping and with one. Expected counts are computed here directly from the generated verdicts.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from medjudge.analyses.position import position_bias, swap_table
from medjudge.cli import main
from medjudge.data.design import presentation_design
from medjudge.data.tables import TableMapping, load_table

BASE = """\
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "value"
order = "order"
gold = "gold"
"""

DECLARED = (
    BASE
    + """
[design]
presentation = "pairwise"
first = "0"
second = "1"
tie = "2"
accuracy_order = "BA"
"""
)

#: the same study with the categories written in another order: first/second must follow the
#: declaration, not the order of the labels
RELABELLED = (
    BASE
    + """
[scale]
level = "nominal"
categories = ["2", "1", "0"]

[design]
presentation = "pairwise"
first = "0"
second = "1"
tie = "2"
"""
)


def _write(folder, n=240, seed=3):
    """Long CSV: one judge in both orders, 2 expert labels, supplied gold; the judge picks the
    second-shown answer on 35% of items, else the gold; 5% of verdicts are ties."""
    rng = np.random.default_rng(seed)
    rows, truth = [], {"first_first": 0, "second_second": 0}
    for i in range(n):
        g = int(rng.integers(2))  # 0 = response 1, 1 = response 2
        verdict = {}
        for order in ("AB", "BA"):
            second_shown = 1 if order == "AB" else 0
            u = rng.uniform()
            v = 2 if u < 0.05 else (second_shown if u < 0.40 else g)
            verdict[order] = v
            rows.append((f"q{i:03d}", "judge-x", "judge", str(v), order, str(g)))
        for e in ("e1", "e2"):
            rows.append((f"q{i:03d}", e, "expert", str(g), "", str(g)))
        a, b = verdict["AB"], verdict["BA"]
        truth["first_first"] += int(a == 0 and b == 1)
        truth["second_second"] += int(a == 1 and b == 0)
    path = folder / "study.csv"
    pd.DataFrame(rows, columns=["item", "rater", "role", "value", "order", "gold"]).to_csv(
        path, index=False
    )
    return path, truth


@pytest.fixture(scope="module")
def study_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("codes012")
    path, truth = _write(folder)
    maps = {}
    for name, text in (("inferred", BASE), ("declared", DECLARED), ("relabelled", RELABELLED)):
        m = folder / f"{name}.toml"
        m.write_text(text)
        maps[name] = m
    return path, maps, truth


@pytest.mark.parametrize("how", ["inferred", "declared", "relabelled"])
def test_codes_012_in_both_orders_get_the_swap_analysis_with_the_right_sign(study_files, how):
    path, maps, truth = study_files
    study = load_table(path, TableMapping.from_toml(maps[how]))
    d = presentation_design(study, "overall")
    assert d.pairwise and d.kind == "swapped" and d.swap_judges == ("judge-x",)
    assert (d.first, d.second, d.tie) == ("0", "1", "2")
    assert d.source["presentation"] == (
        "declared in the mapping" if how != "inferred" else d.source["presentation"]
    )
    if how == "inferred":
        assert d.source["presentation"].startswith("inferred")
    t = swap_table(study, "overall")
    assert len(t) == 1
    row = t.iloc[0]
    assert row["first_first"] == truth["first_first"]
    assert row["second_second"] == truth["second_second"]
    assert truth["second_second"] > 3 * truth["first_first"]
    # the bias is towards the second position: the first-first share is below one half
    assert row["p_first_inconsistent"] < 0.5
    pb = position_bias(study)
    assert "overall" not in pb.get("not_applicable", {})
    assert len(pb["swap"]) == 1


def test_accuracy_order_is_declared_or_ab(study_files):
    path, maps, _ = study_files
    inferred = load_table(path, TableMapping.from_toml(maps["inferred"]))
    declared = load_table(path, TableMapping.from_toml(maps["declared"]))
    assert presentation_design(inferred, "overall").evaluation_order == "AB"
    assert presentation_design(declared, "overall").evaluation_order == "BA"
    assert inferred.outcomes("overall").order == "AB"
    assert declared.outcomes("overall").order == "BA"


def test_validate_prints_the_design_and_its_source(study_files, capsys):
    path, maps, _ = study_files
    assert main(["validate", str(path), "--mapping", str(maps["inferred"])]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("design ("))
    assert "pairwise (inferred" in line and "first '0', second '1', tie '2'" in line
    assert "accuracy uses order AB" in line
    assert main(["validate", str(path), "--mapping", str(maps["declared"]), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["design"]["overall"]
    assert d["source"]["presentation"] == "declared in the mapping"
    assert d["accuracy_order"] == "BA"


def test_a_declared_first_must_be_a_category(study_files, capsys):
    path, maps, _ = study_files
    bad = maps["declared"].with_name("bad.toml")
    bad.write_text(DECLARED.replace('first = "0"', 'first = "A"'))
    assert main(["validate", str(path), "--mapping", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "first" in err and "'A'" in err and "Traceback" not in err
