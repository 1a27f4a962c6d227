"""``medjudge compare``: leaderboard with intervals and rank intervals, and all pairwise tests."""

from __future__ import annotations

import argparse
import sys

from medjudge.analyses.calibration import judge_calibration, why_no_calibration
from medjudge.analyses.evaluation import evaluate_judges
from medjudge.analyses.judge_vs_gold import judge_vs_gold
from medjudge.analyses.score_study import score_study

from . import _options as opt
from ._common import check_dimensions, check_order, dump_json, input_parser, term_width
from ._engine import add_engine_arg, study_of
from ._progress import counted, progress
from ._resolve import resampling


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub, "compare", "leaderboard with intervals + pairwise McNemar/bootstrap with Holm and BH"
    )
    opt.add(p, "--policy", *opt.RESAMPLING, "--cluster", "--gold-method", "--ties", "--json")
    p.add_argument(
        "--eval-order", help="presentation order to evaluate when both exist (default AB)"
    )
    opt.add(p, "--dimensions")
    opt.renamed(p, "compare", "--only", "dimensions", append=True, type=opt.NAMES)
    p.add_argument(
        "--alpha",
        type=opt.ALPHA,
        default=None,
        help="test size of the pairwise tests (default 0.05)",
    )
    p.add_argument(
        "--family",
        choices=["table", "dimension"],
        default="table",
        help="multiplicity family of the pairwise tests (Holm): table = all pairs of all "
        "dimensions shown together (default), dimension = each dimension on its own",
    )
    p.add_argument(
        "--kappa-weights",
        choices=["linear", "quadratic", "identity"],
        default=None,
        help="agreement weights of kappa against gold on ordinal dimensions (default linear)",
    )
    p.add_argument(
        "--score-intervals",
        choices=["bootstrap", "analytic"],
        default=None,
        help="score dimensions: cluster bootstrap (default) or closed-form intervals",
    )
    add_engine_arg(
        p,
        "reduce the table to its item x rater matrices next to the data (the same statistics "
        "and numbers as in memory)",
    )
    p.set_defaults(func=run)


#: what the options left unset (``None``) in the parser stand for
_DEFAULTS = {"alpha": 0.05, "kappa_weights": "linear", "score_intervals": "bootstrap"}


def run(args: argparse.Namespace) -> int:
    for name, default in _DEFAULTS.items():
        if getattr(args, name, None) is None:
            setattr(args, name, default)

    with progress(args, f"loading {args.path}"):
        study, _ = study_of(args, "compare")
    args.dimensions = check_dimensions(study, args.dimensions, "--dimensions")
    check_order(study, args.eval_order, "--eval-order")
    dims = args.dimensions or study.dimensions
    cat = [d for d in dims if study.scales[d].is_categorical]
    num = [d for d in dims if not study.scales[d].is_categorical]
    if not study.judges and not num:
        raise ValueError("the study has no judges: compare needs judges (try 'medjudge audit')")
    if "judge" in study.exchangeable and cat:
        raise ValueError(
            "the judges are exchangeable slots (mapping: exchangeable), not the same rater "
            "across items: compare ranks raters, not slots (try 'medjudge agreement --role judge')"
        )
    out: dict = {}
    if num:
        with counted(args, ["scores"]) as step:
            out["scores"] = score_study(
                study, gold=args.gold_method, cluster=args.cluster, dimensions=num,
                interval=args.score_intervals, baselines=True, alpha=args.alpha,
                **resampling(args),
                progress=lambda done, total, dim: step("scores", f"dimension {dim}", done, total),
            )  # fmt: skip
    if not cat or not study.judges:
        if args.json:
            print(dump_json({k: v.to_dict() for k, v in out.items()}))
        elif text := out["scores"].tables_text(width=term_width()):
            print(text)
        return 0

    with counted(args, ["compare"]) as step:
        ev, jg = _evaluate(args, study, cat, lambda what, done: step("compare", what, done, 2))
    cal = _calibration(args, study, cat)
    if args.json:
        d = ev.to_dict()
        d["judge_vs_gold"] = jg.to_dict()
        if cal is not None:
            d["calibration"] = cal.to_dict()
        if "scores" in out:
            d["scores"] = out["scores"].to_dict()
        print(dump_json(d))
        return 0
    s = ev.settings
    order = (
        f"accuracy uses order {s['order']} only (--eval-order)"
        if args.eval_order
        else f"accuracy uses order {s['order']} for judges seen in both orders"
        if s["order"] != "single order"
        else ""
    )
    print(f"{study.name}" + (f": {order}" if order else ""))
    print(ev.summary(width=term_width()))
    print(jg.tables_text(width=term_width()))
    if cal is not None:
        print("\ncalibration of the judges' stated confidence")
        print(cal.summary())
    if "scores" in out and (text := out["scores"].tables_text(width=term_width())):
        print(text)
    return 0


def _calibration(args: argparse.Namespace, study, cat: list[str]):  # noqa: ANN001, ANN202
    """The judges' calibration when some judge states a confidence (mapping key
    ``confidence``), else None."""

    if not hasattr(study, "ratings"):  # the columnar path keeps verdict matrices only
        if _declares_confidence(getattr(args, "mapping", None)):
            print(
                "calibration not computed: the columnar path (--engine duckdb or spark) keeps "
                "the verdicts, not the stated confidences; rerun with --engine memory",
                file=sys.stderr,
            )
        return None
    if why_no_calibration(study) is not None:
        return None
    return judge_calibration(
        study, dimensions=cat, gold=args.gold_method, order=args.eval_order,
        cluster=args.cluster, alpha=args.alpha, **resampling(args),
    )  # fmt: skip


def _declares_confidence(mapping: str | None) -> bool:
    """Whether the mapping file names a confidence column (top level or for a rater)."""
    import tomllib
    from pathlib import Path

    if not mapping or not Path(mapping).is_file():
        return False
    with open(mapping, "rb") as fh:
        m = tomllib.load(fh)
    raters = m.get("raters", {})
    return "confidence" in m or any(
        isinstance(v, dict) and "confidence" in v for v in raters.values()
    )


def _evaluate(args: argparse.Namespace, study, cat: list[str], step):  # noqa: ANN001, ANN202
    common = {"policy": args.policy, "cluster": args.cluster, "gold": args.gold_method,
              "order": args.eval_order, "dimensions": cat, **resampling(args)}  # fmt: skip
    step("leaderboards and pairwise tests", 0)
    ev = evaluate_judges(study, family=args.family, alpha=args.alpha, **common)
    step("judges against gold", 1)
    jg = judge_vs_gold(study, kappa_weights=args.kappa_weights, alpha=args.alpha, **common)
    return ev, jg
