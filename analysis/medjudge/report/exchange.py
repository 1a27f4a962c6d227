"""Two report kernels, one set of results: the kernel that finishes first computes some of
the other's slowest results beforehand, on its own core.

``medjudge report`` renders the judge and the audit report side by side, one kernel each, on a
2-core machine. The judge report has about twice the work of the audit report, so the audit
kernel used to idle for its last seconds while the judge kernel worked alone. With an exchange
folder (:data:`EXCHANGE_ENV`, private to one render) the two kernels share the judge report's
slowest results (:func:`medjudge.report.judges.heavy_results`):

* every result a report context computes (:meth:`ReportContext.get
  <medjudge.report.context.ReportContext.get>`) is first *claimed* — a file created with
  ``O_EXCL`` whose name is a hash of the settings and the result's name — so that exactly one
  kernel computes it;
* the helping kernel (:data:`HELP_ENV` names the report it helps) computes those results before
  its own report, claiming each one and publishing it as a pickle; a result the other kernel
  has already claimed is left to it (an input the helper needs but the other kernel claimed is
  computed locally, as without the exchange);
* the helped kernel, finding a result claimed by the helper, waits for its pickle — or
  computes the result itself if the helper failed, exited, or
  :data:`~medjudge.report.shared.WAIT_ENV` seconds passed.

The results are the same function calls with the same settings and seeds in either kernel, so
the reports are byte-identical to those of kernels that compute everything themselves
(``tests/test_report_exchange.py``). Without the variables (a notebook, a user's template,
``quarto render``) :func:`get` is ``compute()``.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .context import ReportContext

__all__ = ["EXCHANGE_ENV", "HELP_ENV", "get", "help_other"]

#: Environment variable naming the exchange folder of one render (both kernels).
EXCHANGE_ENV = "MEDJUDGE_REPORT_EXCHANGE"
#: Environment variable of the helping kernel: the report it helps (``judges``).
HELP_ENV = "MEDJUDGE_REPORT_HELP"
T = TypeVar("T")

_state = {"helping": False, "depth": 0}


class _Taken(Exception):
    """The other kernel claimed this result first: the helper leaves it to that kernel."""


def _base(folder: str, ctx: ReportContext, name: str) -> Path:
    from .shared import settings_key

    digest = hashlib.sha256(repr((settings_key(ctx), name)).encode()).hexdigest()[:24]
    return Path(folder) / digest


def _claim(base: Path) -> bool:
    try:
        os.close(os.open(f"{base}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


def _helper_alive(folder: str) -> bool:
    try:
        pid = int(Path(folder, "helper.pid").read_text())
    except (OSError, ValueError):
        return True  # not written yet: the helper is starting
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait(folder: str, base: Path) -> Any | None:
    """The helper's published result at ``base`` (None: it failed, exited or timed out)."""
    from .shared import WAIT_ENV, _wait_load

    pickle_path = f"{base}.pickle"
    deadline = time.monotonic() + float(os.environ.get(WAIT_ENV, "600"))
    while not os.path.exists(pickle_path):
        if (
            os.path.exists(f"{pickle_path}.failed")
            or time.monotonic() > deadline
            or not _helper_alive(folder)
        ):
            return None
        time.sleep(0.01)
    loaded = _wait_load(pickle_path)
    return None if loaded is None else loaded["value"]


def get(ctx: ReportContext, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, or the same result computed by the other report kernel (see above)."""
    from .shared import PROCESS_LOCAL, mark_failed, write_shared

    folder = os.environ.get(EXCHANGE_ENV)
    helper = bool(os.environ.get(HELP_ENV))
    if not folder or name in PROCESS_LOCAL or (helper and not _state["helping"]):
        return compute()
    base = _base(folder, ctx, name)
    if _claim(base):
        if not helper:
            return compute()
        _state["depth"] += 1
        try:
            value = compute()
            write_shared({"value": value}, f"{base}.pickle")
        except BaseException:
            # the helped kernel computes it (and reports errors); also when it cannot be pickled
            mark_failed(f"{base}.pickle")
            raise
        finally:
            _state["depth"] -= 1
        return value
    if helper:  # the helped kernel claimed it: leave it (or compute an input of ours locally)
        if _state["depth"] == 0:
            raise _Taken(name)
        return compute()
    value = _wait(folder, base)
    return compute() if value is None else value


def help_other(ctx: ReportContext, kind: str) -> None:
    """In the helping kernel, before report ``kind`` is built: compute the other report's
    slowest results (published for it). Errors are left to the other kernel to report."""
    other = os.environ.get(HELP_ENV)
    folder = os.environ.get(EXCHANGE_ENV)
    if not other or not folder or other == kind:
        return
    from .judges import heavy_results

    jobs = {"judges": heavy_results}.get(other)
    if jobs is None:
        return
    Path(folder, "helper.pid").write_text(str(os.getpid()))
    _state["helping"] = True
    try:
        for job in jobs(ctx):
            try:
                job()
            except Exception:  # noqa: BLE001 - _Taken, or an error the other kernel reports
                continue
    finally:
        _state["helping"] = False
