"""Coverage of 95% intervals for kappa / alpha / AC1 on judge-study data (-> docs/calibration.md).

Data (:mod:`study_sim`): a latent true class per item with *unbalanced* prevalence; raters
(experts, or a judge and an expert) report it correctly with probability ``expit(a_r + d_i)``
where the item difficulty ``d_i`` is shared by all raters (so hard items produce correlated
disagreement), otherwise another class at random; optional clusters (several items per image,
difficulty shared within the image). The population value of each coefficient is its value on
one draw of 300,000 items (clusters of the same size) — SE below 0.003.

Candidates for the default interval: ``analytic`` (medjudge's default: Fleiss-Cohen-Everitt
for Cohen's kappa with a normal quantile; Gwet's linearisation with t_{n-1} for the others),
the ``percentile`` and ``BCa`` bootstrap (item bootstrap, or cluster bootstrap when the items
are clustered) from the shared engine.

Run (two seeds):

    nice -n 10 python benchmarks/calibration/agreement_ci.py --seed 1 --reps 1000 --boot 1000
    nice -n 10 python benchmarks/calibration/agreement_ci.py --seed 2 --reps 1000 --boot 1000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.stats.agreement import (  # noqa: E402
    cohen_kappa,
    cohen_kappa_core,
    fleiss_kappa,
    fleiss_kappa_core,
    gwet_ac,
    gwet_ac_core,
    krippendorff_alpha,
    krippendorff_alpha_core,
)
from medjudge.stats.resampling import ResamplePlan, bootstrap_interval  # noqa: E402
from study_sim import difficulty, make_design, mc_se, rater_labels, verdict  # noqa: E402

# (label, n_clusters, mean items per cluster, prevalence, rater accuracies)
SCENARIOS = [
    ("n=50, prevalence 0.8/0.2, 2 raters", 50, 1.0, (0.8, 0.2), (0.85, 0.8)),
    ("n=50, prevalence 0.9/0.1, 3 raters", 50, 1.0, (0.9, 0.1), (0.9, 0.85, 0.8)),
    ("n=50, 3 classes 0.6/0.3/0.1, 3 raters", 50, 1.0, (0.6, 0.3, 0.1), (0.8, 0.75, 0.7)),
    ("n=200, prevalence 0.9/0.1, 3 raters", 200, 1.0, (0.9, 0.1), (0.9, 0.85, 0.8)),
    ("25 images x ~2 items, prevalence 0.8/0.2, 3 raters", 25, 2.0, (0.8, 0.2), (0.85, 0.8, 0.8)),
]
QUICK = [SCENARIOS[0]]
SD_CLUSTER, SD_ITEM = 0.8, 0.8


def _coefs(n_raters: int, q: int):
    cats = list(range(q))
    if n_raters == 2:
        return {
            "cohen_kappa": (
                lambda X: cohen_kappa(X, categories=cats),
                lambda X, W: cohen_kappa_core(X, W, categories=cats),
            )
        }
    return {
        "fleiss_kappa": (
            lambda X: fleiss_kappa(X, categories=cats),
            lambda X, W: fleiss_kappa_core(X, W, categories=cats),
        ),
        "krippendorff_alpha": (
            lambda X: krippendorff_alpha(X, scale="nominal", categories=cats),
            lambda X, W: krippendorff_alpha_core(X, W, scale="nominal", categories=cats),
        ),
        "gwet_ac1": (
            lambda X: gwet_ac(X, categories=cats),
            lambda X, W: gwet_ac_core(X, W, categories=cats),
        ),
    }


def run(seed: int, reps: int, boot: int, scenarios=SCENARIOS) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for label, g, size, prev, accs in scenarios:
        prev = np.asarray(prev)
        sd_c = SD_CLUSTER if size > 1 else 0.0
        sd_total = float(np.hypot(sd_c, SD_ITEM))
        coefs = _coefs(len(accs), prev.size)
        # population values: one large draw of the same design
        big = make_design(rng, 300_000 // max(int(size), 1), size)
        lab, _ = rater_labels(
            rng, difficulty(rng, big, 1, sd_c, SD_ITEM), prev, list(accs), sd_total
        )
        Xbig = lab[:, :, 0].T
        truth = {c: float(core(Xbig, None)) for c, (_, core) in coefs.items()}
        design = make_design(rng, g, size)
        cl = design.clusters if size > 1 else None
        d = difficulty(rng, design, reps, sd_c, SD_ITEM)
        lab, _ = rater_labels(rng, d, prev, list(accs), sd_total)
        hits = {(c, m): [] for c in coefs for m in ("analytic", "percentile", "bca")}
        plan = ResamplePlan(design.n_items, boot, int(rng.integers(1 << 31)), clusters=cl)
        W, J = plan.apply(lambda w: w), plan.jackknife_apply(lambda w: w)
        for r in range(reps):
            X = lab[:, :, r].T
            for c, (fn, core) in coefs.items():
                e = fn(X)
                b = np.asarray(core(X, W))
                jk = np.asarray(core(X, J))
                pl, ph = bootstrap_interval(e.estimate, b, method="percentile")
                bl, bh = bootstrap_interval(e.estimate, b, method="bca", jack=jk)
                for m, (lo, hi) in {
                    "analytic": (e.ci_low, e.ci_high),
                    "percentile": (float(pl), float(ph)),
                    "bca": (float(bl), float(bh)),
                }.items():
                    ok = np.isfinite(lo) and np.isfinite(hi)
                    hits[(c, m)].append((ok and lo <= truth[c] <= hi, hi - lo if ok else np.nan))
        for (c, m), h in hits.items():
            cov = float(np.mean([x for x, _ in h]))
            se = mc_se(cov, reps)
            rows.append(
                {
                    "scenario": label,
                    "coefficient": c,
                    "truth": truth[c],
                    "method": m + (" (cluster)" if cl is not None and m != "analytic" else ""),
                    "coverage": cov,
                    "mc_se": se,
                    "width": float(np.nanmean([w for _, w in h])),
                    "reps": reps,
                    "verdict": verdict(cov, se),
                }
            )
    return rows


def table(rows: list[dict]) -> str:
    out = [
        "| scenario | coefficient (true) | method | coverage (MC SE) | mean width | in band |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['scenario']} | {r['coefficient']} ({r['truth']:.3f}) | {r['method']} | "
            f"{100 * r['coverage']:.1f}% ({100 * r['mc_se']:.1f}) | {r['width']:.3f} | {r['verdict']} |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    args = ap.parse_args()
    t0 = time.time()
    print(table(run(args.seed, args.reps, args.boot)))
    print(f"\nseed={args.seed} reps={args.reps} boot={args.boot} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
