"""Answer-model rankings: Bradley–Terry against choix, statsmodels and a FastChat-style
bootstrap on the PandaLM test set; rank correlations against scipy; rank sets; CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap
from medjudge.analyses.models import EXPERTS, answer_model_ranking, pairwise_outcomes
from medjudge.stats.bradley_terry import (
    bradley_terry,
    bradley_terry_comparisons,
    comparison_counts,
    to_elo,
    win_probability,
)
from medjudge.stats.rank_sets import kendall_tau_b, rank_confidence_sets, spearman_rho
from scipy import stats

choix = pytest.importorskip("choix")

from conftest import EXTERNAL, MAPPINGS  # noqa: E402

PANDALM = EXTERNAL / "pandalm_testset" / "verdicts_wide.csv"
PANDALM_MAP = MAPPINGS / "pandalm_wide.toml"


def _pandalm_pairs(study, source):
    _, y, _ = pairwise_outcomes(study, "preference", [source])
    items = study.items.set_index("item").loc[study.item_ids]
    names = sorted(set(items["model_1"]) | set(items["model_2"]))
    idx = {m: i for i, m in enumerate(names)}
    a = items["model_1"].map(idx).to_numpy()
    b = items["model_2"].map(idx).to_numpy()
    return names, a, b, y[:, 0]


def _choix_half_wins(a, b, y, k):
    """Ties as half wins, in choix's (winner, loser) list: every comparison twice, a tie once
    each way — the likelihood is the half-win likelihood times 2, same maximiser."""
    data = []
    for ai, bi, yi in zip(a, b, y, strict=True):
        if np.isnan(yi):
            continue
        if yi == 1:
            data += [(ai, bi), (ai, bi)]
        elif yi == 0:
            data += [(bi, ai), (bi, ai)]
        else:
            data += [(ai, bi), (bi, ai)]
    return choix.ilsr_pairwise(k, data, alpha=0.0, tol=1e-14, max_iter=10_000)


@pytest.mark.parametrize("source", [EXPERTS, "gpt-3.5-turbo", "pandalm-7b"])
def test_pandalm_strengths_match_choix(pandalm_study, source):
    names, a, b, y = _pandalm_pairs(pandalm_study, source)
    ours = bradley_terry_comparisons(a, b, y, len(names)).strength
    theirs = _choix_half_wins(a, b, y, len(names))
    theirs = theirs - theirs.mean()  # choix centres too; the usual normalisation, made explicit
    np.testing.assert_allclose(ours, theirs, atol=1e-6)
    # and through the study-level analysis
    res = answer_model_ranking(pandalm_study, bootstrap=Bootstrap(100))
    t = res.strengths[res.strengths["source"] == source].set_index("model").loc[names]
    np.testing.assert_allclose(t["strength"].to_numpy(), theirs, atol=1e-6)


def test_pandalm_expert_llama_is_strongest(pandalm_study):
    # PandaLM paper (Wang et al. 2024, Table 2/Fig. 3): LLaMA-7B wins most human comparisons
    res = answer_model_ranking(pandalm_study, bootstrap=Bootstrap(200))
    t = res.strengths[res.strengths["source"] == EXPERTS]
    assert t.loc[t["strength"].idxmax(), "model"] == "llama-7b"
    assert set(t["rank_low"]) <= set(range(1, 6)) and (t["rank_low"] <= t["rank"]).all()
    assert (t["rank"] <= t["rank_high"]).all()
    assert (t["ci_low"] <= t["strength"]).all() and (t["strength"] <= t["ci_high"]).all()
    assert abs(t["strength"].sum()) < 1e-12


def test_davidson_matches_poisson_loglinear_glm(pandalm_study):
    """Davidson (1970) as a Poisson log-linear model with pair intercepts (statsmodels GLM):
    log mu(i wins) = a_ij + th_i, log mu(j wins) = a_ij + th_j, log mu(tie) = a_ij + eta +
    (th_i + th_j)/2 — an independent fit of the same likelihood."""
    import statsmodels.api as sm

    names, a, b, y = _pandalm_pairs(pandalm_study, EXPERTS)
    k = len(names)
    wins, ties = comparison_counts(a, b, y, k)
    ours = bradley_terry(wins, ties, method="davidson")
    rows, counts = [], []
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    for p, (i, j) in enumerate(pairs):
        for outcome in ("i", "j", "t"):
            x = np.zeros(len(pairs) + k + 1)
            x[p] = 1.0
            if outcome == "i":
                x[len(pairs) + i] = 1.0
                counts.append(wins[i, j])
            elif outcome == "j":
                x[len(pairs) + j] = 1.0
                counts.append(wins[j, i])
            else:
                x[len(pairs) + i] += 0.5
                x[len(pairs) + j] += 0.5
                x[-1] = 1.0
                counts.append(ties[i, j])
            rows.append(x)
    x = np.array(rows)
    x = np.delete(x, len(pairs) + k - 1, axis=1)  # last model's strength = 0 (identifiable)
    fit = sm.GLM(np.array(counts), x, family=sm.families.Poisson()).fit(tol=1e-14)
    th = np.append(fit.params[len(pairs) : len(pairs) + k - 1], 0.0)
    np.testing.assert_allclose(ours.strength, th - th.mean(), atol=1e-6)
    np.testing.assert_allclose(ours.tie_parameter, np.exp(fit.params[-1]), rtol=1e-6)
    # Davidson win + tie probabilities of a pair sum to one
    p = win_probability(ours.strength, ours.tie_parameter)
    tie01 = 1 - p[0, 1] - p[1, 0]
    assert 0 < tie01 < 1


def test_fastchat_style_bootstrap(pandalm_study):
    """FastChat's arena analysis (fastchat/serve/monitor/elo_analysis.py: compute_mle_elo +
    get_bootstrap_result): logistic regression on battles with ties duplicated as one win each,
    Elo = 400 * coef + 1000, battles resampled with replacement. Re-implemented here with
    scikit-learn and pandas; our cluster bootstrap (items = battles) must agree within the
    Monte Carlo error of two independent bootstraps."""
    from sklearn.linear_model import LogisticRegression

    names, a, b, y = _pandalm_pairs(pandalm_study, EXPERTS)
    battles = pd.DataFrame({"a": a, "b": b, "y": y})

    def mle_elo(df):
        df = pd.concat([df, df], ignore_index=True)
        n = len(df) // 2
        yy = df["y"].to_numpy().copy()
        yv = np.where(yy == 1, 1.0, np.where(yy == 0, 0.0, np.nan))
        tie = np.isnan(yv)
        yv[:n][tie[:n]] = 1.0
        yv[n:][tie[n:]] = 0.0
        x = np.zeros((len(df), len(names)))
        x[np.arange(len(df)), df["a"]] = np.log(10)
        x[np.arange(len(df)), df["b"]] = -np.log(10)
        lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-10, max_iter=10_000)
        lr.fit(x, yv)
        return 400 * lr.coef_[0] + 1000

    fc_point = mle_elo(battles)
    res = answer_model_ranking(pandalm_study, bootstrap=Bootstrap(1000, 1))
    t = res.strengths[res.strengths["source"] == EXPERTS].set_index("model").loc[names]
    np.testing.assert_allclose(t["elo"].to_numpy(), fc_point, atol=0.05)
    np.testing.assert_allclose(to_elo(t["strength"].to_numpy()), fc_point, atol=0.05)
    rng = np.random.default_rng(20240601)
    fc_boot = np.array(
        [
            mle_elo(battles.sample(frac=1.0, replace=True, random_state=rng).reset_index(drop=True))
            for _ in range(200)
        ]
    )
    fc_sd = fc_boot.std(0, ddof=1)
    ours_sd = (t["se"].to_numpy()) * 400 / np.log(10)
    # SD from B=200 has relative MC error ~ 1/sqrt(2*200) = 5%; allow 4 of them
    np.testing.assert_allclose(ours_sd, fc_sd, rtol=0.2)
    lo, hi = np.quantile(fc_boot, [0.025, 0.975], axis=0)
    # 2.5% quantile from B=200: MC sd ~ 0.19 bootstrap SDs; allow ~4 of them
    assert np.all(np.abs(t["elo_ci_low"].to_numpy() - lo) < 0.8 * fc_sd)
    assert np.all(np.abs(t["elo_ci_high"].to_numpy() - hi) < 0.8 * fc_sd)


def test_rank_correlations_match_scipy():
    rng = np.random.default_rng(3)
    for _ in range(50):
        x = rng.integers(0, 4, 6).astype(float)
        y = rng.integers(0, 4, 6).astype(float)
        if x.min() == x.max() or y.min() == y.max():
            continue
        assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
        assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_rank_sets_cover_true_ranks_simultaneously():
    """Simultaneous sets cover all true ranks jointly in >= 95% of simulated studies
    (Mogstad et al. 2024, Thm 3.1). 200 studies: MC se of 0.95 is 0.015; the sets are
    conservative, so require >= 0.91 (about 2.7 se below nominal)."""
    rng = np.random.default_rng(11)
    theta = np.array([0.6, 0.3, 0.25, 0.0, -0.4])
    k, n = theta.size, 400
    hits = 0
    n_sim = 200
    for _ in range(n_sim):
        a = rng.integers(0, k, n)
        b = (a + rng.integers(1, k, n)) % k
        p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
        y = (rng.random(n) < p).astype(float)
        w = rng.multinomial(n, np.full(n, 1 / n), size=300).astype(float)
        est = bradley_terry_comparisons(a, b, y, k).strength
        boot = bradley_terry_comparisons(a, b, y, k, weights=w).strength
        s = rank_confidence_sets(est, boot, confidence_level=0.95)
        true_rank = 1 + (theta[None, :] > theta[:, None]).sum(1)
        hits += bool(np.all((s["rank_low"] <= true_rank) & (true_rank <= s["rank_high"])))
    assert hits / n_sim >= 0.91


def test_no_mle_is_nan_not_a_number():
    # model 0 never loses: the MLE does not exist (Ford 1957)
    w = np.array([[0, 3, 2], [0, 0, 1], [0, 1, 0]], dtype=float)
    fit = bradley_terry(w)
    assert not fit.converged and np.isnan(fit.strength).all()


def test_row_order_does_not_change_numbers(pandalm_study):
    from medjudge.data.model import Study

    s = pandalm_study
    perm = np.random.default_rng(0).permutation(len(s.ratings))
    s2 = Study(
        s.ratings.iloc[perm].reset_index(drop=True),
        s.items.iloc[::-1].reset_index(drop=True),
        s.scales,
        answer_models=s.answer_models,
    )
    r1 = answer_model_ranking(s, bootstrap=Bootstrap(100, 3)).strengths
    r2 = answer_model_ranking(s2, bootstrap=Bootstrap(100, 3)).strengths
    pd.testing.assert_frame_equal(
        r1.sort_values(["source", "model"]).reset_index(drop=True),
        r2.sort_values(["source", "model"]).reset_index(drop=True),
    )


def test_argument_checks(pandalm_study):
    with pytest.raises(ValueError, match="ties"):
        answer_model_ranking(pandalm_study, ties="thirds")
    with pytest.raises(ValueError, match="n_resamples"):
        answer_model_ranking(pandalm_study, bootstrap=Bootstrap(3))
    with pytest.raises(ValueError, match="confidence_level"):
        answer_model_ranking(pandalm_study, confidence_level=95)
    with pytest.raises(ValueError, match="models column"):
        answer_model_ranking(pandalm_study, models=("model_1", "nope"))


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "medjudge.cli", *map(str, args)], capture_output=True, text=True
    )


def test_cli_models_json_rows():
    r = _cli(
        "models", PANDALM, "--mapping", PANDALM_MAP, "--models", "model_1,model_2",
        "--json", "--resamples", "100",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    rows = out["strengths"]
    assert {"source", "model", "strength", "ci_low", "ci_high"} <= set(rows[0])
    assert {row["source"] for row in rows} == {"experts", "gpt-3.5-turbo", "pandalm-7b"}
    assert out["settings"]["ties"] == "half"


@pytest.mark.parametrize(
    "bad",
    [
        ["--resamples", "5"],
        ["--confidence-level", "95"],
        ["--tie-model", "thirds"],
        ["--ties", "half"],
        ["--models", "model_1"],
        ["--models", "model_1,nope"],
        ["--cluster", "nope"],
        ["--judges", "gpt-4"],
    ],
)
def test_cli_models_bad_options_exit_2(bad):
    r = _cli("models", PANDALM, "--mapping", PANDALM_MAP, *bad)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and r.stderr.strip().count("\n") <= 20
