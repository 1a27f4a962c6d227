"""medjudge — statistics and reports for LLM judges versus expert labels.

Each sub-command lives in ``medjudge.commands.<name>`` and exposes ``add_parser(subparsers)``
and ``run(args) -> int``. Bad input ends with one line naming file, line and column, and exit
status 2 — never a traceback (``--debug`` shows one for bug reports).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .data.errors import InputError

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
    "report": "render the judge evaluation and/or annotation audit report (HTML, PDF)",
    "ppi": "judge-assisted estimates of gold-label rates from few expert labels (PPI/PPI++)",
    "plan": "expert labels needed (accuracy, kappa, paired judges, alt-test, PPI)",
}


def _command_module(name: str):
    return importlib.import_module(f"medjudge.commands.{name}")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only ``command``'s module is imported (all of them if ``"*"``)."""
    parser = argparse.ArgumentParser(
        prog="medjudge",
        description=__doc__.splitlines()[0],
        epilog="Run 'medjudge COMMAND --help' for a command's options and an example.",
    )
    parser.add_argument("--version", action="version", version=f"medjudge {__version__}")
    parser.add_argument("--debug", action="store_true", help="show a traceback on errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        if command == "*" or name == command:
            _command_module(name).add_parser(sub)
        else:
            sub.add_parser(name, help=summary)
    return parser


def _requested_command(argv: list[str]) -> str | None:
    for a in argv:
        if a in COMMANDS:
            return a
        if not a.startswith("-"):
            return None
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_requested_command(argv))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as e:
        if args.debug:
            raise
        print(f"medjudge: error: {e}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, FileNotFoundError) as e:
        if args.debug:
            raise
        print(f"medjudge: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - last resort: one line, not a traceback
        if args.debug:
            raise
        print(
            f"medjudge: internal error: {type(e).__name__}: {e} (rerun with --debug and report it)",
            file=sys.stderr,
        )
        return 3


if __name__ == "__main__":
    sys.exit(main())
