"""medjudge — statistics and reports for LLM judges versus expert labels.

Each sub-command lives in ``medjudge.commands.<name>`` and exposes ``add_parser(subparsers)``
and ``run(args) -> int``. Bad input ends with one line naming file, line and column, and exit
status 2 — never a traceback (``--debug`` shows one for bug reports).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import warnings
from collections.abc import Iterator
from typing import Any

from . import __version__
from ._inert import inert

#: sub-command -> one-line summary. The summary is shown by ``medjudge --help`` without importing
#: the command's module (and so without pandas, statsmodels or matplotlib); a command's own module
#: is imported only when that command runs or its ``--help`` is asked for.
COMMANDS: dict[str, str] = {
    "run": "main job: validate, summary tables (and reports) for a bundle",
    "validate": "load and check input; print counts per role, rater, dimension, status",
    "simulate": "write a simulated Med-RewardBench-shaped bundle (with true parameters)",
    "agreement": "inter-rater agreement coefficients with intervals from a ratings table",
    "audit": "annotator audit: reliability, drift, disputed items, judge vs experts",
    "compare": "leaderboard with intervals + pairwise McNemar/bootstrap with multiplicity control",
    "subgroups": "accuracy by subgroup, heterogeneity across subgroups, best judge per subgroup",
    "bias": "judge bias diagnostics: position, length, label balance, dimensions, runs; bias suite",
    "models": "rank the answer models (Bradley-Terry) by the experts and by each judge",
    "stability": "variance components and verdict flips across prompt variants and runs",
    "report": "render the judge evaluation and/or annotation audit report (HTML, PDF)",
    "ppi": "judge-assisted estimates of gold-label rates from few expert labels (PPI/PPI++)",
    "plan": "expert labels needed (accuracy, kappa, paired judges, alt-test, PPI)",
}


P = "data/external/pandalm_testset/verdicts_wide.csv --mapping data/mappings/pandalm_wide.toml"
#: one worked example per command, shown at the end of ``medjudge COMMAND --help``
EXAMPLES: dict[str, str] = {
    "run": "medjudge run data/demo --out out/demo\n"
    "  medjudge run data/demo --out out/demo --report none   # tables only",
    "validate": f"medjudge validate data/demo\n  medjudge validate {P} --json",
    "simulate": "medjudge simulate --out /tmp/sim --items 300 --seed 1",
    "agreement": "medjudge agreement " + P + " --role expert\n"
    "  medjudge agreement table.csv --item id --raters r1,r2,r3 --level ordinal "
    "--categories low,mid,high",
    "audit": f"medjudge audit data/demo\n  medjudge audit {P} --json",
    "compare": "medjudge compare data/demo\n"
    "  medjudge compare data/demo --family dimension --json   # Holm within each dimension",
    "subgroups": "medjudge subgroups data/demo --by organ_system,dimension",
    "bias": "medjudge bias data/demo",
    "models": f"medjudge models {P}",
    "stability": "medjudge stability data/external/llmbar/verdicts_long.csv "
    "--mapping data/mappings/llmbar_long.toml",
    "report": "medjudge report data/demo --out out/reports --kind judges --to html",
    "ppi": f"medjudge ppi {P} --json",
    "plan": "medjudge plan accuracy --accuracy 0.8 --halfwidth 0.05",
}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Plain-text help: the default of every option that has one, the example kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (
            "%(default)" not in text
            and "default" not in text
            and action.default is not None
            and action.default is not False
            and action.default != argparse.SUPPRESS
            and action.option_strings
        ):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``medjudge CMD: error: argument --x: ... (see --help)``."""

    def error(self, message: str):  # type: ignore[override]
        message = " ".join(str(message).split())
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an exception so that temporary outputs are cleaned up."""


def _on_sigterm(signum, frame):  # pragma: no cover - exercised in subprocess tests
    raise Terminated()


def _command_module(name: str):
    return importlib.import_module(f"medjudge.commands.{name}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only ``command``'s module is imported (all of them if ``"*"``)."""
    parser = Parser(
        prog="medjudge",
        description=__doc__.splitlines()[0],
        epilog="Run 'medjudge COMMAND --help' for a command's options and an example.",
    )
    parser.add_argument("--version", action="version", version=f"medjudge {__version__}")
    parser.add_argument("--debug", action="store_true", help="show a traceback on errors")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress display (it is off when not a terminal)"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if command == "*" or name == command:
            _command_module(name).add_parser(sub)
            p = sub.choices[name]
            p.formatter_class = HelpFormatter
            if "--quiet" not in p._option_string_actions:  # also after the command name
                p.add_argument(
                    "--quiet", action="store_true", default=argparse.SUPPRESS,
                    help="no progress display (it is off when not a terminal)",
                )  # fmt: skip
            if p.description:  # plain text: no reStructuredText markup from docstrings
                p.description = _plain(p.description)
            for a in p._actions:  # options without a help text still show their default
                if (
                    a.help is None
                    and a.option_strings
                    and a.default is not None
                    and a.default is not False
                ):
                    a.help = "(default: %(default)s)"
            example = EXAMPLES.get(name)
            if example:
                p.epilog = ((p.epilog + "\n\n") if p.epilog else "") + "example:\n  " + example
        else:
            sub.add_parser(name, help=summary)
    return parser


def _plain(text: str) -> str:
    """``code`` -> code, :func:`x` -> x (docstring markup read as plain text)."""
    import re

    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def _requested_command(argv: list[str]) -> str | None:
    for a in argv:
        if a in COMMANDS:
            return a
        if not a.startswith("-"):
            return None
    return None


def _os_error(e: OSError) -> str:
    """One line for an operating-system error: the path and the problem."""
    if e.errno is None and not e.filename:
        return _message(e)
    what = e.strerror or type(e).__name__
    paths = [p for p in (e.filename, e.filename2) if p]
    where = " -> ".join(str(p) for p in paths)
    hint = {
        28: " (the disk is full)",  # ENOSPC
        27: " (a file-size limit was reached, e.g. ulimit -f)",  # EFBIG
        13: " (check the permissions)",  # EACCES
        30: " (read-only file system)",  # EROFS
    }.get(e.errno or 0, "")
    return f"{where}: {what}{hint}" if where else f"{what}{hint}"


def _message(e: BaseException) -> str:
    """One line for an error meant for the user (never a bare repr of a key)."""
    if isinstance(e, KeyError) and len(e.args) == 1 and isinstance(e.args[0], str):
        text = e.args[0]
    else:
        text = str(e)
    from .data.errors import InputError
    from .report.escape import plain  # Python literals in a library message read as words

    hint = ""
    if isinstance(e, InputError) and e.hint and text.endswith(f" ({e.hint})"):
        # a hint is what to type (a TOML line, an option): kept as written, never reworded
        text, hint = text[: -len(e.hint) - 3], f" ({' '.join(e.hint.split())})"
    return (plain(" ".join(text.split())) + hint) or type(e).__name__


def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit status is 0 (done), 1 (a report failed), 2 (bad input or
    option, or an operating-system error such as a full disk), 3 (a bug), 130/143 (Ctrl-C or
    SIGTERM; no outputs replaced)."""
    previous = None
    with contextlib.suppress(ValueError):  # not in the main thread: leave SIGTERM alone
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = _main(argv)
    except KeyboardInterrupt as e:  # while importing or parsing: nothing to clean up
        what = "terminated" if isinstance(e, Terminated) else "interrupted"
        print(f"medjudge: {what}", file=sys.stderr)
        code = 143 if isinstance(e, Terminated) else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if argv is None and _as_program():
        _exit_now(code)
    return code


def _as_program() -> bool:
    """Whether this process is the command line itself (``medjudge`` or ``python -m
    medjudge.cli``), not a program calling :func:`main` (tests, notebooks)."""
    import os

    entry = sys.modules.get("__main__")
    spec = getattr(entry, "__spec__", None)
    if spec is not None and spec.name == "medjudge.cli":
        return True
    return os.path.basename(getattr(entry, "__file__", None) or "") == "medjudge"


def _exit_now(code: int) -> None:
    """End the process with ``code`` once the work is done, skipping the interpreter's teardown.

    Tearing down pandas, scipy and pyarrow module by module takes 0.1-0.2 s after every
    command. The exit functions still run (``atexit``: logging, ``weakref.finalize``, temporary
    folders) and the standard streams are flushed; only the freeing of memory the operating
    system reclaims anyway is skipped. Not while other threads still run (they are joined by
    the normal exit).
    """
    import atexit
    import os
    import threading

    if threading.active_count() > 1:
        return
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_functions is None:  # not CPython: exit normally
        return
    run_exit_functions()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _main(argv: list[str] | None) -> int:
    from_command_line = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _requested_command(argv)
    if from_command_line:
        from ._runtime import configure_command_line

        configure_command_line(command)  # process settings: only for the command line
    parser = build_parser(command)
    if from_command_line and command is not None:
        from ._runtime import freeze_imports

        freeze_imports()  # the modules imported so far live until the process ends
    args = parser.parse_args(argv)
    args.argv = argv  # recorded in output manifests
    args.from_command_line = from_command_line  # this process is the command line
    guard = _ClosedPipeGuard(sys.stdout)
    try:
        args.engine_settings = engine_settings()
        with warnings.catch_warnings(record=True) as caught, _stdout(guard):
            warnings.simplefilter("default")
            # sockets the Spark gateway (py4j) leaves to the collector: not the command's
            warnings.simplefilter("ignore", ResourceWarning)
            code = int(args.func(args) or 0)
        _warning_note(caught, args.debug)
        return code
    except BrokenPipeError:  # the reader went away (``| head``): not an error
        guard.closed_by_reader()
        return 0
    except (KeyboardInterrupt, Exception) as e:  # noqa: BLE001 - one line, not a traceback
        if args.debug:
            raise
        code, line = _failure(e)
        print(inert(line, carriage_return=True), file=sys.stderr)
        return code


def engine_settings() -> dict[str, object]:
    """The engines' settings from the environment, read here only and passed down as arguments.

    ``MEDJUDGE_MEMORY_ROWS``: the in-memory path's limit in verdict rows; ``MEDJUDGE_DUCKDB_MEMORY``:
    DuckDB's memory limit (``"4GB"``); ``MEDJUDGE_SPARK_MASTER``: the Spark master URL;
    ``MEDJUDGE_ENGINE=quarto``: reports rendered by Quarto when it is installed.
    """
    import os

    from .data.errors import InputError

    out: dict[str, object] = {
        "memory_limit": os.environ.get("MEDJUDGE_DUCKDB_MEMORY") or None,
        "spark_master": os.environ.get("MEDJUDGE_SPARK_MASTER") or None,
        "renderer": (os.environ.get("MEDJUDGE_ENGINE") or "").lower() or None,
    }
    raw = os.environ.get("MEDJUDGE_MEMORY_ROWS")
    if raw:
        try:
            out["memory_rows"] = int(float(raw))
        except ValueError:
            raise InputError(
                f"MEDJUDGE_MEMORY_ROWS must be a number of rows, got {raw!r}"
            ) from None
    return out


class _ClosedPipeGuard:
    """Standard output that a reader may close (``medjudge run ... | head -1``), and on which
    names are inert (:func:`medjudge._inert.inert`: an escape sequence or a right-to-left
    override in a judge name is printed as ``\\u001b`` / ``\\u202e``, also inside JSON, where
    it reads back as the same character).

    The first write or flush that fails with a broken pipe marks the stream closed; every later
    write is dropped, so the command finishes its work (an output folder is written whole) and
    exits quietly with status 0, as Unix tools do when their reader has what it wanted. The file
    descriptor then points at ``/dev/null``, so the interpreter's last flush says nothing.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(inert(text, carriage_return=True))
            except BrokenPipeError:
                self.closed_by_reader()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self.closed_by_reader()

    def closed_by_reader(self) -> None:
        """Drop what is left and point the descriptor at ``/dev/null`` (idempotent)."""
        import os

        self.broken = True
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):
            return  # not a file (a test's StringIO)
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _stdout(guard: _ClosedPipeGuard) -> Iterator[None]:
    """``sys.stdout`` is ``guard`` while a command runs (restored afterwards)."""
    previous = sys.stdout
    sys.stdout = guard  # type: ignore[assignment]
    try:
        yield
        guard.flush()
    finally:
        sys.stdout = previous


def _failure(e: BaseException) -> tuple[int, str]:
    """Exit status and the one line for an exception that ended a command.

    2: bad input or option (``ValueError``, :class:`~medjudge.data.errors.InputError`, a
    ``KeyError`` carrying a sentence), an operating-system error or too little memory; 3: a bug
    (a bare missing key, anything else); 130/143: Ctrl-C/SIGTERM (nothing replaced)."""
    if isinstance(e, KeyboardInterrupt):
        what = "terminated" if isinstance(e, Terminated) else "interrupted"
        return (143 if isinstance(e, Terminated) else 130), (
            f"medjudge: {what}; no outputs were replaced"
        )
    key = e.args[0] if isinstance(e, KeyError) and e.args else None
    if isinstance(e, KeyError) and not (isinstance(key, str) and " " in key):
        # a KeyError with a sentence is a message; a bare key is a bug (say so, one line)
        return (
            3,
            f"medjudge: internal error: missing key {key!r} (rerun with --debug and report it)",
        )
    if isinstance(e, (KeyError, ValueError)):
        return 2, f"medjudge: error: {_message(e)}"
    if isinstance(e, OSError):
        return 2, f"medjudge: error: {_os_error(e)}"
    if isinstance(e, MemoryError):
        return 2, "medjudge: error: not enough memory for this job (try fewer --resamples)"
    return 3, (
        f"medjudge: internal error: {type(e).__name__}: {_message(e)} "
        "(rerun with --debug and report it)"
    )


def _warning_note(caught: list[warnings.WarningMessage], debug: bool) -> None:
    """Numerical warnings from numpy/scipy/statsmodels: one counted note, never their paths."""
    if not caught:
        return
    if debug:
        for w in caught:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        return
    kinds = sorted(
        {f"{w.category.__name__}: {' '.join(str(w.message).split())[:80]}" for w in caught}
    )
    print(
        f"medjudge: note: {len(caught)} warning(s) from numpy/pandas/scipy/statsmodels suppressed "
        f"(e.g. {kinds[0]}); --debug shows them",
        file=sys.stderr,
    )


if __name__ == "__main__":
    sys.exit(main())
