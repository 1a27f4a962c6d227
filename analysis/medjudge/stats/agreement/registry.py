"""The registry's rows (:mod:`medjudge.stats.coefficients`) resolved to their functions.

:data:`FUNCTIONS` maps every coefficient name to its function, :data:`COEFFICIENTS` those that
return one :class:`~medjudge.stats.results.Estimate` (``agreement(df, name)``; ICC returns one
per form), and :data:`CORES` the ``*_core(X, w)`` functions of item weights
(:func:`~medjudge.stats.agreement.agreement_difference`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..coefficients import COEFFICIENT_TABLE
from ..results import Estimate
from . import gwet_framework, icc, kappa, kendall, krippendorff, two_raters

__all__ = ["COEFFICIENTS", "CORES", "FUNCTIONS"]

#: the modules that define the coefficients and their cores (a new module is added here)
_MODULES: tuple[ModuleType, ...] = (two_raters, kappa, gwet_framework, krippendorff, kendall, icc)


def _find(attr: str) -> Callable[..., Any]:
    for module in _MODULES:
        fn = getattr(module, attr, None)
        if fn is not None:
            return fn
    raise LookupError(f"the coefficient registry names {attr!r}, which no agreement module defines")


#: coefficient name -> function(X, **kwargs)
FUNCTIONS: dict[str, Callable[..., Any]] = {c.name: _find(c.name) for c in COEFFICIENT_TABLE}
#: coefficient name -> function(X, **kwargs) -> Estimate (one estimate; not the ICC forms)
COEFFICIENTS: dict[str, Callable[..., Estimate]] = {
    c.name: FUNCTIONS[c.name] for c in COEFFICIENT_TABLE if c.call != "forms"
}
#: coefficient name -> core(X, w, **kwargs) -> (k,) values
CORES: dict[str, Callable[..., Any]] = {
    c.name: _find(c.core_name) for c in COEFFICIENT_TABLE if c.core_name is not None
}
