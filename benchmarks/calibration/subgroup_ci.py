"""Coverage and width of subgroup accuracy intervals in small clustered cells (-> docs/calibration.md).

Design (issue 37, item 5): ``K`` organ groups (13), each holding an unbalanced number of
images (3-8) with several questions each (1-5), so a cell has 3-8 clusters and 3-40 items;
4 judges correct with probability ``expit(a_j + u_c + e_i)`` (image effect ``u_c``, item
effect ``e_i``, shared by all judges; ``a_j`` set so the population accuracy is the target,
the same in every organ, so every cell's true accuracy is the target). ``--random N`` draws
``N`` designs with their parameters at random from wide ranges (``random_designs``).

Candidates (95%), computed from the same cell data:

- ``KG, n* <= n, BM df`` — the rule before this change: Korn & Graubard's effective n from the
  CR2 variance, truncated at ``n``, times ``(t_{n-1}/t_{df})^2`` with Bell-McCaffrey df;
- ``KG, n* <= n, G-1 df``; ``KG, no truncation, BM df``; ``KG, no truncation, G-1 df``;
- ``pooled ICC`` — the cell's design effect ``1 + rho (sum n_c^2/n - 1)`` with the judge's
  intra-image correlation ``rho`` estimated from the within-cell residuals of the whole study
  (moment estimator, floored at 0), Wilson at ``n / deff``;
- ``plain Wilson`` (ignores the clusters);
- ``public API`` — ``mj.subgroup_accuracy(study, ("organ_system",))`` on a real Study (every
  ``--api-every``-th replicate), i.e. what the package does now.

MC SE: the SD of the per-replicate coverage share over replicates / sqrt(replicates) (the
cells of a replicate are independent, its judges are not).

Run:

    flock /work/notes/heavy.lock nice -n 5 python benchmarks/calibration/subgroup_ci.py --seed 11 --reps 400
    flock /work/notes/heavy.lock nice -n 5 python benchmarks/calibration/subgroup_ci.py --seed 12 --reps 400
    flock /work/notes/heavy.lock nice -n 5 python benchmarks/calibration/subgroup_ci.py --seed 13 --random 12 --reps 100
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit, stdtrit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import medjudge as mj  # noqa: E402
from hard_designs import SIZES_12, verdict_frame  # noqa: E402
from medjudge.stats.intervals import cr2_mean_se, wilson_interval  # noqa: E402
from study_sim import intercept_for, population_accuracy  # noqa: E402

CANDIDATES = (
    "KG, n* <= n, BM df (before)",
    "KG, n* <= n, G-1 df",
    "KG, no truncation, BM df",
    "KG, no truncation, G-1 df",
    "pooled ICC",
    "pooled ICC below 20 clusters (pool df >= 20), else KG BM",
    "plain Wilson",
)
Z = 0.975


def draw(rng, p):
    """One study: item organ, image, correctness (n, J), each organ's true accuracy."""
    k = p["organs"]
    if p.get("kind") == "S":  # last round's 12 images of 1-15 items, organs of 4 images
        sizes = SIZES_12
        organ_of_img = np.arange(sizes.size) // 4
    elif p.get("kind") == "H":  # last round's 50 images of 1-6, group varies within image
        sizes = rng.integers(1, 7, 50)
        organ_of_img = np.zeros(sizes.size, int)
    else:
        n_img = rng.integers(p["img_lo"], p["img_hi"] + 1, k)
        organ_of_img = np.repeat(np.arange(k), n_img)
        sizes = rng.integers(p["q_lo"], p["q_hi"] + 1, organ_of_img.size)
    img = np.repeat(np.arange(organ_of_img.size), sizes)
    organ = organ_of_img[img]
    if p.get("kind") == "H":
        organ = rng.choice(3, img.size, p=[0.45, 0.45, 0.10])
        organ_of_img = organ_of_img * 0
    sd_tot = float(np.hypot(p["sd_img"], p["sd_item"]))
    # image sd per organ: sd_img * U(1 - spread, 1 + spread) (organs differ in correlation)
    spread = p.get("spread", 0.0)
    sd_o = p["sd_img"] * rng.uniform(1 - spread, 1 + spread, k)
    d = rng.normal(0, 1, organ_of_img.size)[img] * (
        sd_o[organ] if spread else p["sd_img"]
    ) + rng.normal(0, p["sd_item"], img.size)
    a = intercept_for(p["acc"], sd_tot) if sd_tot > 0 else np.log(p["acc"] / (1 - p["acc"]))
    y = (rng.random((img.size, p["judges"])) < expit(a + d)[:, None]).astype(float)
    # each organ's true accuracy (differs from the target when its image sd does)
    truth = np.array([population_accuracy(a, float(np.hypot(s, p["sd_item"]))) for s in sd_o])
    return organ, img, y, truth


def pooled_rho(y, organ, img):
    """Per judge: ANOVA intra-image correlation with images nested in cells (cells fixed).

    ``MSB = sum_c n_c (ybar_c - ybar_cell)^2 / (G - K)``, ``MSW = sum (y - ybar_c)^2 / (N - G)``,
    ``n0 = (N - sum_cell sum_c n_c^2 / N_cell) / (G - K)``, ``s_b^2 = (MSB - MSW) / n0``,
    ``rho = s_b^2 / (s_b^2 + MSW)`` floored at 0.
    """
    k = organ.max() + 1
    img = np.unique(organ * (img.max() + 1) + img, return_inverse=True)[1]  # parts per cell
    g = img.max() + 1
    ncell = np.bincount(organ, minlength=k).astype(float)
    nc = np.bincount(img, minlength=g).astype(float)
    cell_of_img = np.zeros(g, int)
    cell_of_img[img] = organ
    n = img.size
    n0 = (n - (np.bincount(cell_of_img, nc**2, k) / ncell).sum()) / (g - k)
    out = []
    for j in range(y.shape[1]):
        mc = np.bincount(img, y[:, j], g) / nc
        mk = np.bincount(organ, y[:, j], k) / ncell
        msb = (nc * (mc - mk[cell_of_img]) ** 2).sum() / (g - k)
        msw = ((y[:, j] - mc[img]) ** 2).sum() / max(n - g, 1)
        sb = (msb - msw) / n0
        tot = sb + msw
        out.append(sb / tot if tot > 0 else 0.0)
    return np.clip(np.asarray(out), 0.0, 1.0)


def cell_intervals(yc, cl, rho, df_pool):
    """``{candidate: (lo, hi)}`` for one cell (columns = judges)."""
    n = yc.shape[0]
    p = yc.mean(0)
    _, se, df_bm, g = cr2_mean_se(yc, np.ones_like(yc), cl)
    g = np.asarray(g, float)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = p * (1 - p) / se**2
    ok = (se > 0) & np.isfinite(raw) & (raw > 0)
    tn = stdtrit(max(n - 1, 1), Z)
    for trunc in (True, False):
        for dfname, df in (("BM", df_bm), ("G-1", g - 1)):
            ne = np.minimum(raw, n) if trunc else raw
            ne = ne * np.minimum((tn / stdtrit(np.maximum(df, 1.0), Z)) ** 2, 1.0)
            ne = np.where(ok, ne, np.minimum(g, n))
            name = f"KG, {'n* <= n' if trunc else 'no truncation'}, {dfname} df"
            if trunc and dfname == "BM":
                name += " (before)"
            out[name] = wilson_interval(p * ne, ne)
    _, sizes = np.unique(cl, return_counts=True)
    deff = 1 + rho * ((sizes**2).sum() / n - 1)
    ne = n / deff
    out["pooled ICC"] = wilson_interval(p * ne, ne)
    out["pooled ICC below 20 clusters (pool df >= 20), else KG BM"] = (
        out["pooled ICC"]
        if np.unique(cl).size < 20 and df_pool >= 20
        else out["KG, n* <= n, BM df (before)"]
    )
    out["plain Wilson"] = wilson_interval(p * n, np.full_like(p, n))
    return out


def make_study(organ, img, y):
    import pandas as pd

    n = y.shape[0]
    items = np.array([f"i{i:04d}" for i in range(n)], dtype=object)
    it = pd.DataFrame(
        {
            "item": items,
            "image_id": [f"img{c:03d}" for c in img],
            "organ_system": [f"o{c:02d}" for c in organ],
        }
    )
    return mj.Study(
        verdict_frame(items, y),
        it,
        {"overall": mj.Scale("nominal", ("A", "B"))},
        cluster="image_id",
    )


def run(rng, p, reps, api_every):
    hits = {c: [] for c in CANDIDATES}
    width = {c: [] for c in CANDIDATES}
    api_w, api_rep_cov = [], []
    g_seen, n_seen, method = [], [], ""
    for r in range(reps):
        organ, img, y, truth = draw(rng, p)
        rho = pooled_rho(y, organ, img)
        df_pool = np.unique(organ * (img.max() + 1) + img).size - (organ.max() + 1)
        rep = {c: [] for c in CANDIDATES}
        for o in range(p["organs"]):
            k = organ == o
            iv = cell_intervals(y[k], img[k], rho, df_pool)
            g_seen.append(np.unique(img[k]).size)
            n_seen.append(int(k.sum()))
            for c in CANDIDATES:
                lo, hi = iv[c]
                rep[c].append((lo <= truth[o]) & (truth[o] <= hi))
                width[c].append(hi - lo)
        for c in CANDIDATES:
            hits[c].append(np.mean(rep[c]))
        if api_every and r % api_every == 0:
            t = mj.subgroup_accuracy(make_study(organ, img, y), ("organ_system",))
            tr = truth[t["organ_system"].str[1:].astype(int).to_numpy()]
            h = (t["ci_low"] <= tr) & (tr <= t["ci_high"])
            api_rep_cov.append(float(h.mean()))
            api_w.extend((t["ci_high"] - t["ci_low"]).tolist())
            method = t["ci_method"].iloc[0]
    rows = []
    for c in CANDIDATES:
        h = np.asarray(hits[c])
        rows.append(
            (c, h.mean(), h.std(ddof=1) / np.sqrt(h.size), np.mean(np.concatenate(width[c])))
        )
    if api_rep_cov:
        h = np.asarray(api_rep_cov)
        rows.append(
            (
                f"public API: {method}",
                h.mean(),
                h.std(ddof=1) / np.sqrt(h.size) if h.size > 1 else np.nan,
                np.mean(api_w),
            )
        )
    return rows, (min(g_seen), max(g_seen), min(n_seen), max(n_seen))


ISSUE = dict(
    organs=13, img_lo=3, img_hi=8, q_lo=1, q_hi=5, acc=0.8, sd_img=1.0, sd_item=0.7, judges=4
)


def designs(args, rng):
    if args.random:
        for _ in range(args.random):
            lo = int(rng.integers(2, 6))
            q_lo = int(rng.integers(1, 3))
            yield dict(
                organs=int(rng.integers(5, 21)),
                img_lo=lo,
                img_hi=lo + int(rng.integers(0, 9)),
                q_lo=q_lo,
                q_hi=q_lo + int(rng.integers(0, 6)),
                acc=float(np.round(rng.uniform(0.6, 0.95), 3)),
                sd_img=float(np.round(rng.uniform(0, 1.5), 2)),
                sd_item=float(np.round(rng.uniform(0, 1.0), 2)),
                spread=float(np.round(rng.uniform(0, 1), 2)),
                judges=3,
            )
        return
    yield ISSUE
    yield {**ISSUE, "acc": 0.9}
    yield {**ISSUE, "acc": 0.7, "sd_img": 1.5}
    yield {**ISSUE, "sd_img": 0.0, "sd_item": 0.0}
    yield {**ISSUE, "spread": 1.0}
    yield {**ISSUE, "organs": 6, "img_lo": 10, "img_hi": 40, "spread": 1.0}
    yield {**ISSUE, "kind": "H", "organs": 3, "acc": 0.9, "judges": 3}
    yield {**ISSUE, "kind": "S", "organs": 3}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--random", type=int, default=0)
    ap.add_argument("--api-every", type=int, default=4)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    print("| design | cells: clusters / items | interval | coverage (MC SE) | mean width |")
    print("|---|---|---|---|---|")
    for p in designs(args, rng):
        rows, (g0, g1, n0, n1) = run(rng, p, args.reps, args.api_every)
        name = {
            "H": "design H: 50 images x 1-6, 3 groups within images (0.45/0.45/0.10), acc 0.9",
            "S": "design S: 12 images of 1-15 items, 3 organs of 4 images, acc 0.8",
        }.get(p.get("kind"), "")
        name = name or (
            f"{p['organs']} organs x {p['img_lo']}-{p['img_hi']} images x "
            f"{p['q_lo']}-{p['q_hi']} q, acc {p['acc']}, sd {p['sd_img']}/{p['sd_item']}"
            + (
                f" (image sd x U(1-{p['spread']}, 1+{p['spread']}) by organ)"
                if p.get("spread")
                else ""
            )
        )
        for c, cov, se, w in rows:
            print(
                f"| {name} | {g0}-{g1} / {n0}-{n1} | {c} | {100 * cov:.1f}% ({100 * se:.1f}) | {w:.3f} |"
            )
        sys.stdout.flush()
    print(f"\nseed={args.seed} reps={args.reps} random={args.random} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
