"""Command-line option types: the validators of :mod:`medjudge._validation` by name.

Use them as ``type=`` of ``add_argument`` (``type=opt.ALPHA``); a bad value ends as one line
``medjudge CMD: error: argument --alpha: 5 is not allowed (a probability strictly between 0
and 1)`` with exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

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
    "RESAMPLING",
    "SHARED",
    "add",
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


#: invalid-verdict policies (``--policy``)
POLICIES = ("wrong", "exclude", "half")
#: gold rules a command line can ask for (``--gold-method``)
GOLD_METHODS = ("auto", "majority", "plurality", "reference", "supplied")
#: tie gold labels (``--ties``)
TIES = ("keep", "exclude")

#: The options that mean the same on every command that has them: one name, type, default,
#: choices and help (tests/cli/test_cli_options.py walks every parser). The help formatter adds
#: "(default: ...)" to a help text that does not name its default.
SHARED: dict[str, dict[str, Any]] = {
    "--confidence-level": {
        "type": CONFIDENCE_LEVEL, "default": 0.95,
        "help": "coverage of every interval, strictly between 0 and 1 (default 0.95)",
    },
    "--resamples": {"type": RESAMPLES, "default": 2000, "help": "bootstrap resamples"},
    "--seed": {"type": SEED, "default": 0, "help": "resampling seed"},
    "--policy": {
        "choices": POLICIES, "default": "wrong",
        "help": "invalid verdicts: count as wrong (default, the Med-RewardBench rule), exclude "
        "them, or count them as half right",
    },
    "--cluster": {
        "default": "auto",
        "help": "item attribute whose values cluster items, resampled together (default auto: "
        "the mapping's cluster, else image_id, case_id, patient_id or cluster when present; "
        "none: items independent)",
    },
    "--by": {
        "help": "item attributes for subgroup breakdowns, comma-separated (default: the study's "
        "subgroup attribute — organ_system, department, modality_type or subset, else the first "
        "item attribute with 2-30 values)",
    },
    "--ties": {
        "choices": TIES, "default": "keep",
        "help": "items whose gold label is the scale's tie category (pairwise preferences): keep "
        "them (default) or exclude them; the number left out is printed",
    },
    "--gold-method": {
        "choices": GOLD_METHODS, "default": "auto",
        "help": "gold label per item: auto (default: supplied gold if the data have it, else the "
        "experts' majority), majority (strict majority of the experts), plurality (their most "
        "frequent label; tied tops have no gold), reference (one rater, --reference) or supplied",
    },
    "--json": {"action": "store_true", "help": "print the result as JSON"},
}  # fmt: skip


def add(p: argparse.ArgumentParser, *flags: str, unset: bool = False, note: str = "") -> None:
    """Add the :data:`SHARED` options ``flags`` to ``p``.

    ``unset=True`` leaves their default ``None`` ("not given": ``report`` applies the same
    default later, since a ``--template`` may not declare the parameter) and names it in the
    help; ``note`` is appended to the help of the last flag.
    """
    for k, flag in enumerate(flags):
        kw = dict(SHARED[flag])
        if unset and "default" in kw:
            if "default" not in kw["help"]:
                kw["help"] += f" (default {kw['default']})"
            kw["default"] = None
        if note and k == len(flags) - 1:
            kw["help"] += note
        p.add_argument(flag, **kw)


#: ``--resamples``, ``--seed`` and ``--confidence-level``: the bootstrap of a command
RESAMPLING = ("--resamples", "--seed", "--confidence-level")
