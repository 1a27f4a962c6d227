"""Issue 35: the default breakdown is one rule on the study's declaration and data — the first
declared item attribute (not the cluster, not an answer model) with 2 to 30 values and at least
5 items per value on average — never a column's name."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DEMO, EXTERNAL, MAPPINGS
from medjudge import Scale, Study, subgroup_accuracy
from medjudge.analyses.heterogeneity import correctness_model
from medjudge.analyses.subgroup_rule import default_subgroup_attributes, subgroup_candidates
from medjudge.data.tables import load_any


def _study(attributes: dict[str, list[str]], n: int = 60, seed: int = 4) -> Study:
    """3 experts and 2 judges on ``n`` A/B items; ``attributes`` in the declared order."""
    rng = np.random.default_rng(seed)
    items = pd.DataFrame({"item": [f"q{i:03d}" for i in range(n)], **attributes})
    rows = []
    for i, item in enumerate(items["item"]):
        truth = "AB"[i % 2]
        for rater, role, skill in (("e1", "expert", 0.9), ("e2", "expert", 0.9),
                                   ("e3", "expert", 0.85), ("j1", "judge", 0.8),
                                   ("j2", "judge", 0.65)):  # fmt: skip
            v = truth if rng.random() < skill else "AB"[(i + 1) % 2]
            rows.append((item, rater, role, "overall", v))
    ratings = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    return Study(ratings, items, {"overall": Scale("nominal", ("A", "B"))})


GROUPS = [["north", "south", "east"][i % 3] for i in range(60)]
WARDS = [["a", "b"][i % 2 == 0 and i % 4 == 0] for i in range(60)]


def test_an_attribute_named_anything_is_broken_down_like_organ_system():
    # "department" was a name the former rule preferred over any other column
    ward = _study({"ward": GROUPS, "department": WARDS})
    organ = _study({"organ_system": GROUPS, "department": WARDS})
    assert default_subgroup_attributes(ward) == ["ward"]
    assert default_subgroup_attributes(organ) == ["organ_system"]
    a = subgroup_accuracy(ward).table("cells").rename(columns={"ward": "organ_system"})
    b = subgroup_accuracy(organ).table("cells")
    pd.testing.assert_frame_equal(a, b)


def test_declared_order_decides_not_the_name():
    study = _study({"ward": GROUPS, "organ_system": WARDS})
    assert subgroup_candidates(study) == ["ward", "organ_system"]
    assert default_subgroup_attributes(study) == ["ward"]
    assert set(subgroup_accuracy(study).table("cells").columns) >= {"ward"}


def test_thresholds_cluster_and_answer_models_are_not_subgroups():
    many = [f"g{i % 31}" for i in range(200)]  # 31 values: more than MAX_SUBGROUPS
    sparse = [f"s{i % 13}" for i in range(60)]  # 13 values on 60 items: < 5 items per value
    assert subgroup_candidates(_study({"g": many}, n=200)) == []
    assert subgroup_candidates(_study({"s": sparse, "w": GROUPS})) == ["w"]
    st = _study({"case": GROUPS, "w": WARDS})
    assert subgroup_candidates(st) == ["case", "w"]
    clustered = Study(st.ratings, st.items, st.scales, cluster="case")
    assert subgroup_candidates(clustered) == ["w"]
    models = Study(st.ratings, st.items.assign(m1=WARDS, m2=WARDS)[["item", "m1", "m2", "w"]],
                   st.scales, answer_models=("m1", "m2"))  # fmt: skip
    assert subgroup_candidates(models) == ["w"]


def test_correctness_model_takes_the_attribute_by_the_rule():
    study = _study({"ward": GROUPS})
    terms = correctness_model(study)["term"].tolist()
    assert "ward[north]" in terms and "judge[j2]:ward[north]" in terms
    assert terms == correctness_model(study, by="ward")["term"].tolist()
    with pytest.raises(ValueError, match="by: required"):
        correctness_model(_study({}))


@pytest.mark.parametrize(
    ("source", "mapping", "expected"),
    [
        (DEMO, None, ["organ_system"]),  # the bundle's first declared attribute, as before
        (EXTERNAL / "llmbar/verdicts_long.csv", "llmbar_long.toml", ["subset"]),
        (EXTERNAL / "pandalm_testset/verdicts_wide.csv", "pandalm_wide.toml", ["cmp_key"]),
        (EXTERNAL / "hanna/hanna_long.csv", "hanna_long.toml", ["system"]),
        (EXTERNAL / "medpair/physician_answers_long.csv", "medpair_answers.toml",
         ["data_source"]),
        (EXTERNAL / "medpair/physician_relevance_long.csv", "medpair_relevance.toml", []),
    ],
)  # fmt: skip
def test_bundled_studies_keep_their_breakdown(source, mapping, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = load_any(source, mapping=MAPPINGS / mapping if mapping else None)
    assert default_subgroup_attributes(study) == expected
