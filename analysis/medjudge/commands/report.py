"""``medjudge report``: render the judge evaluation and/or annotation audit report (HTML, PDF).

The templates ship inside the package (``medjudge/report/templates/{judges,audit}.qmd``;
``reports/judges.qmd`` and ``reports/audit.qmd`` are symlinks to them). ``--template FILE.qmd``
renders a user template instead, passing the parameters its parameters cell declares. Rendering uses the
built-in pip-only path unless ``--renderer quarto`` (or ``auto`` with ``MEDJUDGE_ENGINE=quarto``)
finds Quarto on ``PATH``. Both reports are rendered concurrently (each in its own kernel); every
output file is replaced atomically, so an interrupted run leaves earlier reports intact.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

from ..data.errors import InputError
from . import _options as opt
from ._common import from_args

KINDS = ("judges", "audit")
#: the command line's spelling of the settings :func:`render_reports` checks
OPTIONS = {
    k: "--" + k.replace("_", "-") for k in ("confidence_level", "alpha", "epsilon", "margin")
}
OPTIONS["n_resamples"] = "--resamples"


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
        if value is True:  # a flag
            parts.append(f"--{key}")
        elif value is not None and value is not False:
            parts += [f"--{key}", str(value)]
    return shlex.join(parts)


def renderer(args: argparse.Namespace) -> str:
    """The report renderer of this command line: ``--renderer``, where ``auto`` is Quarto when
    ``MEDJUDGE_ENGINE=quarto`` (read by ``cli.py``) and Quarto is installed, else builtin."""
    import shutil

    engine = getattr(args, "engine", "auto") or "auto"
    wants = (getattr(args, "engine_settings", None) or {}).get("renderer") == "quarto"
    if engine == "auto" and wants and shutil.which("quarto"):
        return "quarto"
    return engine if engine != "auto" else "builtin"


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
    workers: int = 1,
    template: str | Path | None = None,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    epsilon: float = 0.2,
    margin: float | None = None,
    by: list[str] | None = None,
    names: dict[str, str] | None = None,
    title: str | None = None,
    author: str | None = None,
    headline: str | None = None,
    progress: Callable[[str, str, int, int], None] | None = None,
    checklist: str | None = None,
    keep_source: bool = False,
) -> dict[str, dict[str, Path]]:
    """Render the requested reports of ``path`` into ``out``; return ``{kind: {fmt: Path}}``.

    ``progress(kind, step, done, total)`` is called as each report's steps start (its sections,
    then typesetting; ``kind`` is the template's stem with ``template``).

    ``path`` (bundle directory or table) and ``mapping`` are passed to the templates as
    absolute paths, so the reports do not depend on the working directory.

    ``workers`` reports are rendered at the same time, each in its own kernel process (the
    kernels are the parallelism; each report's own computations are serial).

    ``keep_source``: also write each report's ``.qmd``, its data and its parameters into
    ``out/source`` (:mod:`medjudge.report.keep_source`), for ``quarto render``.
    """
    from ..report.context import check_settings
    from ..report.render import render_qmd

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
    check_settings(
        OPTIONS, policy=policy, confidence_level=confidence_level, alpha=alpha, epsilon=epsilon,
        margin=margin, n_resamples=resamples,
    )  # fmt: skip
    from ..report.checklist import CHECKLISTS

    if checklist is not None and checklist not in CHECKLISTS:
        raise ValueError(f"--checklist must be one of {', '.join(CHECKLISTS)}, not {checklist!r}")
    params = {
        "data": str(data.resolve()),
        "mapping": str(Path(mapping).resolve()) if mapping is not None else None,
        "seed": int(seed),
        "resamples": int(resamples),
        "policy": policy,
        "confidence_level": float(confidence_level),
        "alpha": float(alpha),
        "epsilon": float(epsilon),
        "margin": None if margin is None else float(margin),
        "by": list(by) if by else None,
        "names": dict(names) if names else None,
        "headline": headline,
    }
    if checklist is not None:  # only then: a template without the parameter still renders
        params["checklist"] = checklist
    from ..report.escape import markdown as literal_markdown

    # the front matter is read as markdown: --title/--author are literal text there (a raw
    # attribute such as `<img ...>`{=html}, a link or an image is shown, not rendered)
    metadata = {k: None if v is None else literal_markdown(v) for k, v in
                {"title": title, "author": author}.items()}  # fmt: skip
    if template is not None:
        tpl = Path(template)
        if not tpl.is_file():
            raise InputError("template not found", file=tpl)
        if tpl.suffix.lower() != ".qmd":
            raise InputError("a template must be a .qmd file", file=tpl)
        from ..report.qmd import QmdError, parameter_names, parse_qmd

        try:
            declared = parameter_names(parse_qmd(tpl.read_text(encoding="utf-8"), path=str(tpl)))
        except QmdError as exc:
            raise InputError(str(exc), file=tpl) from None
        kept = {k: v for k, v in params.items() if k in declared}
        files = render_qmd(
            tpl, to=to, out_dir=out, params=kept, engine=engine,  # type: ignore[arg-type]
            command=command, metadata=metadata, progress=_for(progress, tpl.stem),
        )  # fmt: skip
        if keep_source:
            from ..report.keep_source import write_source

            write_source(tpl, kept, out, command=command)
        return {tpl.stem: files}
    kinds = list(dict.fromkeys(kinds))

    def one(kind: str) -> dict[str, Path]:
        return render_qmd(
            template_path(kind),
            to=to,
            out_dir=out,
            params=params,
            engine=engine,  # type: ignore[arg-type]
            command=command,
            metadata=metadata,
            progress=_for(progress, kind),
        )

    files = _render_all(kinds, one, workers)
    if keep_source:  # one after the other: the reports share the copied data
        from ..report.keep_source import write_source

        for kind in kinds:
            write_source(template_path(kind), params, out, command=command)
    return files


def _for(progress: Callable[[str, str, int, int], None] | None, kind: str) -> Any:
    """``progress`` with its first argument (the report) bound, as :func:`render_qmd` takes it."""
    if progress is None:
        return None
    return lambda what, done, total: progress(kind, what, done, total)


def _render_all(kinds: list[str], one: Any, workers: int) -> dict[str, dict[str, Path]]:
    from ..report.render import allow_renders, cancel_renders

    allow_renders()
    # Renders run in worker threads even one at a time: the main thread only waits, so Ctrl-C
    # and SIGTERM reach it as KeyboardInterrupt (inside nbclient's event loop they would be
    # turned into other errors), and it then stops the kernels before the pool is left.
    with ThreadPoolExecutor(max_workers=max(min(workers, len(kinds)), 1)) as pool:
        futures = {k: pool.submit(one, k) for k in kinds}
        try:
            return {k: f.result() for k, f in futures.items()}
        except BaseException:
            cancel_renders()  # stop the other kernels before the pool waits for them
            raise


def check_by(
    data: Path, mapping: str | None, by: Sequence[str], headline: str | None = None
) -> None:
    """``--by`` names item attributes and ``--headline`` a dimension of the study: checked
    before anything is rendered."""
    from ..data.tables import load_any

    if data.is_file() and mapping is None:
        return  # render_reports says that a table needs a mapping
    if mapping is not None and not Path(mapping).is_file():
        return  # render_reports names the missing mapping file
    study = load_any(data, mapping)
    if headline is not None and headline not in study.dimensions:
        raise InputError(
            f"--headline {headline!r}: no such dimension; the study has: "
            + ", ".join(study.dimensions)
        )
    items = study.items
    have = [str(c) for c in items.columns if c != "item"]
    for b in by:
        if b not in items.columns:
            raise InputError(
                f"--by {b!r}: no such item attribute; the items have: {', '.join(have) or 'none'}"
            )


#: ``--renderer``: who turns the report notebooks into HTML and PDF
RENDERERS = ("auto", "builtin", "quarto")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="render the judge evaluation and/or annotation audit report (HTML, PDF)",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("path", help="a Med-RewardBench bundle directory, or a table with --mapping")
    p.add_argument("--kind", choices=[*KINDS, "both"], help="default: both (not with --template)")
    p.add_argument("--to", default="html,pdf", help="html, pdf or html,pdf (default)")
    p.add_argument(
        "--out",
        default="out/reports",
        type=opt.OUT_FOLDER,
        help="output folder (default: out/reports); replaced as a whole when rendering succeeds",
    )
    p.add_argument("--mapping", help="TOML column mapping (for tables; see data/mappings/)")
    opt.add(p, "--policy", *opt.RESAMPLING, unset=True)
    p.add_argument(
        "--renderer",
        dest="engine",
        choices=RENDERERS,
        default="auto",
        help="builtin (pip only), quarto (needs quarto on PATH) or auto (default)",
    )
    opt.renamed(p, "report", "--engine", "engine", choices=RENDERERS)
    p.add_argument("--template", help="render this .qmd template instead of the built-in ones")
    p.add_argument("--title", help="report title (default: the template's)")
    p.add_argument("--author", help="report author (default: the template's)")
    p.add_argument("--alpha", type=opt.ALPHA, help="test size (default 0.05)")
    p.add_argument(
        "--epsilon", type=opt.EPSILON,
        help="alt-test margin (Calderon, Reichart & Dror 2025): 0.2 experts (default), "
        "0.15 skilled annotators, 0.1 crowd workers",
    )  # fmt: skip
    p.add_argument(
        "--margin", type=opt.EPSILON,
        help="clinical margin of the stand-in decision in accuracy points as a proportion "
        "(default 0.05: a judge may be at most 5 points less accurate than each expert)",
    )  # fmt: skip
    opt.add(p, "--by")
    p.add_argument(
        "--names", help="the study's words for the roles, e.g. judge=evaluator,expert=annotator"
    )
    p.add_argument(
        "--headline",
        help="the headline dimension of the findings and single-dimension tables (default: "
        "overall if present, else the first)",
    )
    p.add_argument(
        "--checklist",
        choices=["tripod-llm", "stard"],
        help="append a reporting checklist to each report: TRIPOD-LLM (Gallifant et al. 2025) "
        "or STARD 2015 (Bossuyt et al. 2015), each item answered from the study or left to "
        "the authors",
    )
    p.add_argument(
        "--keep-source",
        action="store_true",
        help="also write each report's .qmd, a copy of its data and its parameters into "
        "OUT/source, so that 'quarto render' gives the same report",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = report_dependencies_missing()
    if missing:
        raise InputError(
            f"reports need the report extra (missing: {', '.join(missing)})",
            hint="pip install -e '.[report]'",
        )
    if args.template is not None:
        _refuse_beside_template(args)
    for key, default in _DEFAULTS.items():  # None: not given (a template may not use it)
        if getattr(args, key) is None:
            setattr(args, key, default)
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
            "renderer": args.engine,
            "template": args.template,
            "title": args.title,
            "author": args.author,
            "confidence-level": args.confidence_level,
            "alpha": args.alpha,
            "epsilon": args.epsilon,
            "margin": args.margin,
            "by": args.by,
            "names": args.names,
            "checklist": args.checklist,
            "keep-source": args.keep_source,
        },
    )
    names = {}
    for part in (args.names or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or key.strip() not in ("judge", "expert", "judges", "experts") or not value:
            raise ValueError(
                f"--names: expected role=word with role judge or expert, got {part.strip()!r}"
            )
        names[key.strip()] = value.strip()
    from ..report.render import RenderError, _normalise_to
    from ._output import output_folder
    from ._progress import counted

    try:
        _normalise_to(args.to)
    except ValueError as exc:
        raise InputError(f"--to {args.to!r}: {exc}") from None
    data = Path(args.path)
    if not data.exists():
        raise InputError("input not found", file=data)
    by = [b.strip() for b in args.by.split(",") if b.strip()] if args.by else None
    if by or args.headline:
        check_by(data, args.mapping, by or [], args.headline)
    final = Path(args.out)
    inputs = [args.path] + ([args.mapping] if args.mapping else [])
    try:
        with (
            output_folder(final, inputs=inputs, argv=getattr(args, "argv", None)) as stage,
            counted(args, [Path(args.template).stem] if args.template else kinds) as step,
        ):
            results = render_reports(
                args.path, kinds=kinds, out=stage, command=command, by=by, names=names or None,
                workers=2,  # the command line renders the reports side by side
                engine=renderer(args), progress=step,
                **from_args(args, "to", "mapping", "seed", "resamples", "policy",
                            "template", "confidence_level", "alpha", "epsilon", "margin", "title",
                            "author", "headline", "checklist", "keep_source"),
            )  # fmt: skip
    except RenderError as exc:
        print(f"medjudge: report failed (no outputs were replaced): {exc}", file=sys.stderr)
        return 1
    for kind, files in results.items():
        print(f"{kind}: " + ", ".join(str(final / p.name) for p in files.values()))
    return 0


#: the defaults of the options a template may or may not use (None in the parser: not given)
_DEFAULTS = {"kind": "both", "policy": "wrong", "seed": 0, "resamples": 2000,
             "confidence_level": 0.95, "alpha": 0.05, "epsilon": 0.2}  # fmt: skip
#: options passed to a template only when its parameters cell declares them: option -> name
_TEMPLATE_PARAMETERS = {
    "--policy": "policy", "--by": "by", "--seed": "seed", "--resamples": "resamples",
    "--confidence-level": "confidence_level", "--alpha": "alpha", "--epsilon": "epsilon",
    "--margin": "margin", "--names": "names", "--headline": "headline", "--checklist": "checklist",
}  # fmt: skip


def _refuse_beside_template(args: argparse.Namespace) -> None:
    """Options a ``--template`` would not use are refused, not ignored: ``--kind`` (the
    template is the one report), and ``--policy``, ``--by``, ``--seed``, ``--resamples``,
    ``--confidence-level``, ``--alpha``, ``--epsilon``, ``--names`` unless its parameters
    cell declares the parameter they set."""
    if args.kind is not None:
        raise InputError(
            "--kind chooses among the built-in reports; --template renders that one template",
            hint="drop --kind",
        )
    tpl = Path(args.template)
    if not tpl.is_file() or tpl.suffix.lower() != ".qmd":
        return  # render_reports says what is wrong with it
    from ..report.qmd import QmdError, parameter_names, parse_qmd

    try:
        declared = parameter_names(parse_qmd(tpl.read_text(encoding="utf-8"), path=str(tpl)))
    except QmdError as exc:
        raise InputError(str(exc), file=tpl) from None
    for option, param in _TEMPLATE_PARAMETERS.items():
        if getattr(args, param) is not None and param not in declared:
            raise InputError(
                f"{option} would be ignored: the template declares no {param!r} parameter",
                file=tpl,
                hint=f"declare {param} in its parameters cell, or drop {option}",
            )
