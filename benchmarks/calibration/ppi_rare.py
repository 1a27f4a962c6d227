"""Rare and common rates for judge-assisted (PPI++) estimates (-> docs/calibration.md, "Rare rates").

World: a 0/1 gold label with rate ``rate`` (8% for the rare case), a judge with sensitivity
0.8 and specificity 0.95, ``n`` labelled items and N = 2,000 unlabelled ones, no clusters. The
truth is ``rate``. Rows: the default PPI++ interval of ``ppi_proportion(y, f, fu)`` and of
``ppi_mean(y, f, fu)`` (the symmetric small-sample t interval), the classical t interval
(``classical_mean``) and the classical Wilson interval of the labelled items.
Coverage with its MC SE, misses below/above (interval entirely below / above the truth),
mean width, the share of samples with <= 10 labelled positives and the coverage there. Two
common rates (35% and 50%, 50 labels) check that the change does not cost coverage there.

    nice -n 10 python benchmarks/calibration/ppi_rare.py --seed 1 --reps 4000
    nice -n 10 python benchmarks/calibration/ppi_rare.py --seed 2 --reps 4000
    nice -n 10 python benchmarks/calibration/ppi_rare.py --seed 1 --reps 8000   # MC SE <= 0.3
    nice -n 10 python benchmarks/calibration/ppi_rare.py --seed 2 --reps 8000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from medjudge.stats.intervals import wilson_interval
from medjudge.stats.ppi.mean import classical_mean, ppi_mean, ppi_proportion


def world(rng, size, rate, sens=0.8, spec=0.95):
    y = (rng.random(size) < rate).astype(float)
    f = np.where(y == 1, rng.random(size) < sens, rng.random(size) > spec).astype(float)
    return y, f


def run(seed: int, reps: int, n: int, rate: float, n_unlab: int = 2000) -> list[str]:
    rng = np.random.default_rng(seed)
    res: dict[str, list] = {
        "PPI++ ppi_proportion": [],
        "PPI++ ppi_mean": [],
        "classical t": [],
        "classical Wilson": [],
    }
    pos, warned, method = [], 0, ""
    for _ in range(reps):
        y, f = world(rng, n, rate)
        _, fu = world(rng, n_unlab, rate)
        e = ppi_proportion(y, f, fu)
        method = e.ci_method.split(" (")[0] + (
            (
                ", Wilson (continuity-corrected) at the effective n"
                if "continuity" in e.ci_method
                else ", Wilson at the effective n"
            )
            if "Wilson" in e.ci_method
            else ", small-sample t"
        )
        warned += "warning" in e.extra
        res["PPI++ ppi_proportion"].append((e.ci_low, e.ci_high))
        e = ppi_mean(y, f, fu)
        res["PPI++ ppi_mean"].append((e.ci_low, e.ci_high))
        c = classical_mean(y)
        res["classical t"].append((c.ci_low, c.ci_high))
        res["classical Wilson"].append(tuple(float(v) for v in wilson_interval(y.sum(), n)))
        pos.append(y.sum())
    few = np.array(pos) <= 10
    out = []
    for k, v in res.items():
        v = np.array(v)
        hit = (v[:, 0] <= rate) & (rate <= v[:, 1])
        cov = hit.mean()
        out.append(
            f"| {rate:g} | {n} | {k}{' — ' + method if k.endswith('proportion') else ''} | "
            f"{100 * cov:.1f}% ({100 * np.sqrt(cov * (1 - cov) / reps):.1f}) | "
            f"{100 * np.mean(v[:, 1] < rate):.1f}% / {100 * np.mean(v[:, 0] > rate):.1f}% | "
            f"{np.mean(v[:, 1] - v[:, 0]):.3f} | {100 * few.mean():.0f}% | "
            f"{(f'{100 * hit[few].mean():.1f}%') if few.any() else '-'} | "
            f"{(f'{100 * warned / reps:.0f}%') if k.endswith('proportion') else ''} |"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=4000)
    args = ap.parse_args()
    t0 = time.time()
    print(
        "| rate | labels | interval | coverage (MC SE) | misses below / above | mean width | "
        "<= 10 labelled positives | coverage there | warned |\n|---|---|---|---|---|---|---|---|---|"
    )
    for n, rate in ((50, 0.08), (200, 0.08), (50, 0.35), (50, 0.5)):
        print("\n".join(run(args.seed, args.reps, n, rate)))
    print(f"\nseed={args.seed} reps={args.reps} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
