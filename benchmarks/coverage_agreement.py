"""Coverage of 95 % intervals for Cohen's kappa and Krippendorff's alpha (simulation).

Designs: two raters classify n items into 3 categories; each rater reports the true class
with probability ``acc`` and otherwise a uniformly random class. Balanced prevalence
(1/3 each) or skewed (0.85 / 0.10 / 0.05, the "kappa paradox" regime); n = 30, 100, 300.
The population value is computed from one sample of 400,000 items of the same design.
Intervals: analytic (kappa: Fleiss-Cohen-Everitt, normal; alpha: Gwet linearisation, t),
bootstrap percentile and BCa (shared resampling engine, B = 1000).

    python benchmarks/coverage_agreement.py [n_sims]
"""

from __future__ import annotations

import sys
import time

import numpy as np
from medjudge.stats.agreement import (
    cohen_kappa,
    cohen_kappa_core,
    krippendorff_alpha,
    krippendorff_alpha_core,
)
from medjudge.stats.resampling import ResamplePlan, bootstrap_interval, weighted_bootstrap

B = 1000
DESIGNS = [
    ("balanced", (1 / 3, 1 / 3, 1 / 3), 0.6),
    ("skewed", (0.85, 0.10, 0.05), 0.8),
]
SIZES = (30, 100, 300)


def simulate(rng: np.random.Generator, n: int, prev: tuple[float, ...], acc: float) -> np.ndarray:
    truth = rng.choice(3, size=n, p=prev)
    keep = rng.random((n, 2)) < acc
    return np.where(keep, truth[:, None], rng.integers(0, 3, size=(n, 2))).astype(float)


def run(n_sims: int) -> list[dict[str, object]]:
    rows = []
    for name, prev, acc in DESIGNS:
        big = simulate(np.random.default_rng(12345), 400_000, prev, acc)
        truth = {
            "kappa": cohen_kappa_core(big, categories=[0, 1, 2]),
            "alpha": krippendorff_alpha_core(big, scale="nominal", categories=[0, 1, 2]),
        }
        for n in SIZES:
            rng = np.random.default_rng(n)
            hits = {(c, m): 0 for c in truth for m in ("analytic", "percentile", "bca")}
            width = {k: 0.0 for k in hits}
            valid = {k: 0 for k in hits}
            for s in range(n_sims):
                X = simulate(rng, n, prev, acc)
                plan = ResamplePlan(n_items=n, n_resamples=B, seed=s)
                for c in truth:
                    if c == "kappa":
                        est = cohen_kappa(X, categories=[0, 1, 2])

                        def stat(W, X=X):
                            return cohen_kappa_core(X, W, categories=[0, 1, 2])
                    else:
                        est = krippendorff_alpha(X, scale="nominal", categories=[0, 1, 2])

                        def stat(W, X=X):
                            return krippendorff_alpha_core(
                                X, W, scale="nominal", categories=[0, 1, 2]
                            )

                    res = weighted_bootstrap(stat, plan, method="bca")
                    pl, ph = bootstrap_interval(res["estimate"], res["boot"], method="percentile")
                    for m, (lo, hi) in {
                        "analytic": (est.ci_low, est.ci_high),
                        "percentile": (float(pl), float(ph)),
                        "bca": (float(res["low"]), float(res["high"])),
                    }.items():
                        if np.isfinite(lo) and np.isfinite(hi):
                            valid[(c, m)] += 1
                            hits[(c, m)] += lo <= truth[c] <= hi
                            width[(c, m)] += hi - lo
            for (c, m), h in hits.items():
                v = max(valid[(c, m)], 1)
                rows.append(
                    {
                        "design": name,
                        "n": n,
                        "coef": c,
                        "true": truth[c],
                        "method": m,
                        "coverage": h / v,
                        "width": width[(c, m)] / v,
                        "runs": valid[(c, m)],
                    }
                )
    return rows


def main() -> None:
    n_sims = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    t0 = time.perf_counter()
    rows = run(n_sims)
    mc = 1.96 * np.sqrt(0.95 * 0.05 / n_sims)
    print(
        f"95% interval coverage, {n_sims} simulated studies per cell, B = {B} "
        f"(Monte Carlo +/- {mc:.3f}); {time.perf_counter() - t0:.0f} s\n"
    )
    print(
        "| design | n | coefficient (true) | analytic | percentile | BCa | mean width (analytic / perc / BCa) |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, _, _ in DESIGNS:
        for n in SIZES:
            for c in ("kappa", "alpha"):
                r = {
                    x["method"]: x
                    for x in rows
                    if x["design"] == name and x["n"] == n and x["coef"] == c
                }
                print(
                    f"| {name} | {n} | {c} ({r['analytic']['true']:.3f}) | {r['analytic']['coverage']:.3f} | "
                    f"{r['percentile']['coverage']:.3f} | {r['bca']['coverage']:.3f} | "
                    f"{r['analytic']['width']:.3f} / {r['percentile']['width']:.3f} / {r['bca']['width']:.3f} |"
                )


if __name__ == "__main__":
    main()
