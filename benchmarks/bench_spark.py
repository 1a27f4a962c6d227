"""Spark benchmark: ``evaluate_judges(engine="spark")`` in Spark local mode at 10^8 verdicts.

For each size it writes (or, with ``--keep DIR``, reuses) the synthetic long verdict table of
``medjudge.data.synthetic.write_verdict_parquet`` (N/10 items x 10 judges + 3 experts per item,
items in clusters of 3 "images", 3% invalid judge verdicts) as Parquet, then times in a fresh
process each

* ``write``  — ``write_verdict_parquet(path, n, seed)``: seconds and the file's size on disk;
* ``spark``  — ``evaluate_judges(path, engine="spark", cluster="image_id",
  bootstrap=Bootstrap(B, seed=1))`` (the session made with ``partitions=P`` first) in Spark local mode (``local[*]``, or
  ``MEDJUDGE_SPARK_MASTER``), the session made by ``medjudge.engine.connect.spark_session``
  exactly as the engine test runs it (Java 17 on PATH, nothing else set). Seconds include the
  imports and the JVM start (reported separately as "imports + session start"). Peak RSS of
  the Python driver (``getrusage(RUSAGE_SELF)``) and of the JVM, read two ways: ``VmHWM`` of
  the JVM process from ``/proc`` just before the session stops, and
  ``getrusage(RUSAGE_CHILDREN)`` in the driver process after the JVM has exited (the largest
  waited-for descendant);
* ``duckdb`` — with ``--duckdb``, the same call with ``engine="duckdb"`` on the same file, and
  whether the two engines' ``leaderboard`` (accuracy, intervals) and ``pairs`` tables are
  identical (``DataFrame.equals``; otherwise the largest absolute difference).

``spark_session`` has no driver-memory setting, and in local mode the driver heap is the whole
Spark heap and must be fixed before the JVM starts; so ``--driver-memory`` (default 16g) is
passed to the JVM through ``PYSPARK_SUBMIT_ARGS="--driver-memory 16g pyspark-shell"`` in the
measured process's environment (an existing ``PYSPARK_SUBMIT_ARGS`` is left as it is). The JVM's
actual max heap is printed so the setting can be checked.

It prints one JSON line per measurement and a markdown table — with the 1-minute load average
before and after each run (the machine may be shared: read the times with it).

    python benchmarks/bench_spark.py                                 # 1e8 verdicts, B = 1000
    python benchmarks/bench_spark.py --keep /data/bench --duckdb     # keep the 10^8 Parquet
    python benchmarks/bench_spark.py --sizes 1e5 --resamples 50 --duckdb
    python benchmarks/bench_spark.py --sizes 1e7,1e8 --partitions 64 --driver-memory 12g
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

WRITE = """
import json, os, resource, sys, time
from medjudge.data.synthetic import write_verdict_parquet
path, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tmp = path + ".partial"
t = time.perf_counter()
items = write_verdict_parquet(tmp, n, seed)
os.replace(tmp, path)
out = {"seconds": time.perf_counter() - t, "items": items, "bytes": os.path.getsize(path),
       "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
print(json.dumps(out))
"""

SPARK = """
import json, pickle, resource, sys, time
t0 = time.perf_counter()
from medjudge import Bootstrap
from medjudge.analyses.evaluation import evaluate_judges
from medjudge.engine.connect import spark_session
parts = int(sys.argv[3]) if sys.argv[3] else None
spark = spark_session(parts)  # the session evaluate_judges gets back from getOrCreate
t1 = time.perf_counter()
res = evaluate_judges(sys.argv[1], engine="spark", cluster="image_id",
                      bootstrap=Bootstrap(int(sys.argv[2]), seed=1))
t2 = time.perf_counter()
if sys.argv[4]:
    with open(sys.argv[4], "wb") as f:
        pickle.dump({"leaderboard": res.leaderboard, "pairs": res.pairs}, f)
sc = spark.sparkContext
out = {"seconds": t2 - t0, "session_s": t1 - t0, "evaluate_s": t2 - t1, "pairs": len(res.pairs),
       "rows": res.settings.get("rows"), "spark": spark.version,
       "driver_memory": sc.getConf().get("spark.driver.memory", "not set (1g)"),
       "jvm_max_heap_gb": sc._jvm.java.lang.Runtime.getRuntime().maxMemory() / 2**30}
proc = sc._gateway.proc  # spark-submit execs into the JVM: this pid is the JVM
try:
    with open(f"/proc/{proc.pid}/status") as f:
        hwm = [line.split()[1] for line in f if line.startswith("VmHWM:")]
    out["jvm_hwm_gb"] = int(hwm[0]) / 2**20
except (OSError, IndexError):
    out["jvm_hwm_gb"] = None
spark.stop()
try:  # the JVM exits when its stdin closes; wait for it so RUSAGE_CHILDREN counts it
    sc._gateway.shutdown()
    proc.stdin.close()
    proc.wait(timeout=120)
    out["jvm_children_gb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
except Exception:
    out["jvm_children_gb"] = None
out["rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps(out))
"""

DUCKDB = """
import json, pickle, resource, sys, time
t0 = time.perf_counter()
from medjudge import Bootstrap
from medjudge.analyses.evaluation import evaluate_judges
res = evaluate_judges(sys.argv[1], engine="duckdb", cluster="image_id",
                        bootstrap=Bootstrap(int(sys.argv[2]), seed=1))
out = {"seconds": time.perf_counter() - t0, "pairs": len(res.pairs),
       "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
if sys.argv[3]:
    with open(sys.argv[3], "wb") as f:
        pickle.dump({"leaderboard": res.leaderboard, "pairs": res.pairs}, f)
print(json.dumps(out))
"""


def run(code: str, *argv: object, env: dict[str, str] | None = None, label: str = "") -> dict:
    """Run one measurement in a fresh process; add the load average before and after."""
    before = os.getloadavg()[0]
    p = subprocess.run(
        [sys.executable, "-c", code, *map(str, argv)], capture_output=True, text=True, env=env
    )
    after = os.getloadavg()[0]
    if p.returncode != 0:
        out = {"error": (p.stderr.strip().splitlines() or ["?"])[-1][:160]}
    else:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    out["load"] = (before, after)
    print(json.dumps({"measure": label, **out}), flush=True)
    return out


def compare(a: dict, b: dict) -> str:
    """'identical' if both result tables are equal, else the largest difference found."""
    worst, where, notes = 0.0, "", []
    for name in ("leaderboard", "pairs"):
        x, y = a[name], b[name]
        if x.equals(y):
            continue
        if x.shape != y.shape or list(x.columns) != list(y.columns):
            return f"{name}: shape/columns differ ({x.shape} vs {y.shape})"
        for c in x.columns:
            u, v = x[c].to_numpy(), y[c].to_numpy()
            if pd.api.types.is_numeric_dtype(x[c]) and pd.api.types.is_numeric_dtype(y[c]):
                u, v = u.astype(float), v.astype(float)
                if not np.array_equal(np.isnan(u), np.isnan(v)):
                    return f"{name}.{c}: NaN in different places"
                d = np.abs(u - v)
                d = float(np.max(d[~np.isnan(d)], initial=0.0))
                if d > worst:
                    worst, where = d, f"{name}.{c}"
                if d == 0.0 and x[c].dtype != y[c].dtype:
                    notes.append(f"{name}.{c} dtype {x[c].dtype} vs {y[c].dtype}")
            elif not (pd.Series(u) == pd.Series(v)).all():
                return f"{name}.{c}: values differ"
    if worst == 0.0:
        return "identical" + (f" (values; {', '.join(notes)})" if notes else "")
    return f"largest difference {worst:.3g} ({where})"


def _gb(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f} GB"


def _load(r: dict | None) -> str:
    return "—" if not r else f"{r['load'][0]:.1f} -> {r['load'][1]:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e8", help="judge verdicts, comma-separated")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument(
        "--partitions", type=int, default=None, help="shuffle partitions of the Spark session"
    )
    ap.add_argument("--driver-memory", default="16g", help="Spark driver (= local-mode) heap")
    ap.add_argument("--keep", metavar="DIR", help="write the Parquet here and reuse it if present")
    ap.add_argument("--seed", type=int, default=0, help="seed of the synthetic table")
    ap.add_argument("--duckdb", action="store_true", help="also time engine='duckdb', compare")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    env = dict(os.environ)
    if "PYSPARK_SUBMIT_ARGS" not in env:
        env["PYSPARK_SUBMIT_ARGS"] = f"--driver-memory {args.driver_memory} pyspark-shell"
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, B = {args.resamples}, "
        f"partitions = {args.partitions or 'not set'}, "
        f"master = {env.get('MEDJUDGE_SPARK_MASTER', 'local[*]')}, "
        f"PYSPARK_SUBMIT_ARGS = {env['PYSPARK_SUBMIT_ARGS']!r}; load = 1-minute load average "
        "before -> after each run (the machine may be shared)",
        flush=True,
    )
    cols = [
        "judge verdicts", "rows", "Parquet write", "size on disk", "spark evaluate_judges",
        "of which imports + session start", "Python driver peak RSS", "JVM peak RSS (VmHWM)",
        "JVM peak RSS (RUSAGE_CHILDREN)", "load", "pairs",
    ]  # fmt: skip
    if args.duckdb:
        cols += ["duckdb evaluate_judges", "load", "spark vs duckdb"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(args.keep) if args.keep else Path(tmp)
        data.mkdir(parents=True, exist_ok=True)
        for n in sizes:
            path = data / f"verdicts_{n}_seed{args.seed}.parquet"
            if path.exists():
                w = {"reused": True, "bytes": path.stat().st_size}
            else:
                w = run(WRITE, path, n, args.seed, label=f"write {n}")
            s_out, d_out = Path(tmp) / f"spark{n}.pkl", Path(tmp) / f"duckdb{n}.pkl"
            sp = run(
                SPARK, path, args.resamples, args.partitions or "", s_out if args.duckdb else "",
                env=env, label=f"spark {n}",
            )  # fmt: skip
            dk = (
                run(DUCKDB, path, args.resamples, d_out, label=f"duckdb {n}")
                if args.duckdb
                else None
            )
            if not args.keep:
                path.unlink(missing_ok=True)
            rows.append((n, w, sp, dk))
            same = "—"
            if dk is not None and "error" not in sp and "error" not in dk:
                with open(s_out, "rb") as f, open(d_out, "rb") as g:
                    same = compare(pickle.load(f), pickle.load(g))
            rows[-1] += (same,)
    print()
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for n, w, sp, dk, same in rows:
        if w.get("reused"):
            wtxt = "reused"
        elif "error" in w:
            wtxt = f"error: {w['error']}"
        else:
            wtxt = f"{w['seconds']:.1f} s"
        size = f"{w['bytes'] / 2**20:,.1f} MB" if "bytes" in w else "—"
        if "error" in sp:
            cells = [f"error: {sp['error']}", "—", "—", "—", "—", _load(sp), "—"]
        else:
            cells = [
                f"{sp['seconds']:.1f} s", f"{sp['session_s']:.1f} s", _gb(sp["rss_gb"]),
                _gb(sp["jvm_hwm_gb"]), _gb(sp["jvm_children_gb"]), _load(sp), str(sp["pairs"]),
            ]  # fmt: skip
        cells = [f"{n:,d}", f"{sp.get('rows') or 0:,d}", wtxt, size, *cells]
        if args.duckdb:
            dtxt = f"error: {dk['error']}" if "error" in dk else (
                f"{dk['seconds']:.1f} s, {dk['rss_gb']:.2f} GB"
            )  # fmt: skip
            cells += [dtxt, _load(dk), same]
        print("| " + " | ".join(cells) + " |")
    ok = [sp for _, _, sp, _, _ in rows if "error" not in sp]
    if ok:
        sp = ok[0]
        print(
            f"\nSpark {sp['spark']}, spark.driver.memory = {sp['driver_memory']}, "
            f"JVM max heap = {sp['jvm_max_heap_gb']:.2f} GB"
        )


if __name__ == "__main__":
    main()
