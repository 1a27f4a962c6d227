"""Scale benchmark: judge evaluation from Parquet at 10^4 … 10^7 verdicts (issue: laptop to cluster).

For each size it writes a long verdict table (N items x 10 judges + 3 experts per item, items in
clusters of 3 "images", 3% invalid judge verdicts) as Parquet, then times in a fresh process

* ``engine``   — ``evaluate_at_scale`` (DuckDB reduction, Poisson cluster bootstrap, B resamples:
  accuracy with clustered intervals, all 45 pairs with paired intervals and clustered McNemar,
  Holm over the table), with peak RSS;
* ``minimal``  — the least a hand-written script must do for the same numbers: one DuckDB query
  for per-cluster counts, then numpy: Poisson(1) weights per cluster (numpy's generator, in
  blocks) and the same ratios — the machine's floor for this computation;
* ``memory``   — the in-memory path (``load`` + ``evaluate_judges``) where it fits (≤ 10^5).

It prints a markdown table — seconds, peak RSS, the 1-minute load average before and after each
run (the machine may be shared: read the times with it), the ratio engine/minimal — the growth
exponent of the engine time in n (slope of log time on log n between the smallest and the
largest size) and whether issue 18's targets are met (10^6 <= 10 s; 10^7 <= 60 s, <= 4 GB).

    python benchmarks/bench_scale.py                     # 1e4 1e5 1e6 1e7, B = 1000
    python benchmarks/bench_scale.py --sizes 1e4,1e5 --resamples 200
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from medjudge.data.synthetic import write_verdict_parquet as write_table

ENGINE = """
import json, resource, sys, time
t = time.perf_counter()
from medjudge import Bootstrap
from medjudge.analyses.at_scale import evaluate_at_scale
res = evaluate_at_scale(sys.argv[1], cluster="image_id", bootstrap=Bootstrap(int(sys.argv[2]), seed=1))
out = {"seconds": time.perf_counter() - t, "pairs": len(res.pairs),
       "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
print(json.dumps(out))
"""

MINIMAL = """
import json, resource, sys, time
t = time.perf_counter()
import duckdb, numpy as np
B = int(sys.argv[2])
q = '''
with g as (select item, value as gold from (
  select item, value, count(*) c, sum(count(*)) over (partition by item) n
  from read_parquet('{p}') where role = 'expert' group by item, value) where 2 * c > n),
j as (select v.image_id, v.rater, (v.value = g.gold)::int as y
      from read_parquet('{p}') v join g using (item) where v.role = 'judge')
select image_id, rater, sum(coalesce(y, 0)) c, count(*) a from j group by image_id, rater
'''.format(p=sys.argv[1])
df = duckdb.sql(q).df()
cl = df.pivot(index="image_id", columns="rater", values="c").fillna(0).to_numpy()
an = df.pivot(index="image_id", columns="rater", values="a").fillna(0).to_numpy()
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

MEMORY = """
import json, resource, sys, time
t = time.perf_counter()
import pandas as pd
from medjudge.data.model import Study
from medjudge.data.scale import Scale
from medjudge import Bootstrap
from medjudge.analyses.evaluation import evaluate_judges
r = pd.read_parquet(sys.argv[1])
items = r[["item", "image_id"]].drop_duplicates("item")
r = r.drop(columns="image_id")
r["value"] = r["value"].astype(object).where(r["value"].notna(), None)
r["status"] = ["ok" if v is not None or role == "expert" else "invalid"
               for v, role in zip(r["value"], r["role"])]
study = Study(ratings=r, items=items, scales={"overall": Scale("nominal", ("A", "B", "T"))})
ev = evaluate_judges(study, bootstrap=Bootstrap(int(sys.argv[2]), seed=1), cluster="image_id")
out = {"seconds": time.perf_counter() - t,
       "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
print(json.dumps(out))
"""


def run(code: str, path: Path, resamples: int) -> dict:
    """Run one measurement in a fresh process; add the load average before and after."""
    before = os.getloadavg()[0]
    p = subprocess.run(
        [sys.executable, "-c", code, str(path), str(resamples)], capture_output=True, text=True
    )
    after = os.getloadavg()[0]
    if p.returncode != 0:
        out = {"error": (p.stderr.strip().splitlines() or ["?"])[-1][:120]}
    else:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    out["load"] = (before, after)
    return out


def _fmt(r: dict | None) -> str:
    if not r:
        return "—"
    if "seconds" not in r:
        return f"error: {r.get('error', '?')}"
    return f"{r['seconds']:.2f} s, {r['rss_gb']:.2f} GB"


#: issue 18's targets: judge verdicts -> (seconds, GB peak RSS) on the 2-core machine
TARGETS = {10**6: (10.0, None), 10**7: (60.0, 4.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,1e5,1e6,1e7", help="judge verdicts, comma-separated")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--memory-up-to", type=float, default=1e5)
    ap.add_argument("--no-minimal", action="store_true", help="skip the minimal script")
    args = ap.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, B = {args.resamples}; "
        "load = 1-minute load average before -> after each run (the machine may be shared)",
        flush=True,
    )
    header = (
        "| judge verdicts | items | engine (evaluate_at_scale) | load | minimal DuckDB+numpy "
        "| load | engine / minimal | in-memory path |"
    )
    print(header)
    print("|" + "---|" * 8, flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"v{n}.parquet"
            items = write_table(path, n)
            eng = run(ENGINE, path, args.resamples)
            mini = None if args.no_minimal else run(MINIMAL, path, args.resamples)
            mem = run(MEMORY, path, args.resamples) if n <= args.memory_up_to else None
            path.unlink()
            rows.append((n, items, eng, mini, mem))
            ratio = (
                eng["seconds"] / mini["seconds"]
                if "seconds" in eng and mini and "seconds" in mini
                else math.nan
            )
            load = lambda r: "—" if not r else f"{r['load'][0]:.1f} -> {r['load'][1]:.1f}"  # noqa: E731
            print(
                f"| {n:,d} | {items:,d} | {_fmt(eng)} | {load(eng)} | {_fmt(mini)} | {load(mini)} "
                f"| {ratio:.2f} | {_fmt(mem)} |",
                flush=True,
            )
    ok = [(n, e["seconds"]) for n, _, e, _, _ in rows if "seconds" in e]
    if len(ok) >= 2:
        (n0, t0), (n1, t1) = ok[0], ok[-1]
        print(
            f"\ngrowth exponent of the engine time in n ({n0:,d} -> {n1:,d}): "
            f"{math.log(t1 / t0) / math.log(n1 / n0):.2f} (target <= 1.1)"
        )
    for n, _, e, _, _ in rows:
        if n in TARGETS and "seconds" in e:
            secs, gb = TARGETS[n]
            ok_t = e["seconds"] <= secs and (gb is None or e["rss_gb"] <= gb)
            print(
                f"target {n:,d} verdicts: <= {secs:g} s"
                + (f", <= {gb:g} GB" if gb else "")
                + f" -> {e['seconds']:.1f} s, {e['rss_gb']:.2f} GB: {'met' if ok_t else 'NOT met'}"
            )


if __name__ == "__main__":
    main()
