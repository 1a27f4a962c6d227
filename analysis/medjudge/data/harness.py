"""Readers for the logs of evaluation harnesses: Inspect AI, lm-evaluation-harness, Hugging Face.

Each reader turns a harness's own output into a flat table of text cells — one row per sample
(and per scorer, for Inspect) — which the ordinary mapping (:mod:`medjudge.data.tables`) then
describes: which column is the item, the rater, the verdict, the gold. The mapping's
``format`` key picks the reader (``format = "inspect"``, ``"lm_eval"`` or ``"hf"``); the
shipped mappings ``data/mappings/inspect.toml``, ``lm_eval.toml`` and ``hf_judgments.toml``
describe each harness's usual columns. Nested fields are flattened with dots
(``metadata.human_label``, ``doc.label``); nothing is dropped silently.

* **Inspect AI** eval logs (``.eval`` or ``.json``) are read with Inspect's own reader,
  :func:`inspect_ai.log.read_eval_log` (optional extra ``medjudge[inspect]``). Columns: ``id``,
  ``epoch``, ``model``, ``target``, ``completion``, ``scorer``, ``score`` (the score's value, e.g.
  ``C``/``I`` from ``model_graded_qa``), ``answer``, ``explanation`` and ``metadata.*``.
* **lm-evaluation-harness** ``--log_samples`` files (``samples_<task>_<time>.jsonl``, one JSON
  object per document) are plain JSON lines, read without lm-eval installed. Columns: ``doc_id``,
  ``task`` (from the file name), ``model`` (the folder lm-eval named after the model; give
  the output folder to read every model's files at once),
  ``target``, ``response`` (the first filtered response), ``filter``, each metric named in
  ``metrics``, and ``doc.*``.
* **Hugging Face datasets** saved with ``save_to_disk`` (a folder) are read with
  :func:`datasets.load_from_disk` (optional extra ``medjudge[hf]``); a ``DatasetDict`` needs
  ``split = "..."`` in the mapping unless it has one split.

Examples
--------
>>> import json, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "judge-model"
>>> folder.mkdir()
>>> f = folder / "samples_medqa_2026-11-24T10-00-00.jsonl"
>>> rec = {"doc_id": 0, "doc": {"q": "x", "label": "B"}, "target": "B",
...        "filtered_resps": [["B"]], "filter": "none", "metrics": ["acc"], "acc": 1.0}
>>> _ = f.write_text(json.dumps(rec) + "\\n")
>>> df, kind = read_lm_eval_samples(f)
>>> df[["doc_id", "task", "model", "target", "response", "acc", "doc.label"]].iloc[0].tolist()
['0', 'medqa', 'judge-model', 'B', 'B', '1', 'B']
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import InputError
from .io import LINE, read_jsonl, read_table, text_cells

FORMATS = ("table", "inspect", "lm_eval", "hf")


class FlatCollision(ValueError):
    """Two fields flatten to one column name (``{"a": {"b": 1}, "a.b": 2}``)."""

    def __init__(self, column: str) -> None:
        super().__init__(column)
        self.column = column


def _flat(prefix: str, obj: Any, out: dict[str, Any]) -> None:
    """Flatten nested dicts with dots; lists and other values become JSON/text cells.

    A column that is already there (a nested key and a dotted key naming the same column)
    raises :class:`FlatCollision`: which value the column holds would be a guess.
    """
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):  # numpy arrays, scalars
        obj = obj.tolist()
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
        return
    if prefix in out:
        raise FlatCollision(prefix)
    if isinstance(obj, (list, tuple)):
        out[prefix] = json.dumps(obj, ensure_ascii=False, default=str)
    else:
        out[prefix] = obj


def _collision(path: Path, e: FlatCollision, line: int | None) -> InputError:
    return InputError(
        f"two fields flatten to the column {e.column!r} (a nested key and a dotted key, "
        "or a field and a metric of that name)",
        file=path,
        line=line,
        column=e.column,
        hint="rename one of them; each column must hold one field",
    )


def _first(v: Any) -> Any:
    """The first scalar of a (nested) list — lm-eval's ``filtered_resps`` is ``[[text]]``."""
    while isinstance(v, (list, tuple)):
        if not v:
            return ""
        v = v[0]
    return v


def _target(v: Any) -> str:
    return "|".join(map(str, v)) if isinstance(v, (list, tuple)) else ("" if v is None else str(v))


def _read_eval_log() -> Any:
    from inspect_ai.log import read_eval_log

    return read_eval_log


def _load_from_disk() -> Any:
    from datasets import load_from_disk

    return load_from_disk


#: optional readers by pip extra: the reader's import, its package, what it reads, and the
#: words for a missing path and for a file the reader refuses
_READERS = {
    "inspect": (
        _read_eval_log,
        "inspect_ai",
        "Inspect AI logs",
        "file not found",
        "not a readable Inspect AI eval log",
    ),
    "hf": (
        _load_from_disk,
        "datasets",
        "Hugging Face datasets",
        "dataset folder not found",
        "not a dataset saved with save_to_disk",
    ),
}


def _open(path: Path, extra: str) -> Any:
    """What the optional reader of ``extra`` (:data:`_READERS`) reads from ``path``.

    Every failure is one line of bad input: a missing ``path``; a missing package (named, with
    the pip extra that installs it); any failure of the reader (with its first line).
    """
    reader, package, what, missing, unreadable = _READERS[extra]
    if not path.exists():
        raise InputError(missing, file=path)
    try:
        read = reader()
    except ImportError:
        raise InputError(
            f"reading {what} needs the {package} package",
            file=path,
            hint=f"pip install 'medjudge[{extra}]'",
        ) from None
    try:
        return read(str(path))
    except Exception as e:  # noqa: BLE001 — any reader failure is bad input, said in one line
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"{unreadable} ({msg})", file=path) from None


def read_inspect_log(path: str | Path) -> tuple[pd.DataFrame, str]:
    """One row per sample × scorer of an Inspect AI eval log (see the module docstring).

    Returns the table and ``"row"`` (error messages name the row, i.e. sample × scorer).
    """
    path = Path(path)
    log = _open(path, "inspect")
    model = str(log.eval.model)
    rows: list[dict[str, Any]] = []
    for s in log.samples or []:
        base: dict[str, Any] = {
            "id": s.id,
            "epoch": s.epoch,
            "model": model,
            "target": _target(s.target),
            "completion": s.output.completion if s.output is not None else "",
        }
        try:
            _flat("metadata", dict(s.metadata or {}), base)
        except FlatCollision as e:
            raise _collision(path, e, len(rows) + 1) from None
        scores = s.scores or {}
        if not scores:
            rows.append({**base, "scorer": "", "score": "", "answer": "", "explanation": ""})
        for name, sc in scores.items():
            value = sc.value
            if isinstance(value, dict):  # several values per scorer: one column each
                extra: dict[str, Any] = {}
                try:
                    _flat("score", value, extra)
                except FlatCollision as e:
                    raise _collision(path, e, len(rows) + 1) from None
                rows.append({**base, "scorer": name, **extra, "answer": sc.answer or "",
                             "explanation": sc.explanation or ""})  # fmt: skip
                continue
            rows.append({**base, "scorer": name, "score": value, "answer": sc.answer or "",
                         "explanation": sc.explanation or ""})  # fmt: skip
    if not rows:
        raise InputError("the eval log has no samples", file=path)
    return text_cells(pd.DataFrame(rows).astype(object)), "row"


_TASK = re.compile(r"^samples_(?P<task>.+?)_(?P<time>\d{4}-\d{2}-\d{2}T[\d\-.:]+)$")


def read_lm_eval_samples(path: str | Path) -> tuple[pd.DataFrame, str]:
    """One row per document of an lm-evaluation-harness ``--log_samples`` JSONL file.

    Returns the table and ``"jsonl"`` (its internal line column names each row's line).
    """
    path = Path(path)
    if path.is_dir():  # an lm-eval output folder: every model's samples files, in name order
        files = sorted(path.rglob("samples_*.jsonl"))
        if not files:
            raise InputError("no samples_*.jsonl files under this folder", file=path,
                             hint="run lm-eval with --log_samples --output_path")  # fmt: skip
        parts = [read_lm_eval_samples(f)[0] for f in files]
        return pd.concat(parts, ignore_index=True).drop(columns=[LINE]), "row"
    recs = read_jsonl(path)
    m = _TASK.match(path.stem)
    task = m.group("task") if m else path.stem
    rows = []
    for ln, rec in recs:
        if "doc_id" not in rec:
            raise InputError(
                "missing field 'doc_id' (not an lm-eval --log_samples line)",
                file=path,
                line=ln,
                column="doc_id",
            )
        row: dict[str, Any] = {
            "doc_id": rec["doc_id"],
            "task": task,
            "model": path.parent.name,
            "target": _target(rec.get("target")),
            "response": _first(rec.get("filtered_resps", rec.get("resps", ""))),
            "filter": rec.get("filter", ""),
        }
        try:
            for metric in rec.get("metrics", []) or []:
                if str(metric) in row:
                    raise FlatCollision(str(metric))
                row[str(metric)] = rec.get(metric, "")
            _flat("doc", rec.get("doc", {}), row)
        except FlatCollision as e:
            raise _collision(path, e, ln) from None
        row[LINE] = ln
        rows.append(row)
    return text_cells(pd.DataFrame(rows).astype(object)), "jsonl"


def read_hf_dataset(path: str | Path, split: str | None = None) -> tuple[pd.DataFrame, str]:
    """A Hugging Face dataset saved with ``save_to_disk`` (no network), as a table.

    Returns the table and ``"row"``.
    """
    path = Path(path)
    ds = _open(path, "hf")
    from datasets import DatasetDict

    if isinstance(ds, DatasetDict):
        splits = list(ds)
        if split is None and len(splits) == 1:
            split = splits[0]
        if split not in ds:
            raise InputError(
                f'choose a split with split = "..." in the mapping (have {splits})'
                if split is None
                else f"split {split!r} not in the dataset (have {splits})",
                file=path,
            )
        ds = ds[split]
    elif split is not None:
        raise InputError(f"split {split!r} given, but the dataset has no splits", file=path)
    rows = []
    for n, rec in enumerate(ds.to_pandas().to_dict("records"), start=1):
        flat: dict[str, Any] = {}
        try:
            _flat("", rec, flat)
        except FlatCollision as e:
            raise _collision(path, e, n) from None
        rows.append(flat)
    if not rows:
        raise InputError("the dataset has no rows", file=path)
    return text_cells(pd.DataFrame(rows).astype(object)), "row"


def read_source(path: Path, fmt: str, split: str | None = None) -> tuple[pd.DataFrame, str]:
    """The table behind ``path`` for a mapping's ``format`` (``table``: CSV/JSONL/…)."""

    if fmt == "inspect":
        return read_inspect_log(path)
    if fmt == "lm_eval":
        return read_lm_eval_samples(path)
    if fmt == "hf":
        return read_hf_dataset(path, split)
    return read_table(path)
