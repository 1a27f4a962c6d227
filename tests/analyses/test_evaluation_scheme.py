"""``evaluate_judges`` draws with the scheme its ``Bootstrap`` names (it once built a plain
multinomial plan whatever ``scheme`` said, so ``scheme="poisson"`` was silently ignored)."""

import medjudge as mj
import numpy as np
import pytest
from conftest import report_study_files
from medjudge.data.tables import load_any
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


def test_score_dimensions_are_refused_in_one_line(tmp_path):
    # HANNA's criteria are 1-5 scores: the old code stopped inside numpy ("need at least one
    # array to concatenate")
    study = load_any(*report_study_files("hanna", tmp_path))
    with pytest.raises(ValueError, match=r"^dimensions: .* hold scores, not categories"):
        mj.evaluate_judges(study, bootstrap=mj.Bootstrap(20))
