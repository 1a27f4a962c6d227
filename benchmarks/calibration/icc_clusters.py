"""Coverage of ICC intervals when targets are clustered (-> docs/calibration.md).

Design (issue 37): ``G`` images with 2-6 targets (questions) each, 3 raters scoring 1-5 with
ties: a target's latent quality ``t = u_c + e_i`` (image effect ``u_c ~ N(0, sd_c^2)``),
rater ``r`` scores ``round(3 + b_r + s t + N(0, sd_e^2))`` clipped to 1..5. The population ICC
of each form is its value on one draw of 20,000 images (SE < 0.003).

Candidates at 95%: the F intervals (McGraw & Wong 1996; independent targets — the old
behaviour with ``clusters=``), the cluster-robust linearisation on the log F scale with t(G-1)
(the new ``mj.icc(..., clusters=)``), and the cluster bootstrap BCa (B=999).

Run (two seeds; then designs drawn at random from wide ranges):

    nice -n 10 python benchmarks/calibration/icc_clusters.py --seed 1 --reps 1000
    nice -n 10 python benchmarks/calibration/icc_clusters.py --seed 2 --reps 1000
    nice -n 10 python benchmarks/calibration/icc_clusters.py --seed 3 --random 12 --reps 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
import medjudge as mj  # noqa: E402
from medjudge.stats.agreement import ICC_FORMS, icc_core  # noqa: E402
from medjudge.stats.agreement.icc import _from_f_scale, _to_f_scale  # noqa: E402
from medjudge.stats.resampling import ResamplePlan, bootstrap_interval  # noqa: E402
from study_sim import mc_se  # noqa: E402

METHODS = (
    "F (independent targets)",
    "cluster linearisation (log F)",
    "cluster jackknife (log F; mj.icc)",
    "cluster BCa",
)


def draw(rng, sizes, bias, s, sd_c, sd_i, sd_e, reps):
    g = sizes.size
    cl = np.repeat(np.arange(g), sizes)
    n = cl.size
    t = rng.normal(0, sd_c, (reps, g))[:, cl] + rng.normal(0, sd_i, (reps, n))
    X = 3 + np.asarray(bias)[None, None, :] + s * t[..., None]
    X = X + rng.normal(0, sd_e, X.shape)
    return np.clip(np.round(X), 1, 5), cl


def _linearised(x, cl, fe, g):
    """The cluster-robust linearisation on the log F scale (CR1, t G-1): the candidate the
    jackknife replaced (per-cluster derivatives of log F by central differences)."""
    k = x.shape[1]
    E = np.zeros((g, cl.size))
    E[cl, np.arange(cl.size)] = 1e-5
    up = _to_f_scale(icc_core(x, 1.0 + E), k)
    down = _to_f_scale(icc_core(x, 1.0 - E), k)
    d = (up - down) / 2e-5
    se = np.sqrt(g / (g - 1) * ((d - d.mean(axis=0)) ** 2).sum(axis=0))
    z = _to_f_scale(np.array([[fe[f].estimate for f in ICC_FORMS]]), k)[0]
    q = st.t.ppf(0.975, g - 1)
    lo = _from_f_scale((z - q * se)[None, :], k)[0]
    hi = _from_f_scale((z + q * se)[None, :], k)[0]
    return {f: (float(lo[j]), float(min(hi[j], 1.0))) for j, f in enumerate(ICC_FORMS)}


def scenario(rng, label, g, bias, s, sd_c, sd_i, sd_e, reps, boot, forms=("ICC2", "ICC3", "ICC2k")):
    Xb, _ = draw(rng, rng.integers(2, 7, 20_000), bias, s, sd_c, sd_i, sd_e, 1)
    allv = icc_core(Xb[0])
    truth = {f: float(allv[ICC_FORMS.index(f)]) for f in forms}
    X, cl = draw(rng, rng.integers(2, 7, g), bias, s, sd_c, sd_i, sd_e, reps)
    n = cl.size
    plan = ResamplePlan(n, boot, int(rng.integers(1 << 31)), clusters=cl)
    W, J = plan.apply(lambda w: w), plan.jackknife_apply(lambda w: w)
    hits = {(f, m): [] for f in forms for m in METHODS}
    for r in range(reps):
        x = X[r]
        fe = {e.name: e for e in mj.icc(x)}
        ce = {e.name: e for e in mj.icc(x, clusters=cl)}  # the cluster jackknife
        lin = _linearised(x, cl, fe, g)
        b = icc_core(x, W)
        jk = icc_core(x, J)
        for f in forms:
            j = ICC_FORMS.index(f)
            bl, bh = bootstrap_interval(fe[f].estimate, b[:, j], method="bca", jack=jk[:, j])
            ivs = {
                METHODS[0]: (fe[f].ci_low, fe[f].ci_high),
                METHODS[1]: lin[f],
                METHODS[2]: (ce[f].ci_low, ce[f].ci_high),
                METHODS[3]: (float(bl), float(bh)),
            }
            for m, (lo, hi) in ivs.items():
                ok = np.isfinite(lo) and np.isfinite(hi)
                hits[(f, m)].append((ok and lo <= truth[f] <= hi, hi - lo if ok else np.nan))
    rows = []
    for (f, m), h in hits.items():
        cov = float(np.mean([x for x, _ in h]))
        rows.append(
            dict(scenario=label, coefficient=f, truth=truth[f], method=m, coverage=cov,
                 mc_se=mc_se(cov, reps), width=float(np.nanmean([w for _, w in h])), reps=reps)
        )  # fmt: skip
    return rows


ISSUE = [
    # label, G, rater biases, scale, sd image, sd item, sd error
    ("20 images x 2-6 targets, 3 raters, 1-5", 20, (0.0, 0.3, -0.3), 0.8, 1.0, 0.6, 0.7),
    ("30 images x 2-6 targets, 3 raters, 1-5", 30, (0.0, 0.3, -0.3), 0.8, 1.0, 0.6, 0.7),
    ("60 images x 2-6 targets, 3 raters, 1-5", 60, (0.0, 0.3, -0.3), 0.8, 1.0, 0.6, 0.7),
]


def random_designs(rng, k):
    out = []
    for j in range(k):
        g = int(rng.integers(20, 81))
        bias = tuple(np.round(rng.uniform(-0.6, 0.6, 3), 2))
        s, sdc, sdi, sde = (float(x) for x in (rng.uniform(0.4, 1.2), rng.uniform(0.2, 1.5),
                                               rng.uniform(0.2, 1.0), rng.uniform(0.3, 1.2)))  # fmt: skip
        lab = f"random {j + 1}: G={g}, sd image {sdc:.2f}, sd item {sdi:.2f}, sd error {sde:.2f}"
        out.append((lab, g, bias, s, sdc, sdi, sde))
    return out


def main() -> None:
    from agreement_clusters import pooled, table  # noqa: PLC0415

    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=999)
    ap.add_argument("--random", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    rows = []
    for d in random_designs(rng, a.random) if a.random else ISSUE:
        rows += scenario(rng, *d, a.reps, a.boot)
    print(table(rows))
    if a.random:
        print()
        print(pooled(rows))
    print(f"\nseed {a.seed}, {a.reps} replicates, B={a.boot}, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
