"""Calibration of the bias suite's self-preference and length tests, and of the rank sets.

Simulated pairwise judge studies that look like real ones: items come in clusters of 1-5
(several questions per image / instruction; unbalanced), item difficulty is shared by the
judge through cluster and item random effects, the gold prefers answer 1 for 60% of items
(unbalanced labels), and length differences are correlated within clusters.

Scenarios (each: size = rejection rate of the 5% test under no effect; coverage = share of
95% intervals containing the true effect), with Monte Carlo SE sqrt(p(1-p)/R):

* self-preference, no effect (lambda = 0) and lambda = 0.15: the judge picks its own family's
  answer with probability lambda, else is right with its item-specific probability; the true
  accuracy gap equals lambda exactly (see medjudge.stats.self_preference).
* length, no effect: correctness independent of the length difference (heterogeneous items,
  clusters); length, known effect: logit P(correct) = b0 + b1 tanh(delta/sd) with
  (b0, b1) = (0.8, 0.7), no random effect (well-specified), coverage of b1 and of
  lc_accuracy = expit(b0).

Usage::

    nice -n 10 python benchmarks/calibration/bias_suite.py --reps 1000 --seed 1 --n-clusters 80
    nice -n 10 python benchmarks/calibration/bias_suite.py --reps 1000 --seed 2 --n-clusters 30
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "analysis"))

from medjudge.stats.length_control import length_controlled_accuracy  # noqa: E402
from medjudge.stats.self_preference import self_preference  # noqa: E402


def simulate_items(rng: np.random.Generator, n_clusters: int) -> dict[str, np.ndarray]:
    """Clusters of 1-5 items, shared difficulty, gold answer 1 for 60%, clustered lengths."""
    sizes = rng.integers(1, 6, n_clusters)
    cl = np.repeat(np.arange(n_clusters), sizes)
    n = cl.size
    u = rng.normal(0, 0.8, n_clusters)[cl] + rng.normal(0, 0.5, n)
    p_right = expit(1.0 + u)  # judge's length/self-neutral accuracy, heterogeneous
    gold_first = rng.random(n) < 0.6
    dl = rng.normal(0, 120, n_clusters)[cl] + rng.normal(0, 80, n)  # len(ans1) - len(ans2)
    return {"cluster": cl, "p_right": p_right, "gold_first": gold_first, "len_diff12": dl}


def self_pref_rep(rng, n_clusters: int, lam: float, level: float) -> tuple[bool, bool]:
    it = simulate_items(rng, n_clusters)
    n = it["cluster"].size
    own_first = rng.random(n) < 0.5  # which answer the judge's family wrote
    gold_own = it["gold_first"] == own_first
    picks_own = rng.random(n) < lam
    right = rng.random(n) < it["p_right"]
    correct = np.where(picks_own, gold_own, right).astype(float)
    r = self_preference(correct, gold_own, clusters=it["cluster"], confidence_level=level)
    return r.pvalue < 1 - level, r.ci_low <= lam <= r.ci_high


def length_rep(rng, n_clusters: int, b1: float, level: float) -> tuple[bool, bool, bool]:
    it = simulate_items(rng, n_clusters)
    delta = np.where(it["gold_first"], it["len_diff12"], -it["len_diff12"])
    if b1 == 0.0:
        p = it["p_right"]
        truth_lc = np.nan
    else:
        s = delta.std(ddof=1)
        p = expit(0.8 + b1 * np.tanh(delta / s))
        truth_lc = expit(0.8)
    correct = (rng.random(p.size) < p).astype(float)
    r = length_controlled_accuracy(correct, delta, clusters=it["cluster"], confidence_level=level)
    cover_b1 = r.effect_ci_low <= b1 <= r.effect_ci_high
    cover_lc = bool(r.lc_ci_low <= truth_lc <= r.lc_ci_high) if b1 else True
    return r.pvalue < 1 - level, cover_b1, cover_lc


def run(reps: int, seed: int, n_clusters: int, level: float = 0.95) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    rows = []
    for lam in (0.0, 0.15):
        out = np.array([self_pref_rep(rng, n_clusters, lam, level) for _ in range(reps)])
        rows.append(
            {
                "scenario": f"self-preference, lambda={lam}",
                "reject": out[:, 0].mean(),
                "cover": out[:, 1].mean(),
                "cover_lc": np.nan,
            }
        )
    for b1 in (0.0, 0.7):
        out = np.array([length_rep(rng, n_clusters, b1, level) for _ in range(reps)])
        rows.append(
            {
                "scenario": f"length, b1={b1}",
                "reject": out[:, 0].mean(),
                "cover": out[:, 1].mean(),
                "cover_lc": out[:, 2].mean() if b1 else np.nan,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n-clusters", type=int, default=80)
    a = ap.parse_args(argv)
    if a.reps < 10 or a.n_clusters < 5:
        ap.error("--reps must be >= 10 and --n-clusters >= 5")
    t0 = time.perf_counter()
    rows = run(a.reps, a.seed, a.n_clusters)
    mc = lambda p: np.sqrt(p * (1 - p) / a.reps)  # noqa: E731
    print(
        f"# bias-suite calibration: reps={a.reps} seed={a.seed} n_clusters={a.n_clusters} "
        f"(~{3 * a.n_clusters} items), nominal 5% / 95%"
    )
    print(
        "| scenario | rejection rate (MC SE) | coverage of effect (MC SE) | coverage of LC accuracy |"
    )
    print("|---|---|---|---|")
    for r in rows:
        lc = "" if np.isnan(r["cover_lc"]) else f"{r['cover_lc']:.3f} ({mc(r['cover_lc']):.3f})"
        print(
            f"| {r['scenario']} | {r['reject']:.3f} ({mc(r['reject']):.3f}) | "
            f"{r['cover']:.3f} ({mc(r['cover']):.3f}) | {lc} |"
        )
    print(f"# {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
