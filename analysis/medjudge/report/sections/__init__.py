"""Report sections: one small module per section; a report is an ordered list of them.

The interface (read this before adding a section)
-------------------------------------------------
A section is a module ``medjudge/report/sections/<name>.py`` with

``KEY``
    Unique short id (``"leaderboard"``); labels inside the section start with it
    (``tbl-leaderboard``, ``fig-leaderboard-forest``) and ``@sec-<KEY>`` links to it.
``TITLE``
    The heading (plain text).
``build(ctx: ReportContext) -> Section``
    Calls the library (``medjudge.analyses.*``) and returns what to show. Results shared by
    several sections are computed once through ``ctx.get(name, fn)`` (e.g.
    ``ctx.get("evaluation", lambda: evaluate_judges(ctx.study, ...))``); settings come from
    ``ctx`` (``ctx.confidence_level``, ``ctx.alpha``, ``ctx.seed``, ``ctx.n_resamples``,
    ``ctx.policy``, ``ctx.epsilon``, ``ctx.by``; role names via ``ctx.name("judge")``).
    ``build`` never computes a statistic itself, never hard-codes "95%" (use ``ctx.level``), and
    never raises for a study it does not apply to. Most sections are written in three parts,
    joined by :func:`builder` (``build = builder(KEY, TITLE, APPLIES, compute, present)``):

    ``APPLIES``
        Functions ``ctx -> str | None``, checked in order: ``None`` when the analysis applies
        to the study's design, else one plain-text sentence saying why not (then nothing is
        computed; the section is :meth:`Section.not_applicable` and Methods lists the reason
        under "Not run"). Applicability comes from the design, never from catching an
        exception of the analysis.
    ``compute(ctx)``
        Calls the library once (through ``ctx.get``) and returns its result.
    ``present(ctx, result) -> Section``
        Tables, figures and sentences built from the result's fields only.

Text is escaped in one place per kind: data strings in markdown through :func:`md`
(:func:`medjudge.report.escape.markdown`); plain sentences that were not written as markdown
— reasons, library notes and messages — through :func:`medjudge.report.escape.prose`, which
also turns Python literals into words and drops a doubled stop.

A :class:`Section` holds ordered *blocks* — :class:`Text` (pandoc markdown; every data string
goes through :func:`md` first), :class:`Table` (``label``, ``caption``, display frame of
already formatted strings) and :class:`Figure` (``label``, ``caption``, matplotlib figure) —
plus what the report's front and back matter collect from every section:

``findings``
    :class:`Finding` sentences for the executive summary (each with its estimate, interval and
    test, and a caveat where one applies), most important first.
``methods``
    Sentences for the Methods section describing what this section actually ran.
``references``
    Keys of :data:`medjudge.report.sections.references.REFERENCES` cited by the section.

A report (``medjudge/report/judges.py``, ``audit.py``) is ``SECTIONS = [summary, data, ...]``;
:func:`medjudge.report.document.build_report` builds them in order (sections whose module sets
``COLLECTS = True`` — summary, methods, references — are built last, from the others' output,
but shown where the list puts them). Adding an analysis to a report = one new section file and
one entry in that list. Templates call ``report.show()`` (everything) or
``report["leaderboard"].show()`` (one section) in an ``output: asis`` chunk.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...analyses._findings import Finding  # a result states its findings (analyses floor)
from ..escape import markdown, prose, trusted_raw
from ..tables import html_table

__all__ = [
    "Text",
    "Table",
    "Figure",
    "Finding",
    "Section",
    "Block",
    "assemble",
    "builder",
    "md",
    "section_markdown",
    "show_section",
]


def md(value: Any) -> str:
    """Escape a data string (judge name, dimension, file name…) for literal use in markdown
    (:func:`medjudge.report.escape.markdown`, the one escaping function for markdown).

    >>> md("<b>gpt-4*</b>")
    '\\\\<b\\\\>gpt\\\\-4\\\\*\\\\<\\\\/b\\\\>'
    """
    return markdown(value)


@dataclass(frozen=True)
class Text:
    """A paragraph (or several) of pandoc markdown; data strings escaped with :func:`md`."""

    markdown: str


@dataclass(frozen=True)
class Table:
    """A captioned, numbered table. ``frame`` holds display strings (already formatted)."""

    label: str
    caption: str
    frame: pd.DataFrame
    formatters: dict[str, Any] = field(default_factory=dict)
    digits: int = 3

    def __post_init__(self) -> None:
        if not self.label.startswith("tbl-"):
            raise ValueError(f"table label must start with 'tbl-', got {self.label!r}")


@dataclass(frozen=True)
class Figure:
    """A captioned, numbered figure: a matplotlib ``Figure`` or a zero-argument function that
    draws one (lazy: drawn when shown, so building a report opens no figures)."""

    label: str
    caption: str
    figure: Any

    def __post_init__(self) -> None:
        if not self.label.startswith("fig-"):
            raise ValueError(f"figure label must start with 'fig-', got {self.label!r}")

    def draw(self) -> Any:
        """The matplotlib figure (drawing it now if it was given as a function)."""
        f = self.figure
        return f() if callable(f) and not hasattr(f, "savefig") else f


Block = Text | Table | Figure


@dataclass
class Section:
    """What one section shows, plus what it contributes to summary, methods and references."""

    key: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    applies: bool = True
    reason: str | None = None
    level: int = 1

    @classmethod
    def not_applicable(cls, key: str, title: str, reason: str, *, level: int = 1) -> Section:
        """A section that does not apply to this study: shown as one sentence saying why.

        ``reason`` is plain text (no markdown): it is escaped here, and by the Methods'
        "Not run" list, through :func:`medjudge.report.escape.prose`.
        """
        reason = reason.strip().rstrip(".")
        return cls(
            key, title, [Text(f"*Not shown:* {prose(reason)}.")], applies=False, reason=reason,
            level=level,
        )  # fmt: skip

    def add(self, *blocks: Block) -> Section:
        self.blocks.extend(blocks)
        return self

    def text(self, markdown: str) -> Section:
        return self.add(Text(markdown))

    def table(self, label: str, caption: str, frame: pd.DataFrame, **kw: Any) -> Section:
        return self.add(Table(label, caption, frame, **kw))

    def figure(self, label: str, caption: str, figure: Any) -> Section:
        return self.add(Figure(label, caption, figure))

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return {b.label: b.frame for b in self.blocks if isinstance(b, Table)}

    @property
    def figures(self) -> dict[str, Any]:
        """``{label: Figure block}``; call ``.draw()`` on one to get the matplotlib figure."""
        return {b.label: b for b in self.blocks if isinstance(b, Figure)}

    def show(self) -> None:
        """Print this section as pandoc markdown (in an ``output: asis`` chunk)."""
        show_section(self)


Check = Callable[[Any], "str | None"]


def assemble(
    key: str,
    title: str,
    ctx: Any,
    *,
    applies: Check | Sequence[Check],
    compute: Callable[[Any], Any],
    present: Callable[[Any, Any], Section],
) -> Section:
    """A section as *applies / compute / present*: the one way a section decides whether it runs.

    Each function of ``applies`` returns ``None`` when the analysis applies to ``ctx``'s study
    or one plain sentence saying why not (then the section is
    :meth:`Section.not_applicable`, and nothing is computed); else ``compute(ctx)`` calls the
    library and ``present(ctx, result)`` turns its result into blocks, findings and methods.
    Applicability follows from the study design, never from an exception of the analysis.
    """
    for check in applies if isinstance(applies, Sequence) else (applies,):
        why = check(ctx)
        if why:
            return Section.not_applicable(key, title, why)
    return present(ctx, compute(ctx))


def builder(
    key: str,
    title: str,
    applies: Check | Sequence[Check],
    compute: Callable[[Any], Any],
    present: Callable[[Any, Any], Section],
) -> Callable[[Any], Section]:
    """A section module's ``build(ctx)`` from its parts (:func:`assemble`)::

    APPLIES = (why_no_judge_evaluation, why_no_orders)
    ...
    build = builder(KEY, TITLE, APPLIES, result, present)
    """

    def build(ctx: Any) -> Section:
        return assemble(key, title, ctx, applies=applies, compute=compute, present=present)

    build.__doc__ = f"The {title!r} section of ``ctx``'s study (applies / compute / present)."
    return build


# ---------------------------------------------------------------------------- markdown
def _heading(section: Section) -> str:
    hashes = "#" * (section.level + 1)
    return f"{hashes} {section.title} {{#sec-{section.key}}}\n"


def _table_html(block: Table) -> str:
    return html_table(block.frame, formatters=block.formatters, digits=block.digits)._repr_html_()


def _fence(text: str, info: str) -> str:
    return f"```{info}\n{text.rstrip()}\n```\n"


def section_markdown(section: Section) -> str:
    """The section as markdown, figures as ``[figure: label]`` placeholders (for tests/notes)."""
    out = [_heading(section)]
    for b in section.blocks:
        if isinstance(b, Text):
            out.append(b.markdown.rstrip() + "\n")
        elif isinstance(b, Table):
            out.append(
                f"::: {{#{b.label}}}\n{_fence(_table_html(b), trusted_raw('html'))}\n{b.caption}\n:::\n"
            )
        elif isinstance(b, Figure):
            out.append(f"::: {{#{b.label}}}\n[figure: {b.label}]\n\n{b.caption}\n:::\n")
    return "\n".join(out)


def show_section(section: Section) -> None:
    """Print ``section`` as pandoc markdown; figures are displayed (then closed) in place."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    def emit(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    emit(_heading(section))
    for b in section.blocks:
        if isinstance(b, Text):
            emit(b.markdown.rstrip() + "\n")
        elif isinstance(b, Table):
            emit(
                f"::: {{#{b.label}}}\n\n{_fence(_table_html(b), trusted_raw('html'))}\n{b.caption}\n\n:::\n"
            )
        elif isinstance(b, Figure):
            fig = b.draw()
            emit(f"::: {{#{b.label}}}\n")
            display(fig)
            emit(f"\n{b.caption}\n\n:::\n")
            plt.close(fig)
