"""``medjudge models``: rank the answer models by the experts' gold and by each judge.

Bradley–Terry strengths (log scale, centred to mean 0; a tie is half a win for each model
unless ``--tie-model davidson``) with cluster bootstrap intervals, Elo-style ratings, simultaneous
rank confidence sets, and each judge's rank correlation with the expert ranking.

``--json`` prints ``{"settings", "strengths": [rows], "win_probabilities", "correlations",
"counts"}``; each strength row has ``source`` (``experts`` — their gold per item — or a judge's
name), ``model``, ``strength``, ``ci_low``, ``ci_high``, ``level`` and more.
"""

from __future__ import annotations

import argparse

from ..analyses.models import answer_model_ranking
from . import _options as opt
from ._common import input_parser, load_input, print_json, term_width
from ._resolve import resampling, resolve_cluster


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub, "models", "rank the answer models (Bradley-Terry) by the experts and by each judge"
    )
    p.add_argument(
        "--models",
        help="the two item columns naming the models of answer 1 and answer 2, e.g. "
        "model_1,model_2 (default: the mapping's models key)",
    )
    p.add_argument(
        "--tie-model",
        choices=["half", "davidson"],
        default="half",
        help="a tie verdict: half a win for each model (default), or davidson: Davidson's tie "
        "model",
    )
    opt.add(p, "--ties", "--cluster", *opt.RESAMPLING, "--json", "--dimensions")
    p.add_argument("--judges", help="judges to include, comma-separated (default: all)")
    p.add_argument("--no-experts", action="store_true", help="leave out the experts' ranking")
    p.add_argument(
        "--marginal-ranks",
        action="store_true",
        help="rank confidence sets per model instead of simultaneous over all models",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    study = load_input(args)
    models = None
    if args.models:
        models = [c.strip() for c in args.models.split(",")]
        if len(models) != 2 or not all(models):
            raise ValueError(f"--models needs two comma-separated columns, got {args.models!r}")
    judges = [j.strip() for j in args.judges.split(",")] if args.judges else None
    res = answer_model_ranking(
        study,
        models,
        dimension=opt.one_dimension(args.dimensions, "models"),
        judges=judges,
        include_experts=not args.no_experts,
        ties=args.tie_model,
        cluster=resolve_cluster(study, args.cluster),
        simultaneous=not args.marginal_ranks,
        **resampling(args),
    )
    if print_json(args, res):
        return 0
    print(res.tables_text(width=term_width()))
    return 0
