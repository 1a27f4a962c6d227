"""Krippendorff's alpha with 2,000 bootstrap resamples on 1,026 items x 3 raters.

Compares medjudge's vectorised weighted core (one call on the B x n weight matrix of the shared
resampling engine) with calling ``krippendorff.alpha`` once per resample on the duplicated
rows, checks the numbers agree to 1e-9 on a few resamples, and prints the timings and ratio.

    python benchmarks/bench_krippendorff.py
"""

from __future__ import annotations

import time

import krippendorff
import numpy as np
from medjudge.stats.agreement import krippendorff_alpha_core
from medjudge.stats.resampling import ResamplePlan

N_ITEMS, N_RATERS, B, Q = 1026, 3, 2000, 3


def data(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.choice(Q, size=N_ITEMS, p=[0.45, 0.45, 0.10])
    X = np.where(
        rng.random((N_ITEMS, N_RATERS)) < 0.85,
        truth[:, None],
        rng.integers(0, Q, (N_ITEMS, N_RATERS)),
    )
    X = X.astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    return X


def main() -> None:
    X = data()
    W = ResamplePlan(n_items=N_ITEMS, n_resamples=B, seed=0).apply(lambda w: w)
    for level in ("nominal", "ordinal", "interval"):
        krippendorff_alpha_core(X, W[:10], scale=level)  # warm-up (BLAS threads, caches)
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            ours = krippendorff_alpha_core(X, W, scale=level)
            times.append(time.perf_counter() - t0)
        t_ours = min(times)  # best of 5

        idx = [np.repeat(np.arange(N_ITEMS), w.astype(int)) for w in W]
        t0 = time.perf_counter()
        ref = np.array(
            [krippendorff.alpha(reliability_data=X[i].T, level_of_measurement=level) for i in idx]
        )
        t_ref = time.perf_counter() - t0
        err = float(np.max(np.abs(ours - ref)))
        assert err < 1e-9, err
        print(
            f"{level:9s} medjudge {t_ours * 1e3:7.1f} ms | krippendorff.alpha x {B}: {t_ref:6.2f} s | "
            f"ratio {t_ref / t_ours:6.0f}x | max |diff| {err:.1e} over all {B} resamples"
        )


if __name__ == "__main__":
    main()
