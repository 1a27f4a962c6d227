"""``workers=``: how a study-level analysis maps its independent parts (scipy's convention).

An ``int`` is a number of threads (``1``, the default, computes the parts in order in this
thread; ``-1`` uses every core of :func:`os.cpu_count`); anything else is a map-like callable,
``workers(fn, iterable)`` — ``multiprocessing.Pool(4).map``, a ``concurrent.futures``
executor's ``map`` or a Dask client's — as in :func:`scipy.optimize.differential_evolution`
and :class:`scipy.stats.bootstrap`. The results are those of ``[fn(x) for x in items]`` in
order, whatever the setting: each part has its own resampling plan and family.

Examples
--------
>>> from medjudge._parallel import map_workers
>>> map_workers(lambda x: x * x, [1, 2, 3], workers=2)
[1, 4, 9]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

Workers = int | Callable[..., Iterable[Any]]


def check_workers(workers: Workers) -> None:
    """Refuse a ``workers`` value that is neither a positive int, ``-1`` nor a callable."""
    if callable(workers):
        return
    if (
        isinstance(workers, bool)
        or not isinstance(workers, int)
        or not (workers >= 1 or workers == -1)
    ):
        raise ValueError(
            f"workers must be a positive int, -1 (every core) or a map-like callable, "
            f"got {workers!r}"
        )


def map_workers(fn: Callable[[T], R], items: Sequence[T], workers: Workers = 1) -> list[R]:
    """``[fn(x) for x in items]``, computed as ``workers`` says.

    Parameters
    ----------
    fn : callable
        Computes one part.
    items : sequence
        The parts.
    workers : int or map-like callable, default 1
        See the module docstring.

    Returns
    -------
    list
        ``fn(x)`` for each ``x`` of ``items``, in order.
    """
    check_workers(workers)
    if callable(workers):
        return list(workers(fn, items))
    n = (os.cpu_count() or 1) if workers == -1 else workers
    if n == 1 or len(items) < 2:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(n, len(items))) as pool:
        return list(pool.map(fn, items))
