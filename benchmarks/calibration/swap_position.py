"""Size and power of the swap-design position-bias test when pairs are clustered.

Design (issue 37): ``G`` images with 1-5 answer pairs each (uniform), each pair judged in both
orders. A pair is a tie in at least one order with probability ``p_tie`` (12%; never a
position choice); otherwise the two verdicts disagree (an inconsistent pair) with probability
``p_inc``, and an inconsistent pair is first-first with probability ``expit(b + u_c)``, where
``u_c ~ N(0, sd^2)`` is an image-level position preference (mean 0 under the null ``b = 0``).
The per-image counts ``ff_c``, ``ss_c`` are all any test sees.

Tests at 5%: the exact binomial of ``ff`` against ``ss`` (the old test; ignores images), the
Durkalski (2003) statistic ``(sum_c s_c)^2 / sum_c s_c^2`` (``s_c = ff_c - ss_c``) against
chi^2_1, and the cluster sign-flip test of ``sum_c s_c`` (the new test; exact enumeration up
to 2^14 sign patterns, else random ones: 1,999 here to keep the run short, 9,999 by default) —
through
:func:`medjudge.stats.mcnemar.swap_position_test`, which also gives the interval.

Run:

    nice -n 10 python benchmarks/calibration/swap_position.py --seed 1 --reps 2000
    nice -n 10 python benchmarks/calibration/swap_position.py --seed 2 --reps 2000
    nice -n 10 python benchmarks/calibration/swap_position.py --seed 3 --random 12 --reps 300
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.stats.mcnemar import swap_position_test  # noqa: E402
from medjudge.stats.resampling import Permutation  # noqa: E402
from study_sim import mc_se  # noqa: E402


def scenario(rng, label, g, max_pairs, p_tie, p_inc, sd, b, reps):
    sizes = rng.integers(1, max_pairs + 1, g)
    cl = np.repeat(np.arange(g), sizes)
    n = cl.size
    u = rng.normal(0, sd, (reps, g))[:, cl]
    tie = rng.random((reps, n)) < p_tie
    inc = ~tie & (rng.random((reps, n)) < p_inc)
    ff = inc & (rng.random((reps, n)) < expit(b + u))
    ss = inc & ~ff
    rej = {"exact binomial (items)": 0, "Durkalski chi2": 0, "cluster sign-flip": 0}
    cover = 0
    for r in range(reps):
        k1, k2 = int(ff[r].sum()), int(ss[r].sum())
        if k1 + k2 == 0:
            continue
        rej["exact binomial (items)"] += stats.binomtest(k1, k1 + k2, 0.5).pvalue < 0.05
        s = np.bincount(cl, weights=ff[r].astype(float) - ss[r], minlength=g)
        x2 = s.sum() ** 2 / (s**2).sum()
        rej["Durkalski chi2"] += stats.chi2.sf(x2, 1) < 0.05
        t = swap_position_test(
            ff[r].astype(float), ss[r].astype(float), cl, permutation=Permutation(1999, r)
        )
        rej["cluster sign-flip"] += t["p_value"] <= 0.05  # reject at p <= alpha
        cover += t["ci_low"] <= 0.5 <= t["ci_high"]
        if (t["p_value"] <= 0.05) == (t["ci_low"] <= 0.5 <= t["ci_high"]):
            raise AssertionError("interval and test disagree")
    return [
        dict(scenario=label, test=k, rate=v / reps, mc_se=mc_se(v / reps, reps), reps=reps)
        for k, v in rej.items()
    ]


ISSUE = [
    ("70 images x 1-5 pairs, 12% ties, sd 1.5 (null)", 70, 5, 0.12, 0.3, 1.5, 0.0),
    (
        "70 images x 1-5 pairs, 12% ties, 60% inconsistent, sd 2.0 (null)",
        70,
        5,
        0.12,
        0.6,
        2.0,
        0.0,
    ),
    ("70 images x 1-5 pairs, 12% ties, sd 0 (null)", 70, 5, 0.12, 0.3, 0.0, 0.0),
    ("30 images x 1-5 pairs, 12% ties, sd 1.0 (null)", 30, 5, 0.12, 0.3, 1.0, 0.0),
    ("70 images x 1-5 pairs, 12% ties, sd 1.0, b = 0.7 (power)", 70, 5, 0.12, 0.3, 1.0, 0.7),
]


def random_designs(rng, k):
    out = []
    for j in range(k):
        g, m = int(rng.integers(20, 151)), int(rng.integers(1, 9))
        pt, pi, sd = rng.uniform(0, 0.3), rng.uniform(0.05, 0.5), rng.uniform(0, 2)
        lab = (
            f"random {j + 1}: G={g}, 1-{m} pairs, ties {pt:.2f}, inconsistent {pi:.2f}, sd {sd:.2f}"
        )
        out.append((lab, g, m, pt, pi, sd, 0.0))
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
