"""Small-G corrections for the agreement coefficients' cluster jackknife (-> docs/calibration.md).

Same world as ``agreement_clusters.py`` (4 raters, binary labels with image-varying prevalence,
image sd 1.0, item sd 0.7), but the image sizes (2-6 questions) are redrawn every replicate,
so no single draw of the design decides the result. Candidates, all from the same
leave-one-image-out values ``theta_(-g)``:

- ``jack t(G-1)`` — what ``ci="auto"``/``"analytic"`` does with clusters;
- ``jack t(BM df)`` — the same SE with the Bell-McCaffrey degrees of freedom of a mean over
  these unequal clusters (``cr2_mean_se``'s closed form);
- ``jack atanh`` — the jackknife on Fisher's ``atanh`` scale, limits transformed back;
- ``jack bias-corr`` — centred on the jackknife bias-corrected estimate
  ``G theta - (G-1) mean theta_(-g)``.

Run (``G`` images, replicates):

    flock /work/notes/heavy.lock nice -n 5 python benchmarks/calibration/agreement_small_g.py 21 45 2000
    flock /work/notes/heavy.lock nice -n 5 python benchmarks/calibration/agreement_small_g.py 22 45 2000
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agreement_clusters import coefs, draw  # noqa: E402
from medjudge.stats.resampling import ResamplePlan  # noqa: E402


def bm_df(sizes: np.ndarray) -> float:
    """Bell-McCaffrey df of a mean over clusters of these sizes (working independence)."""
    nc = sizes.astype(float)
    n = nc.sum()
    w = 1 / (1 - nc / n)
    wn = w * nc
    tr = wn.sum() - (wn * nc).sum() / n
    tr2 = (wn**2).sum() - 2 * (w * wn * nc * nc).sum() / n + ((wn * nc).sum() / n) ** 2
    return float(tr**2 / tr2)


def run(seed: int, g: int, reps: int) -> None:
    rng = np.random.default_rng(seed)
    q, pm, conc, sdc, sdi = 2, 0.3, 2.0, 1.0, 0.7
    accs = np.array((1.5, 1.2, 1.0, 0.8))
    xb, _ = draw(rng, rng.integers(2, 7, 20000), q, pm, conc, accs, sdc, sdi, 1)
    cs = coefs(q)
    truth = {c: float(core(xb[0] if k is None else xb[0][:, :k], None)) for c, (_, core, k) in cs.items()}  # fmt: skip
    res: dict = {}
    t1 = st.t.ppf(0.975, g - 1)
    for _ in range(reps):
        sizes = rng.integers(2, 7, g)
        x_all, cl = draw(rng, sizes, q, pm, conc, accs, sdc, sdi, 1)
        jw = ResamplePlan(cl.size, 10, 0, clusters=cl).jackknife()
        tb = st.t.ppf(0.975, bm_df(sizes))
        for c, (_, core, k) in cs.items():
            x = x_all[0] if k is None else x_all[0][:, :k]
            est = float(core(x, None))
            jk = np.asarray(core(x, jw), float)
            se = math.sqrt((g - 1) / g * ((jk - jk.mean()) ** 2).sum())
            zj, z = np.arctanh(np.clip(jk, -0.999999, 0.999999)), math.atanh(est)
            sez = math.sqrt((g - 1) / g * ((zj - zj.mean()) ** 2).sum())
            bc = g * est - (g - 1) * jk.mean()
            ivs = {
                "jack t(G-1)": (est - t1 * se, min(1, est + t1 * se)),
                "jack t(BM df)": (est - tb * se, min(1, est + tb * se)),
                "jack atanh t(G-1)": (math.tanh(z - t1 * sez), math.tanh(z + t1 * sez)),
                "jack bias-corr t(G-1)": (bc - t1 * se, min(1, bc + t1 * se)),
            }
            for m, (lo, hi) in ivs.items():
                d = res.setdefault((c, m), [0, 0, 0, 0.0])
                tt = truth[c]
                d[0] += lo <= tt <= hi
                d[1] += tt < lo
                d[2] += tt > hi
                d[3] += hi - lo
    for (c, m), (h, b, a, w) in sorted(res.items()):
        cov = h / reps
        print(
            f"| {g} | {c} | {m} | {100 * cov:.1f}% ({100 * math.sqrt(cov * (1 - cov) / reps):.1f}) "
            f"| {100 * b / reps:.1f}% / {100 * a / reps:.1f}% | {w / reps:.3f} |"
        )


if __name__ == "__main__":
    t0 = time.time()
    run(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
    print(
        f"\nseed {sys.argv[1]}, G = {sys.argv[2]}, {sys.argv[3]} replicates, {time.time() - t0:.0f} s"
    )
