"""The report's figure style is the plots' style (:mod:`medjudge.plots.style`); this name stays
for the report templates, which call ``use_style()`` at the top of their kernel."""

from __future__ import annotations

from ..plots.style import *  # noqa: F403
from ..plots.style import __all__  # noqa: F401
