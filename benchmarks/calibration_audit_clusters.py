"""Coverage of the audit's Fleiss kappa interval on clustered ratings (issue 27).

60 cases x 8 items, 3 raters, binary labels; each case has its own difficulty (rater accuracy
U(0.6, 0.97)) and label prevalence (Beta(2, 2)), shared by its items. The true kappa is the
estimate on 40,000 cases. Compared: the analytic interval (items independent, what
``ci="auto"`` gave from 100 items on) and the cluster BCa bootstrap (B = 400) that
``medjudge.analyses.audit.audit_settings`` now picks when a cluster is declared or detected.

    PYTHONPATH=analysis nice -n 10 python benchmarks/calibration_audit_clusters.py SEED REPS

Results (2,000 replicates each; docs/audit.md): seed 1 analytic 0.857 (MC SE 0.008), cluster
BCa 0.947 (0.005); seed 2 analytic 0.830 (0.008), cluster BCa 0.940 (0.005).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from medjudge import Bootstrap
from medjudge.stats.agreement import fleiss_kappa

K, M, R = 60, 8, 3  # cases (clusters), items per case, raters


def draw(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``k`` cases of ``M`` items rated by ``R`` raters, and the case label of each item."""
    acc = rng.uniform(0.6, 0.97, size=k)  # case difficulty shared by its items
    prev = rng.beta(2, 2, size=k)
    acc_i, prev_i = np.repeat(acc, M), np.repeat(prev, M)
    truth = rng.random(k * M) < prev_i
    ok = rng.random((k * M, R)) < acc_i[:, None]
    X = np.where(ok, truth[:, None], ~truth[:, None]).astype(float)
    return X, np.repeat(np.arange(k), M)


def main(seed: int, reps: int) -> None:
    warnings.filterwarnings("ignore")
    truth = fleiss_kappa(draw(np.random.default_rng(10**6 + seed), 40000)[0], ci=None).estimate
    rng = np.random.default_rng(seed)
    hit = {"analytic": 0, "cluster_bca": 0}
    t0 = time.time()
    for r in range(reps):
        X, cl = draw(rng, K)
        a = fleiss_kappa(X, ci="analytic")
        b = fleiss_kappa(X, ci="bootstrap", bootstrap=Bootstrap(400, seed=r), clusters=cl)
        hit["analytic"] += a.ci_low <= truth <= a.ci_high
        hit["cluster_bca"] += b.ci_low <= truth <= b.ci_high
    for k, v in hit.items():
        p = v / reps
        se = np.sqrt(p * (1 - p) / reps)
        print(f"seed {seed}: {k}: coverage {p:.3f} (MC SE {se:.3f}), reps {reps}, "
              f"true kappa {truth:.4f}")  # fmt: skip
    print(f"{time.time() - t0:.0f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
