"""Every converted study-level analysis owns its result (issue 35, item 1).

For each: ``r = analysis(study)``; ``r.table(name)`` for every name is a tidy long table with
one spelling of every column; ``r.plot(kind, ax=...)`` draws one mark per row of the table it
comes from; ``r.findings()`` and ``r.summary()`` are text. On the demo and on one bundled
external study (LLMBar; the score analysis on HANNA's scores, the answer-model ranking on
PandaLM's). The figures the library's own plot functions refused before (issue
35: "missing column(s) ['estimate']") are drawn from the results.
"""

from __future__ import annotations

import html

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import medjudge as mj  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from medjudge.analyses._result import CONTRACT, TAIL, TEST  # noqa: E402
from medjudge.analyses.bias import length_bias  # noqa: E402
from medjudge.analyses.bias_suite import bias_suite  # noqa: E402
from medjudge.analyses.judge_vs_experts import judge_expert_agreement  # noqa: E402
from medjudge.analyses.judge_vs_gold import judge_vs_gold  # noqa: E402
from medjudge.analyses.models import answer_model_ranking  # noqa: E402
from medjudge.analyses.score_study import score_study  # noqa: E402
from medjudge.analyses.stability import stability  # noqa: E402

B = mj.Bootstrap(50, seed=1)

#: spellings of the same idea that the contract retired (one spelling across results)
RETIRED = {"pvalue", "level", "interval", "p", "ci_lower", "ci_upper", "lower", "upper"}


def _analyses(study: mj.Study, attribute: str) -> dict[str, object]:
    out = {
        "evaluate_judges": mj.evaluate_judges(study, bootstrap=B),
        "subgroup_accuracy": mj.subgroup_accuracy(study, [attribute]),
        "heterogeneity_table": mj.heterogeneity_table(
            study, attribute, permutation=mj.Permutation(49)
        ),
        "position_bias": mj.position_bias(study),
        "judge_vs_gold": judge_vs_gold(study, bootstrap=B),
        "bias_suite": bias_suite(study),
        "stability": stability(study, bootstrap=B),
    }
    if len(study.experts) >= 2:
        out["audit_study"] = mj.audit_study(study, bootstrap=B, with_dawid_skene=False)
    out["bias_report"] = mj.bias_report(study)
    out["length_bias"] = length_bias(study)
    out["run_consistency"] = mj.run_consistency(_with_runs(study))
    out["judge_assisted_estimate"] = mj.judge_assisted_estimate(
        study, study.dimensions[-1], judges=study.judges[:3], keep_labels=60
    )
    return out


def _experts(study: mj.Study, d: str) -> dict[str, object]:
    """The judge-versus-experts analyses (experts who are persons: the demo's physicians,
    PandaLM's three annotators)."""
    alt = mj.study_alt_test(study, d)
    agreement = judge_expert_agreement(study, d, bootstrap=B)
    return {
        "study_alt_test": alt,
        "judge_expert_agreement": agreement,
        "study_stand_in": mj.study_stand_in(study, d, alt=alt, agreement=agreement),
    }


def _with_runs(study: mj.Study) -> mj.Study:
    """The study with each of two judges' verdicts repeated in a second run, a tenth of them
    changed (``run_consistency`` needs repeated runs; the bundled studies have none)."""
    r = study.ratings[study.ratings["rater"].isin(study.judges[:2])]
    again = r.assign(run="2")
    cats = {d: list(study.scales[d].categories) for d in study.dimensions}
    flip = np.arange(len(again)) % 10 == 0
    again.loc[flip, "value"] = [
        cats[d][(cats[d].index(v) + 1) % len(cats[d])] if v in cats[d] else v
        for d, v in zip(again.loc[flip, "dimension"], again.loc[flip, "value"], strict=True)
    ]
    return mj.Study(pd.concat([r.assign(run="1"), again]), study.items, study.scales)


def _hanna_scores() -> dict[str, object]:
    """score_study on HANNA (scores 1-5), one dimension and two judges (for time)."""
    from conftest import EXTERNAL, MAPPINGS
    from medjudge.data.tables import load_any

    s = load_any(EXTERNAL / "hanna" / "hanna_long.csv", MAPPINGS / "hanna_long.toml")
    r, dim = s.ratings, s.dimensions[0]
    keep = r["dimension"].eq(dim) & (r["role"].eq("expert") | r["rater"].isin(s.judges[:2]))
    study = mj.Study(r[keep], s.items, {dim: s.scales[dim]})
    return {"score_study": score_study(study, bootstrap=B)}


@pytest.fixture(scope="module")
def results(demo_study, llmbar_study, pandalm_study):
    return {
        "pandalm": {
            "answer_model_ranking": answer_model_ranking(pandalm_study, bootstrap=B),
            "audit_study": mj.audit_study(pandalm_study, bootstrap=B, with_dawid_skene=False),
            **_experts(pandalm_study, "preference"),
        },
        "demo": {**_analyses(demo_study, "organ_system"), **_experts(demo_study, "overall")},
        "llmbar": _analyses(llmbar_study, "subset"),
        "hanna": _hanna_scores(),
    }


def _one_dimension(t: pd.DataFrame) -> dict[str, object]:
    """``where=`` that keeps one dimension (the first) when the table has several, and one
    subgroup attribute (the first) when it has several."""
    return {c: t[c].iloc[0] for c in ("dimension", "attribute") if c in t and t[c].nunique() > 1}


def _marks(obj: object) -> int:
    """Points drawn: markers of every line (error bars, rank dots) and heatmap cell texts."""
    fig = obj if isinstance(obj, matplotlib.figure.Figure) else obj.figure
    n = 0
    for ax in fig.axes:
        for line in ax.lines:
            if line.get_marker() not in (None, "None", "", " "):
                n += len(line.get_xdata())
        n += sum("n=" in t.get_text() for t in ax.texts)
    return n


@pytest.mark.parametrize("dataset", ["demo", "llmbar", "hanna", "pandalm"])
def test_every_table_speaks_the_contract(results, dataset):
    for name, r in results[dataset].items():
        assert r.tables, name
        for t_name in r.tables:
            t = r.table(t_name)
            cols = list(t.columns)
            where = f"{name}.table({t_name!r}) on {dataset}"
            assert set(CONTRACT + TAIL) <= set(cols), (where, cols)
            # the contract's columns in the contract's order
            own = [c for c in cols if c in CONTRACT + TEST + TAIL]
            expected = [c for c in CONTRACT + (TEST if "p_value" in cols else ()) + TAIL]
            assert own == expected, where
            assert not RETIRED & set(cols), (where, RETIRED & set(cols))
            assert not [c for c in cols if c.endswith(("_ci_low", "_ci_high"))], where
            if len(t):
                assert t["confidence_level"].between(0, 1).all(), where
                assert t["estimand"].astype(str).str.len().gt(0).all(), where
                assert t["n_unit"].astype(str).str.len().gt(0).all(), where
                assert t["ci_method"].astype(str).str.len().gt(0).all(), where
                assert t["warning"].map(lambda v: isinstance(v, str)).all(), where
                lo, hi, est = (t[c].to_numpy(float) for c in ("ci_low", "ci_high", "estimate"))
                ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(est)
                assert (lo[ok] <= est[ok] + 1e-12).all() and (est[ok] <= hi[ok] + 1e-12).all()
            if "p_value" in cols and len(t):
                tested = t[t["p_value"].notna()]
                assert tested["test"].astype(str).str.len().gt(0).all(), where
                assert (tested["family_size"] >= 1).all(), where
                assert (tested["p_adjusted"] >= tested["p_value"] - 1e-12).all(), where


@pytest.mark.parametrize("dataset", ["demo", "llmbar", "hanna", "pandalm"])
def test_each_result_plots_one_mark_per_row_and_states_itself(results, dataset):
    for name, r in results[dataset].items():
        assert isinstance(r.findings(), list) and all(isinstance(s, str) for s in r.findings())
        assert r.summary().startswith(repr(r)) and "\n" not in repr(r)
        assert html.escape(repr(r)) in r._repr_html_()
        for kind in r.plots:
            table = r.PLOTS[kind][1]
            t = r.table(table)
            if t.empty:
                continue
            where = _one_dimension(t)
            if kind == "heatmap":
                where = {k: t[k].iloc[0] for k in ("dimension",) if k in t.columns}
            rows = r.table(table, **where)
            panel = r.PLOTS[kind][2].get("panel", "dimension")
            k = rows[panel].nunique() if r.PLOTS[kind][0] == "forest_plot" else 1
            fig, ax = plt.subplots(1, k)
            try:
                drawn = r.plot(kind, ax=ax, where=where)
                if r.PLOTS[kind][0] in ("pairwise_matrix", "agreement_matrix"):  # both triangles
                    assert len(drawn.texts) == 2 * len(rows), (dataset, name, kind)
                else:
                    assert _marks(drawn) == len(rows), (dataset, name, kind)
            finally:
                plt.close("all")


def test_the_three_calls_from_the_issue(demo_study):
    """``forest_plot`` of the evaluation, ``subgroup_heatmap`` of subgroup_accuracy and
    ``position_bias_plot`` of position_bias: before, each refused the library's own result."""
    ev = mj.evaluate_judges(demo_study, bootstrap=B, dimensions=["overall"])
    fig = ev.plot("forest")
    assert _marks(fig) == len(ev.leaderboard) == len(demo_study.judges)
    ax = mj.subgroup_accuracy(demo_study, ["organ_system"]).plot("heatmap")
    assert _marks(ax) == len(mj.subgroup_accuracy(demo_study, ["organ_system"]).frame)
    pb = mj.position_bias(demo_study)
    ax = pb.plot("position", where={"dimension": "overall"})
    # two measures per judge seen in both orders
    assert _marks(ax) == 2 * int((pb["swap"]["dimension"] == "overall").sum())
    plt.close("all")


def test_tidy_leaderboard_matches_the_wide_one(demo_study):
    """The long table is a reshaping, not a recomputation: numbers equal the wide table's."""
    ev = mj.evaluate_judges(demo_study, bootstrap=B, dimensions=["overall"])
    long = ev.table("leaderboard").set_index("judge")
    wide = ev.leaderboard.set_index("judge")
    for a, b in (("estimate", "accuracy"), ("ci_low", "ci_low"), ("ci_high", "ci_high")):
        assert np.allclose(long.loc[wide.index, a], wide[b])
    pairs = ev.table("pairs")
    assert np.allclose(pairs["p_value"], ev.pairs["pvalue"])
    assert np.allclose(pairs["p_adjusted"], ev.pairs["p_holm"])
    # one family of every pairwise test (family="table"): its size is the number of tests
    assert (pairs["family_size"] == ev.pairs["pvalue"].notna().sum()).all()


def test_backward_compatible_access(demo_study):
    t = mj.subgroup_accuracy(demo_study, ["organ_system"])
    assert list(t["judge"].unique()) == demo_study.judges and len(t) == len(t.frame)
    pb = mj.position_bias(demo_study)
    assert sorted(pb) == ["not_applicable", "single_order", "swap"] and pb["swap"] is pb.swap
    with pytest.raises(ValueError, match="kind"):
        pb.plot("nope")
    with pytest.raises(ValueError, match="where="):
        mj.subgroup_accuracy(demo_study, ["organ_system", "dimension"]).plot("heatmap")
