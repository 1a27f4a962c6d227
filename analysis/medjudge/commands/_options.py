"""Command-line option types: the validators of :mod:`medjudge._validation` by name.

Use them as ``type=`` of ``add_argument`` (``type=opt.ALPHA``); a bad value ends as one line
``medjudge CMD: error: argument --alpha: 5 is not allowed (a probability strictly between 0
and 1)`` with exit status 2.
"""

from __future__ import annotations

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
    "RESAMPLES",
    "SEED",
    "TOP",
    "IntRange",
    "RealRange",
]
