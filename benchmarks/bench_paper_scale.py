"""Paper scale: the demo study — 1,026 items x 12 judges x 6 dimensions + 3 experts.

Times, as fresh processes (wall clock, median of ``--runs``, with the 1-minute load average
before each run — the machine may be shared), the commands a user types:

0. a machine speed gauge: the same fixed numpy/pandas/Python work in every bench (no medjudge),
   to read the other rows against the machine's speed at the moment (it varied by a third
   within an hour on the shared 2-core VM);
1. ``medjudge --help`` against ``python -c pass``;
2. ``medjudge run data/demo --report none``;
3. ``medjudge run data/demo`` — the tables and both reports, HTML and PDF;
4. ``medjudge report data/demo`` — both reports.

The demo must stay fast, but there are no fixed second targets: a change is judged against the
code before it on the same machine (``bench_ab.py``, alternated runs); the limit is 1.5x the
last recorded bench (``benchmarks/scale.md``).

    python benchmarks/bench_paper_scale.py [--runs 3] [--skip-reports]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"

#: the same fixed work in every bench (imports, numpy, pandas, a Python loop; no medjudge): its
#: time shows how fast the machine runs at that moment (it varies by a third on the shared VM)
GAUGE = """
import numpy as np, pandas as pd
rng = np.random.default_rng(0)
x = rng.random(2_000_000)
for _ in range(3):
    np.sort(x)
df = pd.DataFrame({"g": rng.integers(0, 1000, 1_000_000), "v": rng.random(1_000_000)})
df.groupby("g")["v"].mean()
s = 0
for i in range(2_000_000):
    s += i
"""


def _time(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    if done.returncode != 0:  # what the command said, then stop
        sys.stderr.write(done.stderr.decode(errors="replace"))
        raise SystemExit(f"bench: exit status {done.returncode}: {' '.join(args)}")
    return time.perf_counter() - t0, load


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per case (median; default 3)")
    ap.add_argument("--skip-reports", action="store_true", help="only --help and --report none")
    ns = ap.parse_args(argv)
    env = dict(os.environ)
    # as after `pip install`: modules are read from their bytecode (an environment that forbids
    # writing it would compile every changed module in every run)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "analysis"), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    )
    cli = ["-m", "medjudge.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out")
        cases = {
            "python -c pass": (["-c", "pass"], None),
            "machine speed gauge (fixed numpy/pandas/Python work)": (["-c", GAUGE], None),
            "medjudge --help": ([*cli, "--help"], None),
            "medjudge run data/demo --report none": (
                [*cli, "run", str(DEMO), "--out", out, "--report", "none"], None),
        }  # fmt: skip
        if not ns.skip_reports:
            cases.update({
                "medjudge run data/demo (tables + both reports)": (
                    [*cli, "run", str(DEMO), "--out", out], None),
                "medjudge report data/demo (both reports)": (
                    [*cli, "report", str(DEMO), "--out", out], None),
            })  # fmt: skip
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, median of {ns.runs} runs")
        print("| case | median wall (s) | load average at start | target |")
        print("|---|---|---|---|")
        medians = {}
        for name, (args, target) in cases.items():
            _time(args, env)  # warm the file cache and bytecode
            runs = [_time(args, env) for _ in range(ns.runs)]
            med = statistics.median(t for t, _ in runs)
            medians[name] = med
            loads = ", ".join(f"{load:.1f}" for _, load in runs)
            verdict = (
                ""
                if target is None
                else f"<= {target:g} s: {'met' if med <= target else 'NOT met'}"
            )
            print(f"| {name} | {med:.2f} | {loads} | {verdict} |", flush=True)
    print(f"--help / python -c pass = {medians['medjudge --help'] / medians['python -c pass']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
