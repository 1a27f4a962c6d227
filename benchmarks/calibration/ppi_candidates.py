"""Candidate small-sample intervals for PPI++ at 50 labels (-> docs/calibration.md, "Rare rates").

The world of ``ppi_rare.py`` (gold rate ``rate``, judge sensitivity 0.8 and specificity 0.95,
``n`` labelled and 2,000 unlabelled items, no clusters). Every candidate keeps PPI++'s point
estimate (ppi-python's) and differs only in the interval, all written out here from their
formulas (the first row reproduces the library's ``ppi_mean`` default):

* variance of the labelled residuals ``r = Y - lam f``: ``n - 2`` divisor (the library's,
  regression estimator), HC2 or HC3 leverage correction (``h_i = 1/n + (f_i - fbar)^2 /
  sum (f - fbar)^2``; MacKinnon & White 1985), each with the unlabelled part's ``N - 1``;
* limits: symmetric Student t with Satterthwaite df; the same plus a continuity correction
  ``1/(2n)``; Hall's (1992) skewness-removing transformation of the studentized estimate,
  with the third cumulant of the PPI++ contributions; the Wilson interval at the effective n
  ``p(1-p)/Var`` with the Korn-Graubard df factor, without and with Newcombe's (1998)
  continuity correction (the latter is the library's ``ppi_proportion`` default).

    nice -n 10 python benchmarks/calibration/ppi_candidates.py --seed 1 --reps 4000
    nice -n 10 python benchmarks/calibration/ppi_candidates.py --seed 2 --reps 4000
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats
from scipy.special import stdtrit

Z = float(stats.norm.ppf(0.975))


def world(rng, size, rate, sens=0.8, spec=0.95):
    y = (rng.random(size) < rate).astype(float)
    f = np.where(y == 1, rng.random(size) < sens, rng.random(size) > spec).astype(float)
    return y, f


def wilson(p, n, cc):
    if not cc:
        c = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
        h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
        return c - h, c + h
    lo = (
        2 * n * p + Z * Z - 1 - Z * math.sqrt(max(Z * Z - 2 - 1 / n + 4 * p * (n * (1 - p) + 1), 0))
    )
    hi = (
        2 * n * p + Z * Z + 1 + Z * math.sqrt(max(Z * Z + 2 - 1 / n + 4 * p * (n * (1 - p) - 1), 0))
    )
    lo = 0.0 if p <= 0 else max(lo / (2 * (n + Z * Z)), 0.0)
    hi = 1.0 if p >= 1 else min(hi / (2 * (n + Z * Z)), 1.0)
    return lo, hi


def wilson_effective(est, v, n, n_unlab, df, cc):
    p = min(max(est, 0.0), 1.0)
    ne = p * (1 - p) / v if v > 0 and 0 < p < 1 else float(n)
    ne = min(ne, n + n_unlab)
    if np.isfinite(df) and df >= 1:
        ne *= min((stdtrit(max(ne - 1, 1), 0.975) / stdtrit(df, 0.975)) ** 2, 1.0)
    return wilson(p, ne, cc)


def hall(est, se, a, q):
    """{theta: g((est - theta)/se) in [-q, q]}, g(t) = t + a t^2/3 + a^2 t^3/27 + a/6."""
    if abs(a) < 1e-12:
        return est - q * se, est + q * se

    def ginv(x):
        return (3 / a) * (np.cbrt(1 + a * (x - a / 6)) - 1)

    return est - se * ginv(q), est - se * ginv(-q)


def exact_classical(n: int, rate: float) -> tuple[float, float]:
    """Exact binomial coverage of the classical Wilson and t intervals of n labels."""
    k = np.arange(n + 1)
    ph, pm = k / n, stats.binom.pmf(k, n, rate)
    c = (ph + Z * Z / (2 * n)) / (1 + Z * Z / n)
    h = Z * np.sqrt(ph * (1 - ph) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    q, s = float(stdtrit(n - 1, 0.975)), np.sqrt(ph * (1 - ph) / (n - 1))
    return float(pm[(c - h <= rate) & (rate <= c + h)].sum()), float(
        pm[(ph - q * s <= rate) & (rate <= ph + q * s)].sum()
    )


def candidates(y, f, fu) -> dict[str, tuple[float, float]]:
    n, N = y.size, fu.size
    cov = np.mean((y - y.mean()) * (f - f.mean()))
    var = np.var(np.concatenate([f, fu]), ddof=1)
    lam = float(np.clip(cov / ((1 + n / N) * var) if var > 0 else 0.0, 0, 1))
    est = lam * fu.mean() + np.mean(y - lam * f)
    e = (y - lam * f) - np.mean(y - lam * f)
    eu = lam * (fu - fu.mean())
    vu = np.sum(eu**2) / (N - 1) / N
    ssf = np.sum((f - f.mean()) ** 2)
    h = np.minimum(1 / n + ((f - f.mean()) ** 2 / ssf if ssf > 0 else 0.0), 1 - 1 / n)
    k3 = np.sum(e**3) / n**3 * n * n / ((n - 1) * (n - 2)) + np.sum(eu**3) / N**3 * N * N / (
        (N - 1) * (N - 2)
    )
    out = {"_diag": (est, math.sqrt(np.sum(e**2) / (n - 2) / n + vu))}
    for name, vl in (
        ("n-2", np.sum(e**2) / (n - 2) / n),
        ("HC2", np.sum(e**2 / (1 - h)) / n**2),
        ("HC3", np.sum(e**2 / (1 - h) ** 2) / n**2),
    ):
        v = vl + vu
        se = math.sqrt(v)
        df = v**2 / (vl**2 / (n - 2) + vu**2 / (N - 1))
        q = float(stdtrit(df, 0.975))
        out[f"{name}, t"] = (est - q * se, est + q * se)
        out[f"{name}, t + cc"] = (est - q * se - 0.5 / n, est + q * se + 0.5 / n)
        if name == "n-2":
            out[f"{name}, Hall skewness-corrected t"] = hall(est, se, k3 / v**1.5, q)
        out[f"{name}, Wilson at n*"] = wilson_effective(est, v, n, N, df, False)
        out[f"{name}, Wilson-cc at n*"] = wilson_effective(est, v, n, N, df, True)
    return out


def run(seed: int, reps: int, n: int, rate: float) -> tuple[list[str], str]:
    """Coverage, misses and mean width (over finite intervals) of every candidate, and a
    diagnostic row: SD of the estimates, root-mean-square SE, their correlation, quantiles of
    the studentized estimate, exact coverage of the classical intervals."""
    rng = np.random.default_rng(seed)
    acc: dict[str, list] = {}
    for _ in range(reps):
        y, f = world(rng, n, rate)
        _, fu = world(rng, 2000, rate)
        for k, (lo, hi) in candidates(y, f, fu).items():
            acc.setdefault(k, []).append((lo, hi))
    est, se = np.array(acc.pop("_diag")).T
    ok = se > 0
    tq = np.quantile((est[ok] - rate) / se[ok], [0.025, 0.975])
    ew, et = exact_classical(n, rate)
    diag = (
        f"| {rate:g} | {n} | {est.std():.4f} | {math.sqrt(np.mean(se**2)):.4f} | "
        f"{np.corrcoef(est, se)[0, 1]:.2f} | {tq[0]:.2f} / {tq[1]:.2f} | "
        f"{100 * ew:.1f}% / {100 * et:.1f}% |"
    )
    rows = []
    for k, v in acc.items():
        v = np.array(v)
        c = float(np.mean((v[:, 0] <= rate) & (rate <= v[:, 1])))
        rows.append(
            f"| {rate:g} | {n} | {k} | {100 * c:.1f}% ({100 * math.sqrt(c * (1 - c) / reps):.1f}) "
            f"| {100 * np.mean(v[:, 1] < rate):.1f}% / {100 * np.mean(v[:, 0] > rate):.1f}% | "
            f"{np.nanmean(v[:, 1] - v[:, 0]):.4f} |"
        )
    return rows, diag


def main() -> None:
    np.seterr(all="ignore")  # 0 labelled positives: lam = 0 and a zero variance (nan limits)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=4000)
    a = ap.parse_args()
    t0 = time.time()
    print(
        "| rate | labels | labelled variance, limits | coverage (MC SE) | misses below / above "
        "| mean width |\n|---|---|---|---|---|---|"
    )
    diags = []
    for n, rate in ((50, 0.35), (50, 0.5), (200, 0.08), (50, 0.08)):
        rows, diag = run(a.seed, a.reps, n, rate)
        print("\n".join(rows))
        diags.append(diag)
    print(
        "\n| rate | labels | SD of PPI++ estimates | RMS SE (n-2) | corr(estimate, SE) | "
        "2.5% / 97.5% quantiles of (estimate - rate)/SE | exact coverage, classical Wilson / t "
        "|\n|---|---|---|---|---|---|---|"
    )
    print("\n".join(diags))
    print(f"\nseed={a.seed} reps={a.reps} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
