"""Coverage of agreement intervals when items are clustered (-> docs/calibration.md).

Design (issue 37): ``G`` images with 2-6 questions each (uniform), ``R`` raters, binary (or
3-class) labels whose prevalence varies by image (``p_c ~ Beta`` around a mean prevalence);
rater ``r`` reports the true class with probability ``expit(a_r + u_c + e_i)`` (an image
effect ``u_c`` shared by all raters and questions of the image, plus an item effect), else
another class at random. The population value of each coefficient is its value on one draw of
20,000 images of the same design (SE < 0.003).

Candidates, all at 95%: the item-level linearisation (the old ``ci="auto"`` from 100 items on;
drops the clusters), the cluster-robust linearisation (per-item linearised terms summed within
images, ``G/(G-1)``, t with ``G-1`` df; the new ``ci="analytic"`` with ``clusters=``), the
cluster jackknife with t(G-1), and the cluster bootstrap (percentile and BCa, ``B`` resamples).

Run (two seeds; the issue's designs, then 16 designs drawn at random from wide ranges):

    nice -n 10 python benchmarks/calibration/agreement_clusters.py --seed 1 --reps 1000
    nice -n 10 python benchmarks/calibration/agreement_clusters.py --seed 2 --reps 1000
    nice -n 10 python benchmarks/calibration/agreement_clusters.py --seed 3 --random 16 --reps 150
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as st
from scipy.special import expit

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
from study_sim import mc_se, verdict  # noqa: E402

METHODS = ("item linearisation", "cluster linearisation", "cluster jackknife", "cluster BCa")


def draw(rng, sizes, q, prev_mean, conc, accs, sd_c, sd_i, reps):
    """Labels ``(reps, n_items, n_raters)`` for images of the given sizes."""
    g = sizes.size
    cl = np.repeat(np.arange(g), sizes)
    n = cl.size
    pc = rng.beta(prev_mean * conc, (1 - prev_mean) * conc, (reps, g))[:, cl]
    if q == 2:
        truth = (rng.random((reps, n)) < pc).astype(int)
    else:  # class 0 with prob 1-pc, else 1 or 2 (2:1)
        u = rng.random((reps, n))
        truth = np.where(u < 1 - pc, 0, np.where(u < 1 - pc / 3, 1, 2))
    d = rng.normal(0, sd_c, (reps, g))[:, cl] + rng.normal(0, sd_i, (reps, n))
    out = []
    for a in accs:
        right = rng.random((reps, n)) < expit(a + d)
        other = (truth + rng.integers(1, q, (reps, n))) % q
        out.append(np.where(right, truth, other))
    return np.stack(out, -1).astype(float), cl


def coefs(q):
    cats = list(range(q))
    return {
        "fleiss_kappa": (fleiss_kappa, lambda X, W: fleiss_kappa_core(X, W, categories=cats), None),
        "krippendorff_alpha": (
            lambda X, **k: krippendorff_alpha(X, scale="nominal", **k),
            lambda X, W: krippendorff_alpha_core(X, W, scale="nominal", categories=cats),
            None,
        ),
        "gwet_ac1": (gwet_ac, lambda X, W: gwet_ac_core(X, W, categories=cats), None),
        "cohen_kappa (raters 1-2)": (
            cohen_kappa,
            lambda X, W: cohen_kappa_core(X[:, :2], W, categories=cats),
            2,
        ),
    }


def scenario(rng, label, g, q, prev_mean, conc, accs, sd_c, sd_i, reps, boot, size_range=(2, 6)):
    accs = np.asarray(accs)
    sizes_big = rng.integers(size_range[0], size_range[1] + 1, 20_000)
    Xb, _ = draw(rng, sizes_big, q, prev_mean, conc, accs, sd_c, sd_i, 1)
    cs = coefs(q)
    truth = {}
    for c, (_, core, k) in cs.items():
        Xc = Xb[0] if k is None else Xb[0][:, :k]
        truth[c] = float(core(Xc, None))
    sizes = rng.integers(size_range[0], size_range[1] + 1, g)
    X, cl = draw(rng, sizes, q, prev_mean, conc, accs, sd_c, sd_i, reps)
    n = cl.size
    plan = ResamplePlan(n, boot, int(rng.integers(1 << 31)), clusters=cl)
    W, J = plan.apply(lambda w: w), plan.jackknife_apply(lambda w: w)
    tq = st.t.ppf(0.975, g - 1)
    cats = list(range(q))
    hits = {(c, m): [] for c in cs for m in METHODS}
    for r in range(reps):
        for c, (fn, core, k) in cs.items():
            x = X[r] if k is None else X[r][:, :k]
            item = fn(x, categories=cats, ci="analytic")
            clus = fn(x, categories=cats, ci="analytic", clusters=cl)
            est = clus.estimate
            jk = np.asarray(core(x, J))
            sej = math.sqrt((g - 1) / g * ((jk - jk.mean()) ** 2).sum())
            b = np.asarray(core(x, W))
            bl, bh = bootstrap_interval(est, b, method="bca", jack=jk)
            ivs = {
                "item linearisation": (item.ci_low, item.ci_high),
                "cluster linearisation": (clus.ci_low, clus.ci_high),
                "cluster jackknife": (est - tq * sej, min(1.0, est + tq * sej)),
                "cluster BCa": (float(bl), float(bh)),
            }
            for m, (lo, hi) in ivs.items():
                ok = np.isfinite(lo) and np.isfinite(hi)
                hits[(c, m)].append((ok and lo <= truth[c] <= hi, hi - lo if ok else np.nan))
    rows = []
    for (c, m), h in hits.items():
        cov = float(np.mean([x for x, _ in h]))
        rows.append(
            dict(scenario=label, coefficient=c, truth=truth[c], method=m, coverage=cov,
                 mc_se=mc_se(cov, reps), width=float(np.nanmean([w for _, w in h])), reps=reps)
        )  # fmt: skip
    return rows


ISSUE = [
    # label, G, q, prevalence mean, Beta concentration, accuracies (logit), sd image, sd item
    ("45 images x 2-6 questions, 4 raters", 45, 2, 0.3, 2.0, (1.5, 1.2, 1.0, 0.8), 1.0, 0.7),
    ("20 images x 2-6 questions, 4 raters", 20, 2, 0.3, 2.0, (1.5, 1.2, 1.0, 0.8), 1.0, 0.7),
    ("30 images x 2-6 questions, 4 raters", 30, 2, 0.3, 2.0, (1.5, 1.2, 1.0, 0.8), 1.0, 0.7),
]


def random_designs(rng, k):
    out = []
    for j in range(k):
        g = int(rng.integers(20, 81))
        q = int(rng.choice([2, 3]))
        r = int(rng.integers(2, 7))
        accs = tuple(np.round(rng.uniform(0.5, 2.5, r), 2))
        pm, conc = float(rng.uniform(0.1, 0.5)), float(rng.uniform(1, 10))
        sdc, sdi = float(rng.uniform(0, 1.5)), float(rng.uniform(0.2, 1.0))
        lab = f"random {j + 1}: G={g}, q={q}, {r} raters, prev {pm:.2f}, sd image {sdc:.2f}"
        out.append((lab, g, q, pm, conc, accs, sdc, sdi))
    return out


def table(rows):
    out = ["| scenario | coefficient (true) | method | coverage (MC SE) | mean width | in band |",
           "|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        out.append(
            f"| {r['scenario']} | {r['coefficient']} ({r['truth']:.3f}) | {r['method']} | "
            f"{100 * r['coverage']:.1f}% ({100 * r['mc_se']:.1f}) | {r['width']:.3f} | "
            f"{verdict(r['coverage'], r['mc_se'])} |"
        )
    return "\n".join(out)


def pooled(rows):
    """Coverage over all random designs per method (MC SE from the pooled replicates)."""
    out = [
        "| method | coefficient | pooled coverage (MC SE) | lowest design |",
        "|---|---|---|---|",
    ]
    keys = sorted({(r["method"], r["coefficient"]) for r in rows})
    for m, c in keys:
        sel = [r for r in rows if r["method"] == m and r["coefficient"] == c]
        n = sum(r["reps"] for r in sel)
        cov = sum(r["coverage"] * r["reps"] for r in sel) / n
        low = min(r["coverage"] for r in sel)
        out.append(
            f"| {m} | {c} | {100 * cov:.1f}% ({100 * mc_se(cov, n):.1f}) | {100 * low:.1f}% |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=999)
    ap.add_argument("--random", type=int, default=0, help="random designs instead of the issue's")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    designs = random_designs(rng, a.random) if a.random else ISSUE
    rows = []
    for d in designs:
        rows += scenario(rng, *d, a.reps, a.boot)
    print(table(rows))
    if a.random:
        print()
        print(pooled(rows))
    print(f"\nseed {a.seed}, {a.reps} replicates, B={a.boot}, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
