"""``medjudge simulate``: write the seeded demo bundle and its true parameters."""

from __future__ import annotations

import argparse
from pathlib import Path

from . import _options as opt


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate", help="write a simulated Med-RewardBench-shaped bundle (with true parameters)"
    )
    p.add_argument(
        "--out",
        required=True,
        help="output directory (created; existing files are overwritten only with --force)",
    )
    p.add_argument("--seed", type=opt.SEED, default=20261122)
    p.add_argument("--items", type=opt.ITEMS, default=1026)
    p.add_argument("--force", action="store_true", help="write into a non-empty directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..data.errors import InputError
    from ..data.simulate import simulate

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError("--out is an existing file, not a folder", file=out)
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise InputError(
            "output directory is not empty",
            file=out,
            hint="pass --force to overwrite the bundle files",
        )
    from ._output import output_folder

    if out.is_dir() and any(out.iterdir()):
        _check_bundle(out)
    with output_folder(out, replace_any=True, argv=getattr(args, "argv", None)) as stage:
        params = simulate(stage, seed=args.seed, n_items=args.items)
    print(
        f"wrote {params['n_items']} items, {len(params['judges'])} judges to {out} (seed {params['seed']}); "
        f"true parameters in {out / 'truth' / 'params.json'}"
    )
    return 0


_BUNDLE = {
    "pair_gt_all",
    "predictions",
    "truth",
    "README.md",
    "MANIFEST.json",
    "expert_labels.jsonl",
}


def _check_bundle(out: Path) -> None:
    """With --force, replace only a folder that looks like a simulated bundle."""
    from ..data.errors import InputError

    other = sorted(p.name for p in out.iterdir() if p.name not in _BUNDLE)
    if other:
        raise InputError(
            f"--force replaces the whole folder, and it holds files that are not part of a "
            f"simulated bundle ({', '.join(other[:3])})",
            file=out,
            hint="choose a new or empty folder",
        )
