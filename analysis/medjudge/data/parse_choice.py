"""Honest parsing of a model's multiple-choice answer (one option letter) from raw text.

Used for MedPAIR's GPT-4o answers, which are mostly bare letters but also wrappers such as
``<answer>Option (B)</answer>`` and, once per round, a refusal. Rules, in order:

1. The whole answer is one option letter (``"B"``, ``" b "``, ``"(B)"``, ``"B."``) -> status
   ``letter``.
2. Otherwise only the inside of ``<answer>…</answer>`` is searched when that tag is present,
   else the whole text. A choice must be *marked*: ``Option B``, ``Option (B)``, ``Option [B]``,
   ``Answer: B``, ``answer is (B)``, ``Choice B``, ``(B)``, ``[B]``, or a tag that holds only
   the letter. A capital letter is required, so the pronoun "I" and the article "a" in prose
   never count as options I and A.
   Exactly one distinct letter -> ``extracted``; several different letters -> ``ambiguous``
   (no choice).
3. Nothing found: ``refusal`` when the text reads as a refusal ("I'm sorry", "cannot", "unable"),
   otherwise ``invalid``. Empty or missing input -> ``missing``.

The parser never raises on text; the caller counts every status.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

__all__ = ["CHOICE_STATUSES", "ChoiceParse", "parse_choice", "parse_choices"]

CHOICE_STATUSES: tuple[str, ...] = (
    "letter",
    "extracted",
    "ambiguous",
    "refusal",
    "invalid",
    "missing",
)

_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_REFUSAL = re.compile(r"\b(sorry|cannot|can't|unable|not able)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ChoiceParse:
    """The parsed option letter (``None`` when there is no usable choice) and the status."""

    choice: str | None
    status: str


def _marked(letters: str) -> re.Pattern[str]:
    L = f"[{letters}]"
    return re.compile(
        rf"(?:\b(?i:option|answer|choice)\b(?:\s+(?i:is))?\s*[:\-]?\s*[\(\[]?({L})[\)\]]?(?![A-Za-z])"
        rf"|[\(\[]({L})[\)\]])"
    )


def parse_choice(raw: object, options: str = "ABCDEFGHIJ") -> ChoiceParse:
    """Parse one raw answer into an option letter from ``options`` (see module docstring)."""
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        return ChoiceParse(None, "missing")
    text = str(raw).strip()
    if not text:
        return ChoiceParse(None, "missing")
    bare = re.fullmatch(rf"[\(\[]?([{options}{options.lower()}])[\)\]]?\.?", text)
    if bare:
        return ChoiceParse(bare.group(1).upper(), "letter")
    tag = _TAG.search(text)
    scope = tag.group(1).strip() if tag else text
    if tag:
        inner = re.fullmatch(rf"[\(\[]?([{options}])[\)\]]?\.?", scope)
        if inner:
            return ChoiceParse(inner.group(1), "extracted")
    found = {a or b for a, b in _marked(options).findall(scope)}
    if len(found) == 1:
        return ChoiceParse(found.pop(), "extracted")
    if len(found) > 1:
        return ChoiceParse(None, "ambiguous")
    return ChoiceParse(None, "refusal" if _REFUSAL.search(text) else "invalid")


def parse_choices(values: Iterable[object], options: str = "ABCDEFGHIJ") -> pd.DataFrame:
    """Parse many answers: a frame with ``raw``, ``choice`` (None = unusable) and ``status``.

    The rules are those of the module docstring (a bare letter; else a *marked* letter inside
    ``<answer>...</answer>`` or the text; several letters are ``ambiguous``; otherwise
    ``refusal`` or ``invalid``). The parser never raises on text: every answer gets a status.

    Parameters
    ----------
    values : iterable
        Raw answers (strings; None or NaN is ``missing``).
    options : str, default "ABCDEFGHIJ"
        The option letters allowed.

    Returns
    -------
    DataFrame
        One row per answer: ``raw``, ``choice`` (the letter; missing when unusable) and ``status``
        (one of ``letter``, ``extracted``, ``ambiguous``, ``refusal``, ``invalid``,
        ``missing``).

    References
    ----------
    MedPAIR's GPT-4o answers (``data/external/medpair``, ``GPT4o_Before_After_Results.csv``),
    the format this parser was written for.

    Examples
    --------
    >>> import medjudge as mj
    >>> t = mj.published.parse_choices(["B", "<answer>Option (C)</answer>", "I'm sorry, I cannot"])
    >>> t["choice"].tolist()[:2], t["choice"].isna().tolist(), t["status"].tolist()
    (['B', 'C'], [False, False, True], ['letter', 'extracted', 'refusal'])
    """
    vals = list(values)
    parsed = [parse_choice(v, options) for v in vals]
    return pd.DataFrame(
        {"raw": vals, "choice": [p.choice for p in parsed], "status": [p.status for p in parsed]}
    )
