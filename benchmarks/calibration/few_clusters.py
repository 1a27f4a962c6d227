"""Design S of issue 28: 12 images of 1 to 15 items (88 items), 4 judges (-> docs/calibration.md).

Measured with the public API and its default settings:

1. coverage of the clustered accuracy interval (``mj.judge_accuracy(y, clusters=...)``,
   default method) for every judge, per replicate all four judges at population accuracy 0.8
   (coverage counted over judge x replicate; the MC SE uses the number of replicates, which is
   conservative because the four judges of a replicate are positively correlated);
2. the paired difference of the six null pairs (``mj.all_pairs(y, clusters=...)``, default
   ``ci="auto"`` and test): how often the interval excludes 0, how often the clustered McNemar
   p is < 0.05, and how often the two disagree;
3. the all-wrong judge against three all-right judges (``mj.evaluate_judges`` on a Study,
   defaults): p, p_holm, letters, rank sets, and what the table says about it.

Run:

    nice -n 10 python benchmarks/calibration/few_clusters.py --seed 1 --reps 1000 --acc-reps 5000
    nice -n 10 python benchmarks/calibration/few_clusters.py --seed 2 --reps 1000 --acc-reps 5000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import medjudge as mj  # noqa: E402
from hard_designs import SIZES_12, correctness, make_study, mc_se  # noqa: E402

ACC = 0.8


def accuracy_coverage(rng: np.random.Generator, reps: int, acc: float = ACC) -> list[dict]:
    cl = np.repeat(np.arange(SIZES_12.size), SIZES_12)
    y = correctness(rng, SIZES_12, [acc] * 4, reps)  # (reps, n, 4)
    yy = np.transpose(y, (1, 0, 2)).reshape(cl.size, -1)  # every judge x replicate a column
    rows = []
    for method in ("wilson", "clopper-pearson"):
        t = mj.judge_accuracy(yy, clusters=cl, method=method)
        lo, hi = t["ci_low"].to_numpy(), t["ci_high"].to_numpy()
        hit = ((lo <= acc) & (acc <= hi)).reshape(reps, 4)
        cov = float(hit.mean())
        rows.append(
            {
                "what": f"accuracy {acc}, method={method!r}"
                + (" (default)" if method == "wilson" else ""),
                "ci_method": t["ci_method"].iloc[0],
                "coverage": cov,
                # judges of one replicate are correlated: SE over replicates
                "mc_se": float(hit.mean(1).std(ddof=1) / np.sqrt(reps)),
                "below": float(np.mean(hi < acc)),
                "above": float(np.mean(lo > acc)),
                "mean_width": float(np.mean(hi - lo)),
            }
        )
    return rows


def paired_null(rng: np.random.Generator, reps: int) -> dict:
    cl = np.repeat(np.arange(SIZES_12.size), SIZES_12)
    y = correctness(rng, SIZES_12, [ACC] * 4, reps)
    cover, rej, agree, width = [], [], [], []
    method = test = ""
    for r in range(reps):
        t = mj.all_pairs(y[r], clusters=cl, bootstrap=mj.Bootstrap(2000, seed=r))
        ex = ~((t["ci_low"] <= 0) & (t["ci_high"] >= 0))
        rj = t["pvalue"] < 0.05
        cover.append(1 - ex.mean())
        rej.append(rj.mean())
        agree.append((ex == rj).mean())
        width.append(float((t["ci_high"] - t["ci_low"]).mean()))
        method, test = t["ci_method"].iloc[0], t["test"].iloc[0]
    cover = np.asarray(cover)
    return {
        "pairs": 6 * reps,
        "ci_method": method,
        "test": test,
        "covers_0": float(cover.mean()),
        # the 6 pairs of a replicate are correlated: SE over replicates
        "mc_se": float(cover.std(ddof=1) / np.sqrt(reps)),
        "p_below_05": float(np.mean(rej)),
        "agree": float(np.mean(agree)),
        "mean_width": float(np.mean(width)),
    }


def power_weak_judge(rng: np.random.Generator, reps: int) -> dict:
    """One judge at 0.55 against three at 0.85: how often the pairs table flags it (p_holm <
    0.05 against at least one good judge), on all 12 images and per 'organ' of 4 images
    (images 0-3, 4-7, 8-11), with the share of organ cells whose tests can decide at all."""
    cl = np.repeat(np.arange(SIZES_12.size), SIZES_12)
    organ = cl // 4
    y = correctness(rng, SIZES_12, [0.85, 0.85, 0.85, 0.55], reps)
    flag_all, flag_cell, can_cell = [], [], []
    for r in range(reps):
        t = mj.all_pairs(y[r], clusters=cl)
        bad = t["judge_b"] == "judge_3"
        flag_all.append(bool((t.loc[bad, "p_holm"] < 0.05).any()))
        for o in range(3):
            k = organ == o
            t = mj.all_pairs(y[r][k], clusters=cl[k])
            bad = t["judge_b"] == "judge_3"
            flag_cell.append(bool((t.loc[bad, "p_holm"] < 0.05).any()))
            can_cell.append(bool(t["can_decide"].all()) if "can_decide" in t else np.nan)
    return {
        "flag_all": float(np.mean(flag_all)),
        "flag_cell": float(np.mean(flag_cell)),
        "can_cell": float(np.mean(can_cell)),  # NaN before issue 28 (no such column)
        "reps": reps,
    }


def all_wrong_case() -> str:
    y = np.ones((88, 4))
    y[:, 3] = 0.0
    study = make_study(y, SIZES_12)
    ev = mj.evaluate_judges(study)
    p = ev.pairs
    cols = [
        c for c in ("judge_a", "judge_b", "difference", "ci_low", "ci_high", "pvalue", "p_holm")
    ]
    extra = [c for c in ("min_attainable_p", "can_decide", "warning") if c in p.columns]
    lb = ev.leaderboard
    lcols = [
        c
        for c in (
            "judge",
            "accuracy",
            "ci_low",
            "ci_high",
            "rank_low",
            "rank_high",
            "group",
            "letters",
        )
        if c in lb.columns
    ]
    out = p[cols + extra].round(5).to_string(index=False) + "\n\n"
    out += lb[lcols].round(4).to_string(index=False)
    # the same verdicts within the 4 largest images (a per-organ cell of 4 images)
    cl = np.repeat(np.arange(SIZES_12.size), SIZES_12)
    keep = cl >= 8
    t = mj.all_pairs(y[keep], clusters=cl[keep])
    out += "\n\nWithin the 4 largest images only (all_pairs, defaults):\n\n"
    out += t[cols + [c for c in extra if c in t.columns]].round(5).to_string(index=False)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--acc-reps", type=int, default=5000)
    args = ap.parse_args()
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    print("| what | ci_method | coverage (MC SE) | misses below / above | mean width |")
    print("|---|---|---|---|---|")
    for r in accuracy_coverage(rng, args.acc_reps) + accuracy_coverage(rng, args.acc_reps, 0.9):
        print(
            f"| {r['what']} | {r['ci_method']} | {100 * r['coverage']:.2f}% "
            f"({100 * r['mc_se']:.2f}) | {100 * r['below']:.1f}% / {100 * r['above']:.1f}% | "
            f"{r['mean_width']:.3f} |"
        )
    pr = paired_null(rng, args.reps)
    print(
        "\n| null pairs | interval | test | interval covers 0 (MC SE) | p < 0.05 | interval and "
        "test agree | mean width |\n|---|---|---|---|---|---|---|"
    )
    print(
        f"| {pr['pairs']} | {pr['ci_method']} | {pr['test']} | {100 * pr['covers_0']:.2f}% "
        f"({100 * pr['mc_se']:.2f}) | {100 * pr['p_below_05']:.2f}% | {100 * pr['agree']:.2f}% | "
        f"{pr['mean_width']:.3f} |"
    )
    pw = power_weak_judge(rng, args.reps // 2)
    print(
        "\n| one judge at 0.55 vs three at 0.85 | flagged (p_holm < 0.05 vs a good judge) | "
        "organ cells (4 images) that can decide |\n|---|---|---|"
    )
    se_all = mc_se(pw["flag_all"], pw["reps"])
    se_cell = mc_se(pw["flag_cell"], 3 * pw["reps"])
    print(
        f"| all 12 images, one family of 6 pairs | {100 * pw['flag_all']:.1f}% ({100 * se_all:.1f}) "
        f"| - |\n| per organ of 4 images, 6 pairs each | {100 * pw['flag_cell']:.1f}% "
        f"({100 * se_cell:.1f}) | {100 * pw['can_cell']:.0f}% |"
    )
    print("\nAll-wrong judge_3 against three all-right judges (evaluate_judges, defaults):\n")
    print(all_wrong_case())
    print(
        f"\nseed={args.seed} reps={args.reps} acc-reps={args.acc_reps} ({time.time() - t0:.0f} s); MC SE "
        "from the number of replicates"
    )


if __name__ == "__main__":
    main()
