"""Provenance: SHA-256 of every input file, settings, policies, versions, command line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ...data.model import Study
from ..context import ReportContext
from ..provenance import collect_provenance, provenance_frame, sha256_file
from . import Section

KEY = "provenance"
TITLE = "Provenance"


def _display_names(paths: Sequence[Path], root: Path | None) -> list[str]:
    """Paths relative to ``root``'s parent (``demo/predictions/x.jsonl``), else as given."""
    base = root.resolve().parent if root is not None else None
    names = []
    for p in paths:
        try:
            names.append(Path(p).resolve().relative_to(base).as_posix())  # type: ignore[arg-type]
        except (ValueError, TypeError):
            names.append(Path(p).name)
    return names


def study_provenance(
    study: Study,
    data: str | Path | None,
    *,
    seed: int | None,
    resamples: int | None,
    policies: Mapping[str, Any],
    mapping: str | Path | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """:func:`~medjudge.report.provenance.collect_provenance` with the files the study read,
    named relative to the bundle's parent directory so the record does not depend on where
    the data sit on disk."""
    rec = collect_provenance([], seed=seed, resamples=resamples, policies=policies, command=command)
    files = [Path(p) for p in study.sources]
    if mapping:
        files.append(Path(mapping))
    root = Path(data) if data is not None else None
    rec["inputs"] = {
        name: sha256_file(p) for name, p in zip(_display_names(files, root), files, strict=True)
    }
    return rec


def provenance_tables(record: Mapping[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(inputs, settings)``: ``file, SHA-256`` rows and the other ``section, name, value``."""
    frame = provenance_frame(record)
    is_input = frame["section"].str.startswith("input")
    inputs = frame[is_input].rename(columns={"name": "file", "value": "SHA-256"})
    return (
        inputs[["file", "SHA-256"]].reset_index(drop=True),
        frame[~is_input].reset_index(drop=True),
    )


def record(ctx: ReportContext) -> dict[str, Any]:
    """The provenance record of this report (computed once)."""
    policies = {
        # what happened to unusable verdicts in this study: the policy applies to categorical
        # verdicts only (an unusable score is left out of the score comparisons)
        "unusable verdicts": ctx.unusable_rule(),
        "confidence level": ctx.level,
        "test size (alpha)": f"{ctx.alpha:g}",
        "alt-test margin (epsilon)": f"{ctx.epsilon:g}",
    }
    if ctx.by is not None:
        policies["subgroups by"] = ", ".join(ctx.by) or "none"
    return ctx.get(
        "provenance",
        lambda: study_provenance(
            ctx.study, ctx.data, seed=ctx.seed, resamples=ctx.n_resamples, policies=policies,
            mapping=ctx.mapping, command=ctx.command,
        ),
    )  # fmt: skip


def build(ctx: ReportContext) -> Section:
    inputs, settings = provenance_tables(record(ctx))
    sec = Section(KEY, TITLE)
    sec.text(
        "@tbl-provenance-inputs identifies every input file by its SHA-256; "
        "@tbl-provenance-settings records the settings, policies, software versions and the "
        "command line. The same inputs, parameters and versions give a byte-identical report."
    )
    sec.table(
        "tbl-provenance-inputs",
        "Input files (paths relative to the bundle's parent directory) and their SHA-256.",
        inputs,
    )
    sec.table(
        "tbl-provenance-settings",
        "Settings, policies, software versions and command line.",
        settings,
    )
    return sec
