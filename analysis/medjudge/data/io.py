"""Low-level readers that turn every malformed input into an :class:`InputError` with a place."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError

#: name of the internal line-number column; the NUL byte means no user column can be called this
LINE = "\x00line"

try:  # optional: the same objects as json.loads for the lines it accepts
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover - depends on the environment
    _fast_loads = None
#: orjson reads integers beyond 64 bits as floats; files with 19+ digits in a row use json only
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19


def _check_file(path: Path) -> None:
    if path.is_symlink() and not path.exists():
        raise InputError(
            f"is a broken symbolic link (its target {os.readlink(path)} does not exist)",
            file=path,
        )
    if not path.exists():
        raise InputError("file not found", file=path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", file=path)


def _decode_error(path: Path, e: UnicodeDecodeError, line: int | None = None) -> InputError:
    return InputError(
        f"not UTF-8 text (byte {e.object[e.start]:#04x} at byte offset {e.start})",
        file=path,
        line=line,
        hint="save the file as UTF-8",
    )


def _too_deep(path: Path, line: int | None) -> InputError:
    """JSON nested deeper than Python's parser goes (about 1000 levels): refused, not a crash."""
    return InputError(
        f"JSON nested too deeply (arrays/objects more than {MAX_JSON_DEPTH} levels deep)",
        file=path,
        line=line,
        hint="each record should be a flat JSON object",
    )


#: deepest nesting of arrays/objects accepted in a JSON record (records are flat objects;
#: deeper values — a few hundred levels — would exhaust Python's recursion when shown as text)
MAX_JSON_DEPTH = 256
_JSON_STRING = re.compile(rb'"(?:\\.|[^"\\])*"')


def _too_deep_at(data: bytes, limit: int = MAX_JSON_DEPTH) -> int | None:
    """Byte offset where JSON ``data`` nests deeper than ``limit`` (strings ignored); None if
    it does not. Counting brackets first keeps ordinary records free of the scan."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    masked = _JSON_STRING.sub(lambda m: b"_" * len(m.group(0)), data)
    codes = np.frombuffer(masked, dtype=np.uint8)
    step = np.isin(codes, (ord("["), ord("{"))).astype(np.int64)
    step -= np.isin(codes, (ord("]"), ord("}")))
    over = np.flatnonzero(np.cumsum(step) > limit)
    return int(over[0]) if over.size else None


def read_jsonl(path: str | Path) -> list[tuple[int, dict]]:
    """Read a JSON-lines file as ``(line_number, object)`` pairs (blank lines skipped).

    Raises :class:`InputError` naming file, line and column for malformed JSON, for lines that
    are not objects, and for a file without any record.
    """
    path = Path(path)
    _check_file(path)
    out: list[tuple[int, dict]] = []
    data = path.read_bytes()
    fast = None
    if _fast_loads is not None and _LONG_DIGITS not in data.translate(_DIGITS_AS_ZERO):
        fast = _fast_loads
    for lineno, bline in enumerate(data.splitlines(), start=1):
        if _too_deep_at(bline) is not None:
            raise _too_deep(path, lineno)
        if fast is not None:
            # orjson when installed (~5x faster); any line it refuses or that is not an
            # object goes through the standard parser below, which names the problem
            try:
                obj = fast(bline)
            except ValueError:
                pass
            else:
                if isinstance(obj, dict):
                    out.append((lineno, obj))
                    continue
        try:  # a UTF-8 byte-order mark on the first line is accepted, as for CSV
            line = bline.decode("utf-8-sig" if lineno == 1 else "utf-8")
        except UnicodeDecodeError as e:
            raise _decode_error(path, e, lineno) from None
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(
                f"malformed JSON ({e.msg})",
                file=path,
                line=lineno,
                column=e.colno,
                hint="each line must be one JSON object",
            ) from None
        except RecursionError:
            raise _too_deep(path, lineno) from None
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}",
                file=path,
                line=lineno,
                column=1,
            )
        out.append((lineno, obj))
    if not out:
        raise InputError("file is empty (no records)", file=path)
    return out


def read_table(path: str | Path) -> tuple[pd.DataFrame, str]:
    """Read CSV/TSV/JSONL/JSON/Parquet as strings; return the frame and how rows map to lines.

    Every cell is read as text (``dtype=str``, empty cells as ``""``) so labels such as ``"1"``
    keep their spelling. The second value tells how to turn a 0-based row index into a line:
    ``"csv"`` (line = row + 2, after the header), ``"jsonl"`` (an internal line column, :data:`LINE`, is present),
    ``"row"`` (1-based row number, for Parquet and JSON arrays).
    """
    path = Path(path)
    _check_file(path)
    if path.stat().st_size == 0:
        raise InputError("file is empty", file=path)
    suffix = "".join(path.suffixes[-2:]).lower() if path.suffix == ".gz" else path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz"):
            sep = "\t" if ".tsv" in suffix else ","
            df = pd.read_csv(
                path, sep=sep, dtype=str, keep_default_na=False, na_values=[], encoding="utf-8-sig"
            )
            kind = "csv"
            _refuse_duplicate_header(path, sep)
            starts = _physical_lines(path, sep, len(df))
            if starts is not None:  # quoted line breaks or blank lines: rows are not line - 1
                df[LINE] = starts
        elif suffix == ".jsonl":
            recs = read_jsonl(path)
            df = pd.DataFrame([r for _, r in recs]).astype(object)
            df[LINE] = [ln for ln, _ in recs]
            kind = "jsonl"
        elif suffix == ".json":
            deep = _too_deep_at(path.read_bytes())
            if deep is not None:
                raise _too_deep(path, path.read_bytes()[:deep].count(b"\n") + 1)
            with path.open(encoding="utf-8-sig") as fh:
                try:
                    data = json.load(fh)
                except json.JSONDecodeError as e:
                    raise InputError(
                        f"malformed JSON ({e.msg})", file=path, line=e.lineno, column=e.colno
                    ) from None
                except RecursionError:
                    raise _too_deep(path, None) from None
            if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
                raise InputError("expected a JSON array of objects", file=path)
            df = pd.DataFrame(data).astype(object)
            kind = "row"
        elif suffix == ".parquet":
            df = pd.read_parquet(path).astype(object)
            kind = "row"
        else:
            raise InputError(
                f"unknown table format {suffix!r}",
                file=path,
                hint="use .csv, .tsv, .jsonl, .json or .parquet",
            )
    except UnicodeDecodeError as e:
        raise _decode_error(path, e) from None
    except pd.errors.EmptyDataError:
        raise InputError("file is empty", file=path) from None
    except pd.errors.ParserError as e:
        raise InputError(f"cannot parse table ({e})", file=path) from None
    if len(df) == 0:
        raise InputError("file has a header but no rows", file=path)
    return text_cells(df), kind


def text_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell as text, as a table file spells it: missing -> ``""``, ``2.0`` -> ``"2"``.

    One pass over one object array, and one new frame: setting the columns one by one made
    reading quadratic in the number of columns (20,000 columns took 9.5 s, 100,000 over 200 s).
    The line column (:data:`LINE`), if any, is kept (last).

    >>> text_cells(pd.DataFrame({"a": [2.0, None], "b": ["x", 1]})).to_dict("list")
    {'a': ['2', ''], 'b': ['x', '1']}
    """
    keep = np.asarray(df.columns != LINE, dtype=bool)
    values = _TEXT_UFUNC(df.iloc[:, keep].to_numpy(dtype=object))
    out = pd.DataFrame(values, index=df.index, columns=df.columns[keep])
    if not keep.all():
        out[LINE] = df[LINE].to_numpy()
    return out


def _text(v: object) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _refuse_duplicate_header(path: Path, sep: str) -> None:
    """A column name twice in the header: pandas would silently read the second as
    ``NAME.1`` and the mapping would use the first — refused, naming both columns."""
    import csv
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=sep)
        try:
            header = next((row for row in reader if row), [])
        except csv.Error:
            return  # pandas has read it; its own error would have come first
        line = reader.line_num
    seen: dict[str, int] = {}
    for pos, name in enumerate(header, start=1):
        if name in seen and name != "":
            raise InputError(
                f"column {name!r} appears twice in the header (columns {seen[name]} and {pos})",
                file=path,
                line=line,
                column=name,
                hint="rename one of them",
            )
        seen.setdefault(name, pos)


def _physical_lines(path: Path, sep: str, n_rows: int) -> list[int] | None:
    """The physical line on which each of the ``n_rows`` data rows of a CSV starts; None when
    that is simply ``row + 2`` (one line per row, no blank lines), or when the rows cannot be
    matched to pandas' (then ``row + 2`` is used, as before).

    Counting newlines settles the common case; otherwise the file is read once more with the
    :mod:`csv` module, whose ``line_num`` counts physical lines through quoted line breaks.
    """
    import csv
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    breaks = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    if breaks == n_rows + 1 and b"\r\r" not in raw and raw.count(b"\r") <= raw.count(b"\r\n"):
        return None
    starts: list[int] = []
    import io

    # lines as a text file has them (\n, \r\n, \r), which is what line_num counts
    reader = csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=sep)
    previous = 0
    try:
        for row in reader:
            if row:  # pandas skips blank lines
                starts.append(previous + 1)
            previous = reader.line_num
    except csv.Error:
        return None
    if len(starts) != n_rows + 1:
        return None
    return starts[1:]


_TEXT_UFUNC = np.frompyfunc(_text, 1, 1)


def line_numbers(df: pd.DataFrame, kind: str) -> pd.Series:
    """Line (or 1-based row) number of every row, for error messages."""
    if kind in ("jsonl", "csv") and LINE in df.columns:
        return df[LINE].astype(int)
    if kind == "csv":
        return pd.Series(df.index.to_numpy() + 2, index=df.index)
    return pd.Series(df.index.to_numpy() + 1, index=df.index)
