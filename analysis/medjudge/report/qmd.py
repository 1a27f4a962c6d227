"""A small parser for Quarto ``.qmd`` documents (Python chunks only).

It turns a ``.qmd`` file into an :mod:`nbformat` notebook the way Quarto's Jupyter engine
sees it, without needing the Quarto binary (jupytext's ``qmd`` format shells out to Quarto,
and its Rmd reader mis-parses ``#|`` options, ``{{python}}`` and 4-backtick display blocks):

* YAML front matter, loaded **without** timestamp conversion (``date: 2026-11-01`` stays a
  string; a ``datetime.date`` would make the notebook JSON-unserialisable);
* ```` ```{python} ```` chunks become code cells; leading ``#|`` lines are parsed as YAML into
  ``cell.metadata["qmd"]`` and removed from the source; ``tags:`` go to ``metadata.tags``,
  ``eval: false`` adds nbclient's ``skip-execution`` tag and ``error: true`` adds
  ``raises-exception``;
* ordinary fenced blocks (```` ```python ````, ```` ```{{python}} ````, longer display fences)
  are copied verbatim into the markdown;
* inline ```` `{python} expr` ```` becomes a hidden cell, executed just before its markdown
  cell, whose values the writer substitutes (Quarto >= 1.4 semantics);
* HTML comments in prose are removed (the built-in renderer does not pass raw HTML through).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import yaml

__all__ = [
    "QmdError",
    "INLINE_MIME",
    "load_yaml",
    "parse_qmd",
    "read_qmd",
    "inject_parameters",
    "parameter_names",
]

#: MIME type used by the hidden cells that evaluate inline ```{python} expr``` code.
INLINE_MIME = "application/x-medjudge-inline+json"

_FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>.*?)\s*$")
_CHUNK_INFO = re.compile(r"^\{\s*(?P<lang>[A-Za-z0-9_.+-]+)(?P<rest>[^{}]*)\}$")
_INLINE_CODE = re.compile(r"`\{python\}\s+(?P<expr>[^`]+?)`")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_INLINE_PLACEHOLDER = "\x00MJINLINE{}\x00"


class QmdError(ValueError):
    """A malformed ``.qmd`` document; the message names the file and line."""


class _NoTimestampLoader(yaml.SafeLoader):
    """SafeLoader that keeps ``2026-11-01`` as a string (JSON-serialisable front matter)."""


_NoTimestampLoader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str) -> Any:
    """Load YAML safely, leaving dates/timestamps as strings."""
    return yaml.load(text, Loader=_NoTimestampLoader)  # noqa: S506 - SafeLoader subclass


@dataclass
class _Chunk:
    source: str
    options: dict[str, Any]
    line: int  # 1-based line of the opening fence


def _where(path: str | None, line: int) -> str:
    return f"{path or '<qmd>'}:{line}"


def _split_front_matter(lines: list[str], path: str | None) -> tuple[dict[str, Any], int]:
    """Return (front matter, index of the first body line)."""
    if not lines or lines[0].rstrip() != "---":
        return {}, 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            text = "".join(lines[1:i])
            try:
                meta = load_yaml(text) or {}
            except yaml.YAMLError as exc:
                raise QmdError(f"{_where(path, 1)}: invalid YAML front matter: {exc}") from exc
            if not isinstance(meta, dict):
                raise QmdError(f"{_where(path, 1)}: front matter must be a YAML mapping")
            return meta, i + 1
    raise QmdError(f"{_where(path, 1)}: front matter opened with '---' is never closed")


def _chunk_options(body: list[str], path: str | None, line: int) -> tuple[dict[str, Any], str]:
    """Split leading ``#|`` option lines from a chunk body."""
    opts: list[str] = []
    i = 0
    while i < len(body) and body[i].lstrip().startswith("#|"):
        opts.append(body[i].lstrip()[2:].removeprefix(" "))
        i += 1
    options: dict[str, Any] = {}
    if opts:
        try:
            loaded = load_yaml("".join(opts))
        except yaml.YAMLError as exc:
            raise QmdError(
                f"{_where(path, line + 1)}: invalid '#|' chunk options: {exc}. "
                "Options are YAML, e.g. '#| fig-cap: \"Accuracy by judge\"'."
            ) from exc
        if loaded is not None and not isinstance(loaded, dict):
            raise QmdError(f"{_where(path, line + 1)}: '#|' options must be 'key: value' lines")
        options = loaded or {}
    return options, "".join(body[i:]).rstrip("\n")


def _code_cell(chunk: _Chunk) -> nbformat.NotebookNode:
    opts = chunk.options
    tags = opts.get("tags") or []
    if isinstance(tags, str):
        tags = [tags]
    tags = [str(t) for t in tags]
    if opts.get("eval") is False:
        tags.append("skip-execution")
    if opts.get("error") is True:
        tags.append("raises-exception")
    meta: dict[str, Any] = {"qmd": opts, "qmd_line": chunk.line}
    if tags:
        meta["tags"] = tags
    return nbformat.v4.new_code_cell(chunk.source, metadata=meta)


def _markdown_cells(text: str) -> list[nbformat.NotebookNode]:
    """Markdown cell, preceded by a hidden cell if it holds inline ```{python} expr```."""
    text = _HTML_COMMENT.sub("", text)
    exprs: list[str] = []

    def _sub(m: re.Match[str]) -> str:
        exprs.append(m.group("expr").strip())
        return _INLINE_PLACEHOLDER.format(len(exprs) - 1)

    # Inline code inside fenced blocks must stay literal.
    parts = re.split(r"(^(?:`{3,}|~{3,}).*?^(?:`{3,}|~{3,})[ \t]*$)", text, flags=re.M | re.S)
    text = "".join(p if i % 2 else _INLINE_CODE.sub(_sub, p) for i, p in enumerate(parts))
    cells = []
    if exprs:
        body = ", ".join(f"str({e})" for e in exprs)
        src = f"__import__('IPython').display.display({{{INLINE_MIME!r}: [{body}]}}, raw=True)"
        cells.append(
            nbformat.v4.new_code_cell(
                src, metadata={"qmd": {"inline": True, "exprs": exprs}, "tags": ["inline"]}
            )
        )
    if text.strip():
        cells.append(nbformat.v4.new_markdown_cell(text.strip("\n")))
    return cells


def parse_qmd(text: str, *, path: str | None = None) -> nbformat.NotebookNode:
    """Parse ``.qmd`` text into an unexecuted notebook.

    ``nb.metadata["qmd"]`` holds the front matter; each code cell's ``metadata["qmd"]`` holds its
    ``#|`` options and ``metadata["qmd_line"]`` the line of its opening fence.
    """
    lines = text.splitlines(keepends=True)
    meta, start = _split_front_matter(lines, path)
    cells: list[nbformat.NotebookNode] = []
    md: list[str] = []
    i = start
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i].rstrip("\n"))
        if not m:
            md.append(lines[i])
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info")
        # Find the closing fence: same character, at least as long, nothing after it.
        j = i + 1
        close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        while j < len(lines) and not close.match(lines[j].rstrip("\n")):
            j += 1
        if j >= len(lines):
            raise QmdError(f"{_where(path, i + 1)}: code fence {fence!r} is never closed")
        chunk_m = _CHUNK_INFO.match(info)
        if chunk_m and not info.startswith("{{"):
            lang = chunk_m.group("lang").lower()
            if lang.startswith("="):  # raw block {=html}: verbatim
                md.extend(lines[i : j + 1])
            elif lang not in ("python", "python3"):
                raise QmdError(
                    f"{_where(path, i + 1)}: '{{{lang}}}' chunks are not supported by the "
                    "built-in renderer (Python only); render with Quarto or convert the chunk."
                )
            else:
                if md:
                    cells.extend(_markdown_cells("".join(md)))
                    md = []
                options, source = _chunk_options(lines[i + 1 : j], path, i + 1)
                rest = chunk_m.group("rest").strip().lstrip(",").strip()
                if rest and "label" not in options:  # ```{python fig-x}``` legacy label
                    options["label"] = rest.split(",")[0].strip()
                cells.append(_code_cell(_Chunk(source, options, i + 1)))
        else:
            md.extend(lines[i : j + 1])  # ordinary or display block, verbatim
        i = j + 1
    if md:
        cells.extend(_markdown_cells("".join(md)))
    nb = nbformat.v4.new_notebook()
    nb.metadata["qmd"] = meta
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = cells
    return nb


def read_qmd(path: str | Path) -> nbformat.NotebookNode:
    """Read and parse a ``.qmd`` file (UTF-8)."""
    p = Path(path)
    return parse_qmd(p.read_text(encoding="utf-8"), path=str(p))


def _parameters_index(nb: nbformat.NotebookNode) -> int | None:
    for idx, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            return idx
    return None


def parameter_names(nb: nbformat.NotebookNode) -> list[str]:
    """Names assigned at top level of the ``#| tags: [parameters]`` cell (in order)."""
    idx = _parameters_index(nb)
    if idx is None:
        return []
    names: list[str] = []
    for node in ast.parse(nb.cells[idx].source).body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for t in targets:
            if isinstance(t, ast.Name) and t.id not in names:
                names.append(t.id)
    return names


def inject_parameters(
    nb: nbformat.NotebookNode, params: dict[str, Any], *, path: str | None = None
) -> nbformat.NotebookNode:
    """Insert an ``injected-parameters`` cell after the parameters cell (papermill/Quarto style).

    Values must be Python literals (str, int, float, bool, None, lists/dicts of these); they are
    written with :func:`repr`. Unknown names raise :class:`QmdError` listing the known ones.
    """
    if not params:
        return nb
    idx = _parameters_index(nb)
    if idx is None:
        raise QmdError(
            f"{path or '<qmd>'}: parameters {sorted(params)} were given but the document has no "
            "cell tagged 'parameters' (add '#| tags: [parameters]' to a chunk with defaults)"
        )
    known = parameter_names(nb)
    unknown = [k for k in params if k not in known]
    if unknown:
        raise QmdError(
            f"{path or '<qmd>'}: unknown parameter(s) {unknown}; the parameters cell "
            f"(line {nb.cells[idx].metadata.get('qmd_line')}) defines {known}"
        )
    lines = ["# Injected parameters"]
    for key, value in params.items():
        text = repr(value)
        try:
            ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise QmdError(
                f"parameter {key!r}: value of type {type(value).__name__} is not a Python literal"
            ) from exc
        lines.append(f"{key} = {text}")
    cell = nbformat.v4.new_code_cell(
        "\n".join(lines), metadata={"tags": ["injected-parameters"], "qmd": {"echo": False}}
    )
    nb.cells.insert(idx + 1, cell)
    return nb
