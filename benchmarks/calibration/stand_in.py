"""How often is a judge worse than every expert called a candidate stand-in? (-> calibration.md)

Design (issue 37): ``G`` images with 1-5 questions each (about 150 items), a binary truth per
item (prevalence 0.5), 3 experts of accuracy ``a_e`` (0.825 by default) and one judge ``delta``
accuracy points below them; every rater is right with probability ``expit(a_r + u_c + e_i)``
(an image effect and an item effect shared by all raters, intercepts set so the population
accuracy is exact, :mod:`study_sim`). The rule under test is the stand-in decision of
:func:`medjudge.stats.judge_vs_experts.non_inferiority`: for each left-out expert, the judge's
accuracy minus the expert's against the other experts' majority, with a cluster-robust 95%
interval (CR1, t with G-1 df); non-inferior when the lower limit lies above ``-margin``
(5 points); a candidate stand-in when non-inferior against every left-out expert.

Also reported: the alt-test (epsilon 0.2) pass rate on the same studies.

Run:

    nice -n 10 python benchmarks/calibration/stand_in.py --seed 1 --reps 1000
    nice -n 10 python benchmarks/calibration/stand_in.py --seed 2 --reps 1000
    nice -n 10 python benchmarks/calibration/stand_in.py --seed 3 --random 12 --reps 300
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.stats.judge_vs_experts import alt_test, non_inferiority  # noqa: E402
from study_sim import intercept_for, mc_se  # noqa: E402


def scenario(rng, label, g, a_e, delta, sd_c, sd_i, reps, margin=0.05, with_alt=True):
    sizes = rng.integers(1, 6, g)
    cl = np.repeat(np.arange(g), sizes)
    n = cl.size
    sd = float(np.hypot(sd_c, sd_i))
    accs = [a_e] * 3 + [a_e - delta]
    stand = alt_pass = 0
    for _ in range(reps):
        d = rng.normal(0, sd_c, g)[cl] + rng.normal(0, sd_i, n)
        truth = rng.integers(0, 2, n)
        lab = []
        for a in accs:
            right = rng.random(n) < expit(intercept_for(a, sd) + d)
            lab.append(np.where(right, truth, 1 - truth).astype(float))
        E, J = np.column_stack(lab[:3]), lab[3]
        ni = non_inferiority(J, E, clusters=cl, margin=margin)
        stand += bool(ni.attrs["non_inferior"])
        if with_alt:
            alt_pass += alt_test(J, E, epsilon=0.2).passed
    r = stand / reps
    out = dict(scenario=label, n=n, called=r, mc_se=mc_se(r, reps), reps=reps)
    if with_alt:
        out["alt"] = alt_pass / reps
    return out


ISSUE = [
    # label, G, expert accuracy, judge gap, sd image, sd item
    ("50 images (~150 items), experts 0.825, judge 5 points below", 50, 0.825, 0.05, 1.0, 0.7),
    ("50 images (~150 items), experts 0.825, judge 10 points below", 50, 0.825, 0.10, 1.0, 0.7),
    ("50 images (~150 items), experts 0.825, judge equal (power)", 50, 0.825, 0.0, 1.0, 0.7),
    ("150 images (~450 items), experts 0.825, judge equal (power)", 150, 0.825, 0.0, 1.0, 0.7),
]


def random_designs(rng, k):
    out = []
    for j in range(k):
        g = int(rng.integers(30, 151))
        a_e = float(rng.uniform(0.72, 0.95))
        sdc, sdi = float(rng.uniform(0, 1.5)), float(rng.uniform(0.2, 1.0))
        lab = f"random {j + 1}: G={g}, experts {a_e:.3f}, judge 5 points below, sd image {sdc:.2f}"
        out.append((lab, g, a_e, 0.05, sdc, sdi))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--random", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    print("| scenario | items | called a candidate stand-in (MC SE) | alt-test passes |")
    print("|---|---|---|---|")
    for d in random_designs(rng, a.random) if a.random else ISSUE:
        r = scenario(rng, *d, a.reps)
        print(f"| {r['scenario']} | {r['n']} | {100 * r['called']:.1f}% ({100 * r['mc_se']:.1f}) "
              f"| {100 * r['alt']:.1f}% |")  # fmt: skip
    print(f"\nseed {a.seed}, {a.reps} replicates, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
