"""Study-level judge evaluation and the ``compare`` command."""

from __future__ import annotations

import json

import numpy as np
from conftest import DEMO, EXTERNAL, MAPPINGS
from medjudge import Bootstrap
from medjudge.analyses.evaluation import cluster_ids, evaluate_judges
from medjudge.cli import main
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar


def test_evaluate_demo_tables(demo_study):
    ev = evaluate_judges(demo_study, bootstrap=Bootstrap(300), dimensions=["overall", "creativity"])
    assert set(ev.leaderboard["dimension"]) == {"overall", "creativity"}
    assert len(ev.pairs) == 2 * 66  # 12 judges -> 66 pairs per dimension
    assert ev.settings["cluster"] == "image_id"
    # leaderboard accuracy under "wrong" equals the plain count with invalid = wrong
    o = demo_study.outcomes("overall")
    lb = ev.leaderboard[ev.leaderboard["dimension"] == "overall"].set_index("judge")
    for j, judge in enumerate(o.judges):
        assert np.isclose(lb.loc[judge, "accuracy"], np.nan_to_num(o.outcome[:, j]).mean())
    # baselines: always-A accuracy is the gold A prevalence
    b = ev.baselines[
        (ev.baselines["dimension"] == "overall") & (ev.baselines["judge"] == "always-A")
    ]
    assert np.isclose(b["accuracy"].iloc[0], (o.gold == 0).mean())


def test_pairs_discordant_counts_match_statsmodels_on_pandalm(pandalm_study):
    ev = evaluate_judges(pandalm_study, bootstrap=Bootstrap(200), cluster=None)
    row = ev.pairs.iloc[0]
    o = pandalm_study.outcomes("preference")
    y = np.nan_to_num(o.outcome)
    t = np.array(
        [
            [((y[:, 0] == 1) & (y[:, 1] == 1)).sum(), ((y[:, 0] == 1) & (y[:, 1] == 0)).sum()],
            [((y[:, 0] == 0) & (y[:, 1] == 1)).sum(), ((y[:, 0] == 0) & (y[:, 1] == 0)).sum()],
        ]
    )
    assert (row["b"], row["c"]) == (t[0, 1], t[1, 0])
    exact = sm_mcnemar(t, exact=True).pvalue
    # mid-p = exact p minus the point probability of the observed table (Fagerland et al. 2013)
    assert row["pvalue"] <= exact


def test_cluster_ids_auto(demo_study, pandalm_study):
    cl, col = cluster_ids(demo_study)
    assert col == "image_id" and len(set(cl)) < len(cl)
    assert cluster_ids(pandalm_study) == (None, None)


def test_compare_cli_json(capsys):
    code = main(
        [
            "compare",
            str(EXTERNAL / "pandalm_testset" / "verdicts_wide.csv"),
            "--mapping",
            str(MAPPINGS / "pandalm_wide.toml"),
            "--resamples",
            "200",
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["gold"] == "majority"
    acc = {r["judge"]: round(r["accuracy"], 3) for r in out["leaderboard"]}
    assert acc == {"gpt-3.5-turbo": 0.698, "pandalm-7b": 0.668}  # SOURCE.md values


def test_compare_cli_text_runs_on_demo(capsys):
    assert main(["compare", str(DEMO), "--only", "overall", "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "sim-proprietary-a" in out and "Holm" in out
