"""``medjudge simulate``: write the seeded demo bundle and its true parameters."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..data.errors import InputError
from ..data.simulate import simulate
from . import _options as opt
from ._output import output_folder


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate", help="write a simulated Med-RewardBench-shaped bundle (with true parameters)"
    )
    p.add_argument(
        "--out",
        required=True,
        type=opt.OUT_FOLDER,
        help="output directory (created; existing files are overwritten only with --force)",
    )
    p.add_argument(
        "--seed", type=opt.SEED, default=20261122,
        help="seed of the simulated data (not a resampling seed)",
    )  # fmt: skip
    p.add_argument("--items", type=opt.ITEMS, default=1026, help="number of items")
    p.add_argument("--force", action="store_true", help="write into a non-empty directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError("--out is an existing file, not a folder", file=out)
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise InputError(
            "output directory is not empty",
            file=out,
            hint="pass --force to overwrite the bundle files",
        )

    # with --force, a folder is replaced only when its manifest proves medjudge wrote all of it
    with output_folder(out, argv=getattr(args, "argv", None)) as stage:
        params = simulate(stage, seed=args.seed, n_items=args.items)
    print(
        f"wrote {params['n_items']} items, {len(params['judges'])} judges to {out} (seed {params['seed']}); "
        f"true parameters in {out / 'truth' / 'params.json'}"
    )
    return 0
