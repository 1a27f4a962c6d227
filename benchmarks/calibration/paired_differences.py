"""Type I error and coverage of the paired judge comparisons (-> docs/calibration.md).

Issue 12 item 6: when the gold item sets differ between dimensions, ``evaluate_judges`` used to
crash, and the obvious fallback (dropping the clusters) over-rejects. Now every dimension is
compared on its own items with its own clusters. This script simulates realistic studies
(:func:`study_sim.make_study`: judges that are *equally* accurate, item difficulty shared by
judges and experts, several items per image, unbalanced A/B labels, gold missing on a share of
the items in one dimension only) and reports, over all judge pairs and dimensions,

- the share of raw McNemar p-values below 0.05 (type I error; nominal 5%), and
- the coverage of the 95% interval of the accuracy difference (truth 0),

for the procedure ``evaluate_judges`` now uses (``_pairs_by_dimension``: clustered McNemar of
Durkalski et al. 2003 and the cluster paired bootstrap, per dimension) and for the fallback that
ignores the clusters (mid-p McNemar and Tango's interval on the items of each dimension).

Run (two seeds):

    nice -n 10 python benchmarks/calibration/paired_differences.py --seed 1 --reps 300 --boot 300
    nice -n 10 python benchmarks/calibration/paired_differences.py --seed 2 --reps 300 --boot 300
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.analyses.evaluation import _pairs_by_dimension, cluster_ids  # noqa: E402
from medjudge.stats.pairwise import all_pairs  # noqa: E402
from study_sim import make_design, make_study, verdict  # noqa: E402

# (label, n_clusters, mean items per cluster, judge accuracy, share of items without gold in "safety")
SCENARIOS = [
    ("40 images x ~3 items, acc 0.80, 25% no gold in one dim", 40, 3.0, 0.80, 0.25),
    ("150 images x ~4 items, acc 0.85, 20% no gold in one dim", 150, 4.0, 0.85, 0.20),
]
QUICK = [("30 images x ~3 items, acc 0.80, 25% no gold in one dim", 30, 3.0, 0.80, 0.25)]
N_JUDGES = 4


def run(seed: int, reps: int, boot: int, scenarios=SCENARIOS) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for label, g, size, acc, miss in scenarios:
        design = make_design(rng, g, size)
        rej = {"clusters kept (now)": [], "clusters dropped (fallback)": []}
        cov = {"clusters kept (now)": [], "clusters dropped (fallback)": []}
        for _ in range(reps):
            st = make_study(
                rng,
                design,
                judge_accuracies=[acc] * N_JUDGES,
                missing_expert_share={"safety": miss},
            )
            outcomes = {d: st.outcomes(d) for d in st.dimensions}
            clusters, _ = cluster_ids(st)
            import pandas as pd

            cluster_of = pd.Series(clusters, index=st.item_ids)
            seed_r = int(rng.integers(1 << 31))
            now = _pairs_by_dimension(
                outcomes,
                st.judges,
                lambda o, c=cluster_of: c.loc[o.items].to_numpy(),
                policy="wrong",
                n_resamples=boot,
                seed=seed_r,
                confidence_level=0.95,
            )
            old = pd.concat(
                [
                    all_pairs({d: o.outcome}, st.judges, dimensions=[d], confidence_level=0.95)
                    for d, o in outcomes.items()
                ]
            )
            for key, t in (("clusters kept (now)", now), ("clusters dropped (fallback)", old)):
                # per-study shares: the pairs of one study are correlated, the studies are not
                rej[key].append(float((t["pvalue"] < 0.05).mean()))
                cov[key].append(float(((t["ci_low"] <= 0) & (0 <= t["ci_high"])).mean()))
                n_per = len(t)
        n_tests = n_per * reps
        for key in rej:
            r = float(np.mean(rej[key]))
            c = float(np.mean(cov[key]))
            r_se = float(np.std(rej[key], ddof=1) / np.sqrt(reps))
            c_se = float(np.std(cov[key], ddof=1) / np.sqrt(reps))
            rows.append(
                {
                    "scenario": label,
                    "procedure": key,
                    "type_I": r,
                    "type_I_se": r_se,
                    "coverage": c,
                    "coverage_se": c_se,
                    "reps": reps,
                    "tests": n_tests,
                    "verdict_type_I": "yes" if r <= 0.05 + 2 * r_se else "**no**",
                    "verdict_coverage": verdict(c, c_se),
                }
            )
    return rows


def table(rows: list[dict]) -> str:
    out = [
        "| scenario | procedure | type I at 5% (MC SE) | 95% CI coverage (MC SE) | studies / tests | type I in band | coverage in band |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['scenario']} | {r['procedure']} | {100 * r['type_I']:.1f}% ({100 * r['type_I_se']:.1f}) | "
            f"{100 * r['coverage']:.1f}% ({100 * r['coverage_se']:.1f}) | {r['reps']} / {r['tests']} | "
            f"{r['verdict_type_I']} | {r['verdict_coverage']} |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=400)
    args = ap.parse_args()
    t0 = time.time()
    print(table(run(args.seed, args.reps, args.boot)))
    print(
        f"\nseed={args.seed} reps={args.reps} boot={args.boot} ({time.time() - t0:.0f} s); MC SE = "
        "SD of the per-study shares / sqrt(studies) (pairs within a study are correlated)"
    )


if __name__ == "__main__":
    main()
