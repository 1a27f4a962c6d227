"""Document options of a report and the renderer's error, shared by the writer and the renderer.

Which format options apply (``format: html: ...`` over document-level keys), the figure format
and execution defaults, the metadata pandoc must not see, :class:`RenderError`, and the kernel
client that takes a report's progress lines out of its outputs.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

_EXT = {"html": "html", "pdf": "pdf"}

#: environment variable by which the renderer asks a report's kernel for section progress
PROGRESS_ENV = "MEDJUDGE_PROGRESS"
#: the start of a progress line on the kernel's standard error (the renderer takes these lines
#: out of the notebook; :func:`kernel_progress` writes them)
PROGRESS_MARK = "\x1bmedjudge-progress "

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

_DROP_META = {
    "format", "execute", "jupyter", "engine", "knitr", "params", "fig-format", "fig-width",
    "fig-height", "fig-dpi", "embed-resources", "self-contained", "html-math-method",
    "keep-typ", "keep-md", "keep-ipynb", "code-fold", "code-tools", "theme", "toc",
    "number-sections", "toc-depth", "filters",
}  # fmt: skip

_FIG_DEFAULT = {"html": "png", "pdf": "svg"}


class RenderError(RuntimeError):
    """A report could not be rendered; the message names the file, chunk and line."""

    def __init__(self, message: str, *, traceback: str | None = None) -> None:
        super().__init__(message)
        self.traceback = traceback


def _asset(name: str) -> Path:
    return Path(str(resources.files("medjudge.report") / "assets" / name))


def _format_options(meta: Mapping[str, Any], fmt: str) -> dict[str, Any]:
    """Options under ``format: {html: ..., typst: ...}`` for one output format."""
    spec = meta.get("format")
    key = "typst" if fmt == "pdf" else "html"
    if isinstance(spec, Mapping):
        opts = spec.get(key) or (spec.get("pdf") if fmt == "pdf" else None) or {}
        return dict(opts) if isinstance(opts, Mapping) else {}
    return {}


def _doc_option(meta: Mapping[str, Any], name: str, fmts: Sequence[str], default: Any) -> Any:
    if name in meta:
        return meta[name]
    for fmt in fmts:
        opts = _format_options(meta, fmt)
        if name in opts:
            return opts[name]
    return default


def _fig_format(meta: Mapping[str, Any], fmt: str) -> str:
    value = _format_options(meta, fmt).get("fig-format", meta.get("fig-format"))
    value = str(value or _FIG_DEFAULT[fmt]).lower()
    if value in ("retina", "jpeg", "jpg"):
        value = "png"
    if value not in ("png", "svg"):
        raise RenderError(f"fig-format {value!r} is not supported by the built-in renderer")
    return value


def _execute_defaults(meta: Mapping[str, Any]) -> dict[str, Any]:
    base = {"echo": True, "warning": True, "output": True, "include": True, "error": False}
    ex = meta.get("execute")
    if isinstance(ex, Mapping):
        base.update(ex)
    return base


def _progress_client(progress: Callable[[int, int, str], None]) -> Any:
    """A :class:`nbclient.NotebookClient` that takes the kernel's progress lines (standard
    error, :data:`~medjudge.report.document.PROGRESS_MARK`) out of the outputs and passes them
    to ``progress``."""
    import json

    from nbclient import NotebookClient

    class ProgressClient(NotebookClient):
        def output(self, outs: Any, msg: dict, display_id: Any, cell_index: int) -> Any:
            content = msg.get("content", {})
            text = content.get("text", "")
            if msg["msg_type"] == "stream" and PROGRESS_MARK in text:
                kept = []
                for line in text.splitlines(keepends=True):
                    if line.startswith(PROGRESS_MARK):
                        done, total, title = json.loads(line[len(PROGRESS_MARK) :])
                        progress(int(done), int(total), str(title))
                    else:
                        kept.append(line)
                if not kept:
                    return None
                msg = {**msg, "content": {**content, "text": "".join(kept)}}
            return super().output(outs, msg, display_id, cell_index)

    return ProgressClient


def kernel_progress() -> Callable[[int, int, str], None] | None:
    """The ``progress`` of :func:`medjudge.report.document.build_report` inside a report's
    kernel: a line per section on standard error, which the renderer turns into its progress
    display (only when it asked, through :data:`PROGRESS_ENV`); ``None`` otherwise (a template
    run by hand prints nothing).

    Examples
    --------
    >>> kernel_progress() is None  # not in a kernel whose renderer asked for progress
    True
    """
    if os.environ.get(PROGRESS_ENV) != "1":
        return None

    def report(done: int, total: int, title: str) -> None:
        sys.stderr.write(f"{PROGRESS_MARK}{json.dumps([done, total, title])}\n")
        sys.stderr.flush()

    return report
