"""Coverage of nominal 95% intervals and type-I error of the tests (results -> docs/inference.md).

Every scenario is simulated for ``reps`` replicate data sets at once (replicates are columns),
using the library functions themselves. Bootstrap intervals use one weight matrix per scenario
shared by all replicates (each replicate's interval is still a valid bootstrap interval; the
sharing only correlates the Monte Carlo noise between replicates). Monte Carlo SE of a coverage
near 95% with R replicates is sqrt(.95 * .05 / R) (0.34 points at R = 4000).

Run:  python benchmarks/coverage_inference.py [--reps 4000] [--boot 1000] [--seed 7] > table.md
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from medjudge import Bootstrap
from medjudge.stats.accuracy import judge_accuracy
from medjudge.stats.mcnemar import mcnemar_pvalue
from medjudge.stats.omnibus import cochran_q
from medjudge.stats.paired_intervals import paired_difference_interval
from medjudge.stats.resampling import ResamplePlan, bootstrap_interval
from medjudge.stats.score_tests import sign_flip_pvalues
from scipy import stats
from scipy.special import expit

ROWS: list[tuple[str, str, str, float, float]] = []


def record(target: str, scenario: str, method: str, value: float, reps: int) -> None:
    ROWS.append((target, scenario, method, value, reps))


def cover(lo: np.ndarray, hi: np.ndarray, truth: float | np.ndarray) -> float:
    return float(np.mean((lo <= truth) & (truth <= hi)))


# ------------------------------------------------------------------------------ accuracy
def sim_accuracy(rng: np.random.Generator, reps: int, nboot: int) -> None:
    # fixed p shows the discreteness oscillation of every binomial interval (Brown, Cai &
    # DasGupta 2001); p ~ U(0.6, 0.95) per replicate gives the smoothed coverage that matters
    for n in (30, 100, 1026):
        for p in (0.7, 0.9, "U(0.6, 0.95)"):
            if isinstance(p, str):
                pr = rng.uniform(0.6, 0.95, reps)
                y = (rng.random((n, reps)) < pr).astype(float)
            else:
                pr = p
                y = (rng.random((n, reps)) < p).astype(float)
            sc = f"n={n}, p={p}"
            for m in ("wilson", "clopper-pearson", "wald"):
                df = judge_accuracy(y, method=m)
                record("accuracy", sc, m, cover(df.ci_low, df.ci_high, pr), reps)
            w = ResamplePlan(n, nboot, int(rng.integers(1 << 31))).apply(lambda w: w)
            for m in ("bootstrap-percentile", "bootstrap-bca"):
                df = judge_accuracy(y, method=m, weights=w, bootstrap=Bootstrap(nboot))
                record("accuracy", sc, m, cover(df.ci_low, df.ci_high, pr), reps)


def sim_clustered(rng: np.random.Generator, reps: int, nboot: int) -> None:
    size, sd, b0 = 5, 1.0, 1.0  # ICC on the latent scale = 1 / (1 + 3.29) ~ 0.23
    truth = float(np.mean(expit(b0 + rng.normal(0, sd, 4_000_000))))
    for c in (30, 100, 300):
        cl = np.repeat(np.arange(c), size)
        u = rng.normal(0, sd, (c, reps))[cl]
        y = (rng.random((c * size, reps)) < expit(b0 + u)).astype(float)
        sc = f"{c} clusters x {size}, ICC~0.2"
        df = judge_accuracy(y)
        record(
            "clustered accuracy",
            sc,
            "wilson (ignoring clusters)",
            cover(df.ci_low, df.ci_high, truth),
            reps,
        )
        for m in ("wilson", "wald"):
            df = judge_accuracy(y, clusters=cl, method=m)
            record(
                "clustered accuracy",
                sc,
                f"{m} (cluster-robust SE)",
                cover(df.ci_low, df.ci_high, truth),
                reps,
            )
        w = ResamplePlan(c * size, nboot, int(rng.integers(1 << 31)), clusters=cl).apply(
            lambda w: w
        )
        for m in ("bootstrap-percentile", "bootstrap-bca"):
            df = judge_accuracy(y, clusters=cl, method=m, weights=w, bootstrap=Bootstrap(nboot))
            record(
                "clustered accuracy", sc, f"cluster {m}", cover(df.ci_low, df.ci_high, truth), reps
            )


# ------------------------------------------------------------------------------ paired difference
def paired_outcomes(rng, n, reps, p1, p2):
    """Two positively correlated judges with accuracies p1, p2: y2 | y1 is Bernoulli with
    P(y2 | y1 = 1) = q1 > P(y2 | y1 = 0) = q0, the marginal of y2 kept at p2. Returns y1, y2
    (n, reps) and the true difference p1 - p2."""
    y1 = rng.random((n, reps)) < p1
    q1 = min(1.0, p2 + 0.5 * (1 - p2))  # P(y2 | y1 = 1)
    q0 = (p2 - p1 * q1) / (1 - p1)  # P(y2 | y1 = 0) keeps the marginal at p2
    y2 = np.where(y1, rng.random((n, reps)) < q1, rng.random((n, reps)) < q0)
    return y1.astype(float), y2.astype(float), p1 - p2


def sim_paired(rng: np.random.Generator, reps: int, nboot: int) -> None:
    for n in (50, 200, 1026):
        for p1, p2 in ((0.75, 0.70), (0.92, 0.90)):
            y1, y2, truth = paired_outcomes(rng, n, reps, p1, p2)
            sc = f"n={n}, acc {p1} vs {p2}"
            a, b = y1 > 0.5, y2 > 0.5
            n11, n12, n21, n22 = (
                (a & b).sum(0),
                (a & ~b).sum(0),
                (~a & b).sum(0),
                (~a & ~b).sum(0),
            )
            for m in ("tango", "newcombe", "wald"):
                lo, hi = paired_difference_interval(n11, n12, n21, n22, method=m)
                record("paired difference", sc, m, cover(lo, hi, truth), reps)
            d = y1 - y2
            w = ResamplePlan(n, nboot, int(rng.integers(1 << 31))).apply(lambda w: w)
            boot = (w @ d) / n
            jack = (d.sum(0) - d) / (n - 1)
            for m in ("percentile", "bca"):
                lo, hi = bootstrap_interval(d.mean(0), boot, method=m, jack=jack)
                record("paired difference", sc, f"paired bootstrap {m}", cover(lo, hi, truth), reps)


# ------------------------------------------------------------------------------ kappa
def kappa_from_counts(w, pred, gold):
    """Cohen's kappa (binary) of each replicate column under weights w (B, n) -> (B, reps)."""
    tot = w.sum(1, keepdims=True)
    po = (w @ (pred == gold)) / tot
    pp = (w @ pred) / tot
    pg = (w @ gold) / tot
    pe = pp * pg + (1 - pp) * (1 - pg)
    return (po - pe) / (1 - pe)


def sim_kappa(rng: np.random.Generator, reps: int, nboot: int) -> None:
    for n in (50, 200, 1026):
        for prev, acc in ((0.5, 0.8), (0.2, 0.9)):
            gold = (rng.random((n, reps)) < prev).astype(float)
            pred = np.where(rng.random((n, reps)) < acc, gold, 1 - gold)
            # population kappa: po = acc; pred prevalence = prev acc + (1-prev)(1-acc)
            pp = prev * acc + (1 - prev) * (1 - acc)
            pe = pp * prev + (1 - pp) * (1 - prev)
            truth = (acc - pe) / (1 - pe)
            sc = f"n={n}, prevalence {prev}, accuracy {acc} (kappa {truth:.2f})"
            w = ResamplePlan(n, nboot, int(rng.integers(1 << 31))).apply(lambda w: w)
            full = kappa_from_counts(np.ones((1, n)), pred, gold)[0]
            boot = kappa_from_counts(w, pred, gold)
            # closed-form leave-one-out counts for the jackknife
            jw = ResamplePlan(n, 1).jackknife_apply(lambda w: w)
            jack = kappa_from_counts(jw, pred, gold)
            for m in ("percentile", "bca"):
                lo, hi = bootstrap_interval(full, boot, method=m, jack=jack)
                record("kappa (judge vs gold)", sc, f"bootstrap {m}", cover(lo, hi, truth), reps)


# ------------------------------------------------------------------------------ type I error
def sim_type1(rng: np.random.Generator, reps: int) -> None:
    reps_t = reps * 5
    for n in (30, 100, 1026):
        y1, y2, _ = paired_outcomes(rng, n, reps_t, 0.75, 0.75)
        b = ((y1 == 1) & (y2 == 0)).sum(0)
        c = ((y1 == 0) & (y2 == 1)).sum(0)
        for m in ("midp", "exact", "asymptotic", "asymptotic-cc"):
            rej = np.mean(mcnemar_pvalue(b, c, m)[1] < 0.05)
            record("type I", f"McNemar, n={n}, equal accuracy 0.75", m, float(rej), reps_t)
    # sign-flip and Wilcoxon for score-valued judges (Likert 1-5 with a shared item effect)
    for n in (20, 50, 200):
        item = rng.normal(0, 1, (n, reps))
        x = np.clip(np.round(3 + item + rng.normal(0, 0.8, (n, reps))), 1, 5)
        y = np.clip(np.round(3 + item + rng.normal(0, 0.8, (n, reps))), 1, 5)
        r = sign_flip_pvalues(x - y, n_resamples=999, seed=int(rng.integers(1 << 31)))
        record(
            "type I",
            f"scores 1-5, n={n}",
            "sign-flip permutation",
            float(np.mean(r["pvalue"] < 0.05)),
            reps,
        )
        pw = stats.wilcoxon(x - y, axis=0, zero_method="wilcox", nan_policy="omit").pvalue
        record("type I", f"scores 1-5, n={n}", "Wilcoxon (scipy)", float(np.mean(pw < 0.05)), reps)
    # Cochran's Q: 4 judges, equal accuracy, shared item difficulty
    for n in (30, 200):
        rej = 0
        for _ in range(reps):
            ease = rng.normal(0, 1, (n, 1))
            yy = (rng.random((n, 4)) < expit(1.0 + ease)).astype(float)
            rej += cochran_q(yy).pvalue < 0.05
        record("type I", f"Cochran's Q, 4 judges, n={n}", "chi-square", rej / reps, reps)
    # clustered McNemar (Durkalski) vs plain McNemar under a clustered null
    from medjudge.stats.mcnemar import _clustered_mcnemar_matrix

    for c in (50, 200):
        size = 5
        cl = np.repeat(np.arange(c), size)
        rej_c = rej_p = 0
        for _ in range(reps // 2):
            u = rng.normal(0, 1.2, c)[cl]
            d = rng.normal(0, 1.0, c)[cl]  # cluster-level disagreement between the judges
            y1 = (rng.random(c * size) < expit(1 + u + 0.8 * d)).astype(float)
            y2 = (rng.random(c * size) < expit(1 + u - 0.8 * d)).astype(float)
            y = np.column_stack([y1, y2])
            _, pc = _clustered_mcnemar_matrix(y, np.ones_like(y), cl)
            rej_c += pc[0, 1] < 0.05
            bb, cc = np.sum((y1 == 1) & (y2 == 0)), np.sum((y1 == 0) & (y2 == 1))
            rej_p += mcnemar_pvalue(bb, cc, "midp")[1] < 0.05
        record(
            "type I",
            f"McNemar, {c} clusters x {size}, equal accuracy",
            "clustered (Durkalski)",
            rej_c / (reps // 2),
            reps // 2,
        )
        record(
            "type I",
            f"McNemar, {c} clusters x {size}, equal accuracy",
            "mid-p ignoring clusters",
            rej_p / (reps // 2),
            reps // 2,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    sim_accuracy(rng, args.reps, args.boot)
    sim_clustered(rng, args.reps, args.boot)
    sim_paired(rng, args.reps, args.boot)
    sim_kappa(rng, args.reps, args.boot)
    sim_type1(rng, args.reps)
    el = time.perf_counter() - t0
    print(
        f"<!-- coverage_inference.py --reps {args.reps} --boot {args.boot} --seed {args.seed}; {el:.0f} s -->"
    )
    print("| target | scenario | method | coverage / rejection rate | replicates | in band |")
    print("|---|---|---|---|---|---|")
    for target, sc, m, v, r in ROWS:
        lo, hi = (0.04, 0.06) if target == "type I" else (0.94, 0.96)
        flag = (
            "yes"
            if lo <= v <= hi
            else ("conservative" if (v > hi if target != "type I" else v < lo) else "**no**")
        )
        print(f"| {target} | {sc} | {m} | {100 * v:.1f}% | {r} | {flag} |")


if __name__ == "__main__":
    main()
