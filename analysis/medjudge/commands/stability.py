"""``medjudge stability``: how much a judge's verdicts depend on the prompt variant and the run.

Judges named ``evaluator/variant`` (LLMBar: 15 prompting strategies per evaluator) and/or with
several runs: per evaluator, the ANOVA variance components of its correctness against gold
(item, prompt, item x prompt, run) as shares of the total, and the share of items whose verdict
flips across prompts (and of cells that flip across runs), with item-bootstrap intervals.
Items lacking a verdict under some prompt x run cell are excluded and counted. The dimension
analysed is ``overall`` when the study has it, else the first (as in the reports).

``--json`` prints ``{"settings", "components": [rows], "flips": [rows], "notes"}``.
"""

from __future__ import annotations

import argparse

import pandas as pd

from . import _options as opt
from ._common import input_parser, load_input, print_json, term_width
from ._resolve import resampling


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub,
        "stability",
        "variance components and verdict flips across prompt variants and runs",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--separator",
        default="/",
        help="splits a judge name into evaluator and prompt variant (default: '/')",
    )
    opt.add(p, *opt.RESAMPLING, "--json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..analyses.stability import stability
    from ..report.context import headline_dimension

    study = load_input(args)
    dimension = headline_dimension(study)
    if not args.separator:
        raise ValueError("--separator must be a non-empty string")
    res = stability(study, dimension=dimension, prompt_separator=args.separator, **resampling(args))
    if print_json(args, res):
        return 0
    st = res.settings
    print(
        f"# stability of {st['outcome']} on {st['dimension']} ({st['interval']}, "
        f"B={st['n_resamples']}, seed={st['seed']}, level={st['confidence_level']:g})"
    )
    if not res.components.empty:
        cols = ["evaluator", "component", "estimate", "ci_low", "ci_high", "n", "n_prompts",
                "n_runs", "excluded_incomplete_items"]  # fmt: skip
        with pd.option_context("display.width", 160, "display.float_format", "{:.3f}".format):
            print("# share of the variance per component")
            print(res.table("shares")[cols].to_string(line_width=term_width(), index=False))
            print("\n# share of items whose verdict flips")
            flips = res.table("flips")[["evaluator", "kind", "estimate", "ci_low", "ci_high", "n"]]
            print(flips.to_string(line_width=term_width(), index=False))
        import textwrap

        print("\n# what the components mean")
        for line in res.explanations():
            print(textwrap.fill(line, 100, subsequent_indent="  "))
        return 0
    for ev, why in res.notes.items():
        print(f"note: {ev}: {why}")
    return 0
