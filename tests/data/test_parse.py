"""Verdict parser: the reference parser's known faults (protocol note §1.4) must not recur."""

from __future__ import annotations

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st
from medjudge.data.parse import STATUSES, normalise_choice, parse_verdict
from medjudge.data.scale import MEDREWARDBENCH_DIMENSIONS as DIMS


def test_article_a_is_not_choice_a():
    # reference parser: "I think this is a fine response." -> all-A (step 4 matches the article)
    for broadcast in (False, True):
        r = parse_verdict("I think this is a fine response.", DIMS, broadcast=broadcast)
        assert r.status == "invalid"
        assert all(v is None for v in r.choices.values())


def test_both_is_not_b():
    # reference parser: "accuracy: Both are similar" -> accuracy = B (no word boundary)
    r = parse_verdict("accuracy: Both are similar, relevance: A", DIMS)
    assert r.choices["accuracy"] is None
    assert r.choices["relevance"] == "A"
    assert r.status == "partial"
    assert parse_verdict("Both answers are equally good; tie.", DIMS).status == "invalid"


def test_tie_words_map_to_tie_only_when_allowed():
    r = parse_verdict('{"overall": "tie"}', ["overall"], allow_tie=True)
    assert r.choices == {"overall": "tie"} and r.status == "ok"
    assert parse_verdict('{"overall": "tie"}', ["overall"]).status == "invalid"


def test_single_verdict_broadcast_only_on_request():
    r = parse_verdict("My verdict: [[B]]", DIMS)
    assert r.status == "invalid" and "broadcast" in r.reason
    r = parse_verdict("My verdict: [[B]]", DIMS, broadcast=True)
    assert r.status == "broadcast" and set(r.choices.values()) == {"B"}


def test_conflicting_single_verdicts_are_invalid():
    r = parse_verdict(
        "Assistant A is clearer but Assistant B is more accurate.", DIMS, broadcast=True
    )
    assert r.status == "invalid" and "conflicting" in r.reason


def test_json_full_and_partial_and_reasoning_stripped():
    full = {d: "A" if i % 2 else "B" for i, d in enumerate(DIMS)}
    r = parse_verdict(json.dumps({**full, "reason": "x"}), DIMS)
    assert r.status == "ok" and r.choices == full and r.extra["reason"] == "x"
    # reasoning with braces and a decoy "accuracy: A" before the final JSON
    text = "<think>{scratch} accuracy: A</think>" + json.dumps({**full, "accuracy": "B"})
    assert parse_verdict(text, DIMS).choices["accuracy"] == "B"
    part = dict(full)
    part.pop("creativity")
    r = parse_verdict(json.dumps(part), DIMS)
    assert r.status == "partial" and r.choices["creativity"] is None


def test_last_key_value_occurrence_wins():
    text = "First thoughts: accuracy: A. Final answer:\n" + "\n".join(f"{d}: B" for d in DIMS)
    r = parse_verdict(text, DIMS)
    assert r.status == "ok" and set(r.choices.values()) == {"B"}


def test_dict_input_and_normalise_choice():
    assert parse_verdict({d: "Assistant A" for d in DIMS}, DIMS).status == "ok"
    assert normalise_choice("[[b]]") == "B"
    assert normalise_choice("1") is None  # dataset-specific: needs a value map
    assert normalise_choice("Both") is None


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_and_status_is_known(text):
    r = parse_verdict(text, DIMS, broadcast=True)
    assert r.status in STATUSES
    assert set(r.choices) == set(DIMS)
    assert all(v in (None, "A", "B") for v in r.choices.values())
    n = sum(v is not None for v in r.choices.values())
    assert (r.status == "invalid") == (n == 0)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.ascii_lowercase + " .,;!?\n", max_size=200))
def test_lowercase_prose_never_yields_a_verdict(text):
    # no capital letters, no keys with values: nothing to read as A or B (the article "a" included)
    # the whole answer being just the letter ("a." or "b") is a bare verdict by rule
    if any(d in text for d in DIMS) or text.strip().strip("\"'.!*` \n").strip() in ("a", "b"):
        return
    assert parse_verdict(text, DIMS, broadcast=True).status == "invalid"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["A", "B"]), min_size=6, max_size=6),
    st.sampled_from(["json", "kv"]),
    st.text(max_size=40),
)
def test_roundtrip_of_well_formed_outputs(letters, style, noise):
    choices = dict(zip(DIMS, letters, strict=True))
    noise = noise.replace("{", "(").replace("}", ")")
    if style == "json":
        text = noise + "\n" + json.dumps(choices)
    else:
        if any(d in noise.lower() for d in DIMS):
            return
        text = noise + "\n" + "\n".join(f"{d}: {c}" for d, c in choices.items())
    r = parse_verdict(text, DIMS)
    assert r.status == "ok" and r.choices == choices
