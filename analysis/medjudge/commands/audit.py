"""``medjudge audit BUNDLE``: the annotation audit and whether judges can stand in for experts.

Prints, per dimension: reliability of the experts (percent agreement, Fleiss' kappa, Gwet's AC1,
Krippendorff's alpha with intervals), each expert against the leave-one-out majority of the
others, the pairwise kappa matrix, the Dawid–Skene estimate of each expert's accuracy, subgroup
reliability, the most disputed items; then the alt-test of every judge (Calderon et al. 2025) and,
for one dimension, each judge's leave-one-expert-out kappa against the experts' own.
"""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from medjudge.analyses.audit import audit_settings, audit_study
from medjudge.analyses.audit_text import alt_test_text, expert_agreement_text, stand_in_text
from medjudge.analyses.judge_vs_experts import (
    judge_expert_agreement,
    study_alt_test,
    study_stand_in,
)
from medjudge.report.context import alt_invalid_rule
from medjudge.stats.judge_vs_experts import alt_test_table

from ..data.errors import InputError
from . import _options as opt
from ._common import check_dimensions, dump_json, input_parser, load_input, term_width
from ._resolve import resampling


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(
        sub, "audit", "annotator audit: reliability, drift, disputed items, judge vs experts"
    )
    opt.add(p, "--dimensions")
    p.add_argument(
        "--ci",
        choices=["auto", "analytic", "bootstrap"],
        default="auto",
        help="intervals of the reliability coefficients (default auto: BCa bootstrap below "
        "100 items, analytic from 100 on; with clusters the cluster jackknife at any size; "
        "docs/calibration.md)",
    )
    opt.add(p, *opt.RESAMPLING, "--cluster")
    p.add_argument("--top", type=opt.TOP, default=10, help="disputed items to list per dimension")
    p.add_argument(
        "--epsilon",
        type=opt.EPSILON,
        default=None,
        help="alt-test margin (Calderon, Reichart & Dror 2025 recommend 0.2 for experts, 0.15 "
        "for skilled annotators, 0.1 for crowd workers); default: the value for --annotators",
    )
    p.add_argument(
        "--annotators",
        choices=("expert", "skilled", "crowd"),
        default="expert",
        help="who the human annotators are; sets the alt-test margin when --epsilon is not "
        "given (expert 0.2 [default], skilled 0.15, crowd 0.1)",
    )
    opt.add(
        p,
        "--policy",
        note="; in the alt-test, wrong counts items without a usable judge verdict as losses (as "
        "the audit report does) and exclude or half leave them out (the alt-test authors' code; "
        "the test has no half rule)",
    )
    p.add_argument(
        "--headline",
        dest="judge_dimension",
        help="the headline dimension: the leave-one-expert-out kappa table and the report's "
        "detail tables (default: overall if present, else the first)",
    )
    p.add_argument(
        "--margin",
        type=opt.EPSILON,
        default=None,
        help="clinical margin of the stand-in decision in accuracy points as a proportion "
        "(default 0.05: a judge may be at most 5 points less accurate than each expert)",
    )
    opt.renamed(p, "audit", "--judge-dimension", "judge_dimension")
    p.add_argument("--no-judges", action="store_true", help="skip the judge-versus-experts part")
    opt.add(p, "--json")
    p.set_defaults(func=run)


def _drop_empty_notes(records: Any) -> Any:
    """JSON records keep a ``note`` only where it says why an estimate is not defined."""
    if isinstance(records, list):
        return [
            {k: v for k, v in r.items() if k != "note" or v} if isinstance(r, dict) else r
            for r in records
        ]
    return records


def compute(args: argparse.Namespace) -> dict[str, Any]:
    study = load_input(args)
    if not study.experts:
        raise InputError(
            "audit checks the expert labels: the study has no experts (only judges); "
            "for judges against gold use 'medjudge compare'"
        )
    dims = check_dimensions(study, args.dimensions, "--dimensions")
    if args.judge_dimension is not None:
        check_dimensions(study, [args.judge_dimension], "--headline")
    cluster = None if args.cluster in ("none", "") else args.cluster
    settings = audit_settings(
        study,
        ci=args.ci,
        cluster=cluster,
        **resampling(args),
    )
    jd = args.judge_dimension or ("overall" if "overall" in dims else dims[0])
    rep = audit_study(
        study,
        dimensions=dims if jd in dims else [*dims, jd],
        top=args.top,
        dimension=jd,
        settings=settings,
    )
    out: dict[str, Any] = {
        "study": study.name,
        "n_items": len(study.items),
        "experts": study.experts,
        "expert_label": study.role_label("expert"),
        "judges": study.judges,
        "audit": rep,
    }
    crowd = "expert" in study.exchangeable
    if crowd and study.judges and not args.no_judges:
        out["per_rater_skipped"] = (
            f"the alternative-annotator test and the leave-one-expert-out comparison need the "
            f"same {study.role_label('expert')} across items; here the expert rater ids are "
            "exchangeable annotation slots"
        )
    if not crowd and not args.no_judges and study.judges and len(study.experts) >= 2:
        alt = {}
        for dim in dims:
            if study.scales[dim].is_categorical:
                alt[dim] = study_alt_test(
                    study, dim, epsilon=_epsilon(args), policy=alt_invalid_rule(args.policy)
                )
        out["alt_test"] = {d: [r.to_dict() for r in res] for d, res in alt.items()}
        out["alt_test_table"] = (
            pd.concat([alt_test_table(r, d) for d, r in alt.items()], ignore_index=True)
            if alt
            else pd.DataFrame()
        )
        if study.scales[jd].is_categorical:
            out["judge_vs_experts_dimension"] = jd
            out["judge_vs_experts"] = judge_expert_agreement(
                study,
                jd,
                bootstrap=settings.bootstrap,
                confidence_level=settings.confidence_level,
                clusters=settings.clusters(study.matrix(jd, role="expert").items),
            )
        dims3 = [d for d in alt if len(study.matrix(d, role="expert").raters) >= 3]
        if dims3:
            out["stand_in"] = pd.concat(
                [
                    study_stand_in(
                        study, d, margin=args.margin,
                        clusters=settings.clusters(study.matrix(d, role="expert").items),
                        confidence_level=settings.confidence_level, alt=alt[d],
                        agreement=out.get("judge_vs_experts") if d == jd else None,
                    ).frame
                    for d in dims3
                ],
                ignore_index=True,
            )  # fmt: skip
    return out


def run(args: argparse.Namespace) -> int:
    res = compute(args)
    rep = res["audit"]
    if args.json:
        doc = dict(res)
        doc.pop("expert_label")  # text output only
        doc["audit"] = rep.to_dict()
        doc["audit"]["reliability"] = _drop_empty_notes(doc["audit"]["reliability"])
        for k in ("alt_test_table", "judge_vs_experts", "stand_in"):
            if k in doc:
                doc[k] = getattr(doc[k], "frame", doc[k]).to_dict(orient="records")
        print(dump_json(doc))
        return 0
    who, width = res["expert_label"], term_width()
    if rep.settings.get("exchangeable"):
        raters = f"{who}: {len(res['experts'])} exchangeable annotation slots"
    else:
        raters = f"{who} {', '.join(res['experts']) or '(none)'}"
    print(f"{res['study']}: {res['n_items']} items; {raters}; {len(res['judges'])} judges")
    print(rep.summary(who=who, width=width))
    if "per_rater_skipped" in res:
        print(
            f"\n== Judges against individual annotators: not computed ({res['per_rater_skipped']})"
        )
    if "alt_test_table" in res:
        print(alt_test_text(res["alt_test_table"], _epsilon(args), width=width))
    if "judge_vs_experts" in res:  # the result's own sentence and tidy table
        print(expert_agreement_text(res["judge_vs_experts"], width=width))
    if "stand_in" in res:
        print(stand_in_text(res["stand_in"], width=width))
    return 0


def _epsilon(args: argparse.Namespace) -> float:
    """``--epsilon`` if given, else the authors' recommendation for ``--annotators``."""
    from ..stats.judge_vs_experts import epsilon_for

    if args.epsilon is None:
        return epsilon_for(args.annotators)
    if not 0.0 <= args.epsilon < 1.0:
        raise ValueError(f"--epsilon {args.epsilon} is not allowed; use a margin in [0, 1)")
    return args.epsilon
