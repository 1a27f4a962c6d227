"""Load once, compute next to the kernels: the study and one report's results, handed to the
report kernels instead of being loaded and computed again in each.

With :func:`medjudge.commands.report.render_reports` ``(share=True)`` (off by default: on the
2-core machine it measured no faster, see ``benchmarks/bench_paper_scale.py``) the renderer
starts the report kernels and, while they start and import, pickles the study it loaded
(:data:`SHARED_ENV`, every kernel), then builds the judge report's sections once
(:func:`precompute`; no figures are drawn) and pickles the cache of shared results
(:data:`RESULTS_ENV`, the judge report's kernel only); the audit kernel computes its own,
smaller, results on the other core. The templates load their study with :func:`load_study`,
which waits for the study file and returns the pickled study when it matches the data and
mapping asked for; :class:`~medjudge.report.context.ReportContext` then adopts the pickled
results when they were made for that study and the same settings (:func:`adopt`). Nothing
changes in what is computed — the same functions, settings and seeds (the reports are
byte-identical; ``tests/test_report_shared.py``). Without the variables (a notebook, a user's
template, ``quarto render``) everything is computed as before.
"""

from __future__ import annotations

import os
import pickle
import time
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..data.model import Study
    from .context import ReportContext

__all__ = [
    "RESULTS_ENV", "SHARED_ENV", "WAIT_ENV", "adopt", "load_study", "mark_failed", "precompute",
    "settings_key", "write_shared",
]  # fmt: skip

#: Environment variable naming the pickled study for the report kernels.
SHARED_ENV = "MEDJUDGE_REPORT_SHARED"
#: Environment variable naming the pickled results the renderer computes for one report.
RESULTS_ENV = "MEDJUDGE_REPORT_RESULTS"
#: Seconds a kernel waits for the renderer's results before computing its own (default 600).
WAIT_ENV = "MEDJUDGE_REPORT_SHARED_WAIT"

#: Cache entries that depend on the process that computes them (the provenance record reads
#: the command line and software versions): never shared, always made in the kernel.
PROCESS_LOCAL = ("provenance",)

#: ReportContext fields that do not change any computed result (wording and provenance only
#: are compared too, so that a mismatch is always recomputed).
_NOT_SETTINGS = {"study", "_cache", "command", "simulated"}

_LOADED: dict[str, Any] | None = None  # the study bundle this kernel loaded


def _source_key(data: str | Path | None, mapping: str | Path | None) -> tuple[str, str]:
    def norm(p: str | Path | None) -> str:
        return "" if p is None else str(Path(p).resolve())

    return norm(data), norm(mapping)


def settings_key(ctx: ReportContext) -> tuple:
    """Everything a report context's results depend on besides the study (comparable)."""
    out = []
    for f in fields(ctx):
        if f.name in _NOT_SETTINGS:
            continue
        v = getattr(ctx, f.name)
        if f.name in ("data", "mapping"):
            v = _source_key(v, None)[0]
        elif f.name == "by":
            v = None if v is None else tuple(v)
        elif f.name == "names":
            v = tuple(sorted(dict(v).items()))
        out.append((f.name, v))
    return tuple(out)


def precompute(
    study: Study,
    kinds: list[str],
    *,
    data: str | Path | None,
    mapping: str | Path | None,
    **settings: Any,
) -> dict[str, Any]:
    """Build the reports ``kinds`` (``judges``, ``audit``) once, sharing one results cache.

    Returns ``{"settings": ..., "cache": ...}`` for :func:`write_shared`: the context settings
    and the filled cache (without the :data:`PROCESS_LOCAL` entries). The sections built here
    are discarded (building them again from the cache in the kernel is cheap); figures are not
    drawn.
    """
    from . import audit, judges
    from .context import ReportContext
    from .document import build_report

    sections = {"judges": judges.SECTIONS, "audit": audit.SECTIONS}
    cache: dict[str, Any] = {}
    key = None
    for kind in kinds:
        ctx = ReportContext(study, data=data, mapping=mapping, **settings)
        ctx._cache = cache  # a second report reuses what the first computed
        build_report(kind, sections[kind], ctx)
        key = settings_key(ctx)
    return {
        "settings": key,
        "cache": {k: v for k, v in cache.items() if k not in PROCESS_LOCAL},
    }


def study_bundle(study: Study, data: str | Path, mapping: str | Path | None) -> dict[str, Any]:
    """What :func:`load_study` needs: the study, its inputs, and a token tying results to it."""
    import secrets

    return {"source": _source_key(data, mapping), "token": secrets.token_hex(8), "study": study}


def write_shared(bundle: dict[str, Any], path: str | Path) -> Path:
    """Pickle ``bundle`` to ``path`` (a private temporary file of the renderer), atomically:
    a kernel waiting for it sees either no file or the whole file."""
    path = Path(path)
    part = path.with_name(path.name + ".part")
    try:
        with open(part, "wb") as fh:
            pickle.dump(bundle, fh, protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:
        part.unlink(missing_ok=True)  # e.g. an object that cannot be pickled
        raise
    os.replace(part, path)
    return path


def mark_failed(path: str | Path) -> None:
    """Tell waiting kernels that this file will not come (they compute their own)."""
    Path(str(path) + ".failed").touch()


def _wait_load(name: str) -> dict[str, Any] | None:
    """The pickle at ``name`` once the renderer has written it (None if it failed or timed out)."""
    deadline = time.monotonic() + float(os.environ.get(WAIT_ENV, "600"))
    while not os.path.exists(name):
        if os.path.exists(name + ".failed") or time.monotonic() > deadline:
            return None
        time.sleep(0.02)
    try:
        with open(name, "rb") as fh:
            return pickle.load(fh)  # written by this renderer for its own kernels
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None


def _bundle() -> dict[str, Any] | None:
    global _LOADED
    name = os.environ.get(SHARED_ENV)
    if not name:
        return None
    if _LOADED is None or _LOADED.get("_path") != name:
        bundle = _wait_load(name)
        if bundle is None:
            return None
        bundle["_path"] = name
        _LOADED = bundle
    return _LOADED


def load_study(data: str | Path, mapping: str | Path | None = None) -> Study:
    """The study of ``data`` (and ``mapping``): the renderer's pickled copy when it has one
    for exactly these inputs (:data:`SHARED_ENV`), else :func:`medjudge.data.tables.load_any`."""
    bundle = _bundle()
    if bundle is not None and bundle["source"] == _source_key(data, mapping):
        return bundle["study"]
    from ..data.tables import load_any

    return load_any(data, mapping)


def adopt(ctx: ReportContext) -> None:
    """Give ``ctx`` the renderer's precomputed results if they were computed for its study
    and settings (called by :class:`ReportContext` on construction)."""
    name = os.environ.get(RESULTS_ENV)
    study = _LOADED if os.environ.get(SHARED_ENV) else None
    if not name or study is None or study["study"] is not ctx.study or ctx._cache:
        return
    results = _wait_load(name)
    if results is None or results.get("token") != study["token"]:
        return
    if results["settings"] == settings_key(ctx):
        ctx._cache = results["cache"]
