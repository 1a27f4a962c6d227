"""Scale benchmark: judge evaluation at 10^4 … 10^7 verdicts, on the path users take (issue 29).

For each size N (judge verdicts) it writes the table a user brings — five columns ``item, image,
judge, verdict, gold`` (N/10 items x 10 judges, items in clusters of 3 images, 3% invalid
verdicts spelled ``NA``, the gold label on every row) as Parquet, with its mapping (TOML) — and
times in a fresh process, with the peak resident memory of that process (``wait4`` rusage, as
``/usr/bin/time -v`` reports it):

* ``compare``  — ``medjudge compare T.parquet --mapping m.toml --cluster image --resamples B
  --json`` with *no* ``--engine``: ``auto`` takes the columnar path from 10^6 verdict rows
  (accuracy with clustered intervals, all 45 pairs with paired intervals and clustered McNemar,
  Holm); its accuracies are checked against a direct DuckDB count (``exact``);
* ``minimal``  — the least a hand-written script must do for the same numbers: one DuckDB query
  for per-cluster counts, then numpy: Poisson(1) weights per cluster (numpy's generator, in
  blocks) and the same ratios — the machine's floor for this computation;
* ``subgroups``, ``run`` (with ``--commands all``) — ``medjudge subgroups … --by dimension
  --cluster image --json`` and ``medjudge run … --report none``;
* ``canonical`` (with ``--canonical``) — ``evaluate_judges(path, engine="duckdb")`` on the
  canonical long table of
  :func:`medjudge.data.synthetic.write_verdict_parquet` (+ 3 experts per item, majority gold).

It prints a markdown table — seconds, peak RSS, the 1-minute load average before -> after each
run (the machine may be shared: read the times with it), the ratio compare/minimal — and whether
issue 29's targets are met (10^7 verdicts: <= 60 s and <= 2 GB per command).

    python benchmarks/bench_scale.py                         # 1e4 1e5 1e6 1e7, B = 1000
    python benchmarks/bench_scale.py --sizes 1e4,1e5 --resamples 200
    python benchmarks/bench_scale.py --sizes 1e7 --commands all
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from medjudge.data.synthetic import write_verdict_parquet as write_table

MAPPING = """item = "item"
rater = "judge"
role = "judge"
value = "verdict"
gold = "gold"
dimension = "overall"
cluster = "image"
invalid = ["NA"]
[scale]
level = "nominal"
categories = ["A", "B", "tie"]
"""

MINIMAL = """
import json, resource, sys, time
t = time.perf_counter()
import duckdb, numpy as np
B = int(sys.argv[2])
q = '''
select image, judge, sum((verdict = gold)::int) c, count(*) a
from read_parquet('{p}') group by image, judge
'''.format(p=sys.argv[1])
df = duckdb.sql(q).df()
cl = df.pivot(index="image", columns="judge", values="c").fillna(0).to_numpy()
an = df.pivot(index="image", columns="judge", values="a").fillna(0).to_numpy()
rng = np.random.default_rng(1)
acc = []
for b0 in range(0, B, 64):
    w = rng.poisson(1.0, size=(min(64, B - b0), cl.shape[0]))
    acc.append((w @ cl) / (w @ an))
acc = np.vstack(acc)
d = acc[:, :, None] - acc[:, None, :]
lo, hi = np.quantile(d, [0.025, 0.975], axis=0)
out = {"seconds": time.perf_counter() - t,
       "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
print(json.dumps(out))
"""

CANONICAL = """
import json, resource, sys, time
t = time.perf_counter()
from medjudge import Bootstrap
from medjudge.analyses.evaluation import evaluate_judges
res = evaluate_judges(sys.argv[1], engine="duckdb", cluster="image_id", bootstrap=Bootstrap(int(sys.argv[2]), seed=1))
out = {"seconds": time.perf_counter() - t, "pairs": len(res.pairs),
       "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
print(json.dumps(out))
"""


def write_mapped(path: Path, n_verdicts: int, n_judges: int = 10, seed: int = 0) -> int:
    """The five-column table of the module docstring and ``m.toml`` beside it; the item count."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    n_items = max(10, n_verdicts // n_judges)
    rng = np.random.default_rng(seed)
    cats = np.array(["A", "B", "tie"])
    writer = None
    for start in range(0, n_items, 100_000):
        m = min(100_000, n_items - start)
        ids = np.arange(start, start + m)
        item = np.char.add("q", ids.astype(str))
        image = np.char.add("img", (ids // 3).astype(str))
        gold = rng.choice(3, m, p=[0.5, 0.35, 0.15])
        difficulty = rng.normal(0, 1, m)
        parts = []
        for j in range(n_judges):
            p = 1 / (1 + np.exp(-(0.3 + 0.1 * j - difficulty)))
            v = cats[np.where(rng.random(m) < p, gold, (gold + 1) % 3)].astype(object)
            v[rng.random(m) < 0.03] = "NA"
            parts.append(v)
        table = pa.table(
            {
                "item": pa.array(np.tile(item, n_judges)),
                "image": pa.array(np.tile(image, n_judges)),
                "judge": pa.array(np.repeat([f"judge{j:02d}" for j in range(n_judges)], m)),
                "verdict": pa.array(np.concatenate(parts).astype(str)),
                "gold": pa.array(np.tile(cats[gold], n_judges)),
            }
        )
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()
    (path.parent / "m.toml").write_text(MAPPING)
    return n_items


def _measure(cmd: list[str]) -> dict:
    """Run ``cmd`` in a fresh process: seconds, its peak RSS (GB), load average, stdout."""
    before = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)  # the child's own rusage, as /usr/bin/time -v
    seconds = time.perf_counter() - t
    load = (before, os.getloadavg()[0])
    if os.waitstatus_to_exitcode(status) != 0:
        return {"error": (err.strip().splitlines() or ["?"])[-1][:160], "load": load}
    return {"seconds": seconds, "rss_gb": usage.ru_maxrss / 2**20, "load": load, "stdout": out}


def run_cli(argv: list[str]) -> dict:
    """``medjudge ARGV`` in a fresh process (see :func:`_measure`)."""
    return _measure([sys.executable, "-m", "medjudge.cli", *argv])


def run_script(code: str, path: Path, resamples: int) -> dict:
    """A script reporting its own seconds and peak RSS as JSON (the minimal one, canonical)."""
    r = _measure([sys.executable, "-c", code, str(path), str(resamples)])
    if "stdout" in r:
        r.update(json.loads(r.pop("stdout").strip().splitlines()[-1]))
    return r


def exact_accuracies(path: Path, compare_json: str) -> bool:
    """The leaderboard's accuracies equal a direct DuckDB count, to the last digit."""
    import duckdb

    res = json.loads(compare_json)
    ref = dict(
        duckdb.sql(
            "select judge, sum((verdict = gold)::int)::double / count(*) "
            f"from read_parquet('{path}') group by judge"
        ).fetchall()
    )
    return len(res["leaderboard"]) == len(ref) and all(
        ref[r["judge"]] == r["accuracy"] for r in res["leaderboard"]
    )


def _fmt(r: dict | None) -> str:
    if not r:
        return "—"
    if "seconds" not in r:
        return f"error: {r.get('error', '?')}"
    return (
        f"{r['seconds']:.1f} s, {r['rss_gb']:.2f} GB (load {r['load'][0]:.1f}->{r['load'][1]:.1f})"
    )


#: issue 29's targets per command at 10^7 judge verdicts: (seconds, GB peak RSS)
TARGETS = {10**7: (60.0, 2.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,1e5,1e6,1e7", help="judge verdicts, comma-separated")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--commands", choices=["compare", "all"], default="compare")
    ap.add_argument("--canonical", action="store_true", help="also the canonical engine path")
    ap.add_argument("--no-minimal", action="store_true", help="skip the minimal script")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, B = {args.resamples}; "
        "load = 1-minute load average before -> after each run (the machine may be shared)",
        flush=True,
    )
    cols = ["compare (mapped, no --engine)", "exact", "minimal DuckDB+numpy", "compare / minimal"]
    if args.commands == "all":
        cols += ["subgroups --by dimension", "run --report none"]
    if args.canonical:
        cols += ["canonical evaluate_judges"]
    print("| judge verdicts | items | " + " | ".join(cols) + " |")
    print("|" + "---|" * (2 + len(cols)), flush=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"v{n}.parquet"
            items = write_mapped(path, n)
            base = [str(path), "--mapping", str(path.parent / "m.toml")]
            row = {
                "compare": run_cli(
                    [
                        "compare",
                        *base,
                        "--cluster",
                        "image",
                        "--resamples",
                        str(args.resamples),
                        "--json",
                    ]
                )  # fmt: skip
            }
            cmp_ = row["compare"]
            exact = "stdout" in cmp_ and exact_accuracies(path, cmp_["stdout"])
            mini = None if args.no_minimal else run_script(MINIMAL, path, args.resamples)
            ratio = (
                cmp_["seconds"] / mini["seconds"]
                if "seconds" in cmp_ and mini and "seconds" in mini
                else math.nan
            )
            cells = [_fmt(cmp_), "yes" if exact else "NO", _fmt(mini), f"{ratio:.2f}"]
            if args.commands == "all":
                row["subgroups"] = run_cli(
                    ["subgroups", *base, "--by", "dimension", "--cluster", "image", "--json"]
                )
                row["run"] = run_cli(
                    ["run", *base, "--report", "none", "--out", str(Path(tmp) / "out")]
                )
                cells += [_fmt(row["subgroups"]), _fmt(row["run"])]
            if args.canonical:
                cpath = Path(tmp) / f"c{n}.parquet"
                write_table(cpath, n)
                cells.append(_fmt(run_script(CANONICAL, cpath, args.resamples)))
                cpath.unlink()
            path.unlink()
            results.append((n, row))
            print(f"| {n:,d} | {items:,d} | " + " | ".join(cells) + " |", flush=True)
    for n, row in results:
        if n not in TARGETS:
            continue
        secs, gb = TARGETS[n]
        for name, r in row.items():
            if "seconds" not in r:
                print(f"target {n:,d} verdicts, {name}: failed ({r.get('error')})")
                continue
            ok = r["seconds"] <= secs and r["rss_gb"] <= gb
            print(
                f"target {n:,d} verdicts, {name}: <= {secs:g} s, <= {gb:g} GB -> "
                f"{r['seconds']:.1f} s, {r['rss_gb']:.2f} GB: {'met' if ok else 'NOT met'}"
            )


if __name__ == "__main__":
    main()
