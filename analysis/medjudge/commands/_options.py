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
    "add_confidence_level",
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


def add_confidence_level(p: argparse.ArgumentParser) -> None:
    """``--confidence-level`` with the same name, type, default and help on every command."""
    p.add_argument(
        "--confidence-level",
        type=CONFIDENCE_LEVEL,
        default=0.95,
        help="coverage of every interval, strictly between 0 and 1 (default 0.95)",
    )
