"""Low-level readers that turn every malformed input into an :class:`InputError` with a place."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError
from .limits import MAX_COLUMNS, check_columns

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


#: a JSON key: a string followed by a colon (every key of a line is one match; a string value
#: that ends with a colon adds one, so the count bounds the keys from above)
_KEY = re.compile(rb'"[ \t\r\n]*:')
_SPACED = re.compile(rb'"[ \t\r]+:')
#: the words JSON does not have, which Python's parser reads as floats
_CONSTANT = re.compile(r"-?\b(?:NaN|Infinity)\b")
_TEXT_STRING = re.compile(r'"(?:\\.|[^"\\])*"')


class _Ambiguous(ValueError):
    """Raised inside the JSON parser: a duplicate key or a bare NaN/Infinity."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook``: a key twice in one object is ambiguous (which value counts?)."""
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _Ambiguous(f"key {k!r} appears twice in one JSON object", k)
        out[k] = v
    return out


def _no_constant(word: str) -> float:
    """``parse_constant``: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON numbers."""
    raise _Ambiguous(f"bare {word} is not a JSON number")


def _strict_loads(text: str) -> object:
    """``json.loads`` that refuses duplicate keys and bare NaN/Infinity (:class:`_Ambiguous`)."""
    return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def _n_keys(obj: object) -> int:
    """Number of keys in ``obj``, counting nested objects (arrays entered)."""
    if isinstance(obj, dict):
        return len(obj) + sum(_n_keys(v) for v in obj.values() if isinstance(v, (dict, list)))
    if isinstance(obj, list):
        return sum(_n_keys(v) for v in obj if isinstance(v, (dict, list)))
    return 0


def _ambiguous_error(
    path: Path, e: _Ambiguous, text: str, line: int | None, line_text: str | None = None
) -> InputError:
    """One line naming the file, the line and the key (or the column of the bare constant)."""
    column: str | int | None = e.key
    if e.key is None and line_text is not None:  # the first NaN/Infinity outside strings
        masked = _TEXT_STRING.sub(lambda m: "_" * len(m.group(0)), line_text)
        found = _CONSTANT.search(masked)
        column = found.start() + 1 if found else None
        if found:  # the key the constant is the value of, when it is one
            before = re.search(r'"((?:\\.|[^"\\])*)"\s*:\s*$', line_text[: found.start()])
            column = json.loads(f'"{before.group(1)}"') if before else column
    hint = (
        "write a missing value as null or an empty string"
        if e.key is None
        else "keep one of them; each key must say one thing"
    )
    return InputError(e.message, file=path, line=line, column=column, hint=hint)


def read_jsonl(path: str | Path) -> list[tuple[int, dict]]:
    """Read a JSON-lines file as ``(line_number, object)`` pairs (blank lines skipped).

    Raises :class:`InputError` naming file, line and column for malformed JSON, for lines that
    are not objects, for a file without any record, and for what JSON leaves ambiguous: a key
    twice in one object (which value counts?) and the bare words ``NaN``/``Infinity``, which
    are not JSON numbers (``null`` or ``""`` is a missing value).
    """
    path = Path(path)
    _check_file(path)
    out: list[tuple[int, dict]] = []
    data = path.read_bytes()
    fast = None
    if _fast_loads is not None and _LONG_DIGITS not in data.translate(_DIGITS_AS_ZERO):
        fast = _fast_loads
    spaced = _SPACED.search(data) is not None  # keys written as "key" : value
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
                # orjson keeps the last of two equal keys: a line with fewer keys than key
                # markers (a duplicate, or a string value ending in a colon) is read again below
                if isinstance(obj, dict):
                    marks = len(_KEY.findall(bline)) if spaced else bline.count(b'":')
                    if marks == len(obj) or marks == _n_keys(obj):
                        out.append((lineno, obj))
                        continue
        try:  # a UTF-8 byte-order mark on the first line is accepted, as for CSV
            line = bline.decode("utf-8-sig" if lineno == 1 else "utf-8")
        except UnicodeDecodeError as e:
            raise _decode_error(path, e, lineno) from None
        if not line.strip():
            continue
        try:
            obj = _strict_loads(line)
        except _Ambiguous as e:
            raise _ambiguous_error(path, e, line, lineno, line) from None
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
            _refuse_too_wide(path, sep)
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
                text = fh.read()
                try:
                    data = _strict_loads(text)
                except _Ambiguous as e:
                    raise _ambiguous_in_array(path, e, text) from None
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
            _refuse_duplicate_parquet_columns(path)
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


def _ambiguous_in_array(path: Path, e: _Ambiguous, text: str) -> InputError:
    """The error for a JSON array: the line of the first object that holds the ambiguity
    (each element is parsed again on its own until one fails)."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    pos = text.index("[") + 1 if "[" in text else 0
    ws = re.compile(r"[\s,]*")
    while pos < len(text):
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            _, end = decoder.raw_decode(text, pos)
        except _Ambiguous as inner:
            line = text.count("\n", 0, pos) + 1
            stop = text.find("\n", pos)
            return _ambiguous_error(
                path, inner, text, line, text[pos : stop if stop >= 0 else len(text)]
            )
        except ValueError:
            break
        pos = end
    return _ambiguous_error(path, e, text, None)


def _refuse_too_wide(path: Path, sep: str) -> None:
    """More columns than :data:`~medjudge.data.limits.MAX_COLUMNS` in the header: refused
    before pandas parses the file (10⁶ columns ran out of memory after minutes)."""
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as fh:
        head = fh.readline(64 * (MAX_COLUMNS + 1))
    if head.count(sep.encode()) + 1 > MAX_COLUMNS:  # a quoted separator only overcounts
        import csv
        import io

        row = next(csv.reader(io.StringIO(head.decode("utf-8-sig", "replace")), delimiter=sep), [])
        check_columns(len(row) if head.endswith(b"\n") else head.count(sep.encode()) + 1, path)


def _refuse_duplicate_parquet_columns(path: Path) -> None:
    """A column name twice in a Parquet schema: Arrow refuses it with its internal field list;
    refused here naming the file and the column. More columns than
    :data:`~medjudge.data.limits.MAX_COLUMNS` are refused too."""
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
    except Exception:  # noqa: BLE001 — not readable as Parquet: pandas' own error follows
        return
    check_columns(len(names), path)
    seen: dict[str, int] = {}
    for pos, name in enumerate(names, start=1):
        if name in seen:
            raise InputError(
                f"column {name!r} appears twice in the Parquet schema "
                f"(columns {seen[name]} and {pos})",
                file=path,
                column=name,
                hint="rename one of them",
            )
        seen[name] = pos


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
