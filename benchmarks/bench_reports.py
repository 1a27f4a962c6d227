"""Time rendering both demo reports (judge evaluation + annotation audit) to HTML + PDF.

Usage: ``python benchmarks/bench_reports.py [--repeat 1] [--resamples 2000] [--serial]``.
This is what ``medjudge run data/demo`` adds to the main job: the two reports rendered
concurrently (one kernel each), with the default 2000 resamples. Goal: < 30 s on 2 cores.
Also prints each report's time when rendered alone (``--serial``), which shows where the
time goes (the statistics, not the typesetting: see the chunk timings in the notebook).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from medjudge.commands.report import KINDS, render_reports

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "demo")
    ap.add_argument("--serial", action="store_true", help="also time each report on its own")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}")
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            t0 = time.perf_counter()
            out = render_reports(args.data, out=Path(tmp) / f"run{i}", resamples=args.resamples)
            dt = time.perf_counter() - t0
            times.append(dt)
            sizes = ", ".join(
                f"{k}.{f} {p.stat().st_size / 1024:.0f} KiB"
                for k, fmts in out.items()
                for f, p in fmts.items()
            )
            print(f"run {i + 1}: both reports, html+pdf, concurrent: {dt:.1f} s ({sizes})")
        if args.serial:
            for kind in KINDS:
                t0 = time.perf_counter()
                render_reports(
                    args.data, kinds=[kind], out=Path(tmp) / kind, resamples=args.resamples
                )
                print(f"{kind} alone: {time.perf_counter() - t0:.1f} s")
    print(
        f"median: {statistics.median(times):.1f} s over {len(times)} run(s) "
        f"(resamples={args.resamples}; goal < 30 s on 2 cores)"
    )


if __name__ == "__main__":
    main()
