"""Synthetic long verdict tables of any size, written straight to Parquet (no pandas).

Used by the scale benchmark and the engine smoke test: ``N`` items in clusters of three
("images"), three experts and ten judges per item, one dimension, categories A / B / T with
unbalanced prevalence (0.5 / 0.35 / 0.15), experts who err 10% of the time, judges whose
accuracy depends on an item difficulty they all share, and 3% invalid (empty) judge verdicts.

Examples
--------
>>> import tempfile, pathlib, pyarrow.parquet as pq
>>> p = pathlib.Path(tempfile.mkdtemp()) / "v.parquet"
>>> write_verdict_parquet(p, 1000)
100
>>> pq.read_metadata(p).num_rows   # 100 items x (3 experts + 10 judges)
1300
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["write_verdict_parquet"]

N_JUDGES = 10
N_EXPERTS = 3


def write_verdict_parquet(path: str | Path, n_verdicts: int, seed: int = 0) -> int:
    """Write ~n_verdicts judge verdicts (+ expert rows) in row groups; returns the item count."""
    n_items = max(10, n_verdicts // N_JUDGES)
    rng = np.random.default_rng(seed)
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    chunk = 200_000
    cats = np.array(["A", "B", "T"])
    for start in range(0, n_items, chunk):
        m = min(chunk, n_items - start)
        ids = np.arange(start, start + m)
        item = np.char.add("q", ids.astype(str))
        image = np.char.add("img", (ids // 3).astype(str))
        gold = rng.choice(3, m, p=[0.5, 0.35, 0.15])
        difficulty = rng.normal(0, 1, m)
        parts = []
        for e in range(N_EXPERTS):
            lab = np.where(rng.random(m) < 0.1, rng.integers(0, 3, m), gold)
            parts.append((item, image, f"e{e}", "expert", cats[lab]))
        for j in range(N_JUDGES):
            p = 1 / (1 + np.exp(-(0.3 + 0.1 * j - difficulty)))
            val = np.where(rng.random(m) < p, gold, (gold + 1) % 3)
            v = cats[val].astype(object)
            v[rng.random(m) < 0.03] = None
            parts.append((item, image, f"judge{j:02d}", "judge", v))
        cols = {
            "item": np.concatenate([p[0] for p in parts]),
            "image_id": np.concatenate([p[1] for p in parts]),
            "rater": np.concatenate([np.full(m, p[2]) for p in parts]),
            "role": np.concatenate([np.full(m, p[3]) for p in parts]),
            "dimension": np.full(m * len(parts), "overall"),
            "value": np.concatenate([p[4] for p in parts]),
        }
        table = pa.table({k: pa.array(v, type=pa.string()) for k, v in cols.items()})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()
    return n_items
