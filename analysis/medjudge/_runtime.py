"""Process settings of medjudge's entry points: the command line and the report kernels.

Nothing here is called by the library. :func:`configure_command_line` is called once by
``medjudge.cli`` before a command runs, and :data:`KERNEL_START` / :func:`kernel_environment`
by the report renderer when it starts a kernel (``medjudge.report.render``). A test
(``tests/project/test_layers.py``) forbids ``os.fork``, ``gc.freeze``, ``ctypes`` and writes to
``os.environ`` everywhere else in the package, except the output folder's atomic swap.

What is set, and why:

* **One BLAS thread** (``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``, an explicit user setting
  kept), for every command: the products of a run are small and skinny (replicates ×
  clusters by a few columns), and the two report kernels run side by side, so BLAS helper
  threads would only spin-wait (on a loaded 2-core machine, a ``(48 × 333,334) @ (333,334 × 40)``
  product — one block of a bootstrap pass at 10⁷ verdicts — took 34× the CPU time with two
  threads as with one); it also makes a product's rounding independent of the number of cores.
* **glibc's allocator keeps freed memory** (``mallopt(3)`` / ``MALLOC_*_`` variables): fewer
  ``mmap``/page-fault round trips for the many large temporary arrays of a run.
* **numpy's developer submodules loaded only when used**: scipy ≥ 1.14 copies numpy's
  namespace with ``hasattr`` on every name, which imports ``numpy.f2py`` and ``numpy.testing``
  (the same mechanism as https://github.com/scipy/scipy/issues/19065); they are registered with
  :class:`importlib.util.LazyLoader`, so code that uses them gets the real modules.
* **The imported modules frozen for the cycle collector** (``gc.freeze``): they live until the
  process ends, so full collections need not walk them again.

Examples
--------
>>> from medjudge._runtime import kernel_environment
>>> env = kernel_environment({"OPENBLAS_NUM_THREADS": "4"})
>>> env["OPENBLAS_NUM_THREADS"], env["MKL_NUM_THREADS"]
('4', '1')
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import MutableMapping

__all__ = ["KERNEL_START", "configure_command_line", "kernel_environment", "start_kernel"]

#: variables read by OpenBLAS (numpy's wheels) and MKL when they are loaded
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

#: glibc's variables (read when a process starts): blocks up to 32 MiB from the heap, up to
#: 256 MiB of freed memory kept, the heap grown 64 MiB at a time
KEEP_FREED_MEMORY = {
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(256 << 20),
    "MALLOC_TOP_PAD_": str(64 << 20),
}
#: the same settings as ``mallopt`` parameters (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_TOP_PAD)
_MALLOPT = {"MALLOC_MMAP_THRESHOLD_": -3, "MALLOC_TRIM_THRESHOLD_": -1, "MALLOC_TOP_PAD_": -2}

#: numpy submodules that scipy's namespace copy imports and medjudge does not use
NUMPY_EXTRAS = ("numpy.f2py", "numpy.testing")

#: statements run by each report kernel before the first chunk (no output, no name left)
KERNEL_START = [
    "import medjudge._runtime as _mj_rt; _mj_rt.start_kernel(); del _mj_rt",
]


def kernel_environment(env: MutableMapping[str, str]) -> MutableMapping[str, str]:
    """Add the one-BLAS-thread and allocator settings to a kernel's environment.

    Parameters
    ----------
    env : MutableMapping[str, str]
        The environment of a process about to start; variables already set are kept.

    Returns
    -------
    MutableMapping[str, str]
        ``env`` itself.
    """
    for name, value in {**ONE_BLAS_THREAD, **KEEP_FREED_MEMORY}.items():
        env.setdefault(name, value)
    return env


def configure_command_line(command: str | None) -> None:
    """Settings of the ``medjudge`` process, before the command imports numpy.

    Parameters
    ----------
    command : str or None
        The subcommand about to run (``None``: only ``--help``/``--version``; nothing is set).
    """
    if command is None:
        return
    _keep_freed_memory_here()
    for name, value in ONE_BLAS_THREAD.items():  # every command (see the module docstring)
        os.environ.setdefault(name, value)
    defer_numpy_extras()


def start_kernel() -> None:
    """What a report kernel runs first: numpy's extras deferred, start-up objects frozen."""
    import gc

    defer_numpy_extras()
    gc.freeze()


def freeze_imports() -> None:
    """Move the objects alive now (imported modules) out of the cycle collector's reach."""
    import gc

    gc.freeze()


def defer_numpy_extras(names: tuple[str, ...] = NUMPY_EXTRAS) -> list[str]:
    """Register ``names`` (numpy submodules) as lazy modules; imports numpy.

    Parameters
    ----------
    names : tuple of str
        Submodules of numpy; one already imported, or not found, is left alone.

    Returns
    -------
    list of str
        The names registered as lazy modules.
    """
    import numpy

    deferred = []
    for name in names:
        parent, _, attr = name.rpartition(".")
        if parent != "numpy" or name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            continue
        loader = importlib.util.LazyLoader(spec.loader)
        spec.loader = loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        loader.exec_module(module)
        setattr(numpy, attr, module)
        deferred.append(name)
    return deferred


def _keep_freed_memory_here() -> bool:
    """Apply :data:`KEEP_FREED_MEMORY` to this process with glibc's ``mallopt`` (not when the
    user set any of the variables, nor on a C library without ``mallopt``)."""
    if not sys.platform.startswith("linux") or any(v in os.environ for v in KEEP_FREED_MEMORY):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return all(mallopt(_MALLOPT[name], int(v)) == 1 for name, v in KEEP_FREED_MEMORY.items())
