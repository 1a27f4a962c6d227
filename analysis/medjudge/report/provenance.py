"""Provenance for reports: what went in, with which settings and software.

No timestamps and no host names are recorded, so two renders of the same inputs give the
same provenance (and byte-identical reports).
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from .pandoc import PandocNotFound, pandoc_version

__all__ = ["sha256_file", "package_versions", "collect_provenance", "provenance_frame"]

#: Packages whose versions are reported: those that compute the numbers and draw the figures
#: (missing ones show as "not installed"). The cross-check libraries of the ``crosscheck`` extra
#: (pingouin, krippendorff) produce no number of a report and are not listed.
PACKAGES = (
    "medjudge",
    "numpy",
    "pandas",
    "scipy",
    "statsmodels",
    "matplotlib",
)


def sha256_file(path: str | Path, *, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk_size):
            digest.update(block)
    return digest.hexdigest()


def _input_files(paths: Iterable[str | Path]) -> list[tuple[str, Path]]:
    """(display name, path) for files, expanding directories recursively in sorted order."""
    out: list[tuple[str, Path]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(q for q in p.rglob("*") if q.is_file()):
                out.append((f"{p.name}/{f.relative_to(p).as_posix()}", f))
        elif p.is_file():
            out.append((p.name if p.is_absolute() else p.as_posix(), p))
        else:
            raise FileNotFoundError(f"provenance input not found: {p}")
    return out


def package_versions(extra: Iterable[str] = ()) -> dict[str, str]:
    """Versions of the analysis stack, pandoc and typst (``"not installed"`` if absent)."""
    versions: dict[str, str] = {"python": platform.python_version()}
    for name in (*PACKAGES, *extra):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"

    try:
        versions["pandoc"] = pandoc_version()
    except PandocNotFound:
        versions["pandoc"] = "not installed"
    try:
        versions["typst (python)"] = metadata.version("typst")
    except metadata.PackageNotFoundError:
        versions["typst (python)"] = "not installed"
    return versions


def _command_line(command: str | Iterable[str] | None) -> str:
    if command is None:
        # Set by medjudge.report.render for report kernels; sys.argv there is the kernel's.
        env = os.environ.get("MEDJUDGE_COMMAND")
        if env is not None:
            return env or "(not recorded)"
        return " ".join(sys.argv) if sys.argv and sys.argv[0] else "(interactive)"
    if isinstance(command, str):
        return command
    import shlex

    return shlex.join(list(command))


def collect_provenance(
    inputs: Iterable[str | Path] = (),
    *,
    seed: int | None = None,
    resamples: int | None = None,
    policies: Mapping[str, Any] | None = None,
    command: str | Iterable[str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Provenance record for a report.

    Parameters
    ----------
    inputs
        Files or directories (hashed file by file, sorted) that the analysis read.
    seed, resamples
        The resampling settings used.
    policies
        Named analysis choices, e.g. ``{"invalid verdicts": "count as wrong",
        "gold label": "expert majority (ties: excluded)"}``.
    command
        The command line; default: ``MEDJUDGE_COMMAND`` (set by the renderer) or ``sys.argv``.
    extra
        Any other settings to record.

    Returns
    -------
    dict with keys ``inputs`` (``{name: sha256}``), ``settings``, ``policies``, ``versions``
    and ``command``.
    """
    settings: dict[str, Any] = {}
    if seed is not None:
        settings["seed"] = seed
    if resamples is not None:
        settings["resamples"] = resamples
    settings.update(dict(extra or {}))
    return {
        "inputs": {name: sha256_file(p) for name, p in _input_files(inputs)},
        "settings": settings,
        "policies": dict(policies or {}),
        "versions": package_versions(),
        "command": _command_line(command),
    }


def provenance_frame(record: Mapping[str, Any]) -> pd.DataFrame:
    """Tidy ``section, name, value`` table of a :func:`collect_provenance` record."""
    rows: list[tuple[str, str, str]] = []
    for name, digest in record.get("inputs", {}).items():
        rows.append(("input (SHA-256)", name, digest))
    for section, key in (("setting", "settings"), ("policy", "policies"), ("version", "versions")):
        for name, value in record.get(key, {}).items():
            rows.append((section, str(name), str(value)))
    rows.append(("command", "command line", str(record.get("command", ""))))
    return pd.DataFrame(rows, columns=["section", "name", "value"])
