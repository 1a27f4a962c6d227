"""``medjudge plan``: expert labels needed before the study is run.

Sub-commands (each prints a small table, or JSON with ``--json``):

- ``accuracy``: items for a judge-accuracy interval of half-width ``--halfwidth`` (Wilson and
  Wald), or for power against a benchmark accuracy ``--versus``.
- ``kappa``: items for a judge-vs-expert kappa interval of half-width ``--halfwidth``.
- ``paired``: items to detect an accuracy difference between two judges (McNemar, Connor 1987),
  or the minimum detectable difference for ``--n`` items.
- ``decide``: fewest clusters (clustered McNemar) or items (McNemar) with which a pairwise
  decision can reach significance after Holm over the pairs of ``--judges`` judges.
- ``alt-test``: simulated pass probability of the alternative annotator test per number of items.
- ``ppi``: labels needed with and without the judge (classical, PPI, PPI++), from a pilot
  study (``--pilot PATH``) or from its summary numbers.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from . import _options as opt
from ._common import dump_json, from_args, term_width


def _num(lo: float | None = None, hi: float | None = None, *, open_lo=True, open_hi=True):
    def f(s: str) -> float:
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {s!r}") from None
        bad = (
            not math.isfinite(v)
            and not (hi is None and v == math.inf)
            or (lo is not None and (v <= lo if open_lo else v < lo))
            or (hi is not None and (v >= hi if open_hi else v > hi))
        )
        if bad:
            lo_s = "" if lo is None else f"{'>' if open_lo else '>='} {lo:g}"
            hi_s = "" if hi is None else f"{'<' if open_hi else '<='} {hi:g}"
            raise argparse.ArgumentTypeError(
                f"must be {' and '.join(x for x in (lo_s, hi_s) if x)}, got {s!r}"
            )
        return v

    return f


def _int(lo: int):
    def f(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {lo}, got {s!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be an integer >= {lo}, got {s!r}")
        return v

    return f


def _ints(lo: int):
    def f(s: str) -> list[int]:
        return [_int(lo)(v.strip()) for v in s.split(",") if v.strip()]

    return f


PROB = _num(0, 1)


def _common(p: argparse.ArgumentParser, *, level: bool = True, power: bool = False) -> None:
    if level:
        opt.add(p, "--confidence-level")
    if power:
        p.add_argument(
            "--alpha", type=opt.ALPHA, default=0.05, help="two-sided test size (default 0.05)"
        )
        p.add_argument("--power", type=PROB, default=0.8, help="target power")
    p.add_argument(
        "--design-effect",
        type=_num(1, None, open_lo=False),
        default=1.0,
        help="clustering design effect 1 + (m - 1) ICC (default 1)",
    )
    opt.add(p, "--json")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="expert labels needed (accuracy, kappa, paired, alt-test, PPI)")
    ps = p.add_subparsers(dest="what", required=True, metavar="WHAT")

    a = ps.add_parser("accuracy", help="items for a judge-accuracy half-width or power")
    a.add_argument("--accuracy", type=PROB, required=True, help="expected accuracy")
    a.add_argument("--halfwidth", type=_num(0, 0.5), help="target interval half-width")
    a.add_argument("--versus", type=PROB, help="benchmark accuracy to test against (power)")
    _common(a, power=True)
    a.set_defaults(func=run_accuracy)

    k = ps.add_parser("kappa", help="items for a judge-vs-expert kappa half-width")
    k.add_argument("--kappa", type=_num(-1, 1), required=True, help="expected kappa")
    k.add_argument("--prevalence", type=PROB, required=True, help="prevalence of the category")
    k.add_argument("--halfwidth", type=_num(0, 1), required=True, help="target half-width")
    _common(k)
    k.set_defaults(func=run_kappa)

    d = ps.add_parser("paired", help="items or MDE for the accuracy difference of two judges")
    d.add_argument(
        "--discordance",
        type=PROB,
        required=True,
        help="share of items exactly one judge gets right",
    )
    d.add_argument("--delta", type=_num(0, 1), help="accuracy difference to detect")
    d.add_argument("--n", type=_int(2), help="items available: report the MDE instead")
    _common(d, level=False, power=True)
    d.set_defaults(func=run_paired)

    c = ps.add_parser(
        "decide", help="fewest clusters/items with which a pairwise decision is possible"
    )
    c.add_argument("--judges", type=_int(2), required=True, help="judges compared pairwise")
    c.add_argument(
        "--families",
        type=_int(1),
        default=1,
        help="families pooled into one Holm family (e.g. dimensions with --family table)",
    )
    c.add_argument(
        "--alpha", type=opt.ALPHA, default=0.05, help="familywise error rate (default 0.05)"
    )
    opt.add(c, "--json")
    c.set_defaults(func=run_decide)

    t = ps.add_parser("alt-test", help="simulated pass probability of the alt-test")
    t.add_argument(
        "--items", type=_ints(10), default=[30, 50, 100, 150, 200], help="e.g. 30,50,100"
    )
    t.add_argument("--annotators", type=_int(3), default=3, help="human annotators per item")
    t.add_argument("--categories", type=_int(2), default=4, help="label categories")
    unit = opt.RealRange(0, 1, open_low=False, open_high=False, what="a probability")
    t.add_argument(
        "--noise-annotators", type=unit, default=0.3,
        help="probability that an annotator's label is drawn from the label prior instead of the true label",
    )  # fmt: skip
    t.add_argument(
        "--noise-judge", type=unit, default=0.3,
        help="probability that the judge's label is drawn from the label prior instead of the true label",
    )  # fmt: skip
    t.add_argument("--epsilon", type=_num(0, 1, open_lo=False), default=0.1, help="alt-test margin")
    t.add_argument("--q", type=PROB, default=0.05, help="FDR level (Benjamini-Yekutieli)")
    t.add_argument(
        "--replications", type=_int(10), default=200, help="simulated studies per item count"
    )
    t.add_argument(
        "--target-power", type=PROB, default=0.8,
        help="pass probability the smallest recommended item count must reach",
    )  # fmt: skip
    t.add_argument("--seed", type=opt.SEED, default=0, help="simulation seed (default 0)")
    opt.add(t, "--json")
    t.set_defaults(func=run_alt_test)

    q = ps.add_parser("ppi", help="labels needed with and without the judge, from a pilot")
    q.add_argument("--pilot", help="a pilot study (bundle or table) with gold on some items")
    q.add_argument("--mapping", help="TOML mapping for a pilot table")
    q.add_argument("--judge", help="judge of the pilot (default: the first)")
    opt.add(q, "--dimensions")
    opt.renamed(q, "plan", "--dimension", "dimensions", type=opt.NAMES)
    q.add_argument("--category", help="category whose rate is planned (default: the first)")
    q.add_argument("--sd-gold", type=_num(0, None), help="standard deviation of the gold label")
    q.add_argument("--sd-judge", type=_num(0, None), help="standard deviation of the judge")
    q.add_argument(
        "--correlation", type=_num(-1, 1, open_lo=False, open_hi=False),
        help="correlation of judge and gold label (without --pilot, with --sd-gold)",
    )  # fmt: skip
    q.add_argument("--halfwidth", type=_num(0, None), help="target interval half-width")
    q.add_argument("--delta", type=_num(0, None), help="difference to detect (power)")
    q.add_argument(
        "--unlabelled",
        type=_num(0, None),
        help="unlabelled items with a judge verdict (default: the pilot's, else infinite)",
    )
    _common(q, power=True)
    q.set_defaults(func=run_ppi)


def _print(
    df: pd.DataFrame | dict, args: argparse.Namespace, header: str, extra: dict | None = None
):
    """The plan as a table under ``# header`` (a dict is one row), or with ``--json``."""
    if isinstance(df, dict):
        df = pd.DataFrame([df])
    if args.json:
        print(dump_json({"plan": df.to_dict(orient="records"), **(extra or {})}))
        return 0
    print(f"# {header}")
    with pd.option_context("display.width", 160, "display.float_format", "{:.4g}".format):
        print(df.to_string(line_width=term_width(), index=False))
    return 0


def run_accuracy(args: argparse.Namespace) -> int:
    from ..stats.planning import items_for_accuracy_power
    from ..stats.power import items_for_accuracy_halfwidth

    if (args.halfwidth is None) == (args.versus is None):
        raise ValueError("plan accuracy: give exactly one of --halfwidth or --versus")
    if args.halfwidth is not None:
        rows = [
            {
                "method": m,
                "accuracy": args.accuracy,
                "halfwidth": args.halfwidth,
                "items": float(
                    items_for_accuracy_halfwidth(
                        args.accuracy,
                        args.halfwidth,
                        args.confidence_level,
                        args.design_effect,
                        method=m,
                    )
                ),
            }
            for m in ("wilson", "wald")
        ]
        return _print(pd.DataFrame(rows), args, "items for the accuracy interval half-width")
    if args.versus == args.accuracy:
        raise ValueError("--versus must differ from --accuracy")
    n = items_for_accuracy_power(
        args.versus,
        args.accuracy,
        alpha=args.alpha,
        power=args.power,
        design_effect=args.design_effect,
    )
    row = {"accuracy": args.accuracy, "versus": args.versus, "alpha": args.alpha,
           "power": args.power, "items": n}  # fmt: skip
    return _print(row, args, "items to show accuracy differs from --versus (two-sided)")


def run_kappa(args: argparse.Namespace) -> int:
    from ..stats.power import items_for_kappa_halfwidth

    n = float(
        items_for_kappa_halfwidth(
            args.kappa, args.prevalence, args.halfwidth, args.confidence_level, args.design_effect
        )
    )
    row = {"kappa": args.kappa, "prevalence": args.prevalence, "halfwidth": args.halfwidth,
           "items": n}  # fmt: skip
    return _print(row, args, "items for a kappa interval half-width (Bloch & Kraemer 1989)")


def run_paired(args: argparse.Namespace) -> int:
    from ..stats.power import (
        MCNEMAR_SAMPLE_SIZE_METHOD,
        mcnemar_sample_size,
        minimum_detectable_difference,
    )

    if (args.delta is None) == (args.n is None):
        raise ValueError("plan paired: give exactly one of --delta (-> items) or --n (-> MDE)")
    if args.delta is not None:
        if args.delta > args.discordance:
            raise ValueError(f"--delta {args.delta} cannot exceed --discordance {args.discordance}")
        n = float(mcnemar_sample_size(args.delta, args.discordance, args.alpha, args.power))
        n = math.ceil(n * args.design_effect)
        row = {"discordance": args.discordance, "delta": args.delta, "items": n}
        return _print(row, args, f"items to detect the difference ({MCNEMAR_SAMPLE_SIZE_METHOD})")
    mde = float(
        minimum_detectable_difference(
            args.n / args.design_effect, args.discordance, args.alpha, args.power
        )
    )
    row = {"discordance": args.discordance, "n": args.n, "mde": mde}
    return _print(row, args, "minimum detectable accuracy difference (NaN: none detectable)")


def run_decide(args: argparse.Namespace) -> int:
    from ..stats.planning import DECIDE_ADJUSTMENT, DECIDE_TESTS, units_to_decide

    m = args.judges * (args.judges - 1) // 2 * args.families
    u = units_to_decide(m, args.alpha)
    df = pd.DataFrame(
        [
            {"test": test, "unit": key.split("_")[0], "needed": u[key]}
            for key, test in DECIDE_TESTS.items()
        ]
    )
    return _print(
        df,
        args,
        f"fewest units with which any pair can reach p_holm < {args.alpha:g} "
        f"({DECIDE_ADJUSTMENT} over {m} "
        "pairwise tests); fewer cannot decide whatever the verdicts — a necessary condition, "
        "not power",
        {"n_tests": m, "alpha": args.alpha},
    )


def run_alt_test(args: argparse.Namespace) -> int:
    from ..stats.planning import alt_test_simulation

    t = alt_test_simulation(
        args.items,
        n_annotators=args.annotators,
        n_categories=args.categories,
        n_replications=args.replications,
        **from_args(args, "noise_annotators", "noise_judge", "epsilon", "q", "seed"),
    )
    ok = t[t["pass_probability"] >= args.target_power]
    rec = int(ok["n_items"].iloc[0]) if len(ok) else None
    head = "alt-test pass probability by items (simulation, Calderon et al. 2025 App. C); " + (
        f"smallest n with pass probability >= {args.target_power}: {rec}"
        if rec
        else f"no n in --items reaches {args.target_power}"
    )
    return _print(t, args, head, {"recommended_items": rec, "seed": args.seed})


def _pilot_numbers(args: argparse.Namespace) -> tuple[dict, float]:
    from ..analyses.judge_assisted_rows import _targets
    from ..analyses.judge_vs_experts import judge_order
    from ..data.tables import load_any
    from ..stats.planning import ppi_pilot

    study = load_any(args.pilot, args.mapping)
    dim = opt.one_dimension(args.dimensions, "plan ppi") or study.dimensions[0]
    if dim not in study.dimensions:
        raise ValueError(
            f"--dimensions {dim!r} is not in the pilot; have {', '.join(study.dimensions)}"
        )
    judge = args.judge or study.judges[0]
    if judge not in study.judges:
        raise ValueError(f"--judge {judge!r} is not in the pilot; have {', '.join(study.judges)}")
    scale = study.scales[dim]
    cats = [args.category] if args.category else None
    tname, coder, _ = _targets(scale, cats, None)[0]
    g = study.gold(dim).codes
    f = coder(study.matrix(dim, raters=[judge], order=judge_order(study)).values[:, 0])
    f = np.where(np.isnan(f), np.nanmean(f), f)
    lab = np.isfinite(g)
    pilot = ppi_pilot(coder(g[lab]), f[lab])
    pilot.update({"judge": judge, "dimension": dim, "target": tname})
    return pilot, float((~lab).sum())


def run_ppi(args: argparse.Namespace) -> int:
    from ..stats.planning import plan_ppi

    if (args.halfwidth is None) == (args.delta is None):
        raise ValueError("plan ppi: give exactly one of --halfwidth or --delta")
    if args.pilot:
        pilot, n_unl = _pilot_numbers(args)
    else:
        if args.sd_gold is None or args.correlation is None:
            raise ValueError("plan ppi: give --pilot PATH, or --sd-gold and --correlation")
        pilot = {
            "sd_gold": args.sd_gold,
            "sd_judge": args.sd_judge,
            "correlation": args.correlation,
        }
        n_unl = math.inf
    if args.unlabelled is not None:
        n_unl = args.unlabelled
    if n_unl == 0:
        n_unl = math.inf
    df = plan_ppi(
        pilot,
        n_unlabeled=n_unl,
        **from_args(
            args, "halfwidth", "delta", "confidence_level", "alpha", "power", "design_effect"
        ),
    )
    if pilot.get("sd_judge") is None:
        df = df[df["method"] != "ppi"]
    head = (
        f"expert labels needed with {n_unl:g} unlabelled items "
        f"(sd_gold={pilot['sd_gold']:.3f}, correlation={pilot['correlation']:.3f})"
    )
    return _print(df, args, head, {"pilot": pilot, "n_unlabelled": n_unl})
