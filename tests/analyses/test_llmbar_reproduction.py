"""LLMBar: our two-order counts reproduce upstream's statistics.json for all 349 cells.

Reference: data/external/llmbar/reported_statistics.csv = upstream ``statistics.json`` values
(princeton-nlp/LLMBar @ 900616b, written by ``LLMEvaluator/evaluate.py``): ``correct_False``
(accuracy in the original order), ``correct_True`` (swapped order), ``correct_both`` and
``equal`` (same winner in both orders; upstream compares ``None == None`` as equal), each as the
string "k / n = p%". See data/external/llmbar/SOURCE.md.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import EXTERNAL
from medjudge.analyses.position import swap_table

_FRACTION = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*=\s*([0-9.eE+-]+)%\s*$")


def _parse(s: str) -> tuple[int, int, float]:
    m = _FRACTION.match(s)
    assert m, f"unexpected reported value {s!r}"
    return int(m.group(1)), int(m.group(2)), float(m.group(3))


@pytest.fixture(scope="module")
def merged(llmbar_study):
    tab = swap_table(llmbar_study, by=["subset"])
    rep = pd.read_csv(EXTERNAL / "llmbar" / "reported_statistics.csv")
    rep["judge"] = rep["evaluator"] + "/" + rep["strategy"]
    for col in ("correct_False", "correct_True", "correct_both", "equal"):
        parsed = rep[col].map(_parse)
        rep[f"ref_{col}_k"] = parsed.map(lambda t: t[0])
        rep[f"ref_{col}_n"] = parsed.map(lambda t: t[1])
    rep["ref_average"] = rep["correct_average"].str.rstrip("%").astype(float) / 100
    ref = rep[["subset", "judge"] + [c for c in rep.columns if c.startswith("ref_")]]
    return tab, ref.merge(tab, on=["subset", "judge"], how="left", indicator=True)


def test_every_reported_cell_is_computed(merged):
    tab, m = merged
    assert len(m) == 349
    assert (m["_merge"] == "both").all(), m.loc[m["_merge"] != "both", ["subset", "judge"]]
    # and we compute no cell upstream does not report
    assert len(tab) == 349


@pytest.mark.parametrize(
    ("ref", "ours"),
    [
        ("correct_False", "correct_ab"),
        ("correct_True", "correct_ba"),
        ("correct_both", "correct_both"),
        ("equal", "upstream_equal"),
    ],
)
def test_counts_equal_upstream_exactly(merged, ref, ours):
    _, m = merged
    bad = m[(m[f"ref_{ref}_k"] != m[ours]) | (m[f"ref_{ref}_n"] != m["n"])]
    assert bad.empty, bad[["subset", "judge", f"ref_{ref}_k", ours, f"ref_{ref}_n", "n"]].head()


def test_rates_and_tie_resolved_accuracy(merged):
    _, m = merged
    np.testing.assert_allclose(
        m["accuracy_ab"], m["ref_correct_False_k"] / m["ref_correct_False_n"], atol=1e-12
    )
    np.testing.assert_allclose(
        m["accuracy_ba"], m["ref_correct_True_k"] / m["ref_correct_True_n"], atol=1e-12
    )
    # an inconsistent pair scored 0.5 == the mean of the two orders == upstream correct_average
    np.testing.assert_allclose(m["accuracy_tie_resolved"], m["ref_average"], atol=1e-12)
    # our strict consistency never exceeds upstream's 'equal' (which adds pairs with both verdicts None)
    assert (m["consistent"] + m["both_invalid"] == m["upstream_equal"]).all()
    assert (m["consistency"] <= m["ref_equal_k"] / m["ref_equal_n"] + 1e-12).all()


def test_position_test_is_the_exact_mcnemar(merged):
    """binomtest on inconsistent pairs == statsmodels' exact McNemar on the AB x BA verdict table."""
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    _, m = merged
    for _, r in m.sample(25, random_state=1).iterrows():
        t = np.array([[0, r["first_first"]], [r["second_second"], 0]])
        assert r["p_first_binom"] == pytest.approx(
            sm_mcnemar(t, exact=True).pvalue, rel=1e-9, abs=1e-15
        )


def test_falcon_first_position_bias_is_detected(merged):
    """SOURCE.md: Falcon almost always picks the first-shown output."""
    _, m = merged
    falcon = m[m["judge"] == "Falcon/Vanilla"]
    assert (falcon["p_first_inconsistent"] > 0.9).all()
    assert (falcon["p_first_binom"] < 1e-3).all()
