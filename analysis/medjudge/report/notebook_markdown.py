"""From an executed notebook to pandoc Markdown: outputs, figures, inline values, front matter.

The writer of the ``builtin`` engine (:mod:`medjudge.report.render`): every cell output becomes
Markdown (text, tables, figure files with their width, inline ``{python}`` values), and the
document's metadata becomes pandoc front matter with the theme's CSS.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat

from .escape import markdown as _escape_markdown
from .escape import neutralise_raw_markdown
from .qmd import INLINE_MIME
from .render_options import (
    _ANSI,
    _DROP_META,
    RenderError,
    _asset,
    _doc_option,
    _execute_defaults,
    _fig_format,
    _format_options,
)


def _md_escape(text: str) -> str:
    """Escape a value for literal use in pandoc markdown (no raw HTML, no emphasis...)."""
    return _escape_markdown(text)


def _fence(text: str, info: str = "") -> str:
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}\n"


def _source(data: Any) -> str:
    return "".join(data) if isinstance(data, list) else str(data)


#: Text width of the page (A4 with the default margins), in inches; wider figures are scaled.
TEXT_WIDTH_IN = 6.5


def _width_attr(payload: Any, ext: str, dpi: float) -> str:
    """``width=…in`` from the figure's own size (so ``fig-width`` is honoured), at most the
    text width (``width=100%``)."""
    width_in = None
    try:
        if ext == "svg":
            m = re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', _source(payload)[:2000])
            width_in = float(m.group(1)) / 72.0 if m else None
        else:
            head = base64.b64decode(_source(payload)[:64])
            width_in = int.from_bytes(head[16:20], "big") / float(dpi)
    except (ValueError, IndexError):
        width_in = None
    if not width_in or width_in >= TEXT_WIDTH_IN:
        return "width=100%"
    return f"width={width_in:.2f}in"


def _outputs_markdown(
    cell: nbformat.NotebookNode,
    opts: Mapping[str, Any],
    fig_format: str,
    files_dir: Path,
    rel_files: str,
    idx: int,
    dpi: float = 150.0,
    raw_token: str | None = None,
) -> list[str]:
    parts: list[str] = []
    label = str(opts.get("label") or "")
    fig_cap = opts.get("fig-cap")
    fig_count = 0
    asis = opts.get("output") == "asis"
    streams: list[tuple[str, str]] = []

    def flush_streams() -> None:
        while streams:
            name, text = streams.pop(0)
            if asis and name == "stdout":
                parts.append(neutralise_raw_markdown(text.rstrip("\n"), raw_token) + "\n")
            else:
                parts.append(_fence(text, "{.text .cell-output}"))

    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            if out.get("name") == "stderr" and not opts.get("warning", True):
                continue
            text = _ANSI.sub("", _source(out.get("text", "")))
            if streams and streams[-1][0] == out.get("name"):
                streams[-1] = (streams[-1][0], streams[-1][1] + text)
            else:
                streams.append((out.get("name", "stdout"), text))
            continue
        flush_streams()
        if kind == "error":
            tb = _ANSI.sub("", "\n".join(out.get("traceback", [])))
            parts.append(_fence(tb, "{.text .cell-error}"))
            continue
        data = out.get("data", {})
        if INLINE_MIME in data:
            continue
        image = next(
            (m for m in (f"image/{'svg+xml' if fig_format == 'svg' else 'png'}",
                         "image/png", "image/svg+xml") if m in data),
            None,
        )  # fmt: skip
        if image:
            ext = "svg" if image == "image/svg+xml" else "png"
            fig_count += 1
            name = f"cell{idx:03d}-{fig_count}.{ext}"
            payload = data[image]
            if ext == "png":
                (files_dir / name).write_bytes(base64.b64decode(_source(payload)))
            else:
                (files_dir / name).write_text(_source(payload), encoding="utf-8")
            attrs = _width_attr(payload, ext, dpi)
            if fig_count == 1 and label.startswith("fig-"):
                attrs = f"#{label} {attrs}"
            cap = str(fig_cap) if fig_cap and fig_count == 1 else ""
            parts.append(f"![{cap}]({rel_files}/{name}){{{attrs}}}\n")
        elif "text/html" in data and "<table" in _source(data["text/html"]):
            parts.append(_fence(_source(data["text/html"]), "{=html}"))
        elif "text/markdown" in data:
            parts.append(
                neutralise_raw_markdown(_source(data["text/markdown"]).rstrip("\n"), raw_token)
                + "\n"
            )
        elif "text/html" in data:
            parts.append(_fence(_source(data["text/html"]), "{=html}"))
        elif "text/latex" in data:
            parts.append(_source(data["text/latex"]).rstrip("\n") + "\n")
        elif "text/plain" in data:
            parts.append(_fence(_source(data["text/plain"]), "{.text .cell-output}"))
    flush_streams()
    if label.startswith("tbl-"):
        cap = opts.get("tbl-cap")
        inner = "\n".join(parts)
        caption = f"::: {{.qmd-caption}}\n{cap}\n:::\n" if cap else ""
        return [f":::: {{#{label}}}\n{inner}\n{caption}::::\n"]
    return parts


def notebook_to_markdown(
    nb: nbformat.NotebookNode,
    *,
    fmt: str,
    files_dir: Path,
    rel_files: str,
    raw_token: str | None = None,
) -> str:
    """Pandoc markdown (without front matter) for an executed notebook and output format.

    Figures are written into ``files_dir`` as PNG or SVG per the document's ``fig-format``.
    Inline values are inserted as escaped text; cell outputs honour ``echo``, ``warning``,
    ``output`` (incl. ``asis``), ``include`` and ``error``.
    """
    meta = nb.metadata.get("qmd", {})
    defaults = _execute_defaults(meta)
    fig_format = _fig_format(meta, fmt)
    dpi = float(_doc_option(meta, "fig-dpi", [fmt], 150))
    files_dir.mkdir(parents=True, exist_ok=True)
    chunks: list[str] = []
    inline_values: list[str] | None = None
    for idx, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            text = cell.source
            if "\x00MJINLINE" in text:
                text = _fill_inline(text, inline_values)
            inline_values = None
            chunks.append(text.rstrip("\n") + "\n")
            continue
        if cell.cell_type != "code":
            continue
        cell_opts = cell.metadata.get("qmd", {})
        if cell_opts.get("inline"):
            inline_values = _inline_values(cell)
            continue
        if "qmd-setup" in tags:
            continue
        opts = {**defaults, **cell_opts}
        if opts.get("include") is False:
            continue
        if opts.get("echo") is True and "injected-parameters" not in tags:
            chunks.append(_fence(cell.source, "{.python .cell-code}"))
        if opts.get("output") is False:
            continue
        chunks.extend(
            _outputs_markdown(
                cell, opts, fig_format, files_dir, rel_files, idx, dpi=dpi, raw_token=raw_token
            )
        )
    return "\n".join(chunks)


def _inline_values(cell: nbformat.NotebookNode) -> list[str] | None:
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if INLINE_MIME in data:
            return [str(v) for v in data[INLINE_MIME]]
    return None


def _fill_inline(text: str, values: list[str] | None) -> str:
    def sub(m: re.Match[str]) -> str:
        i = int(m.group(1))
        if values is None or i >= len(values):
            return "`?`"
        return _md_escape(values[i])

    return re.sub(r"\x00MJINLINE(\d+)\x00", sub, text)


def _resolve(name: str, src_dir: Path | None) -> str:
    """A file named in the front matter, relative to the ``.qmd``'s directory."""
    p = Path(name)
    if not p.is_absolute() and src_dir is not None:
        p = src_dir / p
    if not p.is_file():
        raise RenderError(f"file named in the front matter not found: {name} (looked at {p})")
    return str(p.resolve())


#: Quarto theme names with a dark background; everything else renders on the light style.
_DARK_THEMES = {"darkly", "cyborg", "slate", "superhero", "solar", "vapor", "quartz"}


def _theme_css(theme: Any, src_dir: Path | None) -> list[str]:
    """Extra stylesheets for the ``theme`` option: a ``.css`` file is used as is; the dark
    Bootswatch names get the built-in dark style; other names keep the default look."""
    names = theme.get("light", theme.get("dark")) if isinstance(theme, Mapping) else theme
    out: list[str] = []
    for t in [names] if isinstance(names, str) else list(names or []):
        if str(t).endswith(".css"):
            out.append(_resolve(str(t), src_dir))
        elif str(t).lower() in _DARK_THEMES:
            out.append(str(_asset("theme-dark.css")))
        elif str(t).lower() in (
            "cosmo",
            "flatly",
            "litera",
            "lumen",
            "minty",
            "sandstone",
            "simplex",
            "spacelab",
            "united",
            "yeti",
            "zephyr",
            "lux",
            "pulse",
            "sketchy",
            "materia",
            "journal",
            "cerulean",
        ):
            out.append(str(_asset("theme-sans.css")))
    return out


def _front_matter(
    meta: Mapping[str, Any], fmt: str, stem: str, src_dir: Path | None = None
) -> tuple[str, list[str]]:
    """YAML block for pandoc plus extra command-line flags, for one format."""
    import yaml

    opts = _format_options(meta, fmt)
    merged = {k: v for k, v in meta.items() if k not in _DROP_META}
    merged.update({k: v for k, v in opts.items() if k not in _DROP_META})
    flags: list[str] = []
    if merged.get("bibliography"):
        bibs = merged["bibliography"]
        bibs = [bibs] if isinstance(bibs, str) else list(bibs)
        merged["bibliography"] = [_resolve(b, src_dir) for b in bibs]
        if merged.get("csl"):
            merged["csl"] = _resolve(str(merged["csl"]), src_dir)
        merged.setdefault("link-citations", True)
        flags.append("--citeproc")
    if fmt == "html":
        flags += [
            f"--css={c}" for c in _theme_css(_doc_option(meta, "theme", [fmt], None), src_dir)
        ]
        css = merged.pop("css", None)
        for c in [css] if isinstance(css, str) else list(css or []):
            flags.append(f"--css={_resolve(c, src_dir)}")
    if _doc_option(meta, "toc", [fmt], False):
        flags.append("--toc")
        depth = _doc_option(meta, "toc-depth", [fmt], None)
        if depth:
            flags.append(f"--toc-depth={int(depth)}")
    if fmt == "html" and _doc_option(meta, "number-sections", [fmt], False):
        flags.append("--number-sections")
    if fmt == "html" and "title" not in merged:
        merged.setdefault("pagetitle", stem)
    if fmt == "pdf":
        merged.setdefault("papersize", "a4")
        merged.setdefault("margin", {"x": "2.2cm", "y": "2.4cm"})
        merged.setdefault("fontsize", "10.5pt")
        if _doc_option(meta, "number-sections", [fmt], False):
            merged.setdefault("section-numbering", "1.1")
    text = yaml.safe_dump(merged, sort_keys=True, allow_unicode=True, default_flow_style=False)
    return f"---\n{text}---\n\n", flags
