"""Studies unlike the demo through the command line: the crowd study (items ×
4 dimensions, gold per item and dimension, ordinal + nominal 6-category scales, 3–12 crowd
labels per item as exchangeable raters, two judges) through ``compare --json`` with numbers equal
to an independent pandas/scikit-learn computation, and a 1–10 score study through ``run``.

The studies are written by ``tests/_studies.py`` (the data-model helper's fixtures)."""

from __future__ import annotations

import json
import subprocess
import sys

import _studies  # noqa: E402
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_recall_fscore_support


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "medjudge.cli", *args], capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def crowd(tmp_path_factory):
    folder = tmp_path_factory.mktemp("crowd")
    table, mapping = _studies.write_crowd_study(folder)
    proc = _cli("compare", str(table), "--mapping", str(mapping), "--json", "--resamples", "200")
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(table), json.loads(proc.stdout)["judge_vs_gold"]


def test_crowd_study_compare_json_equals_pandas_sklearn(crowd):
    df, jg = crowd
    metrics = pd.DataFrame(jg["metrics"])
    conf = pd.DataFrame(jg["confusion"])
    classes = pd.DataFrame(jg["classes"])
    model = df[df["kind"] == "model"].copy()
    model["pred"] = model["label"].fillna("NA").replace("N/A", "NA")  # read_csv: N/A is NaN
    gold = df.drop_duplicates(["item_id", "question"]).set_index(["item_id", "question"])["gold"]
    assert set(jg["settings"]["dimensions"]) == set(_studies.DIMS)
    assert jg["settings"]["kappa_weights"]["risk"] == "linear"
    assert jg["settings"]["cluster"] == "image"
    for d in _studies.DIMS:
        cats = _studies.RISK if d == "risk" else _studies.LABELS
        for judge in ("judge-a", "judge-b"):
            s = model[(model["question"] == d) & (model["worker"] == judge)]
            y_true, y_pred = s["gold"].to_numpy(), s["pred"].to_numpy()
            m = metrics[(metrics["dimension"] == d) & (metrics["judge"] == judge)].set_index(
                "metric"
            )
            assert m.loc["accuracy", "estimate"] == pytest.approx((y_true == y_pred).mean())
            assert m.loc["accuracy", "n"] == len(s) == gold.xs(d, level="question").size
            cm = confusion_matrix(y_true, y_pred, labels=[*cats, "NA"])[: len(cats)]
            c = conf[(conf["dimension"] == d) & (conf["judge"] == judge)]
            got = c.pivot(index="gold", columns="predicted", values="count")
            got = got.reindex(index=cats, columns=[*cats, "(no verdict)"]).to_numpy()
            np.testing.assert_array_equal(got, cm)
            if d == "risk":
                ok = y_pred != "NA"
                if ok.all():
                    exp = cohen_kappa_score(y_true, y_pred, weights="linear", labels=cats)
                    assert m.loc["kappa", "estimate"] == pytest.approx(exp, abs=1e-12)
                rank = {k: i for i, k in enumerate(cats)}
                g = np.array([rank[v] for v in y_true])
                p = np.array([rank.get(v, np.nan) for v in y_pred])
                assert m.loc["too_low", "estimate"] == pytest.approx(np.mean(p < g))
                assert m.loc["too_high", "estimate"] == pytest.approx(np.mean(p > g))
            else:
                exp = cohen_kappa_score(y_true, y_pred, labels=[*cats, "NA"])
                assert m.loc["kappa", "estimate"] == pytest.approx(exp, abs=1e-12)
            prec, rec, _, sup = precision_recall_fscore_support(
                y_true, y_pred, labels=cats, zero_division=np.nan
            )
            k = classes[(classes["dimension"] == d) & (classes["judge"] == judge)]
            r = k[k["metric"] == "recall"].set_index("class").loc[cats]
            np.testing.assert_allclose(r["estimate"], rec, equal_nan=True)
            np.testing.assert_array_equal(r["n"], sup)
            pr = k[k["metric"] == "precision"].set_index("class").loc[cats]
            np.testing.assert_allclose(pr["estimate"], prec, equal_nan=True)
        # the majority-class baseline beside the judges
        counts = gold.xs(d, level="question").value_counts()
        top = [c for c in cats if counts.get(c, 0) == counts.max()][0]
        base = metrics[(metrics["dimension"] == d) & (metrics["role"] == "baseline")]
        assert f"always-{top} (majority)" in set(base["judge"])
        assert d in jg["headline"][d]


def test_score_study_through_run(tmp_path):
    table, mapping = _studies.write_score_study(tmp_path)
    out = tmp_path / "out"
    proc = _cli("run", str(table), "--mapping", str(mapping), "--out", str(out),
                "--report", "none", "--resamples", "200")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "score dimensions:" in proc.stdout and "closest to gold" in proc.stdout
    sc = pd.read_csv(out / "scores.csv")
    wide = pd.read_csv(table)
    gold = wide[["e1", "e2", "e3"]].mean(axis=1)
    for j in ("j1", "j2"):
        m = sc[(sc["rater"] == j) & (sc["role"] == "judge")].set_index("metric")
        assert m.loc["mae", "estimate"] == pytest.approx(np.mean(np.abs(wide[j] - gold)), abs=1e-6)
        assert m.loc["bias", "estimate"] == pytest.approx(np.mean(wide[j] - gold), abs=1e-6)
        assert m.loc["pearson", "estimate"] == pytest.approx(
            stats.pearsonr(wide[j], gold)[0], abs=1e-6
        )
        assert m.loc["spearman", "estimate"] == pytest.approx(
            stats.spearmanr(wide[j], gold)[0], abs=1e-6
        )
        assert (m["ci_low"] <= m["estimate"] + 1e-9).all()
    rel = pd.read_csv(out / "score_reliability.csv")
    assert set(rel["role"]) == {"expert", "judge"}


def test_expert_only_score_study_through_compare(tmp_path):
    table, mapping = _studies.write_score_study(tmp_path)
    t = pd.read_csv(table).drop(columns=["j1", "j2"])
    t.to_csv(table, index=False)
    mp = (
        mapping.read_text()
        .replace('[raters.j1]\nrole = "judge"\n', "")
        .replace('[raters.j2]\nrole = "judge"\n', "")
    )
    mapping.write_text(mp)
    proc = _cli("compare", str(table), "--mapping", str(mapping), "--json", "--resamples", "100")
    assert proc.returncode == 0, proc.stderr
    sc = json.loads(proc.stdout)["scores"]
    assert sc["not_applicable"]["quality: judges against gold"] == "the study has no judges"
    assert {r["role"] for r in sc["metrics"]} == {"expert"}
