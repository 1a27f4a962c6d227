"""``medjudge report``: render the judge evaluation and/or annotation audit report (HTML, PDF).

The templates ship inside the package (``medjudge/report/templates/{judges,audit}.qmd``;
``reports/`` in the repository holds identical copies for Quarto users). Rendering uses the
built-in pip-only path unless ``--engine quarto`` (or ``auto`` with ``MEDJUDGE_ENGINE=quarto``)
finds Quarto on ``PATH``. Both reports are rendered concurrently (each in its own kernel); every
output file is replaced atomically, so an interrupted run leaves earlier reports intact.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

from ..data.errors import InputError
from . import _options as opt

KINDS = ("judges", "audit")
POLICIES = ("wrong", "exclude", "half")


def template_path(kind: str) -> Path:
    """Path of the packaged ``.qmd`` template for ``kind`` (``judges`` or ``audit``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown report kind {kind!r}; use one of {', '.join(KINDS)}")
    return Path(str(resources.files("medjudge.report") / "templates" / f"{kind}.qmd"))


def report_dependencies_missing() -> list[str]:
    """Modules of the ``report`` extra that are not importable (empty list: all present)."""
    import importlib.util

    mods = ("nbclient", "nbformat", "ipykernel", "yaml", "pypandoc", "typst")
    return [m for m in mods if importlib.util.find_spec(m) is None]


def command_line(prog: Sequence[str], path: str, options: dict[str, Any]) -> str:
    """Canonical command line recorded in the reports' provenance (deterministic)."""
    parts = ["medjudge", *prog, path]
    for key, value in options.items():
        if value is not None and value is not False:
            parts += [f"--{key}", str(value)]
    return shlex.join(parts)


def render_reports(
    path: str | Path,
    *,
    kinds: Iterable[str] = KINDS,
    out: str | Path = "out/reports",
    to: str | Iterable[str] = ("html", "pdf"),
    mapping: str | Path | None = None,
    seed: int = 0,
    resamples: int = 2000,
    policy: str = "wrong",
    engine: str = "auto",
    command: str | None = None,
    parallel: bool = True,
) -> dict[str, dict[str, Path]]:
    """Render the requested reports of ``path`` into ``out``; return ``{kind: {fmt: Path}}``.

    ``path`` (bundle directory or table) and ``mapping`` are passed to the templates as
    absolute paths, so the reports do not depend on the working directory.
    """
    from ..report.render import allow_renders, cancel_renders, render_qmd

    data = Path(path)
    if not data.exists():
        raise InputError("input not found", file=data)
    if data.is_file() and mapping is None:
        raise InputError(
            "a table needs a column mapping for the reports",
            file=data,
            hint="pass --mapping FILE.toml (see data/mappings/)",
        )
    if mapping is not None and not Path(mapping).is_file():
        raise InputError("mapping file not found", file=Path(mapping))
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    params = {
        "data": str(data.resolve()),
        "mapping": str(Path(mapping).resolve()) if mapping is not None else None,
        "seed": int(seed),
        "resamples": int(resamples),
        "policy": policy,
    }
    kinds = list(dict.fromkeys(kinds))

    def one(kind: str) -> dict[str, Path]:
        return render_qmd(
            template_path(kind),
            to=to,
            out_dir=out,
            params=params,
            engine=engine,  # type: ignore[arg-type]
            command=command,
        )

    allow_renders()
    # Renders run in worker threads even one at a time: the main thread only waits, so Ctrl-C
    # and SIGTERM reach it as KeyboardInterrupt (inside nbclient's event loop they would be
    # turned into other errors), and it then stops the kernels before the pool is left.
    workers = len(kinds) if parallel else 1
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        futures = {k: pool.submit(one, k) for k in kinds}
        try:
            return {k: f.result() for k, f in futures.items()}
        except BaseException:
            cancel_renders()  # stop the other kernels before the pool waits for them
            raise


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="render the judge evaluation and/or annotation audit report (HTML, PDF)",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("path", help="a Med-RewardBench bundle directory, or a table with --mapping")
    p.add_argument("--kind", choices=[*KINDS, "both"], default="both", help="default: both")
    p.add_argument("--to", default="html,pdf", help="html, pdf or html,pdf (default)")
    p.add_argument(
        "--out",
        default="out/reports",
        help="output folder (default: out/reports); replaced as a whole when rendering succeeds",
    )
    p.add_argument("--mapping", help="TOML column mapping (for tables; see data/mappings/)")
    p.add_argument("--seed", type=opt.SEED, default=0, help="resampling seed (default 0)")
    p.add_argument(
        "--resamples", type=opt.RESAMPLES, default=2000, help="bootstrap resamples (2000)"
    )
    p.add_argument(
        "--policy",
        choices=POLICIES,
        default="wrong",
        help="invalid verdicts: count as wrong (default), exclude, or count as half",
    )
    p.add_argument(
        "--engine",
        choices=["auto", "builtin", "quarto"],
        default="auto",
        help="builtin (pip only), quarto (needs quarto on PATH) or auto (default)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = report_dependencies_missing()
    if missing:
        raise InputError(
            f"reports need the report extra (missing: {', '.join(missing)})",
            hint="pip install -e '.[report]'",
        )
    kinds = KINDS if args.kind == "both" else (args.kind,)
    command = command_line(
        ["report"],
        args.path,
        {
            "kind": args.kind,
            "to": args.to,
            "out": args.out,
            "mapping": args.mapping,
            "seed": args.seed,
            "resamples": args.resamples,
            "policy": args.policy,
            "engine": args.engine,
        },
    )
    from ..report.render import RenderError, _normalise_to
    from ._output import output_folder

    try:
        _normalise_to(args.to)
    except ValueError as exc:
        raise InputError(f"--to {args.to!r}: {exc}") from None
    data = Path(args.path)
    if not data.exists():
        raise InputError("input not found", file=data)
    final = Path(args.out)
    inputs = [args.path] + ([args.mapping] if args.mapping else [])
    try:
        with output_folder(final, inputs=inputs, argv=getattr(args, "argv", None)) as stage:
            results = render_reports(
                args.path,
                kinds=kinds,
                out=stage,
                to=args.to,
                mapping=args.mapping,
                seed=args.seed,
                resamples=args.resamples,
                policy=args.policy,
                engine=args.engine,
                command=command,
            )
    except RenderError as exc:
        print(f"medjudge: report failed (no outputs were replaced): {exc}", file=sys.stderr)
        return 1
    for kind, files in results.items():
        print(f"{kind}: " + ", ".join(str(final / p.name) for p in files.values()))
    return 0
