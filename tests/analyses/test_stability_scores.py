"""Prompt sensitivity on an interval scale uses the scores (issue 36, item 4).

A HANNA-shaped study: 1-5 scores by three experts and two evaluators under three prompt
variants. "Correct" (score equal to the experts' mean) is no estimand for scores: the flip
share must be the share of items whose *score* changes between prompts, computed here with
pandas, and the within-item SD the mean over items of the SD across prompts.
"""

from __future__ import annotations

import medjudge as mj
import numpy as np
import pandas as pd
import pytest
from medjudge.analyses.stability import stability


@pytest.fixture(scope="module")
def scores_study():
    rng = np.random.default_rng(8)
    rows = []
    for i in range(50):
        truth = rng.integers(1, 6)
        for e in ("h1", "h2", "h3"):
            rows.append((f"s{i}", e, "expert", int(np.clip(truth + rng.integers(-1, 2), 1, 5))))
        for p in ("p1", "p2", "p3"):
            # "wobbly" changes its score with the prompt on most items; "steady" rarely
            rows.append((f"s{i}", f"wobbly/{p}", "judge", int(rng.integers(1, 6))))
            steady = truth if rng.uniform() > 0.1 else int(np.clip(truth + 1, 1, 5))
            rows.append((f"s{i}", f"steady/{p}", "judge", int(steady)))
    r = pd.DataFrame(rows, columns=["item", "rater", "role", "value"]).assign(dimension="quality")
    r["value"] = r["value"].astype(str)
    items = pd.DataFrame({"item": [f"s{i}" for i in range(50)]})
    return mj.Study(r, items, {"quality": mj.Scale("interval", low=1, high=5)}), r


def test_flips_on_scores_are_score_changes(scores_study):
    study, r = scores_study
    res = stability(study, bootstrap=mj.Bootstrap(100))
    assert res.settings["outcome"] == "score"
    j = r[r["role"] == "judge"].assign(
        evaluator=lambda d: d["rater"].str.split("/").str[0], v=lambda d: d["value"].astype(float)
    )
    per_item = j.groupby(["evaluator", "item"])["v"]
    changed = per_item.nunique().gt(1).groupby("evaluator").mean()
    sd = per_item.std(ddof=1).groupby("evaluator").mean()
    fl = res.flips.set_index(["evaluator", "kind"])
    for ev in ("wobbly", "steady"):
        assert fl.loc[(ev, "across_prompts"), "share"] == pytest.approx(changed[ev])
        assert fl.loc[(ev, "within_item_sd"), "share"] == pytest.approx(sd[ev])
    assert changed["wobbly"] > 0.8 and changed["steady"] < 0.5
    assert "score changes between prompts" in res.explain("wobbly")
