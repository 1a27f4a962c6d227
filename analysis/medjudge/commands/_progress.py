"""Progress on the terminal for steps that take more than a moment (rich), off when not a TTY.

``with progress(args, "rendering the judges report"):`` shows a spinner with the message on
standard error while the block runs — only when standard error is a terminal and ``--quiet``
was not given, so logs, pipes and tests see nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator


def enabled(args: argparse.Namespace | None) -> bool:
    """Whether to show progress: a terminal on standard error and no ``--quiet``."""
    if args is not None and getattr(args, "quiet", False):
        return False
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


@contextlib.contextmanager
def progress(args: argparse.Namespace | None, message: str) -> Iterator[None]:
    """A transient spinner with ``message`` while the block runs (see the module docstring)."""
    if not enabled(args):
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(message, spinner="dots"):
        yield
