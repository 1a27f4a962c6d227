"""Does the calibration analysis tell a calibrated judge from an over-confident one?

Design (issue 40 item 6; the model of ``medjudge.data.synthetic_calibration``): ``n`` binary
items in cases of four; per item a *calibrated* judge is right with probability
``c ~ U(0.5, 1)`` and states ``c`` (true ECE 0, Brier 1/6), an *over-confident* judge is right
with probability ``c ~ U(0.5, 0.85)`` and states ``c + 0.15`` (true binned ECE and gap 0.15,
Brier 0.2317). Verdicts are right independently given the confidence (the test's assumption);
the cases only group items for the cluster bootstrap. Each replicate runs
:func:`medjudge.stats.calibration.calibration_statistics` on both judges (B = 400) and the
analysis' decision rule (Holm over the two tests at 5%; over-confident when the gap's interval
lies above 0).

Reported per judge: the flag rate (how often it is called miscalibrated; the calibrated judge's
is the familywise size, the over-confident judge's the power), how often it is called
over-confident, the mean ECE and the mean ECE expected under calibration, and the coverage of
the 95% intervals of the ECE, Brier score and gap of their true values.

Run:

    flock /work/notes/heavy.lock nice -n 5 python benchmarks/calibration/judge_calibration.py --seed 1
    flock /work/notes/heavy.lock nice -n 5 python benchmarks/calibration/judge_calibration.py --seed 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.data.synthetic_calibration import TRUTH  # noqa: E402
from medjudge.stats.calibration import calibration_statistics  # noqa: E402
from medjudge.stats.multiplicity import adjust_pvalues  # noqa: E402
from medjudge.stats.resampling import Bootstrap  # noqa: E402
from study_sim import mc_se  # noqa: E402

JUDGES = {"calibrated": (0.5, 1.0, 0.0), "overconfident": (0.5, 0.85, 0.15)}


def run(n: int, reps: int, seed: int, b: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    clusters = np.arange(n) // 4
    tally = {j: {k: 0.0 for k in ("flag", "over", "ece", "null", "ece_cov", "brier_cov",
                                  "gap_cov")} for j in JUDGES}  # fmt: skip
    for r in range(reps):
        res = {}
        for j, (lo, hi, shift) in JUDGES.items():
            c = rng.uniform(lo, hi, n)
            y = (rng.random(n) < c).astype(float)
            res[j] = calibration_statistics(
                c + shift, y, clusters=clusters, bootstrap=Bootstrap(b, seed=1000 * seed + r)
            )
        p_holm = adjust_pvalues(np.array([res[j]["p_value"] for j in JUDGES]), "holm")
        for (j, s), ph in zip(res.items(), p_holm, strict=True):
            t, tr = tally[j], TRUTH[j]
            t["flag"] += ph < 0.05
            t["over"] += (ph < 0.05) and s["gap_low"] > 0
            t["ece"] += s["ece"] / reps
            t["null"] += s["ece_null"] / reps
            t["ece_cov"] += s["ece_low"] <= tr["ece"] <= s["ece_high"]
            t["brier_cov"] += s["brier_low"] <= tr["brier"] <= s["brier_high"]
            t["gap_cov"] += s["gap_low"] <= tr["gap"] <= s["gap_high"]
    for t in tally.values():
        for k in ("flag", "over", "ece_cov", "brier_cov", "gap_cov"):
            t[k] /= reps
    return tally


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=400)
    a = ap.parse_args()
    print("| n | judge | flagged | called over-confident | mean ECE | ECE if calibrated "
          "| ECE CI covers truth | Brier CI covers | gap CI covers |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (100, 400):
        t0 = time.time()
        tally = run(n, a.reps, a.seed, a.resamples)
        for j, t in tally.items():
            se = mc_se(t["flag"], a.reps)
            print(
                f"| {n} | {j} | {t['flag']:.1%} (±{se:.1%}) | {t['over']:.1%} | "
                f"{t['ece']:.3f} | {t['null']:.3f} | {t['ece_cov']:.1%} | {t['brier_cov']:.1%} "
                f"| {t['gap_cov']:.1%} |"
            )
        print(f"<!-- n={n}: {time.time() - t0:.0f} s, seed {a.seed}, reps {a.reps} -->")


if __name__ == "__main__":
    main()
