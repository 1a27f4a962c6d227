"""Decisions under selection and many comparisons, with all judges equally good (issue 12).

Simulated studies (:func:`study_sim.make_study`: item difficulty shared by all judges,
several items per image, judge-by-image effects, unbalanced A/B labels) get an ``organ``
attribute. Reported, each with its Monte Carlo standard error:

* **best judge per subgroup** (item 1): share of organ x dimension cells in which some judge is
  *excluded* from the confidence set for the best (``best_judge_by_subgroup``; target <= 5%),
  next to the old rule (best picked from the data, then Holm best-vs-rest: "worse than best");
* **heterogeneity across organs** (item 7): share of judge x dimension tests with the headline
  p < 0.05 (target 4-6%), next to Pearson's chi-square that ignores the clusters; scenario
  ``organ per image`` (organ constant within an image: cluster permutation) and ``organ per
  item`` (organ varies within images: within-image permutation of Pearson's X², issue 28;
  before it the restricted wild cluster bootstrap of the CR1 Wald test);
* **grid multiplicity** (item 2): share of studies with at least one pair "significant" in the
  whole pairs table shown by ``compare`` (target <= 5%), for ``family="table"`` (now) and
  ``family="dimension"`` (before);
* **rank sets** (item 3): with all judges tied, a rank set "misses" when it declares some
  judge better than another (``rank_low > 1`` or ``rank_high < K``); share of studies with any
  miss on one dimension's leaderboard (target <= 5%: joint coverage), for the simultaneous sets
  (now) and the marginal bootstrap quantile intervals (before).

Run (two seeds):

    nice -n 10 python benchmarks/calibration/selection.py --seed 1 --reps 200
    nice -n 10 python benchmarks/calibration/selection.py --seed 2 --reps 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from medjudge import Bootstrap, Permutation
from medjudge.analyses.evaluation import evaluate_judges  # noqa: E402
from medjudge.analyses.heterogeneity import heterogeneity_table  # noqa: E402
from medjudge.analyses.subgroups import best_judge_by_subgroup, stack_outcomes  # noqa: E402
from medjudge.stats.multiplicity import adjust_pvalues  # noqa: E402
from medjudge.stats.pairwise import all_pairs  # noqa: E402
from study_sim import make_design, make_study, mc_se  # noqa: E402

N_ORGANS = 4
DIMS = ("overall", "safety", "clarity", "harm")


def _study(rng, design, n_judges, acc, organ_per_image):
    st = make_study(rng, design, judge_accuracies=[acc] * n_judges, dimensions=DIMS)
    if organ_per_image:
        organ = design.clusters % N_ORGANS
    else:
        organ = rng.integers(0, N_ORGANS, design.n_items)
    st.items["organ"] = [f"o{k}" for k in organ]
    return st


def _old_best_flags(st, so) -> tuple[int, int]:
    """Old rule: best from the data, Holm best-vs-rest, 'worse than best' if p_adj < 0.05."""
    flagged = cells = 0
    y_all = so.resolved("wrong")
    for (_dim, _org), idx in so.rows.groupby(["dimension", "organ"]).indices.items():
        y = y_all[idx]
        t = all_pairs(y, so.judges, policy="exclude", ci="tango", family=(), within="holm")
        acc = np.nanmean(y, 0)
        best = so.judges[int(np.argmax(acc))]
        vs = t[(t.judge_a == best) | (t.judge_b == best)]
        p = adjust_pvalues(vs["pvalue"].to_numpy(), "holm")
        cells += 1
        flagged += int((p < 0.05).any())
    return flagged, cells


def run(seed: int, reps: int, n_clusters: int, size: float, n_judges: int, boot: int) -> dict:
    rng = np.random.default_rng(seed)
    design = make_design(rng, n_clusters, size)
    res = {k: [] for k in ("best_new", "best_old", "het_perm", "het_pearson_a", "het_wald",
                           "het_pearson_b", "grid_table", "grid_dimension", "rank_sim",
                           "rank_marg")}  # fmt: skip
    for _ in range(reps):
        for organ_per_image in (True, False):
            st = _study(rng, design, n_judges, 0.8, organ_per_image)
            so = stack_outcomes(st)
            h = heterogeneity_table(st, "organ", _stacked=so, permutation=Permutation(boot, seed=1))
            if organ_per_image:
                res["het_perm"].append(list(h["pvalue"] < 0.05))
                res["het_pearson_a"].append(list(h["p_pearson"] < 0.05))
                b = best_judge_by_subgroup(st, ("organ",), _stacked=so)
                res["best_new"].append(list(b["excluded_from_best_set"] != ""))
                f, c = _old_best_flags(st, so)
                res["best_old"].append([1] * f + [0] * (c - f))
                ev = evaluate_judges(st, bootstrap=Bootstrap(boot), family="table")
                res["grid_table"].append([bool((ev.pairs["p_holm"] < 0.05).any())])
                ev_d = evaluate_judges(st, bootstrap=Bootstrap(boot), family="dimension")
                res["grid_dimension"].append([bool((ev_d.pairs["p_holm"] < 0.05).any())])
                lb = ev.leaderboard[ev.leaderboard["dimension"] == st.dimensions[0]]
                # all judges tied: a set "excludes the truth" when it rules out rank 1 or rank K
                # for a judge, i.e. declares some judge better than another
                res["rank_sim"].append(
                    [bool(((lb.rank_low > 1) | (lb.rank_high < n_judges)).any())]
                )
                res["rank_marg"].append([_marginal_excludes(st, boot, n_judges)])
            else:
                res["het_wald"].append(list(h["pvalue"] < 0.05))
                res["het_pearson_b"].append(list(h["p_pearson"] < 0.05))
    return {k: _rate(v) for k, v in res.items()}


def _rate(per_study: list[list[bool]]) -> tuple[float, float, int, int]:
    """Pooled rate, its MC SE from the per-study shares (tests of one study are correlated:
    judges share items; ratio-estimator SE), studies and tests."""
    flat = [x for s in per_study for x in s]
    p = float(np.mean(flat))
    shares = np.array([np.mean(s) for s in per_study if len(s)])
    w = np.array([len(s) for s in per_study if len(s)], dtype=float)
    se = float(np.sqrt(np.sum(w**2 * (shares - p) ** 2)) / w.sum())
    return p, max(se, mc_se(p, len(flat))), len(per_study), len(flat)


def _marginal_excludes(st, boot, n_judges) -> bool:
    """Old marginal bootstrap rank intervals (equal-tailed quantiles) on the first dimension."""
    from medjudge.analyses.evaluation import cluster_ids
    from medjudge.stats.accuracy import bootstrap_accuracy
    from medjudge.stats.ranking import bootstrap_ranks, rank_intervals
    from medjudge.stats.resampling import ResamplePlan

    o = st.outcomes(st.dimensions[0])
    cl, _ = cluster_ids(st)
    w = ResamplePlan(len(o.items), boot, 0, clusters=cl).apply(lambda w: w)
    lo, hi = rank_intervals(bootstrap_ranks(bootstrap_accuracy(o.outcome, weights=w)), 0.95)
    return bool(((lo > 1) | (hi < n_judges)).any())


LABELS = {
    "best_new": "best judge: some judge excluded from the best set (now)",
    "best_old": "best judge: some judge 'worse than best' (old: Holm after selection)",
    "het_perm": "heterogeneity, organ per image: cluster permutation p < 0.05 (now)",
    "het_pearson_a": "heterogeneity, organ per image: Pearson p < 0.05 (old)",
    "het_wald": "heterogeneity, organ per item: within-image permutation p < 0.05 (now)",
    "het_pearson_b": "heterogeneity, organ per item: Pearson p < 0.05 (old)",
    "grid_table": "pairs table: any p_holm < 0.05, family = table (now)",
    "grid_dimension": "pairs table: any p_holm < 0.05, family = dimension (old)",
    "rank_sim": "ranks: some rank set excludes a true rank, simultaneous (now)",
    "rank_marg": "ranks: some rank interval excludes a true rank, marginal (old)",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--clusters", type=int, default=60)
    ap.add_argument("--size", type=float, default=3.0)
    ap.add_argument("--judges", type=int, default=5)
    ap.add_argument("--boot", type=int, default=300)
    a = ap.parse_args()
    t0 = time.time()
    r = run(a.seed, a.reps, a.clusters, a.size, a.judges, a.boot)
    print(f"seed {a.seed}, {a.reps} studies, {a.clusters} images x ~{a.size} items, "
          f"{a.judges} equally good judges (accuracy 0.80), {len(DIMS)} dimensions, {N_ORGANS} organs, "
          f"B = {a.boot}; {time.time() - t0:.0f} s")  # fmt: skip
    print("| rate | estimate | MC SE | studies / tests |\n|---|---|---|---|")
    for k, (p, se, ns, n) in r.items():
        print(f"| {LABELS[k]} | {p:.3f} | {se:.3f} | {ns} / {n} |")


if __name__ == "__main__":
    main()
