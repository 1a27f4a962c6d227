"""Calibration of stratified PPI++ (one pooled lam, stratum-share term) on the clustered world of
``benchmarks/calibration/ppi.py``: coverage, width ratio against experts only, effective labels.

Prints one tab-separated row per n and method: ``n, seed, method, coverage, MC SE, width ratio,
effective labels``. Nominal 95%; truth = the world's expectation (1,000,000 simulated items).

    nice -n 10 python benchmarks/calibration/ppi_stratified.py 1400 3 50,100,200,500
    nice -n 10 python benchmarks/calibration/ppi_stratified.py 1400 4 50,100,200,500
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.stats.ppi.mean import classical_mean  # noqa: E402
from medjudge.stats.ppi.stratified import ppi_mean_stratified  # noqa: E402
from ppi import world  # noqa: E402


def main(reps: int, seed: int, ns: list[int]) -> None:
    truth = world(np.random.default_rng(123456), 1_000_000)[0].mean()
    rng = np.random.default_rng(seed)
    for n in ns:
        acc: dict[str, list] = {}
        for _ in range(reps):
            y, f1, _, c, s = world(rng, 500)
            lab = np.zeros(y.size, bool)
            lab[rng.choice(y.size, n, replace=False)] = True
            L, U = lab, ~lab
            kw = {"clusters": c[L], "clusters_unlabeled": c[U]}
            res = {
                "classical (cluster)": classical_mean(y[L], clusters=c[L]),
                "PPI++ stratified (cluster)": ppi_mean_stratified(
                    y[L], f1[L], f1[U], s[L], s[U], **kw
                )[0],
                "classical (cluster), normal": classical_mean(
                    y[L], clusters=c[L], interval="normal"
                ),
                "PPI++ stratified (cluster), normal": ppi_mean_stratified(
                    y[L], f1[L], f1[U], s[L], s[U], interval="normal", **kw
                )[0],
            }
            w0 = res["classical (cluster)"].ci_high - res["classical (cluster)"].ci_low
            e0 = res["classical (cluster), normal"]
            w0n = e0.ci_high - e0.ci_low
            for k, e in res.items():
                acc.setdefault(k, []).append(
                    (
                        e.ci_low <= truth <= e.ci_high,
                        (e.ci_high - e.ci_low) / (w0n if k.endswith("normal") else w0),
                        e.extra.get("effective_n", np.nan),
                    )
                )
        for k, a in acc.items():
            arr = np.asarray(a, float)
            cov = arr[:, 0].mean()
            eff = np.nanmean(arr[:, 2]) if np.isfinite(arr[:, 2]).any() else math.nan
            se = math.sqrt(cov * (1 - cov) / reps)
            print(f"{n}\t{seed}\t{k}\t{cov:.4f}\t{se:.4f}\t{arr[:, 1].mean():.3f}\t{eff:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")])
