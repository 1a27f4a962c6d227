"""``medjudge run``: the main job — validate a bundle and write the summary tables (and reports).

Writes into ``--out``: ``validation.json`` (all counts), ``parse_status.csv`` (per rater ×
status) and ``accuracy.csv`` (judge × dimension accuracy under every invalid-verdict policy,
the report's clustered Wilson intervals), and prints the headline table. When the report extra is installed and
``--report`` is not ``none``, the judge and audit reports are rendered into ``OUT/reports``
(HTML and PDF; invalid verdicts counted as wrong, the Med-RewardBench rule).
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from ..analyses.policies import accuracy_table, categorical_dimensions
from ..data.errors import InputError
from ..data.model import Study
from ..report.escape import write_csv
from . import _options as opt
from ._common import dump_json, input_parser, load_input, term_width
from ._engine import add_engine_arg, engine_of
from ._output import output_folder
from ._resolve import resolve_by


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = input_parser(sub, "run", "main job: validate, summary tables (and reports) for a bundle")
    p.add_argument(
        "--out",
        default="out",
        type=opt.OUT_FOLDER,
        help="output folder (default: out); replaced as a whole when the run succeeds",
    )
    opt.add(p, "--policy", "--cluster", "--gold-method")
    opt.add(p, *opt.RESAMPLING, "--ties", "--by",
            note="; on run, given: subgroups.csv and the reports' breakdown; not given: no "
            "subgroups.csv, the reports use the default")  # fmt: skip
    p.add_argument(
        "--report",
        choices=["both", "judges", "audit", "none"],
        default="both",
        help="reports to render into OUT/reports as HTML and PDF (default: both; needs the "
        "report extra)",
    )
    add_engine_arg(p, "write the summary tables from aggregates and item-level outcomes")
    p.set_defaults(func=run)


def _run_columnar(args: argparse.Namespace, engine: str, mapping) -> int:  # noqa: ANN001
    """``run`` on a table reduced next to the data: the same tables as in memory, from the
    study's matrices (:mod:`medjudge.engine.matrices`) and the counts of
    :func:`~medjudge.engine.summary.columnar_summary`; the reports are rendered in memory."""
    from ..engine.summary import columnar_summary
    from ._engine import engine_settings, study_of
    from ._progress import progress

    if args.report != "none":
        raise InputError(
            f"--report {args.report}: the reports are rendered from a study in memory; add "
            f"--report none to write the tables with --engine {engine}, or use --engine memory"
        )
    from ..engine.choose import refuse_folder

    refuse_folder(args.path, engine)
    if mapping is None:
        raise InputError(
            f"--engine {engine}: run on the columnar path reads a table with a mapping "
            "(--mapping FILE.toml or --item/--rater/--value)"
        )
    settings = engine_settings(args)
    with progress(args, f"reducing {Path(args.path).name} ({engine})"):
        study, _ = study_of(args, "run")
        summary = columnar_summary(
            args.path, mapping, engine=engine, memory_limit=settings.get("memory_limit"),
            spark_master=settings.get("spark_master"), study=study,
        )  # fmt: skip
    args.by_list = _subgroup_attributes(args, study)
    final = Path(args.out)
    inputs = [args.path] + ([args.mapping] if args.mapping else [])
    with output_folder(final, inputs=inputs, argv=getattr(args, "argv", None)) as out:
        more = _tables(args, study, out, summary=summary)
    print(
        f"\nwrote {final / 'validation.json'}"
        + "".join(f", {final / p.name}" for p in more)
        + f" and {final / 'MANIFEST.json'}"
    )
    return 0


class _ReportFailed(Exception):
    """A report did not render: the staged outputs are discarded."""


def _no_accuracy_reason(study: Study) -> str | None:
    """Why ``run`` computes no accuracy against gold for this study (None: it does)."""
    if not study.judges:
        return f"the study has no judges (only {study.role_label('expert')})"
    if not categorical_dimensions(study):
        return "every dimension is a score scale (see the score tables)"
    return None


def run(args: argparse.Namespace) -> int:
    from ._progress import progress

    engine, mapping = engine_of(args, "run")
    if engine != "memory":
        return _run_columnar(args, engine, mapping)
    if args.ties == "exclude" and args.report != "none":
        raise InputError(
            "--ties exclude applies to the tables only; the reports keep tie gold labels: "
            "add --report none, or drop --ties exclude"
        )
    for option, value in (("--gold-method", args.gold_method), ("--cluster", args.cluster)):
        if value != "auto" and args.report != "none":
            raise InputError(
                f"{option} {value} applies to the tables only; the reports use {option} auto: "
                f"add --report none, or drop {option}"
            )
    with progress(args, f"loading {Path(args.path).name}"):
        study = load_input(args)
    args.by_list = _subgroup_attributes(args, study)
    final = Path(args.out)
    inputs = [args.path] + ([args.mapping] if args.mapping else [])
    try:
        with output_folder(final, inputs=inputs, argv=getattr(args, "argv", None)) as out:
            # the report kernels start, import and compute while the tables are made here
            reports = _Reports(args, study, out, final)
            try:
                more = _tables(args, study, out)
            except BaseException:
                reports.cancel()
                raise
            rc = reports.finish(args)
    except _ReportFailed as exc:
        print(f"medjudge: report failed (no outputs were replaced): {exc}", file=sys.stderr)
        return 1
    print(
        f"\nwrote {final / 'validation.json'}"
        + "".join(f", {final / p.name}" for p in more)
        + f" and {final / 'MANIFEST.json'}"
    )
    return rc


def _tables(
    args: argparse.Namespace, study: Study, out: Path, summary: tuple | None = None
) -> list[Path]:
    """Write the summary tables into ``out`` and print their headlines; the files after
    ``validation.json``. ``summary``: the (counts, rater table) when counted next to the data."""
    from ._progress import progress

    summary, rater_table = summary or (study.summary(), study.rater_table())
    (out / "validation.json").write_text(dump_json(summary) + "\n", encoding="utf-8")
    write_csv(rater_table, out / "parse_status.csv")
    print(
        f"{summary['name']}: {summary['n_items']} items; {len(study.experts)} "
        f"{study.role_label('expert')}, {len(study.judges)} {study.role_label('judge')}; "
        f"verdict rows not usable: {summary['verdicts_without_value']} of {summary['n_ratings']}"
    )
    written = [out / "validation.json", out / "parse_status.csv"]
    from ._gold_tables import compute_gold_tables, write_gold_tables

    why_not = _no_accuracy_reason(study)
    with progress(args, "judges against gold and score tables"):
        gold = compute_gold_tables(
            study, seed=args.seed, n_resamples=args.resamples,
            confidence_level=args.confidence_level, policy=args.policy, **_design(args),
        )  # fmt: skip
    accuracy = None
    if why_not is None:
        with progress(args, "accuracy against gold"):
            accuracy = accuracy_table(
                study, confidence_level=args.confidence_level,
                gold=args.gold_method, cluster=_design(args)["cluster"],
            )  # fmt: skip
    if accuracy is not None:
        write_csv(accuracy, out / "accuracy.csv", decimals=6)
        written.append(out / "accuracy.csv")
        _print_accuracy(accuracy, categorical_dimensions(study), args.policy)
        if args.by_list:
            written.append(_write_subgroups(args, study, out))
    else:
        print(f"\naccuracy against gold not computed: {why_not}")
    return written[1:] + write_gold_tables(gold, out)


def _design(args: argparse.Namespace) -> dict[str, str | None]:
    """``--gold-method`` and ``--cluster`` as the analyses take them."""
    cluster = None if args.cluster in ("none", "") else args.cluster
    return {"gold": args.gold_method, "cluster": cluster}


def _subgroup_attributes(args: argparse.Namespace, study: Study) -> list[str]:
    """``--by`` checked against the study (``[]`` without it: ``run`` writes subgroups.csv only
    when asked; the reports keep their own default breakdown)."""
    if args.by is None:
        return []
    return resolve_by(study, args.by, dimension=False)


def _write_subgroups(args: argparse.Namespace, study: Study, out: Path) -> Path:
    """``subgroups.csv``: accuracy per judge, dimension and cell of ``--by`` (``--policy``)."""
    from ..analyses.subgroups import subgroup_accuracy

    by = [*args.by_list, *(["dimension"] if len(study.dimensions) > 1 else [])]
    table = subgroup_accuracy(
        study, by, policy=args.policy, cluster=_design(args)["cluster"],
        confidence_level=args.confidence_level,
    ).frame  # fmt: skip
    write_csv(table, out / "subgroups.csv", decimals=6)
    small = int(table["small"].sum()) if "small" in table else 0
    print(
        f"\naccuracy by {', '.join(args.by_list)} in subgroups.csv ({len(table)} rows; "
        f"{small} small cells)"
    )
    return out / "subgroups.csv"


def _print_accuracy(acc, dimensions: list[str], policy: str = "wrong") -> None:  # noqa: ANN001
    """The headline table: accuracy (invalid verdicts under ``policy``) per judge x dimension,
    judges in the report's order (accuracy on the headline dimension, best first; ties by
    name), stated."""
    head = acc[acc["policy"] == policy].pivot(index="judge", columns="dimension", values="accuracy")
    head = head[[d for d in dimensions if d in head.columns]]
    key = "overall" if "overall" in head.columns else head.columns[0]  # report.context's rule
    head = head.reset_index().sort_values(
        [key, "judge"], ascending=[False, True], na_position="last", kind="stable"
    )
    print(_accuracy_header(acc, policy))
    print(f"judges sorted by accuracy on {key} (the report's order)")
    print(head.round(3).to_string(line_width=term_width(), index=False))


class _Reports:
    """The reports asked for with ``--report``, rendered into ``OUT/reports`` (HTML and PDF) in
    a background thread started at construction, while ``run`` writes its tables."""

    def __init__(self, args: argparse.Namespace, study: Study, out: Path, final: Path) -> None:
        from . import report as report_cmd

        self.final = final
        self.skipped: list[str] = []
        self.results: dict[str, dict[str, Path]] = {}
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None
        self.kinds: list[str] = []
        # each report's latest step (kind -> (step, done, total)), shown by finish()
        self.steps: dict[str, tuple[str, int, int]] = {}
        self.show: Callable[[str, str, int, int], None] | None = None
        choice = getattr(args, "report", "none")
        if choice == "none":
            return
        kinds = list(report_cmd.KINDS) if choice == "both" else [choice]
        skipped = self.skipped
        if "audit" in kinds and len(study.experts) < 2:
            kinds.remove("audit")
            skipped.append(f"audit (needs 2+ experts; the study has {len(study.experts)})")
        if Path(args.path).is_file() and not args.mapping:
            skipped += kinds
            kinds = []
            skipped.append("(reports of a table need --mapping FILE.toml)")
        missing = report_cmd.report_dependencies_missing()
        if missing and kinds:
            skipped += kinds
            kinds = []
            skipped.append(f"(install the report extra: missing {', '.join(missing)})")
        if not kinds:
            return
        command = report_cmd.command_line(
            ["run"],
            args.path,
            {"mapping": args.mapping, "out": args.out, "seed": args.seed,
             "resamples": args.resamples, "confidence-level": args.confidence_level,
             "by": args.by, "report": choice,
             **({"policy": args.policy} if args.policy != "wrong" else {})},
        )  # fmt: skip

        self.kinds = kinds

        def step(kind: str, what: str, done: int, total: int) -> None:
            self.steps[kind] = (what, done, total)
            if self.show is not None:
                self.show(kind, what, done, total)

        def render() -> None:
            try:
                self.results = report_cmd.render_reports(
                    args.path,
                    kinds=kinds,
                    out=out / "reports",
                    mapping=args.mapping,
                    seed=args.seed,
                    resamples=args.resamples,
                    policy=args.policy,
                    confidence_level=args.confidence_level,
                    by=args.by_list if args.by else None,  # else the reports' own default
                    command=command,
                    progress=step,
                    workers=2,  # the command line renders the reports side by side
                    engine=report_cmd.renderer(
                        argparse.Namespace(
                            engine="auto", engine_settings=getattr(args, "engine_settings", None)
                        )
                    ),
                )
            except BaseException as exc:  # noqa: BLE001 - re-raised by finish()
                self.error = exc

        self.thread = threading.Thread(target=render, name="medjudge-run-reports", daemon=True)
        self.thread.start()

    def cancel(self) -> None:
        """Stop the report kernels and wait for the thread (the tables failed or Ctrl-C)."""
        if self.thread is None:
            return
        from ..report.render import cancel_renders

        while self.thread.is_alive():
            cancel_renders()  # again, should a kernel have started after the last call
            self.thread.join(0.1)

    def finish(self, args: argparse.Namespace | None = None) -> int:
        """Wait for the reports (their steps counted on a terminal); print what was skipped and
        what was written (exit status)."""
        from ._progress import counted

        if self.skipped:
            print("reports skipped: " + " ".join(self.skipped))
        if self.thread is None:
            return 0
        try:
            with counted(args, self.kinds) as show:
                self.show = show
                for kind, (what, done, total) in list(self.steps.items()):
                    show(kind, what, done, total)
                while self.thread.is_alive():  # a timeout keeps Ctrl-C deliverable
                    self.thread.join(0.2)
                self.show = None
        except BaseException:
            self.show = None
            self.cancel()
            raise
        from ..report.render import RenderError

        if isinstance(self.error, RenderError):
            raise _ReportFailed(self.error) from self.error
        if self.error is not None:
            raise self.error
        for kind, files in self.results.items():
            print(
                f"{kind} report: "
                + ", ".join(str(self.final / "reports" / p.name) for p in files.values())
            )
        return 0


#: ``--policy`` in the words of the printed accuracy table
POLICY_WORDS = {
    "wrong": "invalid = wrong, the Med-RewardBench rule",
    "exclude": "invalid verdicts excluded",
    "half": "invalid = half right",
}


def _accuracy_header(acc, policy: str = "wrong") -> str:  # noqa: ANN001 - the accuracy table
    """The line above the printed accuracies: the policy, and the level and interval method the
    table records."""
    w = acc[acc["policy"] == policy]
    level = ", ".join(f"{100 * v:g}%" for v in dict.fromkeys(w["level"]))
    methods = "; ".join(str(m) for m in dict.fromkeys(w["ci_method"])) if "ci_method" in w else ""
    text = f"\naccuracy against gold ({POLICY_WORDS[policy]}; {level} intervals in accuracy.csv" + (
        f": {methods})" if methods else ")"
    )
    if "order" in w:  # judges run in both orders: which verdicts the table uses
        both = w.loc[w["order"].fillna("").astype(str) != "", ["judge", "order"]].drop_duplicates()
        for order, rows in both.groupby("order", sort=True):
            n = rows["judge"].nunique()
            text += (
                f"\n{n} judge{'s' if n != 1 else ''} run in both presentation orders: the "
                f"verdicts of order {order} are used (column order of accuracy.csv)"
            )
    return text
