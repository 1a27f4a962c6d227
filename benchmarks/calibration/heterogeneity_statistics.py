"""Which statistic for the within-image permutation test of heterogeneity (-> docs/calibration.md).

Design H (3 judges, 50 images of 1-6 items, groups g1/g2/g3 with probability 0.45/0.45/0.10
per item, varying within images; ``heterogeneity_high_accuracy.py``). For every simulated
judge the group labels are permuted within images (B = 999) and three statistics of the
permuted tables are compared, each with p = (1 + #{T* >= T}) / (1 + B):

* ``X2``: Pearson's chi-square of the pooled 2 x 3 table (the library's default,
  ``stats.heterogeneity._within_cluster_permutation_p``);
* ``G``: the likelihood-ratio statistic of the pooled table (``0 log 0 = 0``);
* ``CMH``: the generalized Cochran-Mantel-Haenszel statistic stratified by image (Landis,
  Heyman & Koch 1978): ``S' V^- S`` with ``S`` the pooled group totals minus their
  permutation means and ``V`` the sum of the images' hypergeometric covariances.

The statistics are computed here from their formulas, independently of the library.

Columns: the rejection rate at 5% (MC SE), by the number of errors the judge made in g3
(0, 1, 2+) as observed, and the same conditional rates computed over *all* permutation
arrangements of every simulated study ("null arrangements"): under the null every
within-image arrangement of the labels is equally likely, so the share of arrangements with 0
errors in g3 whose own p is < 0.05 is the conditional rejection rate with far less Monte
Carlo error than the observed cell (it averages over ~1,000 arrangements per study; MC SE
over studies x judges in brackets).

    nice -n 10 python benchmarks/calibration/heterogeneity_statistics.py --seed 1 --reps 2000
    nice -n 10 python benchmarks/calibration/heterogeneity_statistics.py --seed 2 --reps 2000
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from heterogeneity_high_accuracy import scenarios, simulate  # noqa: E402

NAMES = ("X2", "G", "CMH")


def arrangements(cl, g, n_perm: int, rng) -> np.ndarray:
    """Row 0: the observed labels; rows 1..B: labels shuffled within every cluster."""
    n = g.size
    perm = np.argsort(cl[None, :] + rng.random((n_perm, n)), axis=1, kind="stable")
    order = np.argsort(cl, kind="stable")
    gp = np.empty((n_perm, n), np.intp)
    gp[np.arange(n_perm)[:, None], perm] = g[order][None, :]
    return np.vstack([g[None, :], gp])


def statistics(cl, arr, y, n_groups: int = 3) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """X2, G and CMH of every arrangement (rows of ``arr``) for one judge's 0/1 ``y``."""
    k = np.stack([((arr == grp) * y).sum(1) for grp in range(n_groups)], 1)
    m = np.stack([(arr == grp).sum(1) for grp in range(n_groups)], 1).astype(float)
    p = k.sum(1, keepdims=True) / m.sum(1, keepdims=True)
    with np.errstate(all="ignore"):
        e = m * p
        x2 = np.where(m > 0, (k - e) ** 2 / (m * p * (1 - p)), 0).sum(1)
        oc, ec = m - k, m * (1 - p)
        gs = 2 * (np.where(k > 0, k * np.log(k / e), 0) + np.where(oc > 0, oc * np.log(oc / ec), 0))
        gs = gs.sum(1)
    n_cl = cl.max() + 1
    nh = np.bincount(cl, minlength=n_cl).astype(float)
    eh = np.bincount(cl, y, n_cl)
    nhl = np.zeros((n_cl, n_groups))
    np.add.at(nhl, (cl, arr[0]), 1.0)  # the group mix of each image: the same in every row
    mean = (nhl * (eh / nh)[:, None]).sum(0)
    fac = np.where(nh > 1, eh * (nh - eh) / (nh**2 * np.maximum(nh - 1, 1)), 0)
    v = np.diag((fac * nh) @ nhl) - np.einsum("h,hl,hm->lm", fac, nhl, nhl)
    s = (k - mean[None, :])[:, : n_groups - 1]
    cmh = np.einsum("bi,ij,bj->b", s, np.linalg.pinv(v[: n_groups - 1, : n_groups - 1]), s)
    return {"X2": x2, "G": gs, "CMH": cmh}, k


def p_values(stat: np.ndarray) -> np.ndarray:
    """p of every arrangement against the whole set: #{T_b' >= T_b} / (B + 1)."""
    srt = np.sort(stat)
    return (stat.size - np.searchsorted(srt, stat - 1e-9, side="left")) / stat.size


def run(seed: int, reps: int, acc: float, shift: float = 0.0, n_perm: int = 999) -> dict:
    rng = np.random.default_rng(seed)
    res = {k: {"rej": [], "by": {0: [], 1: [], 2: []}, "num": [], "den": []} for k in NAMES}
    for _ in range(reps):
        _, cl, g, y = simulate(rng, acc, shift)
        arr = arrangements(cl, g, n_perm, rng)
        for j in range(1 if shift else 3):
            yj = y[:, j].astype(float)
            if yj.min() == yj.max():
                for k in NAMES:
                    res[k]["rej"].append(False)
                continue
            stats_, kk = statistics(cl, arr, yj)
            err3 = np.minimum((arr == 2).sum(1) - kk[:, 2], 2).astype(int)
            for name, s in stats_.items():
                r = p_values(s) < 0.05
                out = res[name]
                out["rej"].append(bool(r[0]))
                out["by"][int(err3[0])].append(bool(r[0]))
                out["num"].append([r[err3 == c].sum() for c in range(3)])
                out["den"].append([(err3 == c).sum() for c in range(3)])
    return res


def _ratio(r: dict, c: int) -> str:
    """Share of null arrangements with ``c`` (2 = 2+) errors in g3 that reject, with its MC SE
    over studies x judges (ratio estimator, delta method)."""
    num = np.asarray(r["num"], float)[:, c]
    den = np.asarray(r["den"], float)[:, c]
    if den.sum() == 0:
        return "-"
    q = num.sum() / den.sum()
    se = math.sqrt(np.sum((num - q * den) ** 2)) / den.sum()
    return f"{100 * q:.2f}% ({100 * se:.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=2000)
    args = ap.parse_args()
    t0 = time.time()
    print(
        "| scenario | statistic | rejects at 5% (MC SE) | observed: g3 with 0 / 1 / 2+ errors | "
        "null arrangements: g3 with 0 / 1 / 2+ errors |\n|---|---|---|---|---|"
    )
    for label, acc, shift, reps in scenarios(args.reps, args.reps // 2):
        res = run(args.seed, reps, acc, shift)
        for name in NAMES:
            r = res[name]
            rate, n = float(np.mean(r["rej"])), len(r["rej"])
            obs = " / ".join(
                f"{100 * np.mean(v):.1f}% (n={len(v)})" if v else "-" for v in r["by"].values()
            )
            arr = " / ".join(_ratio(r, c) for c in range(3)) if not shift else "- (not a null)"
            print(
                f"| {label} | {name} | {100 * rate:.1f}% "
                f"({100 * math.sqrt(rate * (1 - rate) / n):.1f}; n={n}) | {obs} | {arr} |"
            )
    print(
        f"\nseed={args.seed} reps={args.reps} ({time.time() - t0:.0f} s); null rows count 3 "
        "judges per replicate, power rows the shifted judge; B = 999 arrangements"
    )


if __name__ == "__main__":
    main()
