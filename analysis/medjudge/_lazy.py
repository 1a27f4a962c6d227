"""Modules imported on first attribute access (start-up time of the command line).

``scipy.stats`` costs about 0.5 s to import (its distributions are built and documented at
import time) and ``statsmodels`` pulls it in; the main job (``medjudge run --report none``)
needs neither. Modules that use them write ``from .._lazy import stats`` instead of
``from scipy import stats``: every ``stats.norm.ppf(...)`` works as before and imports
``scipy.stats`` the first time it runs.

Examples
--------
>>> from medjudge._lazy import LazyModule
>>> m = LazyModule("math")
>>> m.sqrt(4.0)
2.0
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """A stand-in for a module that imports it on first attribute access.

    Parameters
    ----------
    name : str
        Absolute name of the module, e.g. ``"scipy.stats"``.
    """

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = importlib.import_module(self._name)
            self._module = module
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not yet imported"
        return f"<lazy module {self._name!r} ({state})>"


#: ``scipy.stats``, imported when first used
stats = LazyModule("scipy.stats")
