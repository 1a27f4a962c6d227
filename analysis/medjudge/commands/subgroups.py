"""``medjudge subgroups``: accuracy by subgroup, heterogeneity tests, best judge per subgroup.

Prints (or with ``--json`` dumps) four tables: ``breakdown`` (accuracy per judge x cell of
``--by``, Wilson interval — cluster-aware with ``--cluster`` —, n, small-cell flag),
``heterogeneity`` (per judge x dimension chi-square / Cochran Q / I² across the first ``--by``
attribute), ``organ_effects`` (per judge robust logistic Wald test of that attribute, pooled
over dimensions) and ``best`` (best judge within each cell, paired McNemar against the rest).
"""

from __future__ import annotations

import argparse

import pandas as pd

from medjudge.analyses.heterogeneity import heterogeneity_table, organ_effect_tests
from medjudge.analyses.subgroup_text import (
    best_text,
    breakdown_text,
    effects_text,
    heterogeneity_text,
)
from medjudge.analyses.subgroups import (
    MAX_HALF_WIDTH,
    MIN_N,
    best_judge_by_subgroup,
    stack_outcomes,
    subgroup_accuracy,
)

from . import _options as opt
from ._common import dump_json, from_args, input_parser, term_width
from ._engine import add_engine_arg, study_of
from ._resolve import resolve_by


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub,
        "subgroups",
        "accuracy by subgroup, heterogeneity across subgroups, best judge per subgroup",
    )
    opt.add(p, "--policy", "--cluster", "--ties", "--confidence-level", "--json", "--by",
            note="; 'dimension' breaks down by dimension too (default when several)")  # fmt: skip
    p.add_argument(
        "--min-n",
        type=opt.MIN_N,
        default=MIN_N,
        help=f"small-cell rule: n below this (default {MIN_N})",
    )
    p.add_argument(
        "--max-half-width",
        type=opt.MAX_HALF_WIDTH,
        default=MAX_HALF_WIDTH,
        help=f"small-cell rule: interval half-width above this (default {MAX_HALF_WIDTH})",
    )
    p.add_argument(
        "--model",
        choices=["glm-cluster", "gee", "none"],
        default="glm-cluster",
        help="logistic model for the per-judge heterogeneity test (default glm-cluster)",
    )
    add_engine_arg(p, "reduce the table to its item x rater matrices next to the data")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    study, _ = study_of(args, "subgroups")
    by = resolve_by(study, args.by)
    attrs = [b for b in by if b not in ("dimension", "judge")]
    if args.cluster not in ("auto", "none") and args.cluster not in study.items.columns:
        raise ValueError(f"--cluster {args.cluster!r} is not an item attribute")
    so = stack_outcomes(study)
    out: dict[str, pd.DataFrame] = {
        "breakdown": subgroup_accuracy(
            study,
            by,
            _stacked=so,
            **from_args(args, "policy", "cluster", "min_n", "max_half_width", "confidence_level"),
        )  # fmt: skip
    }
    if attrs:
        across = attrs[0]
        out["heterogeneity"] = heterogeneity_table(
            study, across, policy=args.policy, cluster=args.cluster, _stacked=so,
            confidence_level=args.confidence_level,
        )  # fmt: skip
        if args.model != "none" and args.policy != "half":
            # flagged at the heterogeneity tests' α (1 - confidence level), one rule per command
            out["organ_effects"] = organ_effect_tests(
                study, across, policy=args.policy, method=args.model, _stacked=so,
                alpha=out["heterogeneity"].alpha,
            )  # fmt: skip
    out["best"] = best_judge_by_subgroup(
        study, by, policy=args.policy, cluster=args.cluster, _stacked=so,
        confidence_level=args.confidence_level,
    )  # fmt: skip
    if args.json:
        print(
            dump_json(
                {k: getattr(v, "frame", v).to_dict(orient="records") for k, v in out.items()}
                | {"by": by, "policy": args.policy}
            )
        )
        return 0

    w = term_width()
    print(breakdown_text(out["breakdown"], width=w))
    if "heterogeneity" in out:
        print(heterogeneity_text(out["heterogeneity"], width=w))
    if "organ_effects" in out:
        print(effects_text(out["organ_effects"], attrs[0], width=w))
    print(best_text(out["best"], out["breakdown"]["judge"].nunique(), width=w))
    return 0
