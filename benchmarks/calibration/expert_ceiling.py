"""Expert ceiling: is the expert-judge gap free of item difficulty? (-> docs/calibration.md)

Judges are simulated *exactly as good as* the experts (same accuracy, same shared item
difficulty, :func:`study_sim.make_study`), so the true expert-judge gap is 0. Compared:

- **before** (issue 12 item 10): the expert's accuracy against the majority of the *other*
  experts minus the judges' accuracy against the majority of *all* experts (the leaderboard);
- **now**: :func:`medjudge.analyses.evaluation.expert_ceiling` — expert and judges on the same
  items against the same leave-one-out majority (``gap`` column).

Run (two seeds):

    nice -n 10 python benchmarks/calibration/expert_ceiling.py --seed 1 --reps 200
    nice -n 10 python benchmarks/calibration/expert_ceiling.py --seed 2 --reps 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge.analyses.evaluation import expert_ceiling  # noqa: E402
from study_sim import make_design, make_study  # noqa: E402

SCENARIOS = [
    ("100 images x ~3 items, everyone 0.80", 100, 3.0, 0.80),
    ("300 images x ~2 items, everyone 0.90", 300, 2.0, 0.90),
]


def run(seed: int, reps: int, scenarios=SCENARIOS) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for label, g, size, acc in scenarios:
        design = make_design(rng, g, size)
        before, now = [], []
        for _ in range(reps):
            st = make_study(
                rng,
                design,
                judge_accuracies=[acc] * 3,
                expert_accuracies=(acc,) * 3,
                dimensions=("overall",),
            )
            ce = expert_ceiling(st, "overall")
            o = st.outcomes("overall", gold=st.gold("overall", "majority"))
            lb = float(np.nanmean(np.nan_to_num(o.outcome).mean(0)))
            before.append(float(ce["accuracy"].mean()) - lb)
            now.append(float(ce["gap"].mean()))
        for name, v in (
            ("before: expert LOO vs judges vs all experts", before),
            ("now: same items, same LOO gold", now),
        ):
            v = np.asarray(v)
            rows.append(
                {
                    "scenario": label,
                    "procedure": name,
                    "mean_gap": float(v.mean()),
                    "mc_se": float(v.std(ddof=1) / np.sqrt(reps)),
                    "reps": reps,
                }
            )
    return rows


def table(rows: list[dict]) -> str:
    out = [
        "| scenario (true gap 0) | procedure | mean expert - judge gap, points (MC SE) | studies |",
        "|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['scenario']} | {r['procedure']} | {100 * r['mean_gap']:+.2f} ({100 * r['mc_se']:.2f}) | {r['reps']} |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    t0 = time.time()
    print(table(run(args.seed, args.reps)))
    print(f"\nseed={args.seed} reps={args.reps} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
