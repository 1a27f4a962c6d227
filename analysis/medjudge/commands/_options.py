"""Command-line option types: the validators of :mod:`medjudge._validation` by name.

Use them as ``type=`` of ``add_argument`` (``type=opt.ALPHA``); a bad value ends as one line
``medjudge CMD: error: argument --alpha: 5 is not allowed (a probability strictly between 0
and 1)`` with exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import _validation
from .._validation import (  # noqa: F401 - re-exported (__all__)
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
    *_validation.__all__,
    "OUT_FOLDER",
    "NAMES",
    "RENAMED",
    "RESAMPLING",
    "SHARED",
    "add",
    "one_dimension",
    "renamed",
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


def NAMES(text: str) -> list[str]:
    """``type=`` of a comma-separated list of names (``--dimensions a,b``): the names, in order,
    without blanks or repeats.

    >>> NAMES("overall, safety,overall")
    ['overall', 'safety']
    """
    names = list(dict.fromkeys(n.strip() for n in str(text).split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r} names nothing (names, comma-separated)")
    return names


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
    "--dimensions": {
        "type": NAMES, "metavar": "DIM[,DIM...]",
        "help": "dimensions to analyse, comma-separated (default: all; agreement, bias, models "
        "and plan ppi take one: by default the first, or for agreement the only one)",
    },
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


def one_dimension(names: list[str] | None, command: str) -> str | None:
    """The one dimension of ``--dimensions`` for a command that analyses one (``None``: not
    given); more than one is refused in one line.

    >>> one_dimension(["overall"], "bias"), one_dimension(None, "bias")
    ('overall', None)
    """
    if not names:
        return None
    if len(names) > 1:
        from ..data.errors import InputError

        raise InputError(
            f"--dimensions: {command} takes one dimension, got {', '.join(names)}",
            hint="run it once per dimension",
        )
    return names[0]


#: old option spellings, accepted for one release: (command, old) -> the option that replaces it
RENAMED: dict[tuple[str, str], str] = {
    ("compare", "--only"): "--dimensions",
    ("agreement", "--dimension"): "--dimensions",
    ("plan", "--dimension"): "--dimensions",
    ("audit", "--judge-dimension"): "--headline",
    ("report", "--engine"): "--renderer",
}


class _Renamed(argparse.Action):
    """An old spelling: sets what the new option sets, and says so once on stderr."""

    def __init__(self, option_strings, dest, *, new: str, append: bool = False, **kw) -> None:  # noqa: ANN001
        self.new, self.append = new, append
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        print(
            f"medjudge: note: {option_string} is now {self.new}; the old name is accepted "
            "until the next release",
            file=sys.stderr,
        )
        if self.append:
            values = [*(getattr(namespace, self.dest, None) or []), *values]
        setattr(namespace, self.dest, values)


def renamed(
    p: argparse.ArgumentParser,
    command: str,
    old: str,
    dest: str,
    *,
    append: bool = False,
    type: Any = None,
    choices: Any = None,
) -> None:
    """Accept ``old`` (listed in :data:`RENAMED` for ``command``) as the option that replaced
    it, hidden from ``--help``, with a note on stderr when used."""
    p.add_argument(
        old, dest=dest, action=_Renamed, new=RENAMED[(command, old)], append=append,
        type=type, choices=choices, default=argparse.SUPPRESS, help=argparse.SUPPRESS,
    )  # fmt: skip


#: ``--resamples``, ``--seed`` and ``--confidence-level``: the bootstrap of a command
RESAMPLING = ("--resamples", "--seed", "--confidence-level")
