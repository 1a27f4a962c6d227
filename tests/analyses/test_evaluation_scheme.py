"""``evaluate_judges`` draws with the scheme its ``Bootstrap`` names (it once built a plain
multinomial plan whatever ``scheme`` said, so ``scheme="poisson"`` was silently ignored)."""

import medjudge as mj
import numpy as np
from medjudge.stats.resampling import ResamplePlan


def test_poisson_scheme_reaches_the_leaderboard_intervals():
    study = mj.datasets.example()
    multi = mj.evaluate_judges(study, bootstrap=mj.Bootstrap(200, seed=3))
    pois = mj.evaluate_judges(study, bootstrap=mj.Bootstrap(200, seed=3, scheme="poisson"))
    a, b = multi.leaderboard, pois.leaderboard
    assert np.array_equal(a["accuracy"].to_numpy(), b["accuracy"].to_numpy())
    # the bootstrap's own column (the share of replicates ranking a judge first) follows the
    # scheme; on the old code both columns were the multinomial draw's
    assert not np.allclose(a["share_ranked_first"], b["share_ranked_first"])
    plan = mj.Bootstrap(200, seed=3, scheme="poisson").plan(10)
    assert isinstance(plan, ResamplePlan) and plan.method == "poisson"
