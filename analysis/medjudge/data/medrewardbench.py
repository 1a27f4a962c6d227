"""Loader for the Med-RewardBench native layout (research/medrewardbench-protocol.md §2).

Bundle layout (see ``data/FORMAT.md``)::

    BUNDLE/
      pair_gt_all/<organ>.jsonl | <organ>.parquet   ground truth, one file per organ system:
          question_id, human_answer {accuracy, relevance, comprehensiveness, creativity,
          responsiveness, overall: "A"|"B"}, modality_type (= organ system), other fields
          kept as item attributes (department, dataset, question_type, image_id, body_part,
          answer1_len, answer2_len, …)
      expert_labels.jsonl                            optional companion: per-annotator labels
          question_id, annotator, labels {dimension: "A"|"B"}
      predictions/**/<mode>_<model>.jsonl            one file per judge (and order):
          question_id, chosen_answer (raw string or dict), answer_model (judge name),
          optional order ("AB" default, "BA" = answer2 shown as A), optional run

Predictions in order "BA" are mapped back to the original indexing (A = answer1_text), so
``value`` always refers to the same answer whatever the presentation order.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError
from .io import read_jsonl
from .model import Study
from .parse import ParsedVerdict, parse_verdict
from .scale import MEDREWARDBENCH_DIMENSIONS, PAIRWISE_AB

GT_DIR = "pair_gt_all"
EXPERTS_FILE = "expert_labels.jsonl"
PRED_DIR = "predictions"
_FLIP = {"A": "B", "B": "A"}


def is_medrewardbench(path: str | Path) -> bool:
    return (Path(path) / GT_DIR).is_dir()


def _gt_records(root: Path) -> list[tuple[Path, int, dict]]:
    gt_dir = root / GT_DIR
    files = (
        sorted(gt_dir.glob("*.jsonl"))
        or sorted(gt_dir.glob("*.parquet"))
        or sorted((gt_dir / "parquet").glob("*.parquet"))
    )
    if not files:
        raise InputError("no ground-truth files (*.jsonl or *.parquet)", file=gt_dir)
    out = []
    for f in files:
        if f.suffix == ".jsonl":
            out.extend((f, ln, rec) for ln, rec in read_jsonl(f))
        else:
            raw = pd.read_parquet(f)
            if raw.empty:
                raise InputError("file has no rows", file=f)
            out.extend((f, i + 1, rec) for i, rec in enumerate(raw.to_dict("records")))
    return out


_COLUMNS = ("item", "rater", "role", "dimension", "value", "order", "raw", "status", "run",
            "source", "line", "note")  # fmt: skip


def load_medrewardbench(
    root: str | Path,
    *,
    broadcast: bool = False,
    dimensions: tuple[str, ...] = MEDREWARDBENCH_DIMENSIONS,
) -> Study:
    """Load a Med-RewardBench bundle into a :class:`Study`.

    Parameters
    ----------
    broadcast : copy a single overall verdict ("[[A]]") to all dimensions, flagged
        ``broadcast`` — the reference pipeline does this silently; here it must be asked for.

    Every ground-truth item appears in the items table; a judge without a prediction line for
    an item gets rows with status ``missing`` (the reference rule scores them wrong), and
    unparseable outputs stay as ``invalid`` rows. Prediction ids that match no item are an error.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError("bundle directory not found", file=root)
    scales = {d: PAIRWISE_AB for d in dimensions}
    sources: list[Path] = []
    items, gold = _ground_truth(root, dimensions, sources)
    item_set = set(items["item"])
    ratings = _Rows()  # columns in the order of _COLUMNS (NaN: not given)
    counts: dict[str, int] = {}
    ef = root / EXPERTS_FILE
    if ef.exists():
        sources.append(ef)
        _expert_labels(ef, dimensions, item_set, ratings, counts)
    pred_files = _prediction_files(root / PRED_DIR)
    judged_any = _predictions(pred_files, dimensions, broadcast, item_set, ratings, counts, sources)
    if not ratings:
        raise InputError(
            "bundle has neither expert labels nor predictions",
            file=root,
            hint=f"add {EXPERTS_FILE} or {PRED_DIR}/*.jsonl",
        )
    frame = ratings.frame()
    if not judged_any:  # expert labels only: no judge columns (the model fills its defaults)
        frame = frame.drop(columns=["raw", "run", "note"])
    study = Study(
        frame,
        items,
        scales,
        gold_table=gold,
        sources=sources,
        name=root.name,
        load_counts=counts,
    )
    study.notes.append(
        "Med-RewardBench bundle: gold = supplied human_answer unless another method is asked for"
    )
    if broadcast:
        study.notes.append(
            "single verdicts were broadcast to all dimensions on request (status 'broadcast')"
        )
    return study


def _ground_truth(
    root: Path, dimensions: Sequence[str], sources: list[Path]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The items and the supplied gold from ``pair_gt_all/*.jsonl`` (one line per item)."""
    items_rows, gold_rows = [], []
    seen: dict[str, tuple[Path, int]] = {}
    items_rows, gold_rows = [], []
    seen: dict[str, tuple[Path, int]] = {}
    for f, ln, rec in _gt_records(root):
        if f not in sources:
            sources.append(f)
        for key in ("question_id", "human_answer"):
            if key not in rec:
                raise InputError(f"missing required field {key!r}", file=f, line=ln, column=key)
        qid = str(rec["question_id"])
        if qid in seen:
            pf, pl = seen[qid]
            raise InputError(
                f"question_id {qid!r} appears twice (first at {pf}, line {pl})",
                file=f,
                line=ln,
                column="question_id",
            )
        seen[qid] = (f, ln)
        ha = rec["human_answer"]
        if not isinstance(ha, dict):
            raise InputError(
                "human_answer must be an object of dimension → 'A'/'B'",
                file=f,
                line=ln,
                column="human_answer",
            )
        for d in dimensions:
            v = ha.get(d)
            label = None if v is None else _ab_label(v)
            if v is not None and label is None:
                raise InputError(
                    f"label {v!r} for {d!r} is outside the declared scale A/B",
                    file=f,
                    line=ln,
                    column=f"human_answer.{d}",
                )
            gold_rows.append({"item": qid, "dimension": d, "value": label})
        attrs = {
            k: v
            for k, v in rec.items()
            if k not in ("question_id", "human_answer", "image")
            and (v is None or isinstance(v, (str, int, float, bool)))
        }
        organ = rec.get("modality_type", f.stem)
        # the item id is question_id; a ground-truth field that happens to be called "item"
        # (or "organ_system") is kept under a suffixed name instead of replacing it
        for reserved in ("item", "organ_system"):
            if reserved in attrs:
                attrs[f"{reserved} (field)"] = attrs.pop(reserved)
        # the bundle is partitioned by organ system (one file each): its first declared attribute
        items_rows.append({"item": qid, "organ_system": organ, **attrs})
    return pd.DataFrame(items_rows), pd.DataFrame(gold_rows)


def _expert_labels(
    ef: Path, dimensions: Sequence[str], item_set: set[str], ratings: _Rows, counts: dict[str, int]
) -> None:
    """Append each physician's labels from the companion file to ``ratings`` (blanks counted)."""
    ef_name = str(ef)
    for ln, rec in read_jsonl(ef):
        qid = _known_item(rec, ("question_id", "annotator", "labels"), item_set, ef, ln)
        labels = rec["labels"]
        if not isinstance(labels, dict):
            raise InputError("labels must be an object", file=ef, line=ln, column="labels")
        dims, values = [], []
        for d in dimensions:
            v = labels.get(d)
            if v is None or v == "":
                counts["expert_labels_missing"] = counts.get("expert_labels_missing", 0) + 1
                continue
            label = _ab_label(v)
            if label is None:
                raise InputError(
                    f"label {v!r} for {d!r} is outside the declared scale A/B",
                    file=ef,
                    line=ln,
                    column=f"labels.{d}",
                )
            dims.append(d)
            values.append(label)
        ratings.extend(
            dims, values, qid, str(rec["annotator"]), "expert", "AB", np.nan, "ok", np.nan,
            ef_name, ln, np.nan,
        )  # fmt: skip


def _prediction_files(pred_dir: Path) -> list[Path]:
    """The JSONL files under ``predictions/``; a broken link or a folder is refused."""
    pred_files = sorted(pred_dir.rglob("*.jsonl")) if pred_dir.is_dir() else []
    for pf in pred_files:
        if pf.is_symlink() and not pf.exists():
            raise InputError(
                f"is a broken symbolic link (its target {os.readlink(pf)} does not exist)",
                file=pf,
                hint=f"fix the link or move it out of {PRED_DIR}/",
            )
        if not pf.is_file():
            raise InputError(
                "is a directory, expected a JSONL file of predictions",
                file=pf,
                hint=f"rename it or move it out of {PRED_DIR}/",
            )
    return pred_files


def _predictions(
    pred_files: list[Path],
    dimensions: Sequence[str],
    broadcast: bool,
    item_set: set[str],
    ratings: _Rows,
    counts: dict[str, int],
    sources: list[Path],
) -> bool:
    """Append every judge verdict (parsed once per distinct text) to ``ratings``, and a
    ``missing`` row for each item a judge skipped; ``True`` when any prediction was read."""
    # verdict text -> its parse and values in the two presentation orders
    parsed_text: dict[str, tuple[ParsedVerdict, list, list]] = {}
    judged_any = False
    # (judge, order, run) -> items with a prediction line, and the last file that had any:
    # a judge's predictions may be split over several files (the documented glob allows it)
    judged: dict[tuple[str, str, str], set[str]] = {}
    judged_file: dict[tuple[str, str, str], Path] = {}
    for pf in pred_files:
        sources.append(pf)
        pf_name = str(pf)
        recs = read_jsonl(pf)
        for ln, rec in recs:
            qid = _known_item(rec, ("question_id", "chosen_answer"), item_set, pf, ln)
            judge = str(rec.get("judge") or rec.get("answer_model") or _judge_from_stem(pf.stem))
            order = str(rec.get("order", "AB")).upper()
            if order not in ("AB", "BA"):
                raise InputError(
                    f"order {order!r} must be 'AB' or 'BA'", file=pf, line=ln, column="order"
                )
            run = str(rec.get("run", "1"))
            raw = rec["chosen_answer"]
            if isinstance(raw, str):  # judges repeat themselves: parse each distinct text once
                known = parsed_text.get(raw)
                if known is None:
                    known = parsed_text[raw] = _parsed(raw, dimensions, broadcast)
                parsed, as_ab, as_ba = known
                raw_text = raw
            else:
                parsed, as_ab, as_ba = _parsed(raw, dimensions, broadcast)
                raw_text = _dump(raw)
            values = as_ba if order == "BA" else as_ab
            # one row per dimension; every other column is the same for all of them
            ratings.extend(
                dimensions, values, qid, judge, "judge", order, raw_text, parsed.status, run,
                pf_name, ln, parsed.reason,
            )  # fmt: skip
            judged.setdefault((judge, order, run), set()).add(qid)
            judged_file[(judge, order, run)] = pf
            judged_any = True
            counts[f"parse_{parsed.status}"] = counts.get(f"parse_{parsed.status}", 0) + 1
    # a judge that skipped items: the reference rule scores them wrong; keep them, flagged
    for key, done in judged.items():
        judge, order, run = key
        for qid in sorted(item_set - done):
            counts["missing_predictions"] = counts.get("missing_predictions", 0) + 1
            for d in dimensions:
                ratings.append(
                    (qid, judge, "judge", d, None, order, None, "missing", run,
                     str(judged_file[key]), np.nan, "no prediction line for this item")
                )  # fmt: skip
    return judged_any


class _Rows:
    """The ratings rows, gathered record by record in the order of :data:`_COLUMNS`.

    A record (one expert line or one prediction line) gives one row per dimension whose
    columns other than ``dimension`` and ``value`` are the same in every row: they are kept
    once per record and repeated when the frame is built.
    """

    #: the columns a record holds once (every column but ``dimension`` and ``value``)
    _SHARED = tuple(c for c in _COLUMNS if c not in ("dimension", "value"))

    def __init__(self) -> None:
        self.records: list[tuple] = []  # the shared columns of each record, in _SHARED order
        self.counts: list[int] = []
        self.dimensions: list[str] = []
        self.values: list = []

    def __bool__(self) -> bool:
        return bool(self.counts)

    def append(self, row: tuple) -> None:
        """Add one row (a tuple in the order of :data:`_COLUMNS`)."""
        item, rater, role, dimension, value, *rest = row
        self.extend([dimension], [value], item, rater, role, *rest)

    def extend(
        self,
        dimensions: Sequence[str],
        values: list,
        item: str,
        rater: str,
        role: str,
        *rest: object,
    ) -> None:
        """Add one row per dimension: ``values[k]`` for ``dimensions[k]``; ``item``, ``rater``,
        ``role`` and ``rest`` (order … note, as in :data:`_COLUMNS`) the same in every row."""
        if len(rest) != len(self._SHARED) - 3 or len(values) != len(dimensions):
            raise ValueError("a record needs every column of _COLUMNS once")
        self.counts.append(len(dimensions))
        self.dimensions.extend(dimensions)
        self.values.extend(values)
        self.records.append((item, rater, role, *rest))

    def frame(self) -> pd.DataFrame:
        """The rows as ``pd.DataFrame.from_records(rows, columns=_COLUMNS)`` would give them.

        A column holding only text and missing values becomes pandas' text dtype straight
        from one pyarrow array when that is what pandas infers for text (pandas 3); every
        other column is inferred by pandas as before (same values and dtypes).
        """
        counts = np.asarray(self.counts, dtype=np.intp)
        shared = [list(c) for c in zip(*self.records, strict=True)] or [[] for _ in self._SHARED]
        per_row = dict(zip(self._SHARED, shared, strict=True))
        text = pd.Series(["x"]).dtype
        if getattr(text, "storage", None) != "pyarrow":
            rows_of = np.repeat(np.arange(len(counts)), counts)
            columns = {
                name: (
                    {"dimension": self.dimensions, "value": self.values}[name]
                    if name in ("dimension", "value")
                    else [per_row[name][i] for i in rows_of]
                )
                for name in _COLUMNS
            }
            rows = list(zip(*(columns[name] for name in _COLUMNS), strict=True))
            return pd.DataFrame.from_records(rows, columns=list(_COLUMNS))
        import pyarrow as pa

        take = pa.array(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
        data: dict[str, object] = {}
        for name in _COLUMNS:
            once = name not in ("dimension", "value")
            values = per_row[name] if once else getattr(self, f"{name}s")
            try:
                arr = pa.array(values, type=pa.large_string(), from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                arr = None  # not all text (numbers …): pandas decides
            if arr is None or arr.null_count == len(arr):  # no text at all: pandas decides too
                if once and values and all(type(v) in (int, float) for v in values):
                    # line numbers (NaN: none): the int64 / float64 array pandas would infer
                    data[name] = np.repeat(np.asarray(values), counts)
                    continue
                if once:
                    values = np.repeat(np.array(values, dtype=object), counts).tolist()
                data[name] = values
            else:
                data[name] = pd.array(arr.take(take) if once else arr, dtype=text)
        return pd.DataFrame(data, columns=list(_COLUMNS))


def _known_item(
    rec: dict, required: tuple[str, ...], item_set: set[str], path: Path, line: int
) -> str:
    """Check required fields and that the record's question_id is a ground-truth item."""
    for key in required:
        if key not in rec:
            raise InputError(f"missing required field {key!r}", file=path, line=line, column=key)
    qid = str(rec["question_id"])
    if qid not in item_set:
        raise InputError(
            f"question_id {qid!r} matches no ground-truth item",
            file=path,
            line=line,
            column="question_id",
            hint="check that the file belongs to this bundle",
        )
    return qid


#: the labels as they are usually written, and their canonical form
_AB = {"A": "A", "B": "B", "a": "A", "b": "B"}


def _ab_label(v: object) -> str | None:
    """``"A"``/``"B"`` for a label (case and surrounding spaces ignored), else ``None``."""
    label = _AB.get(v) if isinstance(v, str) else None
    if label is None:
        label = str(v).strip().upper()
    return label if label in ("A", "B") else None


def _parsed(
    raw: object, dimensions: tuple[str, ...], broadcast: bool
) -> tuple[ParsedVerdict, list, list]:
    """A verdict's parse and its values per dimension in order AB and mapped back from BA."""
    parsed = parse_verdict(raw, dimensions, broadcast=broadcast)
    as_ab = [parsed.choices[d] for d in dimensions]
    return parsed, as_ab, [None if v is None else _FLIP[v] for v in as_ab]


def _judge_from_stem(stem: str) -> str:
    for prefix in ("pair_", "score_", "batch_"):
        if stem.startswith(prefix):
            return stem[len(prefix) :]
    return stem


def _dump(obj: object) -> str:
    import json

    return json.dumps(obj, sort_keys=True, ensure_ascii=False)
