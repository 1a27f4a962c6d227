"""Start-up cost of the front door: ``medjudge --help`` and ``import medjudge``.

Times, as fresh processes (median of ``--runs`` runs, wall clock):

1. ``python -c pass`` — the interpreter alone (the obvious baseline);
2. ``python -c "import medjudge"`` — the lazy front door (PEP 562; no numpy/pandas/scipy);
3. ``python -m medjudge.cli --help`` — the CLI's help (imports no command module, no pandas,
   no statsmodels);
4. for contrast, ``python -c "import medjudge.commands.compare"`` — what ``--help`` would cost if
   every command module were imported up front.

and prints each median and its ratio to the bare interpreter. The goal (issue 11) is
``medjudge --help`` well under half a second on the CI machine (2 cores).

Run:  python benchmarks/bench_cli_startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "python -c pass": ["-c", "pass"],
    "import medjudge": ["-c", "import medjudge"],
    "medjudge --help": ["-m", "medjudge.cli", "--help"],
    "import medjudge.commands.compare": ["-c", "import medjudge.commands.compare"],
}


def time_once(args: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="runs per case (default 15)")
    ns = ap.parse_args(argv)
    if ns.runs < 1:
        ap.error(f"--runs must be >= 1, got {ns.runs}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "analysis"), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    )
    medians = {}
    for name, args in CASES.items():
        time_once(args, env)  # warm the file cache / bytecode
        medians[name] = statistics.median(time_once(args, env) for _ in range(ns.runs))
    base = medians["python -c pass"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, median of {ns.runs} runs")
    print(f"{'case':36s} {'median (s)':>10s} {'x python -c pass':>17s}")
    for name, t in medians.items():
        print(f"{name:36s} {t:10.3f} {t / base:17.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
