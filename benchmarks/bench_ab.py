"""Before / after: one medjudge command timed on two versions of the code, alternately.

The 2-core machine's own speed moves by a third within an hour, so a change is timed against
the code before it in the same minutes: the older version is checked out into a temporary git
worktree, and the command runs ``--runs`` times on each version, alternating (old, new, old,
new …), as a fresh process with ``PYTHONPATH`` pointing at that version's ``analysis/``. The
command gets ``--out`` in a temporary folder, emptied before each run. Printed: median and mean
wall time, median CPU time (user + system of the process and its children, e.g. the report
kernels), every run's wall time and the ratio new / old of the medians.

    python benchmarks/bench_ab.py --old 8c71b52 --runs 10 -- run data/demo --report none
    python benchmarks/bench_ab.py --old HEAD~1 --runs 5 -- report data/demo
    python benchmarks/bench_ab.py --old 30b8968 --runs 3 --no-out -- compare \
        data/external/hanna/hanna_long.csv --mapping data/mappings/hanna_long.toml
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(command: list[str], analysis: Path, out: Path | None) -> tuple[float, float]:
    if out is not None:
        shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as after `pip install`: bytecode is read
    env["PYTHONPATH"] = str(analysis)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "medjudge.cli", *command,
         *(["--out", str(out)] if out is not None else [])],
        env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="git revision of the code before the change")
    ap.add_argument("--runs", type=int, default=10, help="runs per version (default 10)")
    ap.add_argument(
        "--no-out",
        action="store_true",
        help="the command writes no files (compare, audit): no --out is added",
    )
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- then the medjudge command")
    ns = ap.parse_args(argv)
    command = ns.command[1:] if ns.command[:1] == ["--"] else ns.command
    if not command:
        ap.error("give the medjudge command after --, e.g. -- run data/demo --report none")
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "old"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(tree), ns.old], cwd=ROOT, check=True
        )
        try:
            versions = {"old": tree / "analysis", "new": ROOT / "analysis"}
            times: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
            for analysis in versions.values():  # warm the file cache and bytecode
                _run(command, analysis, None if ns.no_out else Path(tmp) / "out")
            for _ in range(ns.runs):
                for name, analysis in versions.items():
                    out = None if ns.no_out else Path(tmp) / "out"
                    times[name].append(_run(command, analysis, out))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT)
    print(f"medjudge {' '.join(command)}: old = {ns.old}, new = the work tree, "
          f"{ns.runs} alternated runs each, load {os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    print("| version | median wall (s) | mean wall (s) | median CPU (s) | runs (s) |")
    print("|---|---|---|---|---|")
    medians = {}
    for name, runs in times.items():
        walls = [w for w, _ in runs]
        medians[name] = statistics.median(walls)
        print(
            f"| {name} | {medians[name]:.3f} | {statistics.mean(walls):.3f} | "
            f"{statistics.median(c for _, c in runs):.3f} | "
            f"{', '.join(f'{w:.2f}' for w in sorted(walls))} |"
        )
    print(f"\nnew / old (median wall) = {medians['new'] / medians['old']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
