"""Multiple-choice answer parser: unit cases, properties, and the MedPAIR GPT-4o counts.

Reference counts: data/external/medpair/SOURCE.md — "107 of the Round-1 answers are raw strings
such as `<answer>Option (B)</answer>`, and one Round-2 answer is a refusal"; GPT-4o Round 1
accuracy 0.724 after parsing `Option (X)` strings (0.692 with strict letter match), Round 2 0.730
(SOURCE.md's own computations).
"""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import EXTERNAL
from hypothesis import given
from hypothesis import strategies as st
from medjudge.data.parse_choice import CHOICE_STATUSES, parse_choice, parse_choices


@pytest.mark.parametrize(
    ("raw", "choice", "status"),
    [
        ("B", "B", "letter"),
        (" c ", "C", "letter"),
        ("(D)", "D", "letter"),
        ("E.", "E", "letter"),
        ("<answer>Option (B)</answer>", "B", "extracted"),
        ("<answer>Option [J]</answer>", "J", "extracted"),
        ("<answer>H</answer>", "H", "extracted"),
        ("The answer is (C).", "C", "extracted"),
        ("Answer: F", "F", "extracted"),
        ("Option A or option B", None, "ambiguous"),
        ("I'm sorry, but I cannot view Figure A.", None, "refusal"),
        ("I think a biopsy is indicated", None, "invalid"),
        ("", None, "missing"),
        (None, None, "missing"),
        (float("nan"), None, "missing"),
    ],
)
def test_cases(raw, choice, status):
    p = parse_choice(raw)
    assert (p.choice, p.status) == (choice, status)


def test_letters_outside_options_are_not_choices():
    assert parse_choice("K").status == "invalid"
    assert parse_choice("Option (E)", options="ABCD").status == "invalid"


@given(st.text(max_size=200))
def test_never_raises_and_status_known(text):
    p = parse_choice(text)
    assert p.status in CHOICE_STATUSES
    assert (p.choice is None) == (p.status not in ("letter", "extracted"))


@given(st.text(alphabet=st.characters(whitelist_categories=("Ll", "Zs")), max_size=80))
def test_lowercase_prose_never_yields_a_choice(text):
    # the article "a" and other lower-case words are never options (a lone letter excepted)
    if len(text.strip()) > 1:
        assert parse_choice(text).choice is None


@given(
    st.sampled_from("ABCDEFGHIJ"),
    st.sampled_from(
        ["{}", "({})", "<answer>Option ({})</answer>", "Answer: {}", "<answer>{}</answer>"]
    ),
)
def test_roundtrip(letter, template):
    assert parse_choice(template.format(letter)).choice == letter


def test_medpair_gpt4o_counts_and_accuracy():
    g = pd.read_csv(EXTERNAL / "medpair" / "GPT4o_Before_After_Results.csv")
    r1, r2 = parse_choices(g["Round 1 Letter"]), parse_choices(g["Round 2 Letter"])
    # SOURCE.md: 107 round-1 answers are raw strings rather than letters (here: 106 marked
    # "Option (X)"/"Option [X]" wrappers + 1 refusal); one refusal in round 2
    assert (r1.status != "letter").sum() == 107
    assert r1.status.value_counts().to_dict() == {"letter": 1193, "extracted": 106, "refusal": 1}
    assert r2.status.value_counts().to_dict() == {"letter": 1299, "refusal": 1}
    gt = g["Ground Truth"].str.strip()
    assert round(float((r1.choice == gt).mean()), 3) == 0.724
    assert round(float((r1.choice.where(r1.status == "letter") == gt).mean()), 3) == 0.692
    assert round(float((r2.choice == gt).mean()), 3) == 0.730
