"""Every result presents itself — a one-line ``repr``, an HTML view for notebooks
(``_repr_html_``), ``to_frame()`` (tidy, intervals in ``ci_low``/``ci_high``/``level``) and
``to_dict()`` that ``json.dumps`` accepts."""

from __future__ import annotations

import json
from functools import cache

import medjudge as mj
import numpy as np
import pandas as pd
import pytest


@cache
def _results() -> dict[str, object]:
    from medjudge.data.simulate import example_study

    st = example_study()
    X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]], float)
    return {
        "Estimate": mj.fleiss_kappa(X, ci="analytic"),
        "TestResult": mj.mcnemar(np.array([[40, 12], [5, 43]])),
        "JudgeEvaluation": mj.evaluate_judges(
            st, bootstrap=mj.Bootstrap(50), dimensions=["overall"]
        ),
        "AuditReport": mj.audit_study(st, bootstrap=mj.Bootstrap(50), with_dawid_skene=False),
        "AltTestResult": mj.study_alt_test(st, "overall", min_items_per_annotator=20)[0],
        "DawidSkeneResult": mj.dawid_skene(X),
    }


NAMES = ["Estimate", "TestResult", "JudgeEvaluation", "AuditReport", "AltTestResult",
         "DawidSkeneResult"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_result_presents_itself(name):
    r = _results()[name]
    assert type(r).__name__ == name
    text = repr(r)
    assert "\n" not in text and len(text) <= 200 and text.startswith(name + "(")
    html = r._repr_html_()
    assert "<table" in html and name in html
    frame = r.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) >= 1
    json.dumps(r.to_dict())  # plain JSON (NaN allowed, as Python's json writes it)


@pytest.mark.parametrize("name", ["Estimate", "JudgeEvaluation", "AuditReport"])
def test_interval_columns_are_named_ci_low_ci_high_level(name):
    frame = _results()[name].to_frame()
    # a result of the contract (docs/api.md "Results") spells the coverage confidence_level
    level = "confidence_level" if name in ("JudgeEvaluation", "AuditReport") else "level"
    assert {"ci_low", "ci_high", level} <= set(frame.columns)
    # no estimate-prefixed interval columns in a main table (rank sets are not intervals)
    odd = [c for c in frame.columns if c.endswith(("_low", "_high"))]
    assert set(odd) <= {"ci_low", "ci_high", "rank_low", "rank_high"}, odd


def test_level_in_repr_comes_from_the_result_not_a_constant():
    X = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [2, 2], [2, 1]], float)
    e = mj.cohen_kappa(X, ci="analytic", confidence_level=0.9)
    assert "90% CI" in repr(e) and e.level == 0.9
    ev = _results()["JudgeEvaluation"]
    assert ev.pairs["level"].eq(0.95).all()
    assert ev.table("pairs")["confidence_level"].eq(0.95).all()


def test_table_names_are_checked():
    ev = _results()["JudgeEvaluation"]
    with pytest.raises(ValueError, match="name: 'board' is not allowed"):
        ev.table("board")
