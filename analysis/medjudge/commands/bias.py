"""``medjudge bias``: position, length, label-balance, dimension-structure and run diagnostics.

Both presentation orders present: swap consistency, preference for the first-shown answer
(exact binomial = exact McNemar of AB vs BA), accuracy in each order and tie-resolved. One order
only: the judge's A-rate against the gold A-rate (McNemar), with the note that position bias and
a one-sided preference cannot be separated. Then label balance and constant-answer scores,
agreement between a rater's dimensions, length bias, and repeated-run consistency.

The bias suite (``suite`` in JSON) then reports self-preference (needs the answer models and
the judges' families), length-controlled accuracy and the length effect, a style effect
(``--style COL1,COL2``) and position bias per judge, each with an interval and a test, Holm
over the whole suite.
"""

from __future__ import annotations

import argparse

import pandas as pd

from medjudge.analyses.bias import bias_report
from medjudge.analyses.bias_suite import bias_suite
from medjudge.analyses.position import SINGLE_ORDER_NOTE

from . import _options as opt
from ._common import dump_json, input_parser, load_input, table_text

_SHOW = {
    "position_swap": [
        "dimension",
        "judge",
        "n",
        "consistency",
        "consistency_ci_low",
        "consistency_ci_high",
        "first_first",
        "second_second",
        "p_first_inconsistent",
        "p_first_pvalue",
        "accuracy_ab",
        "accuracy_ba",
        "accuracy_tie_resolved",
    ],
    "position_single_order": [
        "dimension",
        "judge",
        "n",
        "judge_a_rate",
        "gold_a_rate",
        "difference",
        "ci_low",
        "ci_high",
        "p_value",
        "p_holm",
    ],
    "label_balance": ["dimension", "category", "count", "n", "prevalence", "ci_low", "ci_high"],
    "constant_answers": ["dimension", "judge", "accuracy", "ci_low", "ci_high"],
    "dimension_structure": [
        "rater",
        "role",
        "n_items",
        "all_identical",
        "mean_kappa",
        "min_kappa",
        "broadcast_rate",
    ],
    "length_bias": [
        "dimension",
        "rater",
        "n",
        "rater_longer_rate",
        "gold_longer_rate",
        "difference",
        "pvalue",
        "length_gap",
        "gap_ci_low",
        "gap_ci_high",
        "gap_p_holm",
    ],
    "run_consistency": [
        "rater",
        "dimension",
        "runs",
        "n_items",
        "flip_rate",
        "ci_low",
        "ci_high",
        "within_item_variance",
    ],
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub, "bias", "judge bias diagnostics: position, length, label balance, dimensions, runs"
    )
    opt.add(p, "--cluster", "--ties", "--confidence-level", "--json", "--dimensions")
    p.add_argument(
        "--models", help="suite: the two item columns naming the answer models (model_1,model_2)"
    )
    p.add_argument(
        "--length-columns",
        default="answer1_len,answer2_len",
        help="suite: item columns with the lengths of answer 1 and 2 (default answer1_len,answer2_len)",
    )
    p.add_argument("--style", help="suite: item columns with a style attribute of answer 1 and 2")
    p.add_argument(
        "--alpha",
        type=opt.ALPHA,
        default=0.05,
        help="suite: test size of its decisions (default 0.05)",
    )
    p.set_defaults(func=run)


def _pair(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    cols = [c.strip() for c in text.split(",")]
    if len(cols) != 2 or not all(cols):
        raise ValueError(f"{option} needs two comma-separated item columns, got {text!r}")
    return cols


def run(args: argparse.Namespace) -> int:
    study = load_input(args)
    if args.cluster not in ("auto", "none") and args.cluster not in study.items.columns:
        raise ValueError(f"--cluster {args.cluster!r} is not an item attribute")
    rep = bias_report(study, cluster=args.cluster)
    models = _pair(args.models, "--models")
    style = _pair(args.style, "--style")
    for option, cols in (("--models", models), ("--style", style)):
        for c in cols or []:
            if c not in study.items.columns:
                raise ValueError(f"{option}: {c!r} is not an item attribute")
    suite = bias_suite(
        study,
        dimension=opt.one_dimension(args.dimensions, "bias"),
        models=models,
        length=_pair(args.length_columns, "--length-columns"),
        style=style,
        cluster=args.cluster,
        confidence_level=args.confidence_level,
        alpha=args.alpha,
    )
    if args.json:
        out = {k: v.to_dict(orient="records") for k, v in rep.items()}
        out["notes"] = {"single_order": SINGLE_ORDER_NOTE}
        out["suite"] = suite.to_dict()
        print(dump_json(out))
        return 0
    with pd.option_context("display.width", 180, "display.float_format", "{:.3f}".format):
        for key, table in rep.items():
            if key == "dimension_pairs" or table.empty:
                continue
            cols = [c for c in _SHOW.get(key, table.columns) if c in table.columns]
            print(f"# {key.replace('_', ' ')}")
            if key == "position_single_order":
                print(f"# note: {SINGLE_ORDER_NOTE}")
            print(table_text(table[cols], 80, index=False))
            print()
        print(f"# bias suite ({suite.settings['multiplicity']})")
        print(suite.summary())
    return 0
