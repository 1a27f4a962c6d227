"""Which pandoc the built-in renderer runs, and its version (for the provenance section).

The binary shipped with ``pypandoc_binary`` is used as it is, unless ``PYPANDOC_PANDOC`` names
another (as in pypandoc). pypandoc's own lookup runs ``pandoc --version`` on every candidate
path to pick the newest: that cost ~0.2 s per process, and a pandoc found elsewhere on the
machine would make the reports depend on it.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from pathlib import Path

__all__ = ["pandoc_path", "pandoc_version"]


class PandocNotFound(OSError):
    """No pandoc binary: the report extra is not installed."""


@functools.cache
def pandoc_path() -> str:
    """Path of the pandoc binary: ``PYPANDOC_PANDOC``, else ``pypandoc_binary``'s, else PATH.

    Raises
    ------
    PandocNotFound
        When there is none.

    Examples
    --------
    >>> from medjudge.report.pandoc import pandoc_path
    >>> Path(pandoc_path()).name.startswith("pandoc")  # doctest: +SKIP
    True
    """
    chosen = os.environ.get("PYPANDOC_PANDOC")
    if chosen:
        return chosen
    try:
        import pypandoc

        name = "pandoc.exe" if os.name == "nt" else "pandoc"
        shipped = Path(pypandoc.__file__).resolve().parent / "files" / name
        if shipped.is_file() and os.access(shipped, os.X_OK):
            return str(shipped)
        return pypandoc.get_pandoc_path()
    except (ImportError, OSError):
        found = shutil.which("pandoc")
        if found:
            return found
        raise PandocNotFound(
            "pandoc not found: install the report extra (pip install 'medjudge[report]')"
        ) from None


@functools.cache
def pandoc_version() -> str:
    """Version of :func:`pandoc_path`'s binary (``"3.9.0.2"``), read from ``pandoc --version``.

    Raises
    ------
    PandocNotFound
        When there is no pandoc or it does not run.
    """
    path = pandoc_path()
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise PandocNotFound(f"pandoc at {path} does not run: {exc}") from None
    first = out.splitlines()[0] if out else ""
    for token in first.split():
        if re.fullmatch(r"\d+(\.\d+)+", token):
            return token
    raise PandocNotFound(f"pandoc at {path} printed no version: {first!r}")
