"""Render Quarto ``.qmd`` reports to self-contained HTML and PDF.

Two engines:

* ``builtin`` (pip only; the default): :mod:`medjudge.report.qmd` parses the document into a
  notebook, the parameters are injected after the ``#| tags: [parameters]`` cell
  (papermill/Quarto style), :mod:`nbclient` executes it, a small writer turns the outputs into
  pandoc markdown plus figure files, and pandoc 3.9 (``pypandoc_binary``) with ``qmd.lua``
  writes HTML (``--embed-resources --mathml``) and typst, which the ``typst`` package compiles
  to PDF. Output is byte-identical across runs with the same inputs (``SOURCE_DATE_EPOCH=0``
  in the kernel, fixed ``svg.hashsalt``, ``record_timing=False``, ``typst timestamp=0`` and
  typst's embedded fonts only).
* ``quarto``: ``quarto render`` when the binary is on ``PATH`` and explicitly asked for.

Outputs are written to a temporary directory inside ``out_dir`` and moved into place with
:func:`os.replace`, so a failed or interrupted render never leaves a half-written report in
place of a good one.

"""

from __future__ import annotations

import atexit
import base64
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import nbformat

from .._threads import one_blas_thread
from .escape import RAW_TOKEN_ENV, neutralise_raw_markdown
from .escape import markdown as _escape_markdown
from .qmd import INLINE_MIME, QmdError, inject_parameters, parse_qmd

__all__ = [
    "RenderError",
    "cancel_renders",
    "render_qmd",
    "execute_notebook",
    "notebook_to_markdown",
    "pandoc_path",
]

Engine = Literal["auto", "builtin", "quarto"]

_EXT = {"html": "html", "pdf": "pdf"}
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


# ---------------------------------------------------------------------------- cancellation
_ACTIVE: set[Any] = set()
_ACTIVE_LOCK = threading.Lock()
_CANCELLED = threading.Event()


def cancel_renders() -> None:
    """Stop every report kernel of this process now (Ctrl-C/SIGTERM while rendering).

    Renders running in other threads then fail quickly with :class:`RenderError`, their
    temporary folders are removed, and no new kernel starts until :func:`allow_renders`.
    """
    _CANCELLED.set()
    with _ACTIVE_LOCK:
        clients = list(_ACTIVE)
    for client in clients:
        km = getattr(client, "km", None)
        proc = getattr(getattr(km, "provisioner", None), "process", None) or getattr(
            km, "kernel", None
        )
        pid = getattr(proc, "pid", None)
        if pid:
            try:
                os.kill(pid, 9)
            except OSError:
                pass


def allow_renders() -> None:
    """Undo :func:`cancel_renders` (called at the start of a new set of renders)."""
    _CANCELLED.clear()


def _check_cancelled(path: str) -> None:
    if _CANCELLED.is_set():
        raise RenderError(f"{path}: rendering was interrupted")


# ---------------------------------------------------------------------------- helpers
def _asset(name: str) -> Path:
    return Path(str(resources.files("medjudge.report") / "assets" / name))


def pandoc_path() -> str:
    """Path of the pandoc binary shipped with ``pypandoc_binary`` (falls back to PATH)."""
    try:
        import pypandoc

        return pypandoc.get_pandoc_path()
    except (ImportError, OSError) as exc:  # pragma: no cover - depends on the install
        found = shutil.which("pandoc")
        if found:
            return found
        raise RenderError(
            "pandoc not found: install the report extra (pip install 'medjudge[report]')"
        ) from exc


def _normalise_to(to: str | Iterable[str]) -> list[str]:
    items = [t.strip().lower() for t in (to.split(",") if isinstance(to, str) else to)]
    out: list[str] = []
    for t in items:
        t = {"typst": "pdf", "html5": "html"}.get(t, t)
        if t not in _EXT:
            raise ValueError(f"unknown output format {t!r}; use 'html' and/or 'pdf'")
        if t not in out:
            out.append(t)
    if not out:
        raise ValueError("no output format requested")
    return out


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


def _setup_source(formats: Sequence[str], figsize: tuple[float, float], dpi: float) -> str:
    return (
        "import matplotlib as _mj_mpl\n"
        "import matplotlib.pyplot as _mj_plt  # activate the inline backend first\n"
        "from matplotlib_inline.backend_inline import set_matplotlib_formats as _mj_fmt\n"
        f"_mj_fmt(*{list(formats)!r})\n"
        "_mj_mpl.rcParams.update({'svg.hashsalt': 'medjudge', 'svg.fonttype': 'path', "
        f"'figure.figsize': {list(figsize)!r}, 'figure.dpi': {dpi!r}, "
        "'figure.facecolor': 'white', 'savefig.facecolor': 'white'})\n"
        "del _mj_mpl, _mj_plt, _mj_fmt\n"
    )


# ---------------------------------------------------------------------------- execution
def execute_notebook(
    nb: nbformat.NotebookNode,
    *,
    cwd: str | Path,
    path: str = "<qmd>",
    timeout: int = 600,
    env: Mapping[str, str] | None = None,
) -> nbformat.NotebookNode:
    """Execute ``nb`` in a fresh ``python3`` kernel (in place) with reproducibility settings.

    The kernel gets ``SOURCE_DATE_EPOCH=0`` (matplotlib otherwise writes the date into SVGs),
    ``PYTHONHASHSEED=0``, the inline matplotlib backend and one BLAS thread unless the
    environment says otherwise (:mod:`medjudge._threads`). A failing chunk raises
    :class:`RenderError` naming the chunk label and ``.qmd`` line.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    # a secret per renderer process: the kernels mark medjudge's own raw HTML with it, so that
    # user text printed by a chunk cannot smuggle raw blocks past neutralise_raw_markdown
    os.environ.setdefault(RAW_TOKEN_ENV, secrets.token_hex(16))
    kernel_env = dict(os.environ)
    kernel_env.update(
        {
            "SOURCE_DATE_EPOCH": "0",
            "PYTHONHASHSEED": "0",
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            "MEDJUDGE_RENDER": "1",
        }
    )
    kernel_env.update(env or {})
    one_blas_thread(kernel_env)  # two kernels side by side: no spin-waiting BLAS helpers
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=timeout,
        record_timing=False,
        allow_errors=False,
        extra_arguments=["--IPKernelApp.log_level=ERROR"],  # silence the TCP warning
        resources={"metadata": {"path": str(cwd)}},
    )
    _check_cancelled(path)
    with _ACTIVE_LOCK:
        _ACTIVE.add(client)
    try:
        # the kernel process's own stderr (not the cells') would print tracebacks of its
        # shutdown on Ctrl-C; the cells' output reaches the report through the notebook
        client.execute(env=kernel_env, stderr=subprocess.DEVNULL)
    except CellExecutionError as exc:
        raise _chunk_error(nb, path, exc) from None
    except CellTimeoutError as exc:
        raise RenderError(f"{path}: a chunk exceeded the {timeout}s timeout: {exc}") from None
    except DeadKernelError as exc:
        _check_cancelled(path)
        raise RenderError(f"{path}: the Python kernel died during execution: {exc}") from None
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE.discard(client)
        # nbclient registers a kernel clean-up at exit; after an interrupted run the kernel is
        # gone and that clean-up would print a traceback when Python exits
        cleanup = getattr(client, "_cleanup_kernel", None)
        if cleanup is not None:
            atexit.unregister(cleanup)
    _check_cancelled(path)
    return nb


def _chunk_error(nb: nbformat.NotebookNode, path: str, exc: Exception) -> RenderError:
    for idx, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "raises-exception" in cell.metadata.get("tags", []):
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                tb = _ANSI.sub("", "\n".join(out.get("traceback", [])))
                line = cell.metadata.get("qmd_line")
                opts = cell.metadata.get("qmd", {})
                label = opts.get("label")
                if "injected-parameters" in cell.metadata.get("tags", []):
                    what = "the injected parameters"
                elif "qmd-setup" in cell.metadata.get("tags", []):
                    what = "the renderer's setup cell"
                elif opts.get("inline"):
                    what = f"an inline expression {opts.get('exprs')}"
                else:
                    what = f"chunk '{label}'" if label else f"chunk #{idx}"
                where = f"{path}:{line}" if line else path
                msg = (
                    f"{where}: {what} raised {out.get('ename')}: {out.get('evalue')}\n"
                    f"(set '#| error: true' on the chunk to show the error in the report instead)"
                )
                return RenderError(msg, traceback=tb)
    return RenderError(f"{path}: execution failed: {exc}")


# ---------------------------------------------------------------------------- writer
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
                parts.append(neutralise_raw_markdown(text.rstrip("\n")) + "\n")
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
                neutralise_raw_markdown(_source(data["text/markdown"]).rstrip("\n")) + "\n"
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
        chunks.extend(_outputs_markdown(cell, opts, fig_format, files_dir, rel_files, idx, dpi=dpi))
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


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RenderError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr.strip()}")


def _pandoc(md: Path, out: Path, fmt: str, flags: list[str], cwd: Path) -> None:
    cmd = [
        pandoc_path(), md.name, "--from", "markdown-raw_html", "--standalone",
        "--lua-filter", str(_asset("qmd.lua")), "--lua-filter", str(_asset("safe-resources.lua")),
        "--resource-path", str(cwd), *flags,
    ]  # fmt: skip
    if fmt == "html":
        cmd += [
            "--to",
            "html5",
            "--embed-resources",
            "--mathml",
            "--css",
            str(_asset("report.css")),
        ]
    else:
        cmd += ["--to", "typst", "--include-in-header", str(_asset("typst-header.typ"))]
    cmd += ["--output", out.name]
    _run(cmd, cwd, f"pandoc ({fmt})")


def _typst_compile(typ: Path, pdf: Path, root: Path) -> None:
    import typst

    fonts = _asset("fonts")
    try:
        typst.compile(
            str(typ),
            output=str(pdf),
            root=str(root),
            timestamp=0,
            ignore_system_fonts=True,
            font_paths=[str(fonts)] if fonts.is_dir() else [],
        )
    except Exception as exc:  # typst raises its own error types
        raise RenderError(f"typst failed on {typ.name}: {exc}") from None


# ---------------------------------------------------------------------------- engines
def _render_builtin(
    src: Path,
    formats: list[str],
    work: Path,
    params: Mapping[str, Any],
    env: Mapping[str, str],
    timeout: int,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Path]:
    text = src.read_text(encoding="utf-8")
    try:
        nb = parse_qmd(text, path=str(src))
        inject_parameters(nb, dict(params), path=str(src))
    except QmdError as exc:
        raise RenderError(str(exc)) from None
    meta = nb.metadata["qmd"]
    meta.update({k: v for k, v in (metadata or {}).items() if v is not None})
    fig_formats = sorted({_fig_format(meta, f) for f in formats})
    width = float(_doc_option(meta, "fig-width", formats, 6.5))
    height = float(_doc_option(meta, "fig-height", formats, 4.0))
    dpi = float(_doc_option(meta, "fig-dpi", formats, 150))
    setup = nbformat.v4.new_code_cell(
        _setup_source(fig_formats, (width, height), dpi), metadata={"tags": ["qmd-setup"]}
    )
    nb.cells.insert(0, setup)
    execute_notebook(nb, cwd=src.parent, path=str(src), timeout=timeout, env=env)
    nbformat.write(nb, work / f"{src.stem}.ipynb")

    stem = src.stem
    jobs: list[tuple[str, Path, list[str]]] = []
    for fmt in formats:
        rel = f"{stem}_files"
        body = notebook_to_markdown(nb, fmt=fmt, files_dir=work / rel, rel_files=rel)
        head, flags = _front_matter(meta, fmt, stem, src.parent)
        md = work / f"{stem}.{fmt}.md"
        md.write_text(head + body, encoding="utf-8")
        jobs.append((fmt, md, flags))
    if len(jobs) == 1:
        fmt, md, flags = jobs[0]
        return {fmt: _typeset(md, fmt, flags, work, stem)}
    # pandoc (HTML) and pandoc + typst (PDF) are separate programs on separate files: run
    # them side by side (the other core is often free by now)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {
            fmt: pool.submit(_typeset, md, fmt, flags, work, stem) for fmt, md, flags in jobs
        }
        return {fmt: f.result() for fmt, f in futures.items()}


def _typeset(md: Path, fmt: str, flags: list[str], work: Path, stem: str) -> Path:
    """Turn the pandoc markdown ``md`` into ``work/<stem>.html`` or ``.pdf``.

    Parameters
    ----------
    md : pathlib.Path
        The markdown written for this format (front matter included).
    fmt : str
        ``"html"`` or ``"pdf"``.
    flags : list of str
        Extra pandoc options from the front matter.
    work : pathlib.Path
        The render's private folder (figures and outputs live there).
    stem : str
        Name of the outputs.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    if fmt == "html":
        out = work / f"{stem}.html"
        _pandoc(md, out, "html", flags, work)
        return out
    typ = work / f"{stem}.typ"
    _pandoc(md, typ, "pdf", flags, work)
    # pandoc starts figure captions with a newline, which typst renders as a second
    # space after "Figure 1:".
    source = typ.read_text(encoding="utf-8")
    typ.write_text(re.sub(r"caption: \[\s+", "caption: [", source), encoding="utf-8")
    out = work / f"{stem}.pdf"
    _typst_compile(typ, out, work)
    return out


def _render_quarto(
    src: Path,
    formats: list[str],
    work: Path,
    params: Mapping[str, Any],
    env: Mapping[str, str],
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Path]:  # pragma: no cover - needs the quarto binary
    import yaml

    quarto = shutil.which("quarto")
    if not quarto:
        raise RenderError("engine='quarto' was requested but 'quarto' is not on PATH")
    cmd_env = {**os.environ, "SOURCE_DATE_EPOCH": "0", **env}
    results: dict[str, Path] = {}
    for fmt in formats:
        cmd = [quarto, "render", str(src), "--to", "typst" if fmt == "pdf" else "html"]
        cmd += ["--output-dir", str(work)]
        for key, value in (metadata or {}).items():
            if value is not None:
                cmd += ["-M", f"{key}:{value}"]
        if params:
            pfile = work / "params.yml"
            pfile.write_text(yaml.safe_dump(dict(params), sort_keys=True), encoding="utf-8")
            cmd += ["--execute-params", str(pfile)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=cmd_env, check=False)
        if proc.returncode != 0:
            raise RenderError(f"quarto render failed (exit {proc.returncode}):\n{proc.stderr}")
        out = work / f"{src.stem}.{_EXT[fmt]}"
        if not out.exists():
            raise RenderError(f"quarto render did not produce {out.name} in {work}")
        results[fmt] = out
    return results


def render_qmd(
    path: str | Path,
    *,
    to: str | Iterable[str] = ("html", "pdf"),
    out_dir: str | Path | None = None,
    params: Mapping[str, Any] | None = None,
    engine: Engine = "auto",
    command: str | None = None,
    keep_intermediates: bool = False,
    timeout: int = 600,
    metadata: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Path]:
    """Render a ``.qmd`` report; return ``{"html": Path, "pdf": Path}`` for the formats asked.

    ``metadata`` overrides front-matter keys (``title``, ``subtitle``, ``author``, ``date``),
    like ``quarto render -M key:value``.

    Parameters
    ----------
    path
        The ``.qmd`` source. Chunks run with the source's directory as working directory.
    to
        ``"html"``, ``"pdf"`` (typst), a comma-separated string or an iterable of these.
    out_dir
        Destination directory (created if needed); default: the source's directory. Files are
        named ``<stem>.html`` / ``<stem>.pdf`` and replaced atomically.
    params
        Values for names assigned in the ``#| tags: [parameters]`` chunk (Python literals).
    engine
        ``"builtin"`` (pip-only path), ``"quarto"`` (``quarto render``; must be on PATH), or
        ``"auto"``: builtin, unless ``MEDJUDGE_ENGINE=quarto`` is set and Quarto is installed.
    command
        The command line to show in the report's provenance (kernel env ``MEDJUDGE_COMMAND``).
    keep_intermediates
        Also move the executed ``.ipynb``, the markdown and the ``.typ`` into ``out_dir``.
    timeout
        Per-chunk execution timeout in seconds.
    env
        Extra environment variables for the kernel (e.g.
        :data:`medjudge.report.shared.SHARED_ENV`, the precomputed study and results).

    Raises
    ------
    RenderError
        With the chunk label, ``.qmd`` line and exception for a failing chunk; pandoc/typst
        messages otherwise. Previously rendered outputs are left untouched.
    """
    src = Path(path).resolve()
    if not src.is_file():
        raise FileNotFoundError(f"report source not found: {src}")
    formats = _normalise_to(to)
    dest = Path(out_dir).resolve() if out_dir is not None else src.parent
    dest.mkdir(parents=True, exist_ok=True)
    if engine == "auto":
        wants = os.environ.get("MEDJUDGE_ENGINE", "").lower() == "quarto"
        engine = "quarto" if wants and shutil.which("quarto") else "builtin"
    if engine not in ("builtin", "quarto"):
        raise ValueError(f"engine must be 'auto', 'builtin' or 'quarto', not {engine!r}")
    env = {**(env or {}), "MEDJUDGE_COMMAND": command or ""}

    work = Path(tempfile.mkdtemp(prefix=f".{src.stem}-render-", dir=dest))
    try:
        if engine == "quarto":
            produced = _render_quarto(src, formats, work, params or {}, env, metadata)
        else:
            produced = _render_builtin(
                src, formats, work, params or {}, env, timeout, metadata=metadata
            )
        final: dict[str, Path] = {}
        if keep_intermediates:
            for extra in sorted(work.glob(f"{src.stem}.*")):
                if extra.suffix in (".ipynb", ".md", ".typ"):
                    os.replace(extra, dest / extra.name)
        for fmt in formats:
            target = dest / f"{src.stem}.{_EXT[fmt]}"
            os.replace(produced[fmt], target)  # atomic on the same filesystem
            final[fmt] = target
        return final
    finally:
        shutil.rmtree(work, ignore_errors=True)
