"""Design H of issue 28: size and power of ``heterogeneity_table`` at high accuracy (-> docs/calibration.md).

3 equally good judges (population accuracy 0.9; 0.75 for the second size row), 50 images of
1-6 items, a subgroup attribute that varies within images (groups g1/g2/g3 with probability
0.45/0.45/0.10 per item, so g3 often holds 0 or 1 errors of a judge). Each replicate is one
Study passed to the public ``mj.heterogeneity_table(study, "subgroup")`` with its defaults.
Rejection at 5% is counted per judge x replicate, overall and by the number of errors the
judge made in the smallest group (0, 1, 2+). Power: one judge's accuracy is lower by ``shift``
in g3 and higher in g1 (the other two judges stay null); power is the rejection rate of that
judge.

Run:

    nice -n 10 python benchmarks/calibration/heterogeneity_high_accuracy.py --seed 1 --reps 1000
    nice -n 10 python benchmarks/calibration/heterogeneity_high_accuracy.py --seed 2 --reps 1000
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import medjudge as mj  # noqa: E402
from hard_designs import SD_CLUSTER, SD_ITEM, SD_TOTAL, make_study, mc_se, sizes_h  # noqa: E402
from study_sim import intercept_for  # noqa: E402

PROBS = (0.45, 0.45, 0.10)


def simulate(rng, acc: float, shift: float = 0.0):
    """Image sizes, cluster and group of every item, and correctness (n, 3) of one study."""
    sizes = sizes_h(rng)
    cl = np.repeat(np.arange(sizes.size), sizes)
    n = cl.size
    g = rng.choice(3, n, p=PROBS)
    d = rng.normal(0, SD_CLUSTER, sizes.size)[cl] + rng.normal(0, SD_ITEM, n)
    y = np.empty((n, 3))
    for j in range(3):
        a = np.full(n, intercept_for(acc, SD_TOTAL))
        if j == 0 and shift:
            a = np.where(g == 2, intercept_for(acc - shift, SD_TOTAL), a)
            a = np.where(g == 0, intercept_for(min(acc + shift / 2, 0.99), SD_TOTAL), a)
        y[:, j] = rng.random(n) < expit(a + d)
    return sizes, cl, g, y


def one_study(rng, acc: float, shift: float = 0.0):
    sizes, _, g, y = simulate(rng, acc, shift)
    labels = np.array(["g1", "g2", "g3"])[g]
    return make_study(y, sizes, {"subgroup": labels}), y, g


def run(seed: int, reps: int, acc: float, shift: float = 0.0) -> dict:
    rng = np.random.default_rng(seed)
    rej, by_err, tests = [], {0: [], 1: [], 2: []}, set()
    for _ in range(reps):
        study, y, g = one_study(rng, acc, shift)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = mj.heterogeneity_table(study, "subgroup")
        h = h.set_index("judge").loc[[f"judge_{j}" for j in range(3)]]
        tests.update(h["test"].str.replace(r"B=\d+, seed \d+", "B, seed", regex=True))
        p = h["pvalue"].to_numpy()
        for j in range(3 if not shift else 1):
            r = bool(p[j] < 0.05)
            rej.append(r)
            err = int(((1 - y[:, j]) * (g == 2)).sum())
            by_err[min(err, 2)].append(r)
    out = {"rate": float(np.mean(rej)), "n": len(rej), "tests": sorted(tests)}
    for k, v in by_err.items():
        out[f"err{k}"] = (float(np.mean(v)) if v else np.nan, len(v))
    return out


def scenarios(reps: int, power_reps: int) -> list[tuple[str, float, float, int]]:
    """(label, accuracy, shift, replicates): two null rows and two power rows."""
    return [
        ("null, accuracy 0.9", 0.9, 0.0, reps),
        ("null, accuracy 0.75", 0.75, 0.0, reps // 2),
        ("power: accuracy 0.75, g3 -0.25 / g1 +0.125", 0.75, 0.25, power_reps),
        ("power: accuracy 0.9, g3 -0.3 / g1 +0.05", 0.9, 0.3, power_reps),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--power-reps", type=int, default=300)
    args = ap.parse_args()
    t0 = time.time()
    print(
        "| scenario | rejects at 5% (MC SE) | g3 with 0 errors | g3 with 1 error | "
        "g3 with 2+ errors | test |\n|---|---|---|---|---|---|"
    )
    for label, acc, shift, reps in scenarios(args.reps, args.power_reps):
        r = run(args.seed, reps, acc, shift)
        cells = []
        for k in (0, 1, 2):
            v, m = r[f"err{k}"]
            cells.append(f"{100 * v:.1f}% (n={m})" if m else "-")
        print(
            f"| {label} | {100 * r['rate']:.1f}% ({100 * mc_se(r['rate'], r['n']):.1f}; "
            f"n={r['n']}) | {' | '.join(cells)} | {'; '.join(r['tests'])} |"
        )
    print(
        f"\nseed={args.seed} reps={args.reps} ({time.time() - t0:.0f} s); null rows count 3 "
        "judges per replicate (MC SE treats them as independent), power rows the shifted judge"
    )


if __name__ == "__main__":
    main()
