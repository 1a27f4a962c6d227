"""Options turned into the arguments of an analysis, checked against the study: ``--by``,
``--cluster``, ``--gold-method`` and the bootstrap (``--resamples``, ``--seed``,
``--confidence-level``). A value the study does not allow ends in one line naming the option and
what is allowed (exit status 2)."""

from __future__ import annotations

import argparse
from typing import Any

from ..analyses.design import resolve_clusters
from ..analyses.subgroups import default_subgroup_attributes
from ..data.errors import InputError
from ..data.model import Study
from ..stats.resampling import Bootstrap


def resampling(args: argparse.Namespace) -> dict[str, Any]:
    """``bootstrap=`` and ``confidence_level=`` from ``--resamples``, ``--seed`` and
    ``--confidence-level`` (the keyword arguments of every study-level analysis)."""

    return {
        "bootstrap": Bootstrap(args.resamples, args.seed),
        "confidence_level": args.confidence_level,
    }


def gold_methods_allowed(study: Study, *, reference: bool = True) -> list[str]:
    """The ``--gold-method`` values this study allows on its categorical dimensions."""
    allowed = ["auto"]
    if study.experts:
        allowed += ["majority", "plurality"]
    if reference:
        allowed.append("reference")
    if study.gold_table is not None:
        allowed.append("supplied")
    return allowed


def check_gold_method(
    study: Study, method: str, *, reference: str | None = None, can_reference: bool = True
) -> None:
    """``--gold-method`` against what the study (and the command: ``can_reference``) allows:
    one line listing the allowed values."""
    allowed = gold_methods_allowed(study, reference=can_reference)
    why = ""
    if method not in allowed:
        why = {
            "supplied": "the data have no supplied gold",
            "majority": "the study has no experts",
            "plurality": "the study has no experts",
            "reference": "this command has no --reference",
        }.get(method, "")
    elif method == "reference" and not reference:
        why = "name the reference rater with --reference"
    elif method == "reference" and reference not in study.raters():
        why = f"--reference {reference}: no such rater"
    if why:
        raise InputError(
            f"--gold-method {method}: {why}; allowed for this study: " + ", ".join(allowed)
        )


def resolve_by(study: Study, text: str | None, *, dimension: bool = True) -> list[str]:
    """``--by``: the named item attributes (checked), or the default rule of ``subgroups``
    (:func:`medjudge.analyses.subgroups.default_subgroup_attributes`, plus ``dimension`` when
    the study has several and ``dimension`` is allowed)."""
    have = [str(c) for c in study.items.columns if c != "item"]
    if text is None:
        by = list(default_subgroup_attributes(study))
        if dimension and len(study.dimensions) > 1:
            by.append("dimension")
        if not by:
            raise InputError(
                "--by: the study has no subgroup attribute to break down by; name one of the "
                f"item attributes ({', '.join(have) or 'none'})"
                + (" or 'dimension'" if dimension else "")
            )
        return by
    by = [b.strip() for b in text.split(",") if b.strip()]
    special = ("dimension", "judge") if dimension else ()
    unknown = [b for b in by if b not in special and b not in study.items.columns]
    if unknown:
        raise InputError(
            f"--by {', '.join(unknown)}: not an item attribute; item attributes: "
            + (", ".join(have) or "none")
        )
    return by


def resolve_cluster(study: Study, value: str | None) -> str | None:
    """``--cluster`` (``auto``, a column or ``none``) as an item attribute or ``None``."""

    c = resolve_clusters(study, value)
    return c.column if c.labels is not None else None
