"""Coverage of the engine path's Poisson cluster-bootstrap intervals (issue: laptop to cluster).

Simulated judge studies that look like real ones: G clusters ("images") of 1-4 items, an item
difficulty shared by every judge, 4 judges of different skill, 3% invalid verdicts (counted as
wrong), unbalanced correctness. For each replicate the study is reduced to count patterns (the
same integers the DuckDB/Spark reduction returns) and ``evaluate_patterns`` gives the accuracy
interval of every judge and the paired-difference interval of every pair; the truth is the
population value computed by numerical integration over the same model.

Prints coverage with its Monte Carlo SE per (G, statistic).

    python benchmarks/calibration/poisson_bootstrap.py --reps 1000 --seed 1
    python benchmarks/calibration/poisson_bootstrap.py --reps 1000 --seed 2 --clusters 15,60,400
"""

from __future__ import annotations

import argparse

import numpy as np
from medjudge.stats.pattern_inference import evaluate_patterns

SKILL = np.array([0.2, 0.5, 0.8, 1.4])
SD_CLUSTER, SD_ITEM, INVALID = 0.8, 0.5, 0.03


def truth() -> np.ndarray:
    z = np.random.default_rng(0).normal(size=4_000_000) * np.hypot(SD_CLUSTER, SD_ITEM)
    return np.array([np.mean((1 - INVALID) / (1 + np.exp(-(s - z)))) for s in SKILL])


def one_study(rng: np.random.Generator, g: int):
    sizes = rng.integers(1, 5, g)
    u = np.repeat(rng.normal(0, SD_CLUSTER, g), sizes) + rng.normal(0, SD_ITEM, sizes.sum())
    p = 1 / (1 + np.exp(-(SKILL[None, :] - u[:, None])))
    valid = rng.random(p.shape) >= INVALID
    y = (rng.random(p.shape) < p) & valid
    cl = np.repeat(np.arange(g), sizes)
    n = np.bincount(cl)
    a = np.repeat(n[:, None], 4, 1)
    v = np.stack([np.bincount(cl, valid[:, j], g) for j in range(4)], 1).astype(int)
    c = np.stack([np.bincount(cl, y[:, j], g) for j in range(4)], 1).astype(int)
    rows = np.concatenate([n[:, None], a, v, c], 1)
    pat, k = np.unique(rows, axis=0, return_counts=True)
    return pat[:, 0], pat[:, 1:5], pat[:, 5:9], pat[:, 9:13], k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clusters", default="15,60,400")
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    tr = truth()
    ii, jj = np.triu_indices(4, 1)
    tdiff = tr[ii] - tr[jj]
    rng = np.random.default_rng(args.seed)
    print(
        f"seed {args.seed}, {args.reps} replicates, B = {args.resamples}, truth {np.round(tr, 4)}"
    )
    print("| clusters | accuracy coverage | paired-difference coverage |")
    print("|---|---|---|")
    for g in [int(x) for x in args.clusters.split(",")]:
        hit_a = hit_d = n_a = n_d = 0
        for _ in range(args.reps):
            n, a, v, c, k = one_study(rng, g)
            acc, pr = evaluate_patterns(a, v, c, k, items=n, n_resamples=args.resamples,
                                        seed=int(rng.integers(1 << 62)))  # fmt: skip
            hit_a += int(((acc["ci_low"] <= tr) & (tr <= acc["ci_high"])).sum())
            n_a += 4
            hit_d += int(((pr["ci_low"] <= tdiff) & (tdiff <= pr["ci_high"])).sum())
            n_d += len(ii)
        ca, cd = hit_a / n_a, hit_d / n_d
        # MC SE from the replicate count (intervals within a replicate are correlated: use reps)
        print(
            f"| {g} | {ca:.3f} ± {np.sqrt(ca * (1 - ca) / args.reps):.3f} | "
            f"{cd:.3f} ± {np.sqrt(cd * (1 - cd) / args.reps):.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
