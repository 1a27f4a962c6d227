"""Helpers for the robustness tests (issue 14): small tables, the CLI in-process and as a
subprocess, and checks that an output folder is a complete, manifested set."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ("A", "B", "tie")


def cli(argv: Sequence[str]) -> tuple[int, str, str]:
    """Run ``medjudge`` in-process; ``(exit status, stdout, stderr)`` (argparse exits too)."""
    from medjudge.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse
            rc = exc.code if isinstance(exc.code, int) else 2
    return rc, out.getvalue(), err.getvalue()


def cli_subprocess(argv: Sequence[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "medjudge.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        **kw,
    )


def popen(argv: Sequence[str], env: dict | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "medjudge.cli", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        **kw,
    )


def assert_one_line_error(rc: int, err: str, *needles: str) -> None:
    """Exit 2, exactly one line on stderr, no traceback; the line contains every needle."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, (rc, err)
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])


def write_wide(
    folder: Path,
    rows: list[list[str]],
    *,
    experts: Sequence[str] = ("e1", "e2", "e3"),
    judges: Sequence[str] = ("j1", "j2"),
    name: str = "t.csv",
) -> tuple[Path, Path]:
    """A wide CSV (item, grp, raters...) and its TOML mapping (nominal A/B/tie, invalid NA)."""
    folder.mkdir(parents=True, exist_ok=True)
    cols = ["item", "grp", *experts, *judges]
    df = pd.DataFrame(rows, columns=cols)
    table = folder / name
    df.to_csv(table, index=False)
    lines = [
        'layout = "wide"',
        'item = "item"',
        'dimension = "overall"',
        'attributes = ["grp"]',
        'invalid = ["NA"]',
        "[scale]",
        'level = "nominal"',
        'categories = ["A", "B", "tie"]',
    ]
    for r in experts:
        lines += [f"[raters.{json.dumps(r)}]", 'role = "expert"']
    for r in judges:
        lines += [f"[raters.{json.dumps(r)}]", 'role = "judge"']
    mapping = folder / (Path(name).stem + ".toml")
    mapping.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return table, mapping


def small_rows(n: int = 24, seed: int = 0) -> list[list[str]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        truth = CATEGORIES[i % 3]
        vals = [truth if rng.random() < 0.8 else str(rng.choice(CATEGORIES)) for _ in range(5)]
        rows.append([f"i{i:03d}", "xy"[i % 2], *vals])
    return rows


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(folder: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every file under ``folder`` (empty if absent)."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): sha256(p)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def assert_complete(folder: Path) -> dict:
    """``folder`` holds exactly the files its MANIFEST.json lists, with those sizes and hashes."""
    man = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))
    listed = {r["path"]: r for r in man["files"]}
    present = {k for k in snapshot(folder) if k != "MANIFEST.json"}
    assert present == set(listed), present ^ set(listed)
    for rel, rec in listed.items():
        p = folder / rel
        assert p.stat().st_size == rec["size"], rel
        assert sha256(p) == rec["sha256"], rel
    return man


def no_partials(parent: Path) -> list[str]:
    """Names of staging folders / locks left beside an output folder."""
    return sorted(
        p.name for p in parent.iterdir() if ".partial-" in p.name or p.name.endswith(".lock")
    )
