"""``medjudge ppi``: judge-assisted (prediction-powered) estimates from few expert labels.

Items with gold are the labelled set, the rest unlabelled. Prints, per dimension, judge and
category, the PPI (lam = 1) and PPI++ estimates with intervals beside the classical expert-only
estimate, the judge-only (naive) estimate with its bias on the labelled items, the Rogan-Gladen
correction, and the effective number of expert labels (``--json`` for everything).
"""

from __future__ import annotations

import argparse
import textwrap

import pandas as pd

from ..data.errors import InputError
from . import _options as opt
from ._common import counts_text, input_parser, load_input, print_json, term_width
from ._resolve import resolve_cluster


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub,
        "ppi",
        "judge-assisted estimates of gold-label rates from few expert labels (PPI/PPI++)",
    )
    opt.add(p, "--dimensions")
    p.add_argument("--judges", help="judge(s) to use, comma-separated (default all)")
    p.add_argument("--categories", help="categories whose rate is estimated, comma-separated")
    p.add_argument("--contrast", help="A,B: estimate P(gold=A) - P(gold=B) on the same items")
    p.add_argument("--by", help="item attribute: per-subgroup PPI++ and a stratified estimate")
    opt.add(p, "--gold-method", "--ties", "--confidence-level", "--json", "--cluster",
            note=" (cluster-robust variances)")  # fmt: skip
    p.add_argument("--reference", help="rater whose labels are gold (with --gold-method reference)")
    p.add_argument(
        "--combine",
        choices=["select", "combine"],
        help="several judges: add a cross-fitted estimate that selects or combines them",
    )
    p.add_argument(
        "--folds",
        type=opt.IntRange(2, 1_000_000, what="folds"),
        default=10,
        help="cross-fitting folds",
    )
    p.add_argument(
        "--keep-labels",
        type=opt.IntRange(2, 2**63 - 1, what="labels kept"),
        help="keep gold on a random N items only (rehearse a label budget on labelled data)",
    )
    p.add_argument("--seed", type=opt.SEED, default=0, help="seed for --keep-labels and the folds")
    p.add_argument(
        "--interval",
        choices=["t", "normal"],
        default="t",
        help="t: small-sample intervals (default, calibrated at n >= 50); "
        "normal: the asymptotic intervals of ppi-python",
    )
    p.set_defaults(func=run)


def _pair(s: str | None) -> tuple[str, str] | None:
    if s is None:
        return None
    parts = [v.strip() for v in s.split(",")]
    if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
        raise ValueError(f"--contrast must be two different categories A,B, got {s!r}")
    return parts[0], parts[1]


def _list(s: str | None) -> list[str] | None:
    return None if s is None else [v.strip() for v in s.split(",") if v.strip()]


def run(args: argparse.Namespace) -> int:
    from ..analyses.judge_assisted import judge_assisted_estimate

    if args.gold_method == "plurality":
        raise InputError(
            "--gold-method plurality: not available for ppi; allowed: auto, majority, "
            "reference, supplied"
        )
    study = load_input(args)
    res = judge_assisted_estimate(
        study,
        args.dimensions,
        judges=_list(args.judges),
        categories=_list(args.categories),
        contrast=_pair(args.contrast),
        by=args.by,
        cluster=resolve_cluster(study, args.cluster),
        gold=args.gold_method,
        reference=args.reference,
        combine=args.combine,
        n_folds=args.folds,
        keep_labels=args.keep_labels,
        seed=args.seed,
        confidence_level=args.confidence_level,
        interval=args.interval,
    )
    if print_json(args, res):
        return 0
    t = res.estimates()
    cols = ["dimension", "judge", "target", "method", "estimate", "ci_low", "ci_high", "lam",
            "n_labelled", "n_unlabelled", "effective_n", "width_ratio", "bias"]  # fmt: skip
    with pd.option_context(
        "display.width", 200, "display.max_rows", 200, "display.float_format", "{:.3f}".format
    ):
        for dim, c in res.counts.items():
            line = (
                f"# {dim}: {c['labelled']} labelled (gold: {c['gold_method']}), "
                f"{c['unlabelled']} unlabelled items; missing/invalid judge verdicts: "
                + counts_text(c["judge_verdicts_missing_or_invalid"], names=True)
            )
            print(
                textwrap.fill(
                    line, term_width(), subsequent_indent="#   ",
                    break_on_hyphens=False, break_long_words=False,
                )
            )  # fmt: skip
        print(t[cols].to_string(line_width=term_width(), index=False))
        sub = res.estimates(subgroup=None)
        sub = sub[sub["subgroup"] != "all"]
        if len(sub):
            print(f"\n# per {args.by}")
            print(sub[["subgroup", *cols]].to_string(line_width=term_width(), index=False))
        for note in res.notes:
            print(f"# {note}")
    return 0
