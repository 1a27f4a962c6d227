"""Progress on the terminal for steps that take more than a moment (rich), off when not a TTY.

``with progress(args, "rendering the judges report"):`` shows a spinner with the message on
standard error while the block runs — only when standard error is a terminal and ``--quiet``
was not given, so logs, pipes and tests see nothing. ``with counted(args, ["judges", "audit"])
as step:`` shows one line per task with its count instead: ``step("judges", "section
Leaderboard", 2, 20)`` sets the task's description and ``done/total``; calls from several
threads (reports rendered side by side) are safe.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence


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


#: ``step(task, what, done, total)``: a task's current step and its count
Step = Callable[[str, str, int, int], None]


def _no_step(task: str, what: str, done: int, total: int) -> None:  # noqa: ARG001
    return None


@contextlib.contextmanager
def counted(args: argparse.Namespace | None, tasks: Sequence[str]) -> Iterator[Step]:
    """A transient progress display with one line per task, ``task  what  done/total`` and a
    bar (see the module docstring); a no-op ``step`` when progress is off."""
    if not enabled(args):
        yield _no_step
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn("dots"), TextColumn("{task.fields[name]}"), BarColumn(bar_width=20),
        MofNCompleteColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
        console=Console(stderr=True), transient=True,
    ) as bar:  # fmt: skip
        ids = {t: bar.add_task("starting", total=None, name=t) for t in tasks}

        def step(task: str, what: str, done: int, total: int) -> None:
            bar.update(ids[task], description=what, completed=done, total=total)

        yield step
