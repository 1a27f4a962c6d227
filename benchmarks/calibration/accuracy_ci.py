"""Coverage of accuracy intervals — plain, clustered and at the edges (-> docs/calibration.md).

Data: :mod:`study_sim` (shared item difficulty, unbalanced clusters of items per image,
difficulty redrawn per replicate, fixed design per scenario). The target is the judge's
*population* accuracy ``E expit(a + d)``. Each replicate is one column, so every method runs
once per scenario on a ``(n_items, reps)`` matrix; the bootstrap methods share one weight matrix
per scenario across replicates (each replicate's interval is still a valid bootstrap interval).

Rows marked "(before)" recompute the intervals as medjudge computed them before issue 12
(effective-n Wilson without the Korn-Graubard df correction; bootstrap without the boundary
fallback), so the table shows what changed.

Run (two seeds, as in docs/calibration.md):

    nice -n 10 python benchmarks/calibration/accuracy_ci.py --seed 1 --reps 4000 --boot 1000
    nice -n 10 python benchmarks/calibration/accuracy_ci.py --seed 2 --reps 4000 --boot 1000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge import Bootstrap
from medjudge.stats.accuracy import accuracy_arrays, judge_accuracy  # noqa: E402
from medjudge.stats.intervals import wilson_interval  # noqa: E402
from medjudge.stats.resampling import ResamplePlan, bootstrap_interval  # noqa: E402
from study_sim import difficulty, judge_outcomes, make_design, mc_se, verdict  # noqa: E402

# (label, n_clusters, mean items per cluster, population accuracy)
SCENARIOS = [
    ("10 clusters x ~3 items, acc 0.80", 10, 3.0, 0.80),
    ("20 clusters x ~3 items, acc 0.80", 20, 3.0, 0.80),
    ("50 clusters x ~3 items, acc 0.80", 50, 3.0, 0.80),
    ("200 clusters x ~5 items, acc 0.80", 200, 5.0, 0.80),
    ("10 clusters x ~3 items, acc 0.95", 10, 3.0, 0.95),
    ("n = 20 independent items, acc 0.95", 20, 1.0, 0.95),
    ("n = 50 independent items, acc 0.98", 50, 1.0, 0.98),
    ("n = 200 independent items, acc 0.80", 200, 1.0, 0.80),
]
QUICK = [SCENARIOS[0], SCENARIOS[5]]
SD_CLUSTER, SD_ITEM = 1.0, 0.7


def run(seed: int, reps: int, boot: int, scenarios=SCENARIOS) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for label, g, size, acc in scenarios:
        design = make_design(rng, g, size)
        clustered = size > 1
        sd_c = SD_CLUSTER if clustered else 0.0
        sd_total = float(np.hypot(sd_c, SD_ITEM))
        d = difficulty(rng, design, reps, sd_c, SD_ITEM)
        y = judge_outcomes(rng, d, [acc], sd_total)[0]
        cl = design.clusters if clustered else None
        res: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for m in ("wilson", "clopper-pearson", "wald"):
            f = judge_accuracy(y, clusters=cl, method=m)
            res[f"{m}{' (effective n, KG df)' if clustered and m != 'wald' else ''}"] = (
                f.ci_low.to_numpy(),
                f.ci_high.to_numpy(),
            )
        if clustered:  # before: Wilson at n_eff = p(1-p)/SE^2 without truncation or df correction
            a = accuracy_arrays(y, clusters=cl)
            p, se, n = a["estimate"], a["se"], a["n"]
            with np.errstate(invalid="ignore", divide="ignore"):
                ne = p * (1 - p) / se**2
            ne = np.where((se > 0) & np.isfinite(ne) & (ne > 0), ne, n)
            res["wilson (effective n, no df; before)"] = wilson_interval(p * ne, ne)
        w = ResamplePlan(design.n_items, boot, int(rng.integers(1 << 31)), clusters=cl).apply(
            lambda w: w
        )
        for m in ("bootstrap-percentile", "bootstrap-bca"):
            f = judge_accuracy(y, clusters=cl, method=m, weights=w, bootstrap=Bootstrap(boot))
            res[f"{m} (+ boundary fallback)"] = (f.ci_low.to_numpy(), f.ci_high.to_numpy())
        # before: the percentile bootstrap without the fallback
        from medjudge.stats.accuracy import bootstrap_accuracy

        bt = bootstrap_accuracy(y, weights=w)
        est = np.nanmean(y, 0)
        res["bootstrap-percentile (before)"] = bootstrap_interval(est, bt, method="percentile")
        edge = float(np.mean((est == 0) | (est == 1)))
        for m, (lo, hi) in res.items():
            cov = float(np.mean((lo <= acc) & (acc <= hi)))
            se = mc_se(cov, reps)
            rows.append(
                {
                    "scenario": label,
                    "share_at_boundary": edge,
                    "method": m,
                    "coverage": cov,
                    "mc_se": se,
                    "mean_width": float(np.nanmean(hi - lo)),
                    "reps": reps,
                    "verdict": verdict(cov, se),
                }
            )
    return rows


def table(rows: list[dict]) -> str:
    out = [
        "| scenario | at 0/1 | method | coverage (MC SE) | mean width | in band |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['scenario']} | {100 * r['share_at_boundary']:.0f}% | {r['method']} | "
            f"{100 * r['coverage']:.1f}% ({100 * r['mc_se']:.1f}) | {r['mean_width']:.3f} | {r['verdict']} |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=4000)
    ap.add_argument("--boot", type=int, default=1000)
    args = ap.parse_args()
    t0 = time.time()
    rows = run(args.seed, args.reps, args.boot)
    print(table(rows))
    print(
        f"\nseed={args.seed} reps={args.reps} boot={args.boot} ({time.time() - t0:.0f} s); "
        "'in band' = not below 95% by more than 2 MC SE; 'conservative' = above by > 2 SE + 1 pt"
    )


if __name__ == "__main__":
    main()
