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
from pathlib import Path

from ..analyses.policies import accuracy_table, categorical_dimensions
from ..data.errors import InputError
from ..data.model import Study
from ..report.escape import write_csv
from . import _options as opt
from ._common import add_input_args, dump_json, load_input, term_width
from ._engine import add_engine_arg, engine_of, refuse_options
from ._output import output_folder
from ._resolve import resolve_by


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="main job: validate, summary tables (and reports) for a bundle")
    add_input_args(p)
    p.add_argument(
        "--out",
        default="out",
        type=opt.OUT_FOLDER,
        help="output folder (default: out); replaced as a whole when the run succeeds",
    )
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


#: what ``run`` writes on the in-memory path only, and why
COLUMNAR_NOT_RUN = {
    "judges against gold and score tables (gold_*.csv)": "need the study in memory "
    "(--engine memory)",
}


def _run_columnar(args: argparse.Namespace, engine: str, mapping) -> int:  # noqa: ANN001
    """``run`` on a table reduced next to the data: validation.json, parse_status.csv and
    accuracy.csv (the same tables as in memory); what needs the study in memory is listed."""
    from ..analyses.at_scale import accuracy_table_at_scale, stack_at_scale
    from ..engine.summary import columnar_summary
    from ._progress import progress

    refuse_options(args, engine, {"broadcast": False, "exchangeable": None, "by": None,
                                  "ties": "keep"})  # fmt: skip
    if mapping is None:
        raise InputError(
            f"--engine {engine}: run on the columnar path reads a table with a mapping "
            "(--mapping FILE.toml or --item/--rater/--value)"
        )
    final = Path(args.out)
    inputs = [args.path] + ([args.mapping] if args.mapping else [])
    not_run = dict(COLUMNAR_NOT_RUN)
    if args.report != "none":
        not_run[f"reports ({args.report})"] = "rendered from a study in memory (--engine memory)"
    with output_folder(final, inputs=inputs, argv=getattr(args, "argv", None)) as out:
        with progress(args, f"counting {Path(args.path).name} ({engine})"):
            summary, table = columnar_summary(args.path, mapping, engine=engine)
        summary["not_run"] = not_run
        (out / "validation.json").write_text(dump_json(summary) + "\n", encoding="utf-8")
        write_csv(table, out / "parse_status.csv")
        written = [out / "parse_status.csv"]
        print(
            f"{summary['name']}: {summary['n_items']} items; {len(summary['experts'])} experts, "
            f"{len(summary['judges'])} judges; verdict rows not usable: "
            f"{summary['verdicts_without_value']} of {summary['n_ratings']} ({engine})"
        )
        with progress(args, "accuracy against gold"):
            view, so = stack_at_scale(args.path, mapping=mapping, engine=engine, cluster="auto")
        if so.judges and view.dimensions:
            acc = accuracy_table_at_scale(view, so, confidence_level=args.confidence_level)
            write_csv(acc, out / "accuracy.csv", decimals=6)
            written.append(out / "accuracy.csv")
            _print_accuracy(acc, list(view.dimensions))
        else:
            print("\naccuracy against gold not computed: no judges or no categorical dimension")
    for what, why in not_run.items():
        print(f"not run: {what}: {why}")
    print(
        f"\nwrote {final / 'validation.json'}"
        + "".join(f", {final / p.name}" for p in written)
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
            with progress(args, "rendering the reports"):
                rc = reports.finish()
    except _ReportFailed as exc:
        print(f"medjudge: report failed (no outputs were replaced): {exc}", file=sys.stderr)
        return 1
    print(
        f"\nwrote {final / 'validation.json'}"
        + "".join(f", {final / p.name}" for p in more)
        + f" and {final / 'MANIFEST.json'}"
    )
    return rc


def _tables(args: argparse.Namespace, study: Study, out: Path) -> list[Path]:
    """Write the summary tables into ``out`` and print their headlines; the files after
    ``validation.json``."""
    from ._progress import progress

    summary = study.summary()
    (out / "validation.json").write_text(dump_json(summary) + "\n", encoding="utf-8")
    write_csv(study.rater_table(), out / "parse_status.csv")
    print(
        f"{summary['name']}: {summary['n_items']} items; {len(study.experts)} {study.role_label('expert')}, {len(study.judges)} {study.role_label('judge')}; "
        f"verdict rows not usable: {summary['verdicts_without_value']} of {summary['n_ratings']}"
    )
    written = [out / "validation.json", out / "parse_status.csv"]
    from ._gold_tables import compute_gold_tables, write_gold_tables

    why_not = _no_accuracy_reason(study)
    with progress(args, "judges against gold and score tables"):
        gold = compute_gold_tables(
            study, seed=args.seed, n_resamples=args.resamples,
            confidence_level=args.confidence_level,
        )  # fmt: skip
    accuracy = None
    if why_not is None:
        with progress(args, "accuracy against gold"):
            accuracy = accuracy_table(study, confidence_level=args.confidence_level)
    if accuracy is not None:
        write_csv(accuracy, out / "accuracy.csv", decimals=6)
        written.append(out / "accuracy.csv")
        _print_accuracy(accuracy, categorical_dimensions(study))
        if args.by_list:
            written.append(_write_subgroups(args, study, out))
    else:
        print(f"\naccuracy against gold not computed: {why_not}")
    return written[1:] + write_gold_tables(gold, out)


def _subgroup_attributes(args: argparse.Namespace, study: Study) -> list[str]:
    """``--by`` checked against the study (``[]`` without it: ``run`` writes subgroups.csv only
    when asked; the reports keep their own default breakdown)."""
    if args.by is None:
        return []
    return resolve_by(study, args.by, dimension=False)


def _write_subgroups(args: argparse.Namespace, study: Study, out: Path) -> Path:
    """``subgroups.csv``: accuracy per judge, dimension and cell of ``--by`` (invalid = wrong)."""
    from ..analyses.subgroups import subgroup_accuracy

    by = [*args.by_list, *(["dimension"] if len(study.dimensions) > 1 else [])]
    table = subgroup_accuracy(
        study, by, policy="wrong", confidence_level=args.confidence_level
    ).frame
    write_csv(table, out / "subgroups.csv", decimals=6)
    small = int(table["small"].sum()) if "small" in table else 0
    print(
        f"\naccuracy by {', '.join(args.by_list)} in subgroups.csv ({len(table)} rows; "
        f"{small} small cells)"
    )
    return out / "subgroups.csv"


def _print_accuracy(acc, dimensions: list[str]) -> None:  # noqa: ANN001 - the accuracy table
    """The headline table: accuracy (invalid = wrong) per judge x dimension, judges in the
    report's order (accuracy on the headline dimension, best first; ties by name), stated."""
    head = acc[acc["policy"] == "wrong"].pivot(
        index="judge", columns="dimension", values="accuracy"
    )
    head = head[[d for d in dimensions if d in head.columns]]
    key = "overall" if "overall" in head.columns else head.columns[0]  # report.context's rule
    head = head.reset_index().sort_values(
        [key, "judge"], ascending=[False, True], na_position="last", kind="stable"
    )
    print(_accuracy_header(acc))
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
             "by": args.by, "report": choice},
        )  # fmt: skip

        def render() -> None:
            try:
                self.results = report_cmd.render_reports(
                    args.path,
                    kinds=kinds,
                    out=out / "reports",
                    mapping=args.mapping,
                    seed=args.seed,
                    resamples=args.resamples,
                    policy="wrong",
                    confidence_level=args.confidence_level,
                    by=args.by_list if args.by else None,  # else the reports' own default
                    command=command,
                    workers=2,  # the command line renders the reports side by side
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

    def finish(self) -> int:
        """Wait for the reports; print what was skipped and what was written (exit status)."""
        if self.skipped:
            print("reports skipped: " + " ".join(self.skipped))
        if self.thread is None:
            return 0
        try:
            while self.thread.is_alive():  # a timeout keeps Ctrl-C deliverable
                self.thread.join(0.2)
        except BaseException:
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


def _accuracy_header(acc) -> str:  # noqa: ANN001 - the accuracy table
    """The line above the printed accuracies: the level and interval method the table records."""
    w = acc[acc["policy"] == "wrong"]
    level = ", ".join(f"{100 * v:g}%" for v in dict.fromkeys(w["level"]))
    methods = "; ".join(str(m) for m in dict.fromkeys(w["ci_method"])) if "ci_method" in w else ""
    text = (
        "\naccuracy against gold (invalid = wrong, the Med-RewardBench rule; "
        f"{level} intervals in accuracy.csv" + (f": {methods})" if methods else ")")
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
