"""``medjudge simulate``: write the seeded demo bundle and its true parameters."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate", help="write a simulated Med-RewardBench-shaped bundle (with true parameters)"
    )
    p.add_argument(
        "--out",
        required=True,
        help="output directory (created; existing files are overwritten only with --force)",
    )
    p.add_argument("--seed", type=int, default=20261122)
    p.add_argument("--items", type=int, default=1026)
    p.add_argument("--force", action="store_true", help="write into a non-empty directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..data.errors import InputError
    from ..data.simulate import simulate

    out = Path(args.out)
    if out.exists() and any(out.iterdir()) and not args.force:
        raise InputError(
            "output directory is not empty",
            file=out,
            hint="pass --force to overwrite the bundle files",
        )
    if args.items < 13:
        raise InputError(
            f"--items {args.items} is too small: need at least one item per organ system (13)"
        )
    params = simulate(out, seed=args.seed, n_items=args.items)
    print(
        f"wrote {params['n_items']} items, {len(params['judges'])} judges to {out} (seed {params['seed']}); "
        f"true parameters in {out / 'truth' / 'params.json'}"
    )
    return 0
