"""Compute independent parts of one analysis on two cores: half of them in a forked child.

``medjudge run`` evaluates the judges against gold dimension by dimension, each dimension on
its own (its own bootstrap plan, its own Holm family). :func:`map_in_two` computes every
second part in a child forked from this process — which already holds the study and its
cached gold and outcome tables, so nothing is loaded or pickled on the way in — and receives
the child's results through a pipe. The results, and the warnings the parts raise (re-issued
here in the parts' order, through the same filters), are those of ``[fn(x) for x in items]``.

Inside :func:`beside_next_fork` that child first computes one more job and takes fewer parts
(``run``'s accuracy table, worth about two dimensions), so that both processes finish
together; :class:`InChild` is the primitive beneath (one function computed in a child).

Used only where it cannot change anything else: on POSIX, with no other thread running (a
fork copies a lock held by another thread as held), at least two parts and two usable cores
(:func:`can_fork`). A child that fails or dies leaves its work to this process, so an error is
raised here as it would be without the child.

Examples
--------
>>> from medjudge._fork import map_in_two
>>> map_in_two(lambda x: x * x, [1, 2, 3, 4, 5])
[1, 4, 9, 16, 25]
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

__all__ = ["Beside", "InChild", "beside_next_fork", "can_fork", "map_in_two", "usable_cores"]

T = TypeVar("T")
R = TypeVar("R")


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system tells it)."""
    getaffinity = getattr(os, "sched_getaffinity", None)
    if getaffinity is not None:
        return len(getaffinity(0))
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether a forked child can help here and is safe: POSIX, no other thread running (a fork
    copies a lock another thread holds as held) and two usable cores."""
    return hasattr(os, "fork") and threading.active_count() == 1 and usable_cores() > 1


class InChild(Generic[R]):
    """``fn()`` computed in a child forked now, while this process goes on.

    :meth:`answer` waits for the child and returns ``(fn(), its warnings)``, or ``None`` if
    the child failed (an exception, a result that does not pickle, a signal): the caller then
    computes it here, so an error is raised here as it would be without the child. Call
    :meth:`answer` or :meth:`close` once: each waits for the child. ``fn``'s result must
    pickle (it comes back through a pipe).
    """

    def __init__(self, fn: Callable[[], R]) -> None:
        read_end, write_end = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave without any clean-up
            status = 1
            try:
                os.close(read_end)
                payload = pickle.dumps(_recorded(fn), protocol=5)
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write(payload)
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        self._pid, self._read = pid, read_end

    def answer(self) -> tuple[R, list[warnings.WarningMessage]] | None:
        """The child's result and warnings (``None`` if it failed); reaps the child."""
        with os.fdopen(self._read, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        if status == 0:
            try:
                return pickle.loads(payload)
            except Exception:  # noqa: BLE001 - an unreadable answer: computed here instead
                return None
        return None

    def close(self) -> None:
        """Wait for the child and drop its answer (after an error elsewhere)."""
        self.answer()


class Beside(Generic[R]):
    """A job the child of the next :func:`map_in_two` computes before its own parts.

    Made by :func:`beside_next_fork`. :meth:`result` returns what ``fn()`` returned, with its
    warnings re-issued; it is computed here, at that call, if no child took it (the map did
    not fork, or the child failed).
    """

    def __init__(self, fn: Callable[[], R], weight: float) -> None:
        self.fn = fn
        self.weight = weight
        self._done: tuple[R, list[warnings.WarningMessage]] | None = None

    def result(self) -> R:
        if self._done is None:
            self._done = _recorded(self.fn)
        result, caught = self._done
        _reissue(caught)
        self._done = (result, [])
        return result


_BESIDE: list[Beside] = []  # jobs waiting for the next child of map_in_two


@contextlib.contextmanager
def beside_next_fork(
    fn: Callable[[], R], *, weight: float = 1.0, fork: bool | None = None
) -> Iterator[Beside[R]]:
    """Give ``fn()`` to the child of the next :func:`map_in_two` in this block.

    Parameters
    ----------
    fn : callable
        Takes no argument; its result must pickle.
    weight : float
        Its cost in parts of that map: the child then takes that many parts fewer, so that
        both processes finish together.
    fork : bool, optional
        ``None`` (default): give it to a child when :func:`can_fork`; ``True``: always (the map
        still decides whether it forks); ``False``: compute it at once.

    Yields
    ------
    Beside
        Its :meth:`Beside.result` gives ``fn()``: computed at once when no fork is possible
        (:func:`can_fork`), else by the child, else here at that call.

    Examples
    --------
    >>> from medjudge._fork import beside_next_fork, map_in_two
    >>> with beside_next_fork(lambda: "side", weight=1) as side:
    ...     squares = map_in_two(lambda x: x * x, [1, 2, 3, 4])
    >>> squares, side.result()
    ([1, 4, 9, 16], 'side')
    """
    job = Beside(fn, weight)
    if not (can_fork() if fork is None else fork):  # computed now, its warnings as they come
        job._done = (fn(), [])
        yield job
        return
    _BESIDE.append(job)
    try:
        yield job
    finally:
        if job in _BESIDE:
            _BESIDE.remove(job)


def _child_parts(n: int, weight: float) -> list[int]:
    """Indices of the parts a child takes: every second one, fewer by ``weight`` (half of it
    from each side) when the child also computes a job of that weight."""
    theirs = list(range(1, n, 2))
    keep = max(0, min(len(theirs), round((n - weight) / 2)))
    return theirs[:keep]


def map_in_two(fn: Callable[[T], R], items: Sequence[T], *, fork: bool | None = None) -> list[R]:
    """``[fn(x) for x in items]``, with ``items[1::2]`` computed in a forked child.

    Parameters
    ----------
    fn : callable
        Computes one part; its result must pickle (it is sent from the child through a pipe).
    items : sequence
        The parts, in order.
    fork : bool, optional
        ``None`` (default): fork when it can help and is safe (:func:`can_fork`, two parts or
        more); ``False``: never.

    Returns
    -------
    list
        The results in the order of ``items``.

    Notes
    -----
    Inside :func:`beside_next_fork` the child first computes that job, and takes fewer parts.
    """
    items = list(items)
    if fork is None:
        fork = len(items) > 1 and can_fork()
    if not fork or len(items) < 2:
        return [fn(x) for x in items]
    side = _BESIDE.pop() if _BESIDE else None
    theirs = _child_parts(len(items), 0.0 if side is None else side.weight)

    def in_child() -> tuple[object, list]:
        # each part's warnings recorded; re-issued below in the parts' order
        first = None if side is None else _recorded(side.fn)
        return first, [_recorded(lambda x=items[i]: fn(x)) for i in theirs]

    child = InChild(in_child)
    done: dict[int, tuple[R, list[warnings.WarningMessage]]] = {}
    try:
        for i in range(len(items)):
            if i not in theirs:
                done[i] = _recorded(lambda x=items[i]: fn(x))
    except BaseException:
        child.close()
        raise
    answer = child.answer()  # None: the child failed; its parts are computed below, here
    if answer is not None:
        first, parts = answer[0]
        if side is not None:
            side._done = first
        done.update(zip(theirs, parts, strict=True))
    results = []
    for i, x in enumerate(items):
        result, caught = done[i] if i in done else _recorded(lambda x=x: fn(x))
        _reissue(caught)
        results.append(result)
    return results


def _recorded(fn: Callable[[], R]) -> tuple[R, list[warnings.WarningMessage]]:
    """``fn()`` and the warnings it raised (recorded under the filters in force)."""
    with warnings.catch_warnings(record=True) as caught:
        result = fn()
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
