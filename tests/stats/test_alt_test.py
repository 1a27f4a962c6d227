"""The alternative annotator test (Calderon, Reichart & Dror 2025, arXiv:2501.10970).

Checks: the one-sided paired t-test against scipy (``ttest_1samp`` and ``ttest_rel``), the
Benjamini–Yekutieli adjustment against statsmodels ``multipletests("fdr_by")``, the leave-one-out
indicators against a plain per-item loop, and the paper's two boundary cases: a judge that copies
the majority of the annotators passes (the paper's optimal-jury result: it attains rho = 1), a
random judge fails.
"""

from __future__ import annotations

import numpy as np
import pytest
from medjudge.analyses.judge_vs_experts import study_alt_test
from medjudge.stats.judge_vs_experts import (
    alt_test,
    alt_test_table,
    benjamini_yekutieli,
    one_sided_paired_t,
)
from scipy import stats
from statsmodels.stats.multitest import multipletests


def _annotators(n: int, m: int, acc: float, seed: int, p_missing: float = 0.0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    H = np.where(rng.random((n, m)) < acc, truth[:, None], rng.integers(0, 3, (n, m))).astype(float)
    H[rng.random((n, m)) < p_missing] = np.nan
    return H, truth, rng


def _loop_indicators(f: np.ndarray, H: np.ndarray, j: int):
    """W^f and W^h for excluded annotator j, by a plain loop over items (accuracy scoring)."""
    wf, wh = [], []
    for i in range(H.shape[0]):
        rest = [H[i, k] for k in range(H.shape[1]) if k != j and not np.isnan(H[i, k])]
        if np.isnan(H[i, j]) or len(rest) < 1 or np.isnan(f[i]):
            continue
        sf = np.mean([f[i] == h for h in rest])
        sh = np.mean([H[i, j] == h for h in rest])
        wf.append(float(sf >= sh))
        wh.append(float(sh >= sf))
    return np.array(wf), np.array(wh)


def test_pvalues_match_scipy_and_loop():
    H, truth, rng = _annotators(150, 4, 0.75, seed=1, p_missing=0.15)
    f = np.where(rng.random(150) < 0.8, truth, rng.integers(0, 3, 150)).astype(float)
    f[:7] = np.nan
    res = alt_test(f, H, epsilon=0.1)
    assert len(res.table) == 4
    for j, row in res.table.iterrows():
        wf, wh = _loop_indicators(f, H, j)
        assert row["n"] == wf.size
        assert row["rho_judge"] == pytest.approx(wf.mean(), abs=1e-12)
        assert row["rho_annotator"] == pytest.approx(wh.mean(), abs=1e-12)
        ref = stats.ttest_1samp(wh - wf, 0.1, alternative="less")
        assert row["t"] == pytest.approx(ref.statistic, rel=1e-12)
        assert row["pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
        rel = stats.ttest_rel(wh - 0.1, wf, alternative="less")
        assert row["pvalue"] == pytest.approx(rel.pvalue, rel=1e-10)
    assert res.excluded["items_without_judge_verdict_excluded"] == 7


def test_benjamini_yekutieli_matches_statsmodels():
    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 7, 20):
        p = np.concatenate([rng.uniform(0, 0.02, m // 2), rng.uniform(0, 1, m - m // 2)])
        rej, adj = benjamini_yekutieli(p, 0.05)
        rej_sm, adj_sm = multipletests(p, alpha=0.05, method="fdr_by")[:2]
        np.testing.assert_array_equal(rej, rej_sm)
        np.testing.assert_allclose(adj, adj_sm, rtol=1e-12)


def test_degenerate_differences():
    t, p, _ = one_sided_paired_t(np.zeros(40), 0.1)  # always tied: d = 0 < eps -> reject
    assert p == 0.0 and t == -np.inf
    _, p, _ = one_sided_paired_t(np.ones(40), 0.1)  # annotator always better
    assert p == 1.0


def test_majority_copy_passes_random_judge_fails():
    H, truth, rng = _annotators(200, 5, 0.7, seed=3)
    votes = np.stack([(H == c).sum(axis=1) for c in range(3)], axis=1)
    majority = votes.argmax(axis=1).astype(float)
    good = alt_test(majority, H, epsilon=0.1)
    assert good.passed and good.winning_rate == 1.0
    assert good.advantage_probability > 0.9
    bad = alt_test(rng.integers(0, 3, 200).astype(float), H, epsilon=0.1)
    assert not bad.passed and bad.winning_rate == 0.0
    assert bad.advantage_probability < good.advantage_probability


def test_epsilon_monotone_and_invalid_policy():
    H, truth, rng = _annotators(120, 4, 0.7, seed=5)
    f = np.where(rng.random(120) < 0.6, truth, rng.integers(0, 3, 120)).astype(float)
    omegas = [alt_test(f, H, epsilon=e).winning_rate for e in (0.0, 0.1, 0.2, 0.3, 0.5)]
    assert all(a <= b for a, b in zip(omegas, omegas[1:], strict=False))
    f2 = f.copy()
    f2[:20] = np.nan
    ex = alt_test(f2, H, policy="exclude")
    wr = alt_test(f2, H, policy="wrong")
    assert ex.table["n"].eq(100).all() and wr.table["n"].eq(120).all()
    assert wr.advantage_probability < ex.advantage_probability
    assert wr.excluded["items_without_judge_verdict_counted_as_losses"] == 20


def test_neg_rmse_scoring_mean_judge_passes():
    rng = np.random.default_rng(7)
    truth = rng.normal(3, 1, 150)
    H = truth[:, None] + rng.normal(0, 0.7, (150, 4))
    mean_judge = H.mean(axis=1)
    res = alt_test(mean_judge, H, scoring="neg_rmse", epsilon=0.1)
    assert res.passed
    noisy = alt_test(truth + rng.normal(0, 3, 150), H, scoring="neg_rmse")
    assert not noisy.passed


def test_too_few_items_skips_annotator():
    H, truth, _ = _annotators(60, 3, 0.8, seed=2)
    H[10:, 2] = np.nan  # annotator 2 rated only 10 items
    res = alt_test(truth.astype(float), H)
    assert res.skipped_annotators == ["annotator_2"] and len(res.table) == 2


def test_demo_study_alt_test(demo_study):
    res = study_alt_test(demo_study, "overall")
    assert [r.judge for r in res] == list(
        demo_study.matrix("overall", role="judge", order="AB").raters
    )
    tab = alt_test_table(res, "overall")
    assert tab["winning_rate"].between(0, 1).all()
    assert (tab["passed"] == (tab["winning_rate"] >= 0.5)).all()
    # every judge's items: those with 3 expert labels and a usable verdict (invalid excluded)
    o = demo_study.outcomes("overall")
    usable = np.isfinite(demo_study.matrix("overall", raters=o.judges, order=o.order).values).sum(
        axis=0
    )
    assert list(tab["n_items"]) == list(usable)


def test_default_margins_follow_the_authors():
    # Calderon, Reichart & Dror (2025), "How to select epsilon" / FAQ of github.com/nitaytech/AltTest:
    # experts 0.2, skilled annotators 0.15, crowd workers 0.1 (medjudge used to say the reverse)
    import inspect

    from medjudge.analyses.judge_vs_experts import study_alt_test
    from medjudge.stats.judge_vs_experts import ANNOTATOR_EPSILON, epsilon_for

    assert ANNOTATOR_EPSILON == {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
    assert inspect.signature(alt_test).parameters["epsilon"].default == 0.2
    assert inspect.signature(study_alt_test).parameters["epsilon"].default == 0.2
    assert epsilon_for("crowd") == 0.1
    with pytest.raises(ValueError, match="annotators='students'"):
        epsilon_for("students")


def test_audit_cli_margin_options(capsys):
    from conftest import DEMO
    from medjudge.cli import main

    with pytest.raises(SystemExit) as exc:  # rejected by the option's validator (argparse)
        main(["audit", str(DEMO), "--dimensions", "overall", "--epsilon", "1.5"])
    assert exc.value.code == 2
    assert "--epsilon" in capsys.readouterr().err
    assert main(["audit", str(DEMO), "--dimensions", "overall", "--annotators", "crowd"]) == 0
    assert "epsilon=0.1" in capsys.readouterr().out
