"""Output folders written as a set: staged, locked, manifested and swapped into place at the end.

Every command that writes an output folder (``run``, ``report``, ``simulate``) does so through
:func:`output_folder`:

1. ``--out`` must be a folder (or not exist yet); an existing file is refused.
2. A lock (``.NAME.lock`` beside the folder, :func:`fcntl.flock`) keeps two runs from writing the
   same folder; the second one stops at once with a message naming the folder and the holder.
3. Everything is written into a hidden staging folder beside it (``.NAME.partial-PID``), so a
   failed, interrupted, killed or out-of-space run never leaves a truncated file at a final
   name. Stale staging folders of dead runs are removed by the next run (the lock is held).
4. ``MANIFEST.json`` (every file's size and SHA-256, the command line and the inputs' hashes) is
   written last; then the staging folder replaces the old folder in one step (Linux
   ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames).

A non-empty folder is replaced only when it holds a previous medjudge output (a manifest, or only
file names medjudge writes); anything else is refused rather than deleted.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import glob
import hashlib
import json
import os
import shlex
import shutil
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..data.errors import InputError

MANIFEST = "MANIFEST.json"
#: names medjudge itself writes into an output folder (a folder holding only these is ours).
KNOWN_OUTPUTS = frozenset(
    {
        MANIFEST,
        "validation.json",
        "parse_status.csv",
        "accuracy.csv",
        "reports",
        "judges.html",
        "judges.pdf",
        "audit.html",
        "audit.pdf",
    }
)


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file())


def file_records(root: Path, *, relative_to: Path | None = None) -> list[dict[str, object]]:
    """``[{path, size, sha256}]`` for ``root`` (a file, or every file under a folder, sorted)."""
    base = relative_to if relative_to is not None else (root if root.is_dir() else root.parent)
    out = []
    for p in _files(root):
        out.append(
            {
                "path": p.relative_to(base).as_posix(),
                "size": p.stat().st_size,
                "sha256": sha256_file(p),
            }
        )
    return out


def write_manifest(folder: Path, *, command: str, inputs: Iterable[str | Path]) -> Path:
    """Write ``MANIFEST.json`` into ``folder`` (last): files, sizes, hashes, command, inputs."""
    from .. import __version__

    files = [r for r in file_records(folder) if r["path"] != MANIFEST]
    ins = []
    for raw in inputs:
        p = Path(raw)
        if p.exists():
            ins.append({"input": str(raw), "files": file_records(p)})
    doc = {
        "format": "medjudge-manifest/1",
        "medjudge": __version__,
        "command": command,
        "inputs": ins,
        "files": files,
    }
    target = folder / MANIFEST
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    with open(target, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    return target


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EPERM):  # filesystem without exchange
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextlib.contextmanager
def folder_lock(out: Path) -> Iterator[Path]:
    """Exclusive, non-blocking lock for writing ``out`` (a file beside it, removed afterwards)."""
    import fcntl

    lock = out.parent / f".{out.name}.lock"
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip()
            os.close(fd)
            who = f" by process {holder}" if holder.isdigit() else ""
            raise InputError(
                f"another medjudge run is writing this folder (locked{who})",
                file=out,
                hint="wait for it to finish, or choose another --out",
            ) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the lock file was replaced while we waited: take the new one
    try:
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield lock
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)


def _check_replaceable(out: Path, replace_any: bool = False) -> None:
    if out.is_symlink() and not out.exists():
        raise InputError("--out is a broken symbolic link", file=out)
    if out.exists() and not out.is_dir():
        raise InputError(
            "--out is an existing file, not a folder", file=out, hint="choose a folder name"
        )
    if not out.is_dir():
        return
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(
            "--out is a folder this process may not write (permission denied)",
            file=out,
            hint="choose another --out, or make the folder writable",
        )
    if replace_any:
        return
    names = {p.name for p in out.iterdir()}
    if not names or MANIFEST in names or names <= KNOWN_OUTPUTS:
        return
    extra = sorted(names - KNOWN_OUTPUTS)
    raise InputError(
        f"--out is a folder with files medjudge did not write ({', '.join(extra[:3])}"
        + (" ..." if len(extra) > 3 else "")
        + "), so it will not be replaced",
        file=out,
        hint="choose a new or empty folder",
    )


@contextlib.contextmanager
def output_folder(
    out: str | Path,
    *,
    argv: Iterable[str] | None = None,
    inputs: Iterable[str | Path] = (),
    replace_any: bool = False,
) -> Iterator[Path]:
    """Yield a staging folder for the outputs; on success swap it into place as ``out``.

    On any exception (including ``KeyboardInterrupt``) the staging folder is removed and ``out``
    is left exactly as it was. ``argv`` is recorded in the manifest (default ``sys.argv[1:]``).
    ``replace_any`` replaces a non-empty folder without checking that medjudge wrote it (the
    caller has checked).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> with output_folder(d, argv=["run", "x"]) as stage:
    ...     _ = (stage / "validation.json").write_text("{}")
    >>> sorted(p.name for p in d.iterdir())
    ['MANIFEST.json', 'validation.json']
    """
    out = Path(out)
    if out.name in ("", ".", ".."):
        out = out.resolve()
    _check_replaceable(out, replace_any)
    out.parent.mkdir(parents=True, exist_ok=True)
    command = shlex.join(["medjudge", *(sys.argv[1:] if argv is None else list(argv))])
    with folder_lock(out):
        _check_replaceable(out, replace_any)  # re-check under the lock
        for stale in out.parent.glob(glob.escape(f".{out.name}.partial-") + "*"):
            shutil.rmtree(stale, ignore_errors=True)  # left by a killed run (we hold the lock)
        stage = out.parent / f".{out.name}.partial-{os.getpid()}"
        stage.mkdir()
        try:
            try:
                yield stage
                write_manifest(stage, command=command, inputs=inputs)
            except OSError as exc:
                where = exc.filename or stage
                raise InputError(
                    f"could not write the outputs: {exc.strerror or exc} ({where}); "
                    "the previous outputs are untouched",
                    file=out,
                ) from exc
            if out.is_dir() and _exchange(stage, out):
                shutil.rmtree(stage, ignore_errors=True)  # now holds the old outputs
            else:
                if out.is_dir():
                    old = out.parent / f".{out.name}.partial-{os.getpid()}-old"
                    os.replace(out, old)
                    os.replace(stage, out)
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    os.replace(stage, out)
        finally:
            if stage.exists():
                shutil.rmtree(stage, ignore_errors=True)
