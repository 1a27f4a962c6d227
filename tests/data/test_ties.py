"""exclude_tie_gold: only (item, dimension) pairs whose gold is the tie category go, counted."""

from __future__ import annotations

import pandas as pd
from medjudge import Scale, Study
from medjudge.data.ties import exclude_tie_gold, tie_gold_items


def _study(gold_table=None):
    # two experts agree on each item; q2's preference gold is a tie, its style gold is not
    rows = []
    for item, pref, style in (("q1", "1", "good"), ("q2", "tie", "good"), ("q3", "2", "bad")):
        for rater in ("e1", "e2"):
            rows += [
                (item, rater, "expert", "preference", pref),
                (item, rater, "expert", "style", style),
            ]
        rows += [(item, "j", "judge", "preference", "1"), (item, "j", "judge", "style", "good")]
    ratings = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    scales = {"preference": Scale("nominal", ("1", "2", "tie"), tie="tie"),
              "style": Scale("nominal", ("good", "bad"))}  # fmt: skip
    return Study(ratings, pd.DataFrame({"item": ["q1", "q2", "q3"]}), scales, gold_table=gold_table)


def test_only_the_tied_pair_is_removed_and_counted():
    s = _study()
    assert tie_gold_items(s, "preference") == ["q2"] and tie_gold_items(s, "style") == []
    kept, counts = exclude_tie_gold(s)
    assert counts == {"preference": 1, "items": 1}
    assert kept.item_ids == ["q1", "q2", "q3"]  # q2 keeps its style verdicts
    r = kept.ratings
    assert not ((r["item"] == "q2") & (r["dimension"] == "preference")).any()
    assert ((r["item"] == "q2") & (r["dimension"] == "style")).sum() == 3
    assert kept.notes[-1].startswith("1 items with a tie gold label left out")
    assert kept.outcomes("preference").items == ["q1", "q3"]


def test_supplied_gold_ties_go_with_their_rows():
    gt = pd.DataFrame({"item": ["q1", "q2", "q3"], "dimension": "preference",
                       "value": ["tie", "1", "2"]})  # fmt: skip
    kept, counts = exclude_tie_gold(_study(gt), "supplied")
    assert counts == {"preference": 1, "items": 1}
    assert list(kept.gold_table["item"]) == ["q2", "q3"]


def test_no_tie_leaves_the_study_as_it_is():
    s = _study()
    s2, counts = exclude_tie_gold(s, "majority")
    kept, counts = exclude_tie_gold(s2)
    assert counts == {"items": 0} and kept is s2
