"""Time rendering ``reports/example.qmd`` to HTML + PDF with the built-in engine.

Usage: ``python benchmarks/bench_render.py [--repeat 3] [--qmd PATH]``. Prints one line per run
and the median; each run starts a fresh Jupyter kernel, as a real render does.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from medjudge.report.render import render_qmd

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--qmd", type=Path, default=ROOT / "reports" / "example.qmd")
    ap.add_argument("--to", default="html,pdf")
    args = ap.parse_args()
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            t0 = time.perf_counter()
            out = render_qmd(args.qmd, to=args.to, out_dir=Path(tmp) / f"run{i}")
            dt = time.perf_counter() - t0
            times.append(dt)
            sizes = ", ".join(f"{k} {p.stat().st_size / 1024:.0f} KiB" for k, p in out.items())
            print(f"run {i + 1}: {dt:.2f} s ({sizes})")
    print(
        f"median: {statistics.median(times):.2f} s over {len(times)} runs ({args.qmd.name}, {args.to})"
    )


if __name__ == "__main__":
    main()
