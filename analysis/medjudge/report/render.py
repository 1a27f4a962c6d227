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
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import nbformat

from .._runtime import KERNEL_START, kernel_environment
from .escape import RAW_TOKEN_ENV
from .notebook_markdown import _front_matter, notebook_to_markdown
from .pandoc import PandocNotFound
from .pandoc import pandoc_path as _pandoc_binary
from .qmd import QmdError, inject_parameters, parse_qmd
from .render_options import (
    _ANSI,
    _EXT,
    PROGRESS_ENV,
    RenderError,
    _asset,
    _doc_option,
    _fig_format,
    _progress_client,
)

__all__ = [
    "RenderError",
    "cancel_renders",
    "render_qmd",
    "execute_notebook",
    "notebook_to_markdown",
    "pandoc_path",
]

Engine = Literal["auto", "builtin", "quarto"]


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


def pandoc_path() -> str:
    """Path of the pandoc binary the renderer runs (:func:`medjudge.report.pandoc.pandoc_path`:
    ``PYPANDOC_PANDOC``, else the one shipped with ``pypandoc_binary``, else PATH)."""
    try:
        return _pandoc_binary()
    except PandocNotFound as exc:  # pragma: no cover - depends on the install
        raise RenderError(str(exc)) from None


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
    progress: Callable[[int, int, str], None] | None = None,
) -> nbformat.NotebookNode:
    """Execute ``nb`` in a fresh ``python3`` kernel (in place) with reproducibility settings.

    The kernel gets ``SOURCE_DATE_EPOCH=0`` (matplotlib otherwise writes the date into SVGs),
    ``PYTHONHASHSEED=0``, the inline matplotlib backend and the process settings of
    :mod:`medjudge._runtime` (one BLAS thread unless the environment says otherwise). A failing chunk raises
    :class:`RenderError` naming the chunk label and ``.qmd`` line. With ``progress``, the kernel
    is asked for the sections it builds (``render_options.kernel_progress``) and
    ``progress(done, total, title)`` is called as each starts; those lines stay out of ``nb``.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    kernel_env = dict(os.environ)
    kernel_env.update(
        {
            "SOURCE_DATE_EPOCH": "0",
            "PYTHONHASHSEED": "0",
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        }
    )
    kernel_env.update(env or {})
    kernel_environment(kernel_env)  # one BLAS thread, allocator settings (medjudge._runtime)
    if progress is not None:
        kernel_env[PROGRESS_ENV] = "1"
    manager = _kernel_manager_class()
    client_class = NotebookClient if progress is None else _progress_client(progress)
    for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
        client = client_class(
            nb,
            kernel_name="python3",
            kernel_manager_class=manager,
            timeout=timeout,
            record_timing=False,
            allow_errors=False,
            # every output has arrived when the last cell is done (nbclient waits for the
            # kernel's idle status): stop the kernel at once instead of asking it to shut down,
            # which took ~1 s of waiting between the last cell and the typesetting
            shutdown_kernel="immediate",
            extra_arguments=[
                "--IPKernelApp.log_level=ERROR",  # silence the TCP warning
                # the kernel's process settings (medjudge._runtime.start_kernel)
                f"--IPKernelApp.exec_lines={KERNEL_START!r}",
            ],
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
        except RuntimeError as exc:
            _check_cancelled(path)
            if not _did_not_start(exc) or _ran_any_cell(nb):
                raise
            if attempt < KERNEL_START_ATTEMPTS:
                continue  # nothing has run: start another kernel
            raise RenderError(
                f"{path}: the Python kernel did not start ({KERNEL_START_ATTEMPTS} attempts): {exc}"
            ) from None
        finally:
            with _ACTIVE_LOCK:
                _ACTIVE.discard(client)
            # nbclient registers a kernel clean-up at exit; after an interrupted run the kernel
            # is gone and that clean-up would print a traceback when Python exits
            cleanup = getattr(client, "_cleanup_kernel", None)
            if cleanup is not None:
                atexit.unregister(cleanup)
        break
    _check_cancelled(path)
    return nb


#: kernels started for one notebook before giving up, when one exits before it answers
KERNEL_START_ATTEMPTS = 3


def _did_not_start(exc: RuntimeError) -> bool:
    """Whether jupyter_client gave up waiting for a new kernel's first answer.

    A kernel can exit at start-up when a port it was given is taken in the meantime — a rare,
    known race of jupyter_client when kernels start at the same moment (jupyter/jupyter_client
    #154, nteract/papermill #511); ``run`` starts two. Nothing has run in it: another kernel is
    started.
    """
    text = str(exc)
    return text.startswith("Kernel died before replying to kernel_info") or text.startswith(
        "Kernel didn't respond"
    )


def _ran_any_cell(nb: nbformat.NotebookNode) -> bool:
    return any(
        c.get("execution_count") is not None or c.get("outputs")
        for c in nb.cells
        if c.cell_type == "code"
    )


def _kernel_manager_class() -> Any:
    """jupyter_client's kernel manager, told where to look for the ``python3`` kernel: its own
    default folders, given explicitly so that it does not import IPython (0.9 s) just to name
    ``~/.ipython/kernels``: ``jupyter_path("kernels")`` and ``$IPYTHONDIR/kernels`` (default
    ``~/.ipython``), as the default of ``KernelSpecManager.kernel_dirs``."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.paths import jupyter_path
    from traitlets import default

    home = os.environ.get("IPYTHONDIR") or os.path.join(os.path.expanduser("~"), ".ipython")

    class KernelManager(AsyncKernelManager):
        @default("kernel_spec_manager")
        def _kernel_spec_manager_default(self) -> KernelSpecManager:
            dirs = [*jupyter_path("kernels"), os.path.join(home, "kernels")]
            return KernelSpecManager(data_dir=self.data_dir, kernel_dirs=dirs)

    return KernelManager


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


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0 and "No space left on device" in proc.stderr:
        # the disk is full, not the report broken: an OSError (one line naming the path, exit 2)
        name = cmd[cmd.index("--output") + 1] if "--output" in cmd else ""
        raise OSError(28, os.strerror(28), str(cwd / name))  # errno.ENOSPC
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
    progress: Callable[[str, int, int], None] | None = None,
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
    # a secret per render, given to its kernel only: the kernel marks medjudge's own raw HTML
    # with it, so that user text printed by a chunk cannot smuggle raw blocks past
    # neutralise_raw_markdown (this process's environment is left as it was)
    token = secrets.token_hex(16)
    env = {**env, RAW_TOKEN_ENV: token}
    steps = [0]  # the sections the kernel builds, then one step of typesetting

    def section(done: int, total: int, title: str) -> None:
        steps[0] = total
        if progress is not None:
            progress(f"section {title}", done, total + 1)

    execute_notebook(
        nb, cwd=src.parent, path=str(src), timeout=timeout, env=env,
        progress=None if progress is None else section,
    )  # fmt: skip
    nbformat.write(nb, work / f"{src.stem}.ipynb")
    if progress is not None:
        progress(f"typesetting {', '.join(formats)}", steps[0], steps[0] + 1)

    stem = src.stem
    jobs: list[tuple[str, Path, list[str]]] = []
    for fmt in formats:
        rel = f"{stem}_files"
        body = notebook_to_markdown(
            nb, fmt=fmt, files_dir=work / rel, rel_files=rel, raw_token=token
        )
        head, flags = _front_matter(meta, fmt, stem, src.parent)
        md = work / f"{stem}.{fmt}.md"
        md.write_text(head + body, encoding="utf-8")
        jobs.append((fmt, md, flags))
    # pandoc (HTML) and pandoc + typst (PDF) are separate programs on separate files: run
    # them side by side (the other core is often free by now)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {
            fmt: pool.submit(_typeset, md, fmt, flags, work, stem) for fmt, md, flags in jobs
        }
        produced = {fmt: f.result() for fmt, f in futures.items()}
    if progress is not None:
        progress("done", steps[0] + 1, steps[0] + 1)
    return produced


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
    progress: Callable[[str, int, int], None] | None = None,
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
        ``"auto"``: builtin (the command line asks for Quarto when ``MEDJUDGE_ENGINE=quarto``
        is set and Quarto is installed).
    command
        The command line to show in the report's provenance (kernel env ``MEDJUDGE_COMMAND``).
    keep_intermediates
        Also move the executed ``.ipynb``, the markdown and the ``.typ`` into ``out_dir``.
    timeout
        Per-chunk execution timeout in seconds.
    env
        Extra environment variables for the kernel.
    progress
        ``progress(step, done, total)`` as each step starts: the report's sections (templates
        that pass :func:`~medjudge.report.render_options.kernel_progress`), then typesetting, and
        ``(…, total, total)`` when done (built-in engine).

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
    if engine == "auto":  # the command line turns MEDJUDGE_ENGINE=quarto into "quarto"
        engine = "builtin"
    if engine not in ("builtin", "quarto"):
        raise ValueError(f"engine must be 'auto', 'builtin' or 'quarto', not {engine!r}")
    env = {**(env or {}), "MEDJUDGE_COMMAND": command or ""}

    work = Path(tempfile.mkdtemp(prefix=f".{src.stem}-render-", dir=dest))
    try:
        if engine == "quarto":
            produced = _render_quarto(src, formats, work, params or {}, env, metadata)
        else:
            produced = _render_builtin(
                src, formats, work, params or {}, env, timeout, metadata=metadata,
                progress=progress,
            )  # fmt: skip
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
