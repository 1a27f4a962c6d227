"""The ``medjudge`` command.

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

COMMANDS = (
    "run",
    "validate",
    "simulate",
    "agreement",
    "audit",
    "compare",
    "subgroups",
    "bias",
    "models",
    "report",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="medjudge", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"medjudge {__version__}")
    parser.add_argument("--debug", action="store_true", help="show a traceback on errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"medjudge.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"medjudge.commands.{name}":
                continue  # command not built yet
            raise
        mod.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
