"""The score study's vectorised bootstrap (issue 39, item 2) gives the numbers of an independent
implementation: estimates against scipy / pingouin / numpy on HANNA's first stories, and the
BCa intervals against a bootstrap written out here from the definition (each resample's items
expanded and every statistic computed with numpy, scipy and pingouin on them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from medjudge import Bootstrap
from medjudge.analyses.score_study import score_study
from medjudge.data.model import Study
from medjudge.data.scale import Scale
from medjudge.data.tables import load_any
from medjudge.stats.agreement.icc import icc_a1_against, icc_core
from medjudge.stats.resampling import resample_weights
from medjudge.stats.score_agreement import score_agreement_core, score_agreement_many
from scipy import stats
from scipy.special import ndtr, ndtri

ROOT = Path(__file__).resolve().parents[2]


def _icc_a1(x: np.ndarray, y: np.ndarray) -> float:
    """pingouin's ICC2 (Shrout-Fleiss ICC(2,1) = McGraw-Wong ICC(A,1)) of two raters."""
    n = x.size
    long = pd.DataFrame(
        {"t": np.tile(np.arange(n), 2), "r": np.repeat(["x", "y"], n), "s": np.r_[x, y]}
    )
    t = pg.intraclass_corr(long, targets="t", raters="r", ratings="s")
    return float(t.set_index("Type").loc["ICC(A,1)", "ICC"])


def _icc_anova(x: np.ndarray, y: np.ndarray) -> float:
    """ICC(A,1) from the two-way ANOVA written out (Shrout & Fleiss 1979, ICC(2,1))."""
    X = np.c_[x, y]
    n, k = X.shape
    g = X.mean()
    msr = k * ((X.mean(1) - g) ** 2).sum() / (n - 1)
    msc = n * ((X.mean(0) - g) ** 2).sum() / (k - 1)
    sse = ((X - X.mean(1, keepdims=True) - X.mean(0) + g) ** 2).sum()
    mse = sse / ((n - 1) * (k - 1))
    return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)


def _by_hand(x: np.ndarray, y: np.ndarray, icc=_icc_a1) -> dict[str, float]:  # noqa: ANN001
    """Every metric of ``x`` against ``y`` from numpy / scipy / pingouin (complete pairs)."""
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    d = x - y
    s = d.std(ddof=1)
    mx, my = x.mean(), y.mean()
    return {
        "mae": np.abs(d).mean(),
        "rmse": np.sqrt((d**2).mean()),
        "bias": d.mean(),
        "sd_difference": s,
        "loa_low": d.mean() - 1.959963984540054 * s,
        "loa_high": d.mean() + 1.959963984540054 * s,
        "pearson": stats.pearsonr(x, y).statistic,
        "spearman": stats.spearmanr(x, y).statistic,
        "kendall_tau_b": stats.kendalltau(x, y, variant="b").statistic,
        # Lin (1989): moments with divisor n
        "ccc": 2 * np.mean((x - mx) * (y - my)) / (x.var() + y.var() + (mx - my) ** 2),
        "icc_a1": icc(x, y),
    }


@pytest.fixture(scope="module")
def hanna(tmp_path_factory: pytest.TempPathFactory) -> Study:
    t = pd.read_csv(ROOT / "data" / "external" / "hanna" / "hanna_long.csv")
    f = tmp_path_factory.mktemp("hanna") / "hanna40.csv"
    t[t["story_id"] < 40].to_csv(f, index=False)
    return load_any(f, ROOT / "data" / "mappings" / "hanna_long.toml")


def test_hanna_estimates_equal_scipy_and_pingouin(hanna: Study) -> None:
    res = score_study(hanna, dimensions=["Coherence", "Surprise"], bootstrap=Bootstrap(50))
    m = res.wide("metrics")
    for d in ("Coherence", "Surprise"):
        g = hanna.gold(d, "auto")
        for judge in ("ChatGPT/p1", "OrcaPlatypus/p1", "Beluga-13B/p4"):
            x = hanna.matrix(d, raters=[judge], items=list(g.items)).values[:, 0]
            want = _by_hand(x, g.codes)
            got = m[(m["dimension"] == d) & (m["rater"] == judge)].set_index("metric")
            for metric, value in want.items():
                assert got.loc[metric, "estimate"] == pytest.approx(value, rel=1e-10, abs=1e-12), (
                    d,
                    judge,
                    metric,
                )


def _bca(theta: float, boot: np.ndarray, jack: np.ndarray, level: float) -> tuple[float, float]:
    """BCa limits from the definition (Efron 1987; Efron & Tibshirani 1993, ch. 14.3):
    z0 from the share of replicates below the estimate (ties counted half, equality up to
    1e-12), acceleration from the jackknife, limits at the adjusted quantiles (linear
    interpolation, numpy's default)."""
    tie = np.isclose(boot, theta, rtol=1e-12, atol=1e-12)
    z0 = ndtri((np.sum((boot < theta) & ~tie) + 0.5 * np.sum(tie)) / boot.size)
    dj = jack.mean() - jack
    a = np.sum(dj**3) / (6 * np.sum(dj**2) ** 1.5)
    out = []
    for q in ((1 - level) / 2, (1 + level) / 2):
        zq = ndtri(q)
        out.append(np.quantile(boot, ndtr(z0 + (z0 + zq) / (1 - a * (z0 + zq)))))
    return out[0], out[1]


def _study(n: int = 40, seed: int = 3) -> Study:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n).astype(float)
    rows = []
    for i, t in enumerate(truth):
        for r, k in (("a", 1), ("b", 2)):
            v = float(np.clip(t + rng.integers(-k, k + 1), 1, 5))
            rows.append((f"i{i:02d}", r, "judge", "q", np.nan if (r == "b" and i == 7) else v))
    items = [f"i{i:02d}" for i in range(n)]
    return Study(
        pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"]).dropna(),
        pd.DataFrame({"item": items}),
        {"q": Scale("interval", low=1, high=5)},
        gold_table=pd.DataFrame({"item": items, "dimension": "q", "value": truth}),
    )


def test_intervals_equal_a_bootstrap_written_from_the_definition() -> None:
    st = _study()
    B, level = 300, 0.9
    res = score_study(st, bootstrap=Bootstrap(B, seed=5), confidence_level=level)
    m = res.wide("metrics")
    g = st.gold("q", "auto")
    n = len(g.items)
    counts = resample_weights(n, B, seed=5).astype(int)
    for judge in ("a", "b"):
        x = st.matrix("q", raters=[judge], items=list(g.items)).values[:, 0]
        y = g.codes
        theta = _by_hand(x, y)
        rep = [np.repeat(np.arange(n), c) for c in counts]
        boot = [_by_hand(x[r], y[r], _icc_anova) for r in rep]
        jack = [_by_hand(np.delete(x, i), np.delete(y, i), _icc_anova) for i in range(n)]
        got = m[m["rater"] == judge].set_index("metric")
        for metric in ("mae", "rmse", "bias", "sd_difference", "loa_low", "pearson", "ccc",
                       "icc_a1"):  # fmt: skip
            lo, hi = _bca(theta[metric], np.array([b[metric] for b in boot]),
                          np.array([j[metric] for j in jack]), level)  # fmt: skip
            assert got.loc[metric, "ci_low"] == pytest.approx(lo, abs=1e-9), (judge, metric)
            assert got.loc[metric, "ci_high"] == pytest.approx(hi, abs=1e-9), (judge, metric)


def test_many_rater_kernels_equal_one_rater_kernels() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(3, 16, 50) / 3
    X = np.clip(np.round(y[:, None] + rng.normal(0, 1, (50, 4))), 1, 5)
    X[3, 1] = np.nan
    W = resample_weights(50, 30, seed=1)
    many = score_agreement_many(X, y, W)
    icc = icc_a1_against(X, y, W)
    for j in range(4):
        np.testing.assert_allclose(many[:, j], score_agreement_core(X[:, j], y, W), rtol=1e-12)
        np.testing.assert_allclose(
            icc[:, j], icc_core(np.c_[X[:, j], y], W, form="ICC2"), rtol=1e-10
        )
