"""Score studies: what the headline and the reliability rows say follows the design
(issue 36, items 5 and 7: HANNA's exchangeable expert slots, the constant baseline).

A small synthetic score study (1-5 scores, three expert slots declared exchangeable, two
judges) shaped like HANNA: a judge whose scores sit far below the experts' is beaten by the
constant "always the mean gold score", which the headline must say.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from medjudge.analyses.score_study import score_study
from medjudge.data.tables import TableMapping, load_table
from medjudge.stats.resampling import Bootstrap

MAPPING = """\
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "score"
exchangeable = ["expert"]

[scale]
level = "interval"
low = 1
high = 5
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    rng = np.random.default_rng(5)
    rows = []
    for i in range(40):
        t = rng.uniform(2, 4.5)
        for e in range(3):
            rows.append(
                (f"s{i}", f"human-{e + 1}", "expert", np.clip(round(t + rng.normal(0, 0.7)), 1, 5))
            )
        rows.append((f"s{i}", "low", "judge", np.clip(round(t - 1.5 + rng.normal(0, 0.5)), 1, 5)))
        rows.append((f"s{i}", "noisy", "judge", np.clip(round(t + rng.normal(0, 1.5)), 1, 5)))
    folder = tmp_path_factory.mktemp("scores")
    path, mapping = folder / "scores.csv", folder / "scores.toml"
    pd.DataFrame(rows, columns=["item", "rater", "role", "score"]).to_csv(path, index=False)
    mapping.write_text(MAPPING)
    return load_table(path, TableMapping.from_toml(mapping))


def test_exchangeable_expert_slots_get_no_per_slot_rows_and_one_icc_form(study):
    res = score_study(study, bootstrap=Bootstrap(50, 0), baselines=True)
    assert not (res.metrics["role"] == "expert").any()  # no "human-1 against the others"
    forms = res.reliability.loc[res.reliability["role"] == "expert", "form"].tolist()
    assert forms == ["ICC1 = ICC(1)"]  # no ICC(A,1)/(A,k): those treat slots as raters
    assert any("exchangeable" in v for v in res.not_applicable.values())
    assert "Experts against the mean of the others" not in res.headline["overall"]


def test_headline_says_when_a_constant_is_closer_to_gold_than_every_judge(study):
    res = score_study(study, bootstrap=Bootstrap(50, 0), baselines=True)
    m = res.metrics[res.metrics["metric"] == "mae"]
    # recomputed with numpy: the gold is the mean of the three expert scores
    r = study.ratings
    wide = r.pivot_table(index="item", columns="rater", values="value", aggfunc="first")
    gold = wide[["human-1", "human-2", "human-3"]].astype(float).mean(axis=1)
    judge_mae = {j: float(np.mean(np.abs(wide[j].astype(float) - gold))) for j in ("low", "noisy")}
    const = float(np.mean(np.abs(gold - gold.mean())))
    assert const < min(judge_mae.values())
    got = m.set_index("rater")["estimate"]
    assert got["always the mean gold score"] == pytest.approx(const)
    assert got[min(judge_mae, key=judge_mae.get)] == pytest.approx(min(judge_mae.values()))
    head = res.headline["overall"]
    assert "'always the mean gold score' has MAE " + f"{const:.2f}" in head
    assert "closer to gold than every judge" in head
