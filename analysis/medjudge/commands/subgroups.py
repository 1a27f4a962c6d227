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

from ..data.errors import InputError
from . import _options as opt
from ._common import add_input_args, dump_json, from_args, load_input, table_text
from ._engine import add_engine_arg, engine_of, refuse_options
from ._resolve import resolve_by


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "subgroups",
        help="accuracy by subgroup, heterogeneity across subgroups, best judge per subgroup",
    )
    add_input_args(p)
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
    add_engine_arg(p, "reduce the table to one row per item and judge outcomes")
    p.set_defaults(func=run)


def _columnar(args: argparse.Namespace, engine: str, mapping):  # noqa: ANN001, ANN202
    """(items view, stacked outcomes) reduced next to the data: one row per item, not verdict."""
    from medjudge.analyses.at_scale import stack_at_scale

    refuse_options(args, engine, {"broadcast": False, "exchangeable": None, "ties": "keep"})
    if mapping is None:
        raise InputError(
            f"--engine {engine}: subgroups on the columnar path needs a mapping "
            "(--mapping FILE.toml or --item/--rater/--value) naming the item attributes"
        )
    cluster = args.cluster if args.cluster not in (None, "", "none") else "auto"
    return stack_at_scale(args.path, mapping=mapping, engine=engine, cluster=cluster)


def run(args: argparse.Namespace) -> int:
    engine, mapping = engine_of(args, "subgroups")
    if engine == "memory":
        study, so = load_input(args), None
    else:
        study, so = _columnar(args, engine, mapping)
    by = resolve_by(study, args.by)
    attrs = [b for b in by if b not in ("dimension", "judge")]
    if args.cluster not in ("auto", "none") and args.cluster not in study.items.columns:
        raise ValueError(f"--cluster {args.cluster!r} is not an item attribute")
    so = so if so is not None else stack_outcomes(study)
    out: dict[str, pd.DataFrame] = {
        "breakdown": subgroup_accuracy(
            study,
            by,
            stacked=so,
            **from_args(args, "policy", "cluster", "min_n", "max_half_width", "confidence_level"),
        )  # fmt: skip
    }
    if attrs:
        across = attrs[0]
        out["heterogeneity"] = heterogeneity_table(
            study, across, policy=args.policy, cluster=args.cluster, stacked=so,
            confidence_level=args.confidence_level,
        )  # fmt: skip
        if args.model != "none" and args.policy != "half":
            out["organ_effects"] = organ_effect_tests(
                study, across, policy=args.policy, method=args.model, stacked=so
            )
    out["best"] = best_judge_by_subgroup(
        study, by, policy=args.policy, cluster=args.cluster, stacked=so,
        confidence_level=args.confidence_level,
    )  # fmt: skip
    if args.json:
        print(
            dump_json(
                {k: v.to_dict(orient="records") for k, v in out.items()}
                | {"by": by, "policy": args.policy}
                | ({"engine": engine} if engine != "memory" else {})
            )
        )
        return 0
    cols = [
        "judge",
        *[b for b in by if b != "judge"],
        "accuracy",
        "ci_low",
        "ci_high",
        "n",
        "small",
    ]
    with pd.option_context(
        "display.width", 160, "display.max_rows", 60, "display.float_format", "{:.3f}".format
    ):
        b = out["breakdown"]
        print(
            f"# accuracy by {', '.join(by)} (policy {args.policy}; {b['ci_method'].iloc[0]} "
            f"{100 * b['level'].iloc[0]:g}% intervals; clusters: {b['cluster'].iloc[0]})\n"
            f"# {int(b['small'].sum())} of {len(b)} cells small ({b['rule'].iloc[0]})"
        )
        print(table_text(b[cols], 60, index=False))
        if "heterogeneity" in out:
            h = out["heterogeneity"]
            print(
                f"\n# heterogeneity across {attrs[0]} (chi-square, Cochran Q, I²; Holm within judge)"
            )
            tests = "; ".join(dict.fromkeys(h["test"].astype(str))) if "test" in h else ""
            print(f"# test: {tests}" if tests else "", end="\n" if tests else "")
            cols_h = [c for c in ("judge", "dimension", "chi2", "df", "pvalue", "I2", "p_holm")
                      if c in h.columns]  # fmt: skip
            print(table_text(h[cols_h], 80, index=False))
        if "organ_effects" in out:
            print(f"\n# {attrs[0]} effect per judge (logistic, robust Wald; Holm over judges)")
            oe = out["organ_effects"]
            cols_o = ["judge", "wald_chi2", "df", "pvalue", "p_holm", "flag"]
            shown = oe[cols_o].astype({c: object for c in ("wald_chi2", "pvalue", "p_holm")})
            for c in ("wald_chi2", "pvalue", "p_holm"):  # never a bare NaN: "not tested"
                shown[c] = [
                    "not tested" if pd.isna(v) else (f"{v:.3f}" if c == "wald_chi2" else f"{v:.3g}")
                    for v in oe[c]
                ]
            print(table_text(shown, 80, index=False))
            notes = [(j, n) for j, n in zip(oe["judge"], oe.get("note", ""), strict=False) if n]
            for j, n in notes:
                print(f"  {j}: {n}")
        bb = out["best"]
        print(
            "\n# best judge per cell; runner-up: "
            + "; ".join(dict.fromkeys(bb["test"].astype(str)))
        )
        for m in dict.fromkeys(bb["best_set_method"].astype(str)):
            print(f"# best set: {m}")
        shown = bb.drop(columns=["ci_method", "test", "best_set_method"])
        print(table_text(shown, 60, index=False))
    return 0
