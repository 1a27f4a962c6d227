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
from medjudge.analyses.subgroups import (
    MAX_HALF_WIDTH,
    MIN_N,
    best_judge_by_subgroup,
    stack_outcomes,
    subgroup_accuracy,
)

from . import _options as opt
from ._common import dump_json, from_args, input_parser, table_text
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

    def commented(text: str) -> str:
        return "\n".join(f"# {line}" for line in text.splitlines())

    with pd.option_context(
        "display.width", 160, "display.max_rows", 60, "display.float_format", "{:.3f}".format
    ):
        b = out["breakdown"]
        print(commented(b.summary()))
        cols = ["judge", *b.by, "estimate", "ci_low", "ci_high", "n", "small"]
        print(table_text(b.table("cells")[cols], 60, index=False))
        if "heterogeneity" in out:
            h = out["heterogeneity"]
            print("\n" + commented(h.summary()))
            cols_h = ["judge", "dimension", "estimate", "test", "p_value", "p_adjusted", "chi2",
                      "I2"]  # fmt: skip
            print(table_text(h.table("tests")[cols_h], 80, index=False))
        if "organ_effects" in out:
            eff = out["organ_effects"].copy()
            words = "; ".join(str(eff[c].iloc[0]) for c in ("test", "adjustment") if len(eff))
            print(f"\n# {attrs[0]} effect per judge ({words})")
            if "note" in eff.columns:
                # an untested row says why, never a bare NaN
                untested = eff["pvalue"].isna() & eff["note"].astype(str).ne("")
                for c in ("wald_chi2", "pvalue", "p_holm", "flag"):
                    if c in eff.columns:
                        eff[c] = eff[c].astype(object).where(~untested, "—")
            cols_e = ["judge", "wald_chi2", "df", "pvalue", "p_holm", "flag"]
            cols_e += (
                ["note"] if "note" in eff.columns and eff["note"].astype(str).ne("").any() else []
            )
            print(table_text(eff[cols_e], 80, index=False))
        bb = out["best"]
        if bb.empty or "test" not in bb.columns:
            print(
                f"\n# best judge per cell: not computed ({out['breakdown']['judge'].nunique()} judge; a best "
                "judge needs two to compare)"
            )
            return 0
        print(
            "\n# best judge per cell; runner-up: "
            + "; ".join(dict.fromkeys(bb["test"].astype(str)))
        )
        for m in dict.fromkeys(bb["best_set_method"].astype(str)):
            print(f"# best set: {m}")
        shown = bb.drop(columns=["ci_method", "test", "best_set_method"])
        print(table_text(shown, 60, index=False))
    return 0
