"""Output folders written as a set: staged, locked, manifested and swapped into place at the end.

Every command that writes an output folder (``run``, ``report``, ``simulate``) does so through
:func:`output_folder`:

1. ``--out`` must be a folder (or not exist yet); an existing file is refused.
2. A lock (``.NAME.lock`` beside the folder, :func:`fcntl.flock`) keeps two runs from writing the
   same folder; the second one stops at once with a message naming the folder and the holder.
   A run writing a folder inside another run's output (``report --out O/reports`` during
   ``run --out O``), or the other way round, is refused the same way
   (:func:`refuse_nested_writers`).
3. Everything is written into a hidden staging folder beside it (``.NAME.partial-PID``), so a
   failed, interrupted, killed or out-of-space run never leaves a truncated file at a final
   name. Stale staging folders of dead runs are removed by the next run (the lock is held).
4. ``MANIFEST.json`` (every file's size and SHA-256, the command line and the inputs' hashes) is
   written last; then the staging folder replaces the old folder in one step (Linux
   ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames).

A non-empty folder is replaced only when medjudge can prove it wrote every entry in it: its
``MANIFEST.json`` carries the format marker and lists every file under the folder with the size
and SHA-256 the file still has, and every sub-folder holds listed files. Anything else — a file
saved into a previous output, an edited output, a folder or a ``MANIFEST.json`` medjudge did not
write, a symbolic link — is refused with one line naming the entry, never deleted. ``--out``
must be non-empty, and must be neither an input nor a folder holding one; a symbolic link is
followed (its target is replaced, the link is kept). An output folder inside an input folder is
left out of the inputs the manifest records (with its lock and staging folders).
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
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .. import __version__
from ..data.errors import InputError

MANIFEST = "MANIFEST.json"
#: the format marker of a medjudge manifest (its ``format`` field)
FORMAT = "medjudge-manifest/1"


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


def file_records(
    root: Path,
    *,
    relative_to: Path | None = None,
    skip: Callable[[Path], bool] | None = None,
) -> list[dict[str, object]]:
    """``[{path, size, sha256}]`` for ``root`` (a file, or every file under a folder, sorted);
    files for which ``skip(path)`` is true are left out."""
    base = relative_to if relative_to is not None else (root if root.is_dir() else root.parent)
    out = []
    for p in _files(root):
        if skip is not None and skip(p):
            continue
        out.append(
            {
                "path": p.relative_to(base).as_posix(),
                "size": p.stat().st_size,
                "sha256": sha256_file(p),
            }
        )
    return out


def _beside(out: Path) -> Callable[[Path], bool]:
    """Whether a path is ``out``, under it, or its lock / a staging folder beside it."""
    real = Path(os.path.realpath(out))
    hidden = f".{real.name}."

    def skip(p: Path) -> bool:
        r = Path(os.path.realpath(p))
        if r == real or real in r.parents:
            return True
        return any(a.parent == real.parent and a.name.startswith(hidden) for a in (r, *r.parents))

    return skip


def write_manifest(
    folder: Path,
    *,
    command: str,
    inputs: Iterable[str | Path],
    out: Path | None = None,
) -> Path:
    """Write ``MANIFEST.json`` into ``folder`` (last): files, sizes, hashes, command, inputs.

    With ``out`` (the final output folder), files of the inputs under ``out``, or in its lock
    or staging folders beside it, are not recorded as inputs.
    """

    files = [r for r in file_records(folder) if r["path"] != MANIFEST]
    skip = _beside(out) if out is not None else None
    ins = []
    for raw in inputs:
        p = Path(raw)
        if p.exists():
            ins.append({"input": str(raw), "files": file_records(p, skip=skip)})
    doc = {
        "format": FORMAT,
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
def deferred_signals() -> Iterator[None]:
    """SIGTERM and SIGINT wait until the block is done, then act as they would have.

    Clean-up (removing a staging folder, the lock) and the final swap must not stop half way:
    a signal arriving inside is recorded, the block finishes, and the signal's own handler then
    runs (raising ``Terminated`` or ``KeyboardInterrupt`` as usual). Outside the main thread,
    where handlers cannot be changed, the block runs as it is.
    """
    import signal

    pending: list[tuple[int, object]] = []

    def record(signum: int, frame: object) -> None:
        pending.append((signum, frame))

    previous: dict[int, object] = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, record)
    except ValueError:  # not the main thread
        for sig, handler in previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        previous.clear()
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        if pending:
            signum, frame = pending[0]
            handler = previous.get(signum)
            if callable(handler):
                handler(signum, frame)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


def _remove(folder: Path) -> None:
    """Remove ``folder`` entirely; a worker thread still finishing might write into it again,
    so what is left at exit is removed then."""
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
    if folder.exists():
        import atexit

        atexit.register(shutil.rmtree, folder, True)


@contextlib.contextmanager
def folder_lock(out: Path) -> Iterator[Path]:
    """Exclusive, non-blocking lock for writing ``out`` (a file beside it, removed afterwards).

    Taking and releasing the lock defer SIGTERM/SIGINT (:func:`deferred_signals`), so a run
    stopped at any moment leaves no lock file of its own behind.
    """
    import fcntl

    lock = out.parent / f".{out.name}.lock"
    held: int | None = None
    try:
        with deferred_signals():
            while held is None:
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
                    held = fd
                else:
                    os.close(fd)  # the lock file was replaced while we waited: take the new one
            os.ftruncate(held, 0)
            os.write(held, str(os.getpid()).encode())
        yield lock
    finally:
        if held is not None:
            with deferred_signals():
                with contextlib.suppress(OSError):
                    os.unlink(lock)
                os.close(held)


def _held_by_another(lock: Path) -> str | None:
    """``" (process N)"`` (or ``""``) when another process holds ``lock``; None when nobody
    does or it does not exist. Only looks (a shared lock, taken and released at once)."""
    import fcntl

    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip()
            return f" (process {holder})" if holder.isdigit() else ""
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def refuse_nested_writers(out: Path, levels: int = 4) -> None:
    """Refuse ``out`` when another medjudge run is writing a folder that encloses it or one
    inside it (``run --out O`` and ``report --out O/reports`` at once: the first to finish
    would replace or remove the other's work).

    Called with ``out``'s own lock held, so of two runs started together at least one sees the
    other's lock. Looks at the locks beside every enclosing folder and at those in ``out``
    down to ``levels`` folders deep.
    """
    real = Path(os.path.realpath(out))
    for anc in real.parents:
        if anc.parent == anc:
            break
        who = _held_by_another(anc.parent / f".{anc.name}.lock")
        if who is not None:
            raise InputError(
                f"the enclosing folder {anc} is being written by another medjudge run{who}",
                file=out,
                hint="wait for it to finish, or choose an --out outside it",
            )
    if not real.is_dir():
        return
    for top, dirs, names in os.walk(real):
        depth = len(Path(top).relative_to(real).parts)
        dirs[:] = [] if depth >= levels else [d for d in dirs if not d.startswith(".")]
        for name in names:
            if not (name.startswith(".") and name.endswith(".lock")):
                continue
            who = _held_by_another(Path(top) / name)
            if who is not None:
                inner = Path(top) / name[1 : -len(".lock")]
                raise InputError(
                    f"the folder {inner} inside it is being written by another medjudge run{who}",
                    file=out,
                    hint="wait for it to finish, or choose another --out",
                )


def _listed(folder: Path) -> dict[str, tuple[int, str]] | None:
    """``{path: (size, sha256)}`` of a medjudge manifest in ``folder``; None if there is none
    or it is not one (no format marker, or a malformed file list)."""
    try:
        with open(folder / MANIFEST, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return None
    files = doc.get("files")
    if not isinstance(files, list):
        return None
    listed: dict[str, tuple[int, str]] = {}
    for rec in files:
        if not isinstance(rec, dict):
            return None
        path, size, sha = rec.get("path"), rec.get("size"), rec.get("sha256")
        if not (isinstance(path, str) and isinstance(size, int) and isinstance(sha, str)):
            return None
        parts = path.split("/")
        if not path or path == MANIFEST or any(x in ("", ".", "..") for x in parts):
            return None
        listed[path] = (size, sha)
    return listed


def _enclosing_listing(folder: Path, levels: int = 8) -> dict[str, tuple[int, str]] | None:
    """What the nearest enclosing medjudge manifest lists under ``folder`` (a ``reports/``
    written by ``run`` has no manifest of its own: ``OUT/MANIFEST.json`` lists its files)."""
    real = Path(os.path.realpath(folder))
    for anc in list(real.parents)[:levels]:
        listed = _listed(anc)
        if listed is not None:
            prefix = real.relative_to(anc).as_posix() + "/"
            return {p[len(prefix) :]: v for p, v in listed.items() if p.startswith(prefix)}
    return None


def not_written_by_medjudge(folder: Path, *, _inner: bool = False) -> tuple[str, str] | None:
    """The first entry of ``folder`` medjudge cannot prove it wrote, and why; None when every
    entry is proven (or the folder is empty).

    Proof is the folder's ``MANIFEST.json`` (or, for a folder without one, the nearest
    enclosing folder's, such as ``run``'s for its ``reports/``): the format marker, every file
    listed with the size and SHA-256 it still has, every sub-folder holding a listed file or
    proven by a manifest of its own, no symbolic links or special files. A listed file that is
    missing proves nothing against the folder (nothing of the user's would be lost).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "notes.md").write_text("mine")
    >>> not_written_by_medjudge(d)
    ('notes.md', 'medjudge did not write it')
    """
    entries = sorted(os.listdir(folder))
    if not entries:
        return None
    listed = _listed(folder)
    if listed is None and not _inner:
        listed = _enclosing_listing(folder)
    if listed is None:
        others = [e for e in entries if e != MANIFEST]
        if others:
            return others[0], "medjudge did not write it"
        return MANIFEST, "not a medjudge manifest"
    dirs = {"/".join(p.split("/")[:i]) for p in listed for i in range(1, p.count("/") + 1)}
    for top, subdirs, names in os.walk(folder):
        rel_top = Path(top).relative_to(folder).as_posix()
        prefix = "" if rel_top == "." else rel_top + "/"
        descend = []
        for name in sorted(subdirs):
            rel = prefix + name
            full = Path(top) / name
            if full.is_symlink():
                return rel, "a symbolic link medjudge did not write"
            if _listed(full) is not None:  # an output of its own (``report`` into OUT/reports)
                inner = not_written_by_medjudge(full, _inner=True)
                if inner is not None:
                    return f"{rel}/{inner[0]}", inner[1]
                continue
            if rel not in dirs:
                return rel + "/", "medjudge did not write it"
            descend.append(name)
        subdirs[:] = descend
        for name in sorted(names):
            rel = prefix + name
            if rel == MANIFEST:
                continue
            full = os.path.join(top, name)
            if os.path.islink(full) or not os.path.isfile(full):
                return rel, "not a file medjudge wrote"
            if rel not in listed:
                return rel, "medjudge did not write it"
            size, sha = listed[rel]
            if os.path.getsize(full) != size or sha256_file(Path(full)) != sha:
                return rel, "changed since medjudge wrote it"
    return None


def _check_replaceable(out: Path, *, owned: bool = True) -> None:
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
    if not owned:
        return
    found = not_written_by_medjudge(out)
    if found is None:
        return
    entry, why = found
    raise InputError(
        f"--out holds {entry} ({why}), so the folder will not be replaced",
        file=out,
        hint="choose a new or empty folder, or move that entry away",
    )


def _check_inputs(out: Path, inputs: Iterable[str | Path]) -> None:
    """Refuse an ``out`` that is an input or a folder holding one (replacing it deletes it)."""
    real = Path(os.path.realpath(out))
    for raw in inputs:
        p = Path(os.path.realpath(raw))
        if p == real or real in p.parents:
            what = "is the input" if p == real else "is a folder holding the input"
            raise InputError(
                f"--out {what} {raw}; the outputs replace the whole folder",
                file=out,
                hint="choose an --out outside the input",
            )


def _staging_folders(out: Path) -> list[Path]:
    """Staging folders of earlier runs beside ``out`` (real folders named as this module
    names them), nothing else."""
    pattern = re.compile(re.escape(f".{out.name}.partial-") + r"[0-9]+(-old)?")
    return [
        p
        for p in out.parent.glob(glob.escape(f".{out.name}.partial-") + "*")
        if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink()
    ]


@contextlib.contextmanager
def output_folder(
    out: str | Path,
    *,
    argv: Iterable[str] | None = None,
    inputs: Iterable[str | Path] = (),
) -> Iterator[Path]:
    """Yield a staging folder for the outputs; on success swap it into place as ``out``.

    On any exception (including ``KeyboardInterrupt``) the staging folder is removed and ``out``
    is left exactly as it was. ``argv`` is recorded in the manifest (default ``sys.argv[1:]``).
    An existing non-empty ``out`` is replaced only when :func:`not_written_by_medjudge` finds
    nothing in it; ``out`` must not be one of ``inputs`` or a folder holding one.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> with output_folder(d, argv=["run", "x"]) as stage:
    ...     _ = (stage / "validation.json").write_text("{}")
    >>> sorted(p.name for p in d.iterdir())
    ['MANIFEST.json', 'validation.json']
    """
    if not str(out).strip():
        raise InputError("--out is empty (a folder name is needed; '' would be this folder)")
    out = Path(out)
    inputs = list(inputs)
    _check_replaceable(out, owned=False)
    if out.is_symlink():  # followed: the target is replaced, the link stays as it is
        out = Path(os.path.realpath(out))
    if out.name in ("", ".", ".."):
        out = out.resolve()
    _check_inputs(out, inputs)
    out.parent.mkdir(parents=True, exist_ok=True)
    command = shlex.join(["medjudge", *(sys.argv[1:] if argv is None else list(argv))])
    with folder_lock(out):
        refuse_nested_writers(out)
        _check_replaceable(out)  # under the lock: is the folder ours to replace
        for stale in _staging_folders(out):
            shutil.rmtree(stale, ignore_errors=True)  # left by a killed run (we hold the lock)
        stage = out.parent / f".{out.name}.partial-{os.getpid()}"
        try:
            stage.mkdir()
            try:
                yield stage
                write_manifest(stage, command=command, inputs=inputs, out=out)
            except OSError as exc:
                where = exc.filename or stage
                raise InputError(
                    f"could not write the outputs: {exc.strerror or exc} ({where}); "
                    "the previous outputs are untouched",
                    file=out,
                ) from exc
            with deferred_signals():  # the swap is one step: a signal waits until it is done
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
            with deferred_signals():  # SIGTERM during the clean-up must not leave it half done
                _remove(stage)
