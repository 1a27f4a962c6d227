"""Honest parsing of raw judge outputs into per-dimension pairwise verdicts.

The Med-RewardBench reference parser (``normalize_chosen_answer``, see
research/medrewardbench-protocol.md §1.4) has known faults that this parser must not repeat:

* a lone English article ("I think this is **a** fine response") is read as choice A;
* "accuracy: **B**oth are similar" is read as B (no word boundary after the letter);
* a single verdict is silently copied to all six dimensions;
* the *first* ``accuracy: X`` anywhere (possibly inside reasoning) wins.

Rules here, in order:

1. Reasoning spans (``<think>…</think>``, or everything before a lone ``</think>``) are removed.
2. JSON: the **last** ``{…}`` object in the text that parses and has at least one dimension key
   is used. Values are normalised by :func:`normalise_choice`.
3. Key–value text: for each dimension, the **last** ``dimension: X`` with ``X`` a whole word
   (A, B, "Assistant A", "[[B]]", tie/equal/both when the scale has a tie).
4. A single overall verdict (``[[A]]``, a bare ``A``/``B``, "Assistant A is better",
   "Verdict: B") is copied to every dimension **only** when ``broadcast=True``; the row is then
   flagged ``broadcast``. Otherwise it is ``invalid`` with that reason. A capital letter is
   required except when the whole answer is the letter, so the article "a" never counts.
   Conflicting single verdicts (both A and B named) are ``invalid``.

Statuses: ``ok`` (every dimension found), ``partial`` (some found; the others are missing),
``broadcast`` (single verdict copied, on request), ``invalid`` (nothing usable). The parser never
raises on text; every outcome is counted by the caller.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

STATUSES: tuple[str, ...] = ("ok", "partial", "broadcast", "invalid", "missing")

_FAST = {"A": "A", "B": "B", "a": "A", "b": "B"}
_THINK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_TIE_WORDS = {"tie", "equal", "both", "same", "draw", "neither", "c"}

# a choice written as a whole word: A, "A", [[A]], Assistant A, Answer A, Response A, Option A
_CHOICE = r"(?:\[\[\s*|\"|'|\(|)?(?:(?:assistant|answer|response|option|output)\s*)?([AB])(?:\s*\]\]|\"|'|\))?"


@dataclass(frozen=True)
class ParsedVerdict:
    """Per-dimension choices (``None`` = not found), a status and why."""

    choices: dict[str, str | None]
    status: str
    reason: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def normalise_choice(value: object, *, allow_tie: bool = False) -> str | None:
    """Map a verdict value to "A", "B", "tie" (if allowed) or None.

    Accepts "A", "b", "Assistant A", "[[B]]", "Answer A", "1"/"2" are **not** accepted (their
    meaning depends on the dataset: use a value map in the loader for those).
    """
    if value is None:
        return None
    if value in _FAST:
        return _FAST[value]
    s = str(value).strip().strip(".!").strip()
    if not s:
        return None
    m = re.fullmatch(
        r"(?:\[\[\s*)?(?:(?:assistant|answer|response|option|output)\s*)?([AaBb])(?:\s*\]\])?",
        s,
        flags=re.IGNORECASE,
    )
    if m:
        return m.group(1).upper()
    if allow_tie and s.lower().strip("[] ") in _TIE_WORDS - {"c"}:
        return "tie"
    return None


def _strip_reasoning(text: str) -> str:
    text = _THINK.sub(" ", text)
    low = text.lower()
    if "</think>" in low:  # an opening tag was cut off: keep what follows the last close tag
        text = text[low.rfind("</think>") + len("</think>") :]
    return text


def _json_objects(text: str) -> list[dict]:
    """Every top-level-parseable ``{…}`` object in the text, in order of appearance."""
    out: list[dict] = []
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            out.append(obj)
        i = text.find("{", end)
    return out


def parse_verdict(
    raw: object,
    dimensions: Sequence[str],
    *,
    broadcast: bool = False,
    allow_tie: bool = False,
) -> ParsedVerdict:
    """Parse one raw judge output into per-dimension verdicts.

    ``raw`` may be a dict (already structured, e.g. a normalised prediction file) or text.
    """
    dims = list(dimensions)
    empty = {d: None for d in dims}
    if raw is None or (isinstance(raw, float) and raw != raw):
        return ParsedVerdict(empty, "invalid", "no output")
    if isinstance(raw, dict):
        return _from_mapping(raw, dims, allow_tie=allow_tie, source="dict")
    text = _strip_reasoning(str(raw))
    if not text.strip():
        return ParsedVerdict(empty, "invalid", "empty output")

    # 2. JSON objects: the last one that names a dimension
    for obj in reversed(_json_objects(text)):
        lowered = {str(k).strip().lower(): v for k, v in obj.items()}
        if any(d.lower() in lowered for d in dims):
            return _from_mapping(obj, dims, allow_tie=allow_tie, source="json")

    # 3. key: value text, last occurrence per dimension, whole-word choices only
    choices: dict[str, str | None] = {}
    for d in dims:
        pat = _kv_pattern(d, allow_tie)
        found = None
        for m in pat.finditer(text):
            letter = m.group(1)
            if letter is not None:
                # a bare letter must be upper case unless quoted/bracketed: "a" is an article
                token = m.group(0)
                if letter.islower() and not re.search(
                    r"[\"'\[\(]|assistant|answer|response|option|output",
                    token[token.find(":") + 1 :] if ":" in token else token,
                    re.IGNORECASE,
                ):
                    continue
                found = letter.upper()
            elif allow_tie and m.lastindex and m.group(m.lastindex):
                found = "tie"
        choices[d] = found
    n_found = sum(v is not None for v in choices.values())
    if n_found == len(dims):
        return ParsedVerdict(choices, "ok", "key-value text")
    if n_found > 0:
        return ParsedVerdict(
            choices, "partial", f"key-value text, {len(dims) - n_found} dimension(s) missing"
        )

    # 4. a single overall verdict
    single = _single_verdict(text, allow_tie=allow_tie)
    if single is None:
        return ParsedVerdict(empty, "invalid", "no verdict found")
    if single == "conflict":
        return ParsedVerdict(empty, "invalid", "conflicting single verdicts (both A and B named)")
    if not broadcast:
        return ParsedVerdict(
            empty,
            "invalid",
            f"single verdict {single!r} found; broadcasting not enabled",
            extra={"single": single},
        )
    return ParsedVerdict(
        {d: single for d in dims},
        "broadcast",
        "single verdict copied to all dimensions",
        extra={"single": single},
    )


@lru_cache(maxsize=256)
def _kv_pattern(dimension: str, allow_tie: bool) -> re.Pattern[str]:
    tie_alt = r"|(tie|equal|both|same)" if allow_tie else ""
    return re.compile(
        r"[\"']?\b"
        + re.escape(dimension)
        + r"\b[\"']?\s*[:=]\s*(?:"
        + _CHOICE
        + tie_alt
        + r")(?![\w])",
        re.IGNORECASE,
    )


def _from_mapping(obj: dict, dims: list[str], *, allow_tie: bool, source: str) -> ParsedVerdict:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    choices = {d: normalise_choice(lowered.get(d.lower()), allow_tie=allow_tie) for d in dims}
    n_found = sum(v is not None for v in choices.values())
    extra = {"reason": str(lowered["reason"])} if "reason" in lowered else {}
    if n_found == len(dims):
        return ParsedVerdict(choices, "ok", source, extra)
    if n_found:
        return ParsedVerdict(
            choices,
            "partial",
            f"{source}, {len(dims) - n_found} dimension(s) missing or not A/B",
            extra,
        )
    return ParsedVerdict(choices, "invalid", f"{source} without a usable dimension value", extra)


_SINGLE_PATTERNS = (
    re.compile(r"\[\[\s*([AB])\s*\]\]"),
    re.compile(
        r"\b(?:assistant|answer|response|option|output)\s+([AB])\b(?!['’]?\w)", re.IGNORECASE
    ),
    re.compile(
        r"\b(?:verdict|winner|choice|better|prefer(?:red)?)\s*(?:is|:|=)?\s*\"?([AB])\b(?!['’]?\w)",
        re.IGNORECASE,
    ),
)


def _single_verdict(text: str, *, allow_tie: bool) -> str | None:
    """One overall choice, ``"conflict"`` when both letters are named, or None."""
    bare = text.strip().strip("\"'.!*` \n").strip()
    if re.fullmatch(r"[ABab]", bare):
        return bare.upper()
    if allow_tie and bare.lower() in ("tie", "[[c]]", "[[tie]]"):
        return "tie"
    letters: set[str] = set()
    for pat in _SINGLE_PATTERNS:
        for m in pat.finditer(text):
            letter = m.group(1)
            if letter.isupper():  # capital letter required: "a" is an article
                letters.add(letter)
    if not letters:
        return None
    if len(letters) > 1:
        return "conflict"
    return letters.pop()
