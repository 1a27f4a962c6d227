"""One BLAS thread for the paper-scale jobs (``medjudge run`` and the report kernels).

The products and decompositions of ``run`` and of the reports are small (a few thousand rows);
with OpenBLAS's default of one thread per core, the helper threads spin-wait whenever the other
core is busy — and it is: the two report kernels run side by side, and the machine is often
shared. One thread each was 20-45% less CPU for the heterogeneity bootstrap and for ``run``
(``docs/scale.md``). It also makes the results independent of the number of cores (a BLAS
product can round differently when it is split over threads). An explicit setting in the
environment is kept.

Examples
--------
>>> from medjudge._threads import ONE_BLAS_THREAD, one_blas_thread
>>> env = {"OPENBLAS_NUM_THREADS": "4"}
>>> one_blas_thread(env)["OPENBLAS_NUM_THREADS"], env["MKL_NUM_THREADS"]
('4', '1')
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

#: variables read by OpenBLAS (numpy's wheels) and MKL when they are loaded
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def one_blas_thread(env: MutableMapping[str, str] | None = None) -> MutableMapping[str, str]:
    """Ask for one BLAS thread in ``env`` (default: this process, before numpy is imported).

    Parameters
    ----------
    env : MutableMapping[str, str], optional
        The environment to change (a kernel's); ``None`` changes ``os.environ``, which takes
        effect only if numpy has not been imported yet in this process.

    Returns
    -------
    MutableMapping[str, str]
        ``env`` itself; variables already set are left as they are.
    """
    target = os.environ if env is None else env
    for name, value in ONE_BLAS_THREAD.items():
        target.setdefault(name, value)
    return target
