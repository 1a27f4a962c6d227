"""Defer numpy's two developer submodules that scipy imports and medjudge never uses.

scipy (1.14 and later) copies numpy's namespace into its array-API shim with ``hasattr`` on
every name ``dir(numpy)`` lists, and numpy loads its lazy submodules on first attribute access.
So ``import scipy.special`` also imports ``numpy.f2py`` (the Fortran wrapper generator, which
pulls in ``charset_normalizer`` when installed) and ``numpy.testing`` (``unittest``): 0.08-0.2
s of the command line's start-up, a sixth of ``medjudge run`` on the paper-scale demo
(``docs/scale.md``).

:func:`defer_numpy_extras` registers both with :class:`importlib.util.LazyLoader`, the standard
library's lazy import: the module object exists, and its code runs on the first attribute
access, so any code that does use them gets the real modules. It is called by the command
line (``medjudge.cli``) and at the start of each report kernel
(``medjudge.report.render.KERNEL_START``), never on ``import medjudge``: notebooks, tests and
programs see numpy as it is.

Examples
--------
>>> import subprocess, sys
>>> code = (
...     "import sys; from medjudge._lazy_imports import defer_numpy_extras; "
...     "print(defer_numpy_extras()); import scipy.special; import numpy.testing as t; "
...     "print(type(sys.modules['numpy.f2py']).__name__, t.assert_equal(1, 1))"
... )
>>> print(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
['numpy.f2py', 'numpy.testing']
_LazyModule None
<BLANKLINE>
"""

from __future__ import annotations

import importlib.util
import sys

#: numpy submodules that scipy's namespace copy imports and medjudge does not use
NUMPY_EXTRAS = ("numpy.f2py", "numpy.testing")


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

    Notes
    -----
    The module is also set as the attribute of ``numpy``, as the import system does after a
    submodule is loaded: numpy's module ``__getattr__`` then finds it without importing it.
    Python 3.11's ``LazyLoader`` is not thread-safe on the first attribute access, which is
    harmless here since nothing in medjudge touches these modules.
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
