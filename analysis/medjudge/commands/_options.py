"""Command-line option types: the validators of :mod:`medjudge._validation` by name.

Use them as ``type=`` of ``add_argument`` (``type=opt.ALPHA``); a bad value ends as one line
``medjudge CMD: error: argument --alpha: 5 is not allowed (a probability strictly between 0
and 1)`` with exit status 2.
"""

from __future__ import annotations

import argparse

from .._validation import (
    ALPHA,
    CONFIDENCE_LEVEL,
    EPSILON,
    ITEMS,
    MAX_HALF_WIDTH,
    MIN_N,
    RESAMPLES,
    SEED,
    TOP,
    IntRange,
    RealRange,
)

__all__ = [
    "ALPHA",
    "CONFIDENCE_LEVEL",
    "EPSILON",
    "ITEMS",
    "MAX_HALF_WIDTH",
    "MIN_N",
    "OUT_FOLDER",
    "RESAMPLES",
    "SEED",
    "TOP",
    "IntRange",
    "add_by",
    "add_cluster",
    "add_confidence_level",
    "add_gold_method",
    "add_json",
    "add_policy",
    "add_resampling",
    "add_ties",
    "RealRange",
]


def OUT_FOLDER(text: str) -> str:
    """``type=`` of the ``--out`` options: a non-empty folder name.

    An empty ``--out`` (a script's unset variable) would otherwise mean the current folder.

    >>> OUT_FOLDER("out")
    'out'
    """
    if not str(text).strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not allowed (a folder name; an empty --out would mean the current folder)"
        )
    return text


# The options below have one name, type, default, choices and help on every command that has
# them (tests/cli/test_cli_options.py walks every parser). ``report`` passes ``default=None``
# (not given: a --template may not declare the parameter) and applies the same default later.

#: invalid-verdict policies (``--policy``)
POLICIES = ("wrong", "exclude", "half")
#: gold rules a command line can ask for (``--gold-method``)
GOLD_METHODS = ("auto", "majority", "plurality", "reference", "supplied")
#: tie gold labels (``--ties``)
TIES = ("keep", "exclude")
#: bootstrap resamples of every command
RESAMPLES_DEFAULT = 2000

_UNSET = object()


def _given(default: object, value: object) -> dict[str, object]:
    return {"default": value if default is _UNSET else default}


def add_confidence_level(p: argparse.ArgumentParser, default: object = _UNSET) -> None:
    """``--confidence-level`` with the same name, type, default and help on every command."""
    p.add_argument(
        "--confidence-level",
        type=CONFIDENCE_LEVEL,
        help="coverage of every interval, strictly between 0 and 1 (default 0.95)",
        **_given(default, 0.95),
    )


def add_resampling(p: argparse.ArgumentParser, default: object = _UNSET) -> None:
    """``--resamples``, ``--seed`` and ``--confidence-level`` (the bootstrap of a command)."""
    # the help formatter appends "(default: ...)"; with default=None the help says it
    said = default is not _UNSET
    p.add_argument(
        "--resamples",
        type=RESAMPLES,
        help="bootstrap resamples" + (f" (default {RESAMPLES_DEFAULT})" if said else ""),
        **_given(default, RESAMPLES_DEFAULT),
    )
    p.add_argument(
        "--seed",
        type=SEED,
        help="resampling seed" + (" (default 0)" if said else ""),
        **_given(default, 0),
    )
    add_confidence_level(p, default)


def add_policy(p: argparse.ArgumentParser, default: object = _UNSET, note: str = "") -> None:
    """``--policy``: what a verdict without a usable label counts as."""
    p.add_argument(
        "--policy",
        choices=POLICIES,
        help="invalid verdicts: count as wrong (default, the Med-RewardBench rule), exclude "
        "them, or count them as half right" + note,
        **_given(default, "wrong"),
    )


def add_cluster(p: argparse.ArgumentParser, note: str = "") -> None:
    """``--cluster``: the item attribute whose values are resampled together."""
    p.add_argument(
        "--cluster",
        default="auto",
        help="item attribute whose values cluster items, resampled together (default auto: "
        "the mapping's cluster, else image_id, case_id, patient_id or cluster when present; "
        "none: items independent)" + note,
    )


def add_by(p: argparse.ArgumentParser, note: str = "") -> None:
    """``--by``: item attributes of the subgroup breakdowns."""
    p.add_argument(
        "--by",
        help="item attributes for subgroup breakdowns, comma-separated (default: the study's "
        "subgroup attribute — organ_system, department, modality_type or subset, else the first "
        "item attribute with 2-30 values)" + note,
    )


def add_ties(p: argparse.ArgumentParser) -> None:
    """``--ties``: keep or leave out the items whose gold label is a tie."""
    p.add_argument(
        "--ties",
        choices=TIES,
        default="keep",
        help="items whose gold label is the scale's tie category (pairwise preferences): keep "
        "them (default) or exclude them; the number left out is printed",
    )


def add_gold_method(p: argparse.ArgumentParser) -> None:
    """``--gold-method``: how each item's gold label is derived."""
    p.add_argument(
        "--gold-method",
        choices=GOLD_METHODS,
        default="auto",
        help="gold label per item: auto (default: supplied gold if the data have it, else the "
        "experts' majority), majority (strict majority of the experts), plurality (their most "
        "frequent label; tied tops have no gold), reference (one rater, --reference) or "
        "supplied",
    )


def add_json(p: argparse.ArgumentParser) -> None:
    """``--json``: the whole result as JSON on standard output."""
    p.add_argument("--json", action="store_true", help="print the result as JSON")
