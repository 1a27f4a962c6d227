"""Coverage of the intervals of judges against gold and of score studies, on clustered data.

Categorical (ordinal 4-level scale, unbalanced classes 45/30/15/10%): items come in clusters
(questions about one image) that share a difficulty (cluster random effect on the judge's chance
of being right; errors one step up or down). Intervals checked: per-class recall of the rare
class "2" and the too-low rate (clustered Wilson, effective n), Cohen's linearly weighted kappa
against gold (cluster bootstrap BCa).

Scores (1-10-like): judge = gold + bias + cluster effect + item noise. Intervals checked: bias
and upper limit of agreement and Lin's CCC — cluster bootstrap BCa, and the closed forms for
independent items (Bland & Altman 1999; Lin 1989 Z), which ignore the clustering.

True values come from one population draw of 200,000 clusters. Usage::

    nice -n 10 python benchmarks/calibration/judge_vs_gold.py --reps 400 --resamples 500 --seed 1
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from medjudge.stats.confusion import class_rates, gold_kappa_core, ordinal_error_rates
from medjudge.stats.resampling import ResamplePlan, bootstrap_interval
from medjudge.stats.score_agreement import bland_altman, lin_ccc, score_agreement_core

Q, PREV = 4, [0.45, 0.3, 0.15, 0.1]


def categorical(rng, n_clusters, size, p_right=0.7, sd=0.2):
    cl = np.repeat(np.arange(n_clusters), size)
    g = rng.choice(Q, size=cl.size, p=PREV)
    ease = np.clip(p_right + rng.normal(0, sd, n_clusters)[cl], 0.05, 0.98)
    off = np.clip(g + rng.choice([-1, 1], size=cl.size), 0, Q - 1)
    pred = np.where(rng.random(cl.size) < ease, g, off).astype(float)
    return g.astype(float), pred, cl


def scores(rng, n_clusters, size, bias=0.4, sd_c=0.6, sd_e=0.8):
    cl = np.repeat(np.arange(n_clusters), size)
    y = rng.normal(5, 2, cl.size) + rng.normal(0, 1, n_clusters)[cl]
    x = y + bias + rng.normal(0, sd_c, n_clusters)[cl] + rng.normal(0, sd_e, cl.size)
    return x, y, cl


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--resamples", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--level", type=float, default=0.95)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    G, P, _ = categorical(rng, 200_000, 4)
    truth_cat = {
        "recall (class 2, clustered Wilson)": float((P[G == 2] == 2).mean()),
        "too low (clustered Wilson)": float((P < G).mean()),
        "kappa linear (cluster bootstrap BCa)": float(
            gold_kappa_core(G, P[:, None], Q, kind="linear")[0]
        ),
    }
    X, Y, _ = scores(rng, 200_000, 3)
    d = X - Y
    rx, ry = X, Y
    ccc_true = (
        2 * np.cov(rx, ry, ddof=0)[0, 1] / (rx.var() + ry.var() + (rx.mean() - ry.mean()) ** 2)
    )
    truth_sc = {
        "bias": float(d.mean()),
        "upper limit of agreement": float(d.mean() + 1.959963984540054 * d.std()),
        "CCC": float(ccc_true),
    }
    print(f"seed {a.seed}, {a.reps} replications, B = {a.resamples}, level {a.level}")
    print("\n| design | statistic | interval | coverage | MC SE | mean width |")
    print("|---|---|---|---|---|---|")
    for n_cl, size in ((20, 4), (100, 4)):
        hits = {k: [] for k in truth_cat}
        widths = {k: [] for k in truth_cat}
        for _ in range(a.reps):
            g, p, cl = categorical(rng, n_cl, size)
            r = class_rates(g, p[:, None], Q, clusters=cl, confidence_level=a.level)["recall"]
            e = ordinal_error_rates(g, p[:, None], Q, clusters=cl, confidence_level=a.level)[
                "too_low"
            ]
            plan = ResamplePlan(g.size, a.resamples, int(rng.integers(1 << 31)), clusters=cl)
            k = gold_kappa_core(g, p[:, None], Q, kind="linear")
            lo, hi = bootstrap_interval(
                k, gold_kappa_core(g, p[:, None], Q, plan.apply(lambda w: w), kind="linear"), confidence_level=a.level,
                method="bca", jack=gold_kappa_core(g, p[:, None], Q, plan.jackknife_apply(lambda w: w), kind="linear"),
            )  # fmt: skip
            ints = [
                (r["ci_low"][0, 2], r["ci_high"][0, 2]),
                (e["ci_low"][0], e["ci_high"][0]),
                (lo[0], hi[0]),
            ]
            for (name, t), (l_, h_) in zip(truth_cat.items(), ints, strict=True):
                ok = np.isfinite(l_) and np.isfinite(h_)
                hits[name].append(ok and l_ <= t <= h_)
                widths[name].append(h_ - l_ if ok else np.nan)
        for name in truth_cat:
            cov = float(np.mean(hits[name]))
            se = math.sqrt(cov * (1 - cov) / a.reps)
            stat, meth = name.split(" (")
            print(
                f"| ordinal, {n_cl} clusters × {size} | {stat} | {meth[:-1]} | {cov:.3f} | {se:.3f} | {np.nanmean(widths[name]):.3f} |"
            )
    for n_cl, size in ((20, 3), (100, 3)):
        keys = [
            (s, m)
            for s in truth_sc
            for m in ("cluster bootstrap BCa", "closed form, independent items")
        ]
        hits = {k: [] for k in keys}
        widths = {k: [] for k in keys}
        for _ in range(a.reps):
            x, y, cl = scores(rng, n_cl, size)
            plan = ResamplePlan(x.size, a.resamples, int(rng.integers(1 << 31)), clusters=cl)
            th = score_agreement_core(x, y)
            lo, hi = bootstrap_interval(
                th, score_agreement_core(x, y, plan.apply(lambda w: w)), confidence_level=a.level, method="bca",
                jack=score_agreement_core(x, y, plan.jackknife_apply(lambda w: w)),
            )  # fmt: skip
            ba = bland_altman(x, y, confidence_level=a.level)
            cc = lin_ccc(x, y, confidence_level=a.level)
            boot = {
                "bias": (lo[2], hi[2]),
                "upper limit of agreement": (lo[5], hi[5]),
                "CCC": (lo[7], hi[7]),
            }
            closed = {
                "bias": (ba["bias"].ci_low, ba["bias"].ci_high),
                "upper limit of agreement": (ba["loa_high"].ci_low, ba["loa_high"].ci_high),
                "CCC": (cc.ci_low, cc.ci_high),
            }
            for s, t in truth_sc.items():
                for m, src in (
                    ("cluster bootstrap BCa", boot),
                    ("closed form, independent items", closed),
                ):
                    l_, h_ = src[s]
                    hits[(s, m)].append(l_ <= t <= h_)
                    widths[(s, m)].append(h_ - l_)
        for s, m in keys:
            cov = float(np.mean(hits[(s, m)]))
            se = math.sqrt(cov * (1 - cov) / a.reps)
            print(
                f"| scores, {n_cl} clusters × {size} | {s} | {m} | {cov:.3f} | {se:.3f} | {np.mean(widths[(s, m)]):.3f} |"
            )


if __name__ == "__main__":
    main()
