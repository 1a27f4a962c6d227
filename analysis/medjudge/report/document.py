"""A report = an ordered list of sections; building it and printing it as pandoc markdown.

:func:`build_report` runs each section module's ``build(ctx)`` (modules with ``COLLECTS = True``
— executive summary, methods, references — last, from the other sections' output) and returns a
:class:`Report`. :meth:`Report.show` prints the whole document in a Quarto ``output: asis``
chunk: headings ``## Title {#sec-key}``, text, tables as ``::: {#tbl-…}`` divs (the caption is
the div's last paragraph, as Quarto expects) and figures as ``::: {#fig-…}`` divs around the
displayed image. The built-in renderer (``qmd.lua``) and Quarto both number and link them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .context import ReportContext
from .sections import Section, checklist, section_markdown, show_section

__all__ = ["Report", "build_report", "show_section", "section_markdown"]


@dataclass
class Report:
    """The built sections of one report, in order."""

    kind: str
    sections: list[Section]
    context: ReportContext

    def __getitem__(self, key: str) -> Section:
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(f"no section {key!r}; sections: {', '.join(s.key for s in self.sections)}")

    def __iter__(self) -> Iterator[Section]:
        return iter(self.sections)

    @property
    def keys(self) -> list[str]:
        return [s.key for s in self.sections]

    def show(self, keys: Sequence[str] | None = None) -> None:
        """Print every section that ran (or those in ``keys``) as pandoc markdown.

        A section that does not apply to the study is left out of the document (and its table
        of contents); the Methods section lists it once, with its reason, under "Not run".
        """
        for s in self.sections:
            if keys is None and not s.applies:
                continue
            if keys is None or s.key in keys:
                show_section(s)

    def __repr__(self) -> str:
        shown = ", ".join(s.key + ("" if s.applies else " (n/a)") for s in self.sections)
        return f"Report({self.kind!r}: {shown})"


def build_report(
    kind: str,
    modules: Sequence[ModuleType],
    study: Any,
    progress: Callable[[int, int, str], None] | None = None,
    **settings: Any,
) -> Report:
    """Build ``modules``' sections of ``study`` in order (collecting ones last; the checklist
    appendix after them when ``settings["checklist"]``) into a :class:`Report`; ``settings`` are
    the :class:`ReportContext`'s and ``progress(done, total, title)`` is called before each
    section is built."""
    ctx = ReportContext(study, **settings)
    modules = [*modules, *([checklist] if settings.get("checklist") else [])]
    built: dict[str, Section] = {}
    order = [m for m in modules if not getattr(m, "COLLECTS", False)]
    order += [m for m in modules if getattr(m, "COLLECTS", False)]
    for done, mod in enumerate(order):
        if progress is not None:
            progress(done, len(order), str(getattr(mod, "TITLE", mod.KEY)))
        if getattr(mod, "COLLECTS", False):
            ordinary = [built[m.KEY] for m in modules if not getattr(m, "COLLECTS", False)]
            built[mod.KEY] = mod.build(ctx, ordinary)
        else:
            built[mod.KEY] = mod.build(ctx)
    return Report(kind, [built[m.KEY] for m in modules], ctx)
