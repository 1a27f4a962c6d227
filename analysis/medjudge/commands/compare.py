"""``medjudge compare``: leaderboard with intervals and rank intervals, and all pairwise tests."""

from __future__ import annotations

import argparse

import pandas as pd

from . import _options as opt
from ._common import add_input_args, check_dimensions, check_order, dump_json, load_input


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare", help="leaderboard with intervals + pairwise McNemar/bootstrap with Holm and BH"
    )
    add_input_args(p)
    p.add_argument(
        "--policy",
        choices=["wrong", "exclude", "half"],
        default="wrong",
        help="invalid verdicts: wrong (Med-RewardBench rule), exclude, or half credit",
    )
    p.add_argument("--seed", type=opt.SEED, default=0)
    p.add_argument("--resamples", type=opt.RESAMPLES, default=2000)
    p.add_argument(
        "--cluster",
        default="auto",
        help="item attribute to cluster-resample by (auto: image_id …; none)",
    )
    p.add_argument("--gold-method", default="auto", choices=["auto", "supplied", "majority"])
    p.add_argument(
        "--eval-order", help="presentation order to evaluate when both exist (default AB)"
    )
    p.add_argument(
        "--only", dest="dimensions", action="append", help="restrict to a dimension (repeatable)"
    )
    p.add_argument("--alpha", type=opt.ALPHA, default=0.05)
    p.add_argument(
        "--engine",
        choices=["memory", "duckdb", "spark"],
        default="memory",
        help="memory: load the study in Python (default); duckdb/spark: reduce a long verdict "
        "table (item, rater, role, dimension, value) next to the data and resample per-cluster "
        "counts (Poisson bootstrap; identical numbers on both engines)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def _run_engine(args: argparse.Namespace) -> int:
    from medjudge.analyses.at_scale import evaluate_at_scale

    cluster = None if args.cluster in ("auto", "none", "", None) else args.cluster
    res = evaluate_at_scale(
        args.path,
        engine=args.engine,
        cluster=cluster,
        policy=args.policy,
        n_resamples=args.resamples,
        seed=args.seed,
    )
    if args.json:
        print(dump_json(res.to_dict()))
        return 0
    print(repr(res))
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(res.leaderboard.to_string(index=False))
        if not res.pairs.empty:
            print(res.pairs.to_string(index=False))
    for dim, note in res.notes.items():
        print(f"note ({dim}): {note}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.engine != "memory":
        return _run_engine(args)
    from medjudge.analyses.evaluation import evaluate_judges

    study = load_input(args)
    args.dimensions = check_dimensions(study, args.dimensions, "--only")
    check_order(study, args.eval_order, "--eval-order")
    ev = evaluate_judges(
        study,
        policy=args.policy,
        seed=args.seed,
        n_resamples=args.resamples,
        cluster=args.cluster,
        gold=args.gold_method,
        order=args.eval_order,
        dimensions=args.dimensions,
    )
    if args.json:
        print(dump_json(ev.to_dict()))
        return 0
    s = ev.settings
    print(
        f"{study.name}: {len(s['judges'])} judges; gold {s['gold']}; policy {s['policy']}; "
        f"clusters {s['cluster']}; B={s['n_resamples']} seed={s['seed']}"
    )
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        for d in s["dimensions"]:
            lb = ev.leaderboard[ev.leaderboard["dimension"] == d]
            print(f"\n== {d} (n={s['n_items_with_gold'][d]}; excluded: {ev.excluded[d]})")
            t = lb[
                [
                    "rank",
                    "judge",
                    "accuracy",
                    "ci_low",
                    "ci_high",
                    "rank_low",
                    "rank_high",
                    "group",
                    "n_invalid",
                ]
            ]
            print(t.round(3).to_string(index=False))
            base = ev.baselines[ev.baselines["dimension"] == d]
            print(
                "baselines: " + ", ".join(f"{r.judge} {r.accuracy:.3f}" for r in base.itertuples())
            )
            ceil = ev.expert_ceiling[ev.expert_ceiling["dimension"] == d]
            if len(ceil):
                print(
                    "experts vs leave-one-out majority: "
                    + ", ".join(f"{r.expert} {r.accuracy:.3f} (n={r.n})" for r in ceil.itertuples())
                )
        pairs = ev.pairs
        sig = pairs[pairs["p_holm"] < args.alpha]
        print(
            f"\npairwise: {len(pairs)} comparisons ({len(pairs) // max(len(s['dimensions']), 1)} pairs × "
            f"{len(s['dimensions'])} dimensions); significant after Holm within dimension at {args.alpha}: {len(sig)}"
        )
        cols = [
            "dimension",
            "judge_a",
            "judge_b",
            "difference",
            "ci_low",
            "ci_high",
            "b",
            "c",
            "pvalue",
            "p_holm",
            "p_fdr_bh",
        ]
        top = pairs.sort_values("pvalue")[cols].head(30).round(4)
        for c in ("pvalue", "p_holm", "p_fdr_bh"):
            top[c] = pairs.loc[top.index, c].map(lambda v: f"{v:.2g}")
        print(top.to_string(index=False))
    return 0
