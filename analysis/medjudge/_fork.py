"""Compute independent parts of one analysis on two cores: half of them in a forked child.

``medjudge run`` evaluates the judges against gold dimension by dimension, each dimension on
its own (its own bootstrap plan, its own Holm family). :func:`map_in_two` computes every
second part in a child forked from this process — which already holds the study and its
cached gold and outcome tables, so nothing is loaded or pickled on the way in — and receives
the child's results through a pipe. The results, and the warnings the parts raise (re-issued
here in the parts' order, through the same filters), are those of ``[fn(x) for x in items]``.

Used only where it cannot change anything else: on POSIX, with no other thread running (a
fork copies a lock held by another thread as held), at least two parts and two usable cores.
A child that fails or dies leaves its parts to this process, so an error is raised here as
it would be without the child.

Examples
--------
>>> from medjudge._fork import map_in_two
>>> map_in_two(lambda x: x * x, [1, 2, 3, 4, 5])
[1, 4, 9, 16, 25]
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["map_in_two", "usable_cores"]

T = TypeVar("T")
R = TypeVar("R")


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system tells it)."""
    getaffinity = getattr(os, "sched_getaffinity", None)
    if getaffinity is not None:
        return len(getaffinity(0))
    return os.cpu_count() or 1


def map_in_two(fn: Callable[[T], R], items: Sequence[T], *, fork: bool | None = None) -> list[R]:
    """``[fn(x) for x in items]``, with ``items[1::2]`` computed in a forked child.

    Parameters
    ----------
    fn : callable
        Computes one part; its result must pickle (it is sent from the child through a pipe).
    items : sequence
        The parts, in order.
    fork : bool, optional
        ``None`` (default): fork when it can help and is safe (POSIX, one thread, two usable
        cores, two parts or more); ``False``: never.

    Returns
    -------
    list
        The results in the order of ``items``.
    """
    items = list(items)
    if fork is None:
        fork = (
            hasattr(os, "fork")
            and len(items) > 1
            and threading.active_count() == 1
            and usable_cores() > 1
        )
    if not fork or len(items) < 2:
        return [fn(x) for x in items]
    theirs = list(range(1, len(items), 2))
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: compute its parts, send them, leave without any clean-up
        status = 1
        try:
            os.close(read_end)
            payload = pickle.dumps([_recorded(fn, items[i]) for i in theirs], protocol=5)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    done: dict[int, tuple[R, list[warnings.WarningMessage]]] = {}
    try:
        for i in range(0, len(items), 2):
            done[i] = _recorded(fn, items[i])
    finally:
        with os.fdopen(read_end, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(pid, 0)
    if status == 0:
        try:
            done.update(zip(theirs, pickle.loads(payload), strict=True))
        except Exception:  # noqa: BLE001 - an unreadable answer: compute the parts here
            pass
    results = []
    for i, x in enumerate(items):
        result, caught = done[i] if i in done else _recorded(fn, x)
        _reissue(caught)
        results.append(result)
    return results


def _recorded(fn: Callable[[T], R], x: T) -> tuple[R, list[warnings.WarningMessage]]:
    """``fn(x)`` and the warnings it raised (recorded under the filters in force)."""
    with warnings.catch_warnings(record=True) as caught:
        result = fn(x)
    for w in caught:  # the source line is read again where the warning is re-issued
        w.line = None
        w.source = None
    return result, list(caught)


def _reissue(caught: list[warnings.WarningMessage]) -> None:
    """Issue recorded warnings again here, with the registry of the module that raised them
    (so the ``default`` action shows each once, as if raised here)."""
    for w in caught:
        registry = None
        for module in list(sys.modules.values()):
            if getattr(module, "__file__", None) == w.filename:
                registry = module.__dict__.setdefault("__warningregistry__", {})
                break
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, registry=registry)
