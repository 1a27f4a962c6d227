"""Size of paired score comparisons between two judges (-> docs/calibration.md).

Design (issue 37): ``G`` images (30 by default) with 2-6 items each, gold scores 1-5. Two judges
with **equal MAE and different error shapes**: judge A is off by one point (either side) with
probability ``p_A = m h_c``, judge B off by two points with probability ``p_B = m h_c / 2`` —
both have expected absolute error ``m h_c`` on image ``c``, with an image difficulty
``h_c ~ U(0.4, 1.6)`` shared by both (so the errors cluster). ``m`` is the MAE (0.5). Errors are
symmetric, so both judges' bias is 0 and equal too; scores are not clipped (errors keep their
shape). Under this null:

* ``wilcoxon`` (signed-rank on A - B, items independent) — tests symmetry of A - B;
* the clustered sign-flip test of the MAE difference (:func:`paired_score_difference`,
  ``metric="mae"``) and of the bias difference (``metric="bias"``);
* the cluster jackknife t for the RMSE difference under equal RMSE (judge B off by
  ``sqrt(2)`` points' worth: probabilities set so that ``E e^2`` match instead).

Run:

    nice -n 10 python benchmarks/calibration/paired_scores.py --seed 1 --reps 2000
    nice -n 10 python benchmarks/calibration/paired_scores.py --seed 2 --reps 2000
    nice -n 10 python benchmarks/calibration/paired_scores.py --seed 3 --random 10 --reps 400
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.stats.resampling import Permutation  # noqa: E402
from medjudge.stats.score_tests import paired_score_difference, wilcoxon  # noqa: E402
from study_sim import mc_se  # noqa: E402


def scenario(rng, label, g, m, spread, rmse_null, reps, n_flips=1999):
    sizes = rng.integers(2, 7, g)
    cl = np.repeat(np.arange(g), sizes)
    n = cl.size
    rej = {"wilcoxon (items)": 0, "MAE difference (cluster sign-flip)": 0,
           "bias difference (cluster sign-flip)": 0, "RMSE difference (cluster jackknife)": 0}  # fmt: skip
    cover = 0
    for r in range(reps):
        h = rng.uniform(1 - spread, 1 + spread, g)[cl]
        gold = rng.integers(1, 6, n).astype(float)
        sa = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        sb = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        pa = np.clip(m * h, 0, 1)
        pb = np.clip((m * h) / (2.0 if not rmse_null else 4.0), 0, 1)
        a = gold + sa * (rng.random(n) < pa)
        b = gold + 2 * sb * (rng.random(n) < pb)
        rej["wilcoxon (items)"] += wilcoxon(a, b, zero_method="pratt").pvalue < 0.05
        for metric, key in (("mae", "MAE difference (cluster sign-flip)"),
                            ("bias", "bias difference (cluster sign-flip)"),
                            ("rmse", "RMSE difference (cluster jackknife)")):  # fmt: skip
            if (metric == "rmse") != rmse_null:
                continue
            res = paired_score_difference(a, b, gold, metric=metric, clusters=cl,
                                          permutation=Permutation(n_flips, seed=r))  # fmt: skip
            rej[key] += res["p_value"] < 0.05
            inside = res["ci_low"] <= 0 <= res["ci_high"]
            assert (res["p_value"] < 0.05) != inside or res["p_value"] == 0.05
            if metric == "mae":
                cover += inside
    return [
        dict(scenario=label, test=k, rate=v / reps, mc_se=mc_se(v / reps, reps), reps=reps)
        for k, v in rej.items()
        if (k.startswith("RMSE")) == rmse_null or k.startswith("wilcoxon")
    ]


ISSUE = [
    ("30 images x 2-6 items, equal MAE 0.5, different error shapes", 30, 0.5, 0.6, False),
    ("30 images x 2-6 items, equal RMSE, different error shapes", 30, 0.5, 0.6, True),
    ("60 images x 2-6 items, equal MAE 0.5, different error shapes", 60, 0.5, 0.6, False),
]


def random_designs(rng, k):
    out = []
    for j in range(k):
        g, m, sp = (
            int(rng.integers(20, 101)),
            float(rng.uniform(0.2, 0.6)),
            float(rng.uniform(0, 0.6)),
        )
        out.append((f"random {j + 1}: G={g}, MAE {m:.2f}, image spread {sp:.2f}", g, m, sp, False))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--random", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    print("| scenario | test | rejections at 5% (MC SE) |\n|---|---|---|")
    for d in random_designs(rng, a.random) if a.random else ISSUE:
        for r in scenario(rng, *d, a.reps):
            print(
                f"| {r['scenario']} | {r['test']} | {100 * r['rate']:.1f}% ({100 * r['mc_se']:.1f}) |"
            )
    print(f"\nseed {a.seed}, {a.reps} replicates, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
