"""Calibration of judge-assisted (PPI) intervals: coverage and width against expert-only.

Two parts:

1. **Simulated clustered judge studies** (``--part sim``): items in clusters of 4 (several
   questions per image) share a latent difficulty; gold is a rare-ish label (~35%) whose
   probability rises with difficulty; the judge errs more on hard items and more often on gold
   positives (asymmetric errors). A second, weaker judge is also simulated for the cross-fitted
   estimators. ``n`` labelled items are drawn at random from ``N_total = 2000`` items; the truth
   is the model's expectation (from 4 million simulated items, MC error ~ 0.0003).
2. **PandaLM** (``--part pandalm``): the 999 items with 3-annotator majority gold; ``n`` items
   keep their gold at random, the rest are unlabelled. The truth is the rate over all 999 items
   (a finite-population target: the intervals, built for an infinite population, are then
   slightly conservative).

Rows come from ``ppi_mean`` (symmetric intervals) unless named ``ppi_proportion`` (the
interval for a 0/1 gold label: Wilson with continuity correction at the effective n).
Prints coverage (with its Monte Carlo SE), mean width and width ratio against the classical
expert-only interval of the same rule, and the mean effective number of expert labels. Rows
without a suffix use the default small-sample t intervals; rows ending in "normal" the
asymptotic (ppi-python) ones.

    nice -n 10 python benchmarks/calibration/ppi.py --part sim --reps 700 --seed 3
    nice -n 10 python benchmarks/calibration/ppi.py --part sim --reps 700 --seed 4
    nice -n 10 python benchmarks/calibration/ppi.py --part sim --reps 1000 --seed 3 --n 50
    nice -n 10 python benchmarks/calibration/ppi.py --part sim --reps 1000 --seed 4 --n 50
    nice -n 10 python benchmarks/calibration/ppi.py --part pandalm --reps 300 --seed 3 --n 50,200,500
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "analysis"))

from medjudge.stats.ppi.crossfit import ppi_mean_crossfit  # noqa: E402
from medjudge.stats.ppi.mean import classical_mean, ppi_mean, ppi_proportion  # noqa: E402
from medjudge.stats.ppi.rogan_gladen import rogan_gladen  # noqa: E402
from medjudge.stats.ppi.stratified import ppi_mean_stratified  # noqa: E402
from medjudge.stats.resampling import Bootstrap  # noqa: E402


def world(rng: np.random.Generator, n_clusters: int, m: int = 4):
    u = rng.normal(0, 1.0, n_clusters).repeat(m)
    d = u + rng.normal(0, 0.7, u.size)
    y = (rng.random(u.size) < 1 / (1 + np.exp(-(-0.8 + 0.8 * d)))).astype(float)
    p_err = 1 / (1 + np.exp(-(-2.5 + 0.8 * np.abs(d)))) * np.where(y == 1, 1.3, 0.8)
    f1 = np.where(rng.random(u.size) < p_err, 1 - y, y)
    f2 = np.where(rng.random(u.size) < np.minimum(2 * p_err, 0.45), 1 - y, y)
    stratum = np.where(u > 0, "hard", "easy")
    return y, f1, f2, np.arange(n_clusters).repeat(m), stratum


def _rg(y, f, fu, level=0.95, method="delta"):
    yl, fl = y > 0.5, f > 0.5
    return rogan_gladen(
        int(fu.sum()),
        fu.size,
        int((fl & yl).sum()),
        int(yl.sum()),
        int((~fl & ~yl).sum()),
        int((~yl).sum()),
        confidence_level=level,
        method=method,
        bootstrap=Bootstrap(1000),
    )


def run_sim(reps: int, seed: int, ns: list[int]) -> pd.DataFrame:
    truth = world(np.random.default_rng(123456), 1_000_000)[0].mean()
    rng = np.random.default_rng(seed)
    out = []
    for n in ns:
        acc: dict[str, list] = {}
        for _ in range(reps):
            y, f1, f2, c, s = world(rng, 500)
            lab = np.zeros(y.size, bool)
            lab[rng.choice(y.size, n, replace=False)] = True
            L, U = lab, ~lab
            kw = {"clusters": c[L], "clusters_unlabeled": c[U]}
            res = {
                "classical (cluster)": classical_mean(y[L], clusters=c[L]),
                "PPI (cluster)": ppi_mean(y[L], f1[L], f1[U], lam=1.0, **kw),
                "PPI++ (cluster)": ppi_mean(y[L], f1[L], f1[U], **kw),
                "PPI++ ppi_proportion (cluster)": ppi_proportion(y[L], f1[L], f1[U], **kw),
                "PPI++ (ignoring clusters)": ppi_mean(y[L], f1[L], f1[U]),
                "PPI++ stratified (cluster)": ppi_mean_stratified(
                    y[L], f1[L], f1[U], s[L], s[U], **kw
                )[0],
                "cross-fit select, 2 judges": ppi_mean_crossfit(
                    y[L],
                    np.column_stack([f1[L], f2[L]]),
                    np.column_stack([f1[U], f2[U]]),
                    combine="select",
                    n_folds=5,
                    clusters=c[L],
                    clusters_unlabeled=c[U],
                ),
                "cross-fit combine, 2 judges": ppi_mean_crossfit(
                    y[L],
                    np.column_stack([f1[L], f2[L]]),
                    np.column_stack([f1[U], f2[U]]),
                    combine="combine",
                    n_folds=5,
                    clusters=c[L],
                    clusters_unlabeled=c[U],
                ),
                "Rogan-Gladen (delta)": _rg(y[L], f1[L], f1[U]),
                # the asymptotic intervals (ppi-python's) for comparison
                "classical (cluster), normal": classical_mean(
                    y[L], clusters=c[L], interval="normal"
                ),
                "PPI++ (cluster), normal": ppi_mean(y[L], f1[L], f1[U], interval="normal", **kw),
                "PPI++ stratified (cluster), normal": ppi_mean_stratified(
                    y[L], f1[L], f1[U], s[L], s[U], interval="normal", **kw
                )[0],
            }
            w0 = res["classical (cluster)"].ci_high - res["classical (cluster)"].ci_low
            w0n = res["classical (cluster), normal"]
            w0n = w0n.ci_high - w0n.ci_low
            for k, e in res.items():
                a = acc.setdefault(k, [])
                a.append(
                    (
                        e.ci_low <= truth <= e.ci_high,
                        (e.ci_high - e.ci_low),
                        (e.ci_high - e.ci_low) / (w0n if k.endswith("normal") else w0),
                        e.extra.get("effective_n", np.nan),
                    )
                )
        for k, a in acc.items():
            arr = np.asarray(a, dtype=float)
            cov = arr[:, 0].mean()
            out.append(
                {
                    "n_labelled": n,
                    "method": k,
                    "coverage": cov,
                    "mc_se": math.sqrt(cov * (1 - cov) / reps),
                    "mean_width": arr[:, 1].mean(),
                    "width_ratio": arr[:, 2].mean(),
                    "effective_n": np.nanmean(arr[:, 3])
                    if np.isfinite(arr[:, 3]).any()
                    else np.nan,
                }
            )
    return pd.DataFrame(out)


def run_pandalm(reps: int, seed: int, ns: list[int]) -> pd.DataFrame:
    raw = pd.read_csv(ROOT / "data/external/pandalm_testset/verdicts_wide.csv")
    ann = raw[["annotator1", "annotator2", "annotator3"]].to_numpy()
    rng = np.random.default_rng(seed)
    out = []
    codes = {"1": 1, "2": 2, "tie": 0}
    judge_codes = {
        "gpt-3.5-turbo": raw["gpt-3.5-turbo"].map({"1": 1, "2": 2, "Tie": 0}).to_numpy(float),
        "pandalm-7b": raw["pandalm-7b"].astype(float).to_numpy(),
    }
    for target, k in codes.items():
        y_all = (np.sum(ann == k, axis=1) >= 2).astype(float)
        truth = y_all.mean()
        for judge, pred in judge_codes.items():
            f_all = (pred == k).astype(float)
            f_all[np.isnan(pred)] = np.nanmean(np.where(np.isnan(pred), np.nan, f_all))
            for n in ns:
                rows = []
                for _ in range(reps):
                    lab = np.zeros(y_all.size, bool)
                    lab[rng.choice(y_all.size, n, replace=False)] = True
                    c0 = classical_mean(y_all[lab])
                    for meth, lam in (
                        ("classical", 0.0),
                        ("PPI", 1.0),
                        ("PPI++", None),
                        ("PPI++ ppi_proportion", None),
                    ):
                        fn = ppi_proportion if meth.endswith("proportion") else ppi_mean
                        e = (
                            c0
                            if meth == "classical"
                            else fn(y_all[lab], f_all[lab], f_all[~lab], lam=lam)
                        )
                        rows.append(
                            (
                                meth,
                                e.ci_low <= truth <= e.ci_high,
                                e.ci_high - e.ci_low,
                                e.extra.get("effective_n", n) / n,
                            )
                        )
                t = pd.DataFrame(rows, columns=["method", "cover", "width", "gain"])
                w0 = t.loc[t["method"] == "classical", "width"].mean()
                for meth, g in t.groupby("method", sort=False):
                    cov = g["cover"].mean()
                    out.append(
                        {
                            "target": target,
                            "judge": judge,
                            "n_labelled": n,
                            "method": meth,
                            "coverage": cov,
                            "mc_se": math.sqrt(cov * (1 - cov) / reps),
                            "width_ratio": g["width"].mean() / w0,
                            "effective_labels_per_label": g["gain"].replace(np.inf, np.nan).mean(),
                        }
                    )
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=["sim", "pandalm"], default="sim")
    p.add_argument("--reps", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--n", default="50,100,200,500", help="labelled sizes, comma-separated")
    a = p.parse_args(argv)
    ns = [int(v) for v in a.n.split(",")]
    t0 = time.perf_counter()
    df = run_sim(a.reps, a.seed, ns) if a.part == "sim" else run_pandalm(a.reps, a.seed, ns)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(df.to_markdown(index=False, floatfmt=".3f"))
    print(f"\n{a.part}: reps={a.reps} seed={a.seed} ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
