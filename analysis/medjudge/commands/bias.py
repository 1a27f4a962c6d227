"""``medjudge bias``: position, length, label-balance, dimension-structure and run diagnostics.

Both presentation orders present: swap consistency, preference for the first-shown answer
(exact binomial = exact McNemar of AB vs BA), accuracy in each order and tie-resolved. One order
only: the judge's A-rate against the gold A-rate (McNemar), with the note that position bias and
a one-sided preference cannot be separated. Then label balance and constant-answer scores,
agreement between a rater's dimensions, length bias, and repeated-run consistency.
"""

from __future__ import annotations

import argparse

import pandas as pd

from medjudge.analyses.bias import bias_report
from medjudge.analyses.position import SINGLE_ORDER_NOTE

from ._common import add_input_args, dump_json, load_input

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
        "p_first_binom",
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
        "p_mcnemar_midp",
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
        "flip_ci_low",
        "flip_ci_high",
        "within_item_variance",
    ],
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bias", help="judge bias diagnostics: position, length, label balance, dimensions, runs"
    )
    add_input_args(p)
    p.add_argument(
        "--cluster", default=None, help="item attribute whose values cluster items (e.g. image_id)"
    )
    p.add_argument("--json", action="store_true", help="print all tables as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    study = load_input(args)
    if args.cluster and args.cluster not in study.items.columns:
        raise ValueError(f"--cluster {args.cluster!r} is not an item attribute")
    rep = bias_report(study, cluster=args.cluster)
    if args.json:
        out = {k: v.to_dict(orient="records") for k, v in rep.items()}
        out["notes"] = {"single_order": SINGLE_ORDER_NOTE}
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
            print(table[cols].to_string(index=False, max_rows=80))
            print()
    return 0
