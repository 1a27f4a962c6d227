"""HANNA's score study keeps its numbers (issue 39, item 2: made faster "with the same numbers").

The pins in ``snapshots/hanna_score_study.json`` were written by the code before the speed-up
(main at d6789c5): the report's score study (``baselines=True``, the rows of ``run``'s
``scores.csv`` plus the constant baselines) on all 1,056 stories, with the stories clustered by
writing prompt (the bundled mapping) and as independent stories (``cluster="none"``, as in the
A/B timing of ``benchmarks/scores.md``). Per dimension, role and metric: the number of rows and
the sums of estimate, SE and interval limits; every reliability row; per dimension and metric of
the judge pairs: rows, pairs that differ at Holm-adjusted 0.05 and the sums of difference,
limits and p-values; the headline sentences verbatim. The faster code gave the same tables bit
for bit; the tolerance (1e-9) only allows other BLAS builds' last digits. That the numbers are
right is checked elsewhere against scipy/pingouin and a bootstrap written from the definition
(``test_score_study_fast.py``, ``test_score_pairs.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from medjudge import Bootstrap
from medjudge.analyses.score_study import score_study
from medjudge.data.tables import load_any

ROOT = Path(__file__).resolve().parents[2]
PINS = json.loads((Path(__file__).parent / "snapshots" / "hanna_score_study.json").read_text())
CLUSTER = {"prompt clusters": "auto", "independent stories": "none"}


@pytest.fixture(scope="module")
def hanna():  # noqa: ANN201
    return load_any(
        ROOT / "data" / "external" / "hanna" / "hanna_long.csv",
        ROOT / "data" / "mappings" / "hanna_long.toml",
    )


def _sums(frame, keys, columns):  # noqa: ANN001, ANN202
    return {
        "|".join(map(str, k)): [len(g)] + [float(np.nansum(g[c].to_numpy(float))) for c in columns]
        for k, g in frame.groupby(keys, sort=True)
    }


@pytest.mark.parametrize("design", list(CLUSTER))
def test_hanna_score_study_keeps_its_numbers(hanna, design: str) -> None:  # noqa: ANN001
    res = score_study(hanna, bootstrap=Bootstrap(2000, 0), baselines=True, cluster=CLUSTER[design])
    pins = PINS[design]
    assert res.headline == pins["headline"]
    got = _sums(
        res.metrics, ["dimension", "role", "metric"], ["estimate", "se", "ci_low", "ci_high"]
    )
    assert got.keys() == pins["metrics"].keys()
    for key, want in pins["metrics"].items():
        assert got[key] == pytest.approx(want, rel=1e-9, abs=1e-9), key
    rel = {f"{r.dimension}|{r.role}|{r.form}": [r.estimate, r.ci_low, r.ci_high]
           for r in res.reliability.itertuples()}  # fmt: skip
    assert rel == pytest.approx(pins["reliability"], rel=1e-9, abs=1e-9)
    got = {
        f"{d}|{m}": [len(g), int((g["p_holm"] <= 0.05).sum())]
        + [float(np.nansum(g[c].to_numpy(float)))
           for c in ("difference", "ci_low", "ci_high", "p_value", "p_holm")]
        for (d, m), g in res.pairs.groupby(["dimension", "metric"], sort=True)
    }  # fmt: skip
    assert got.keys() == pins["pairs"].keys()
    for key, want in pins["pairs"].items():
        assert got[key][:2] == want[:2], key
        assert got[key][2:] == pytest.approx(want[2:], rel=1e-9, abs=1e-9), key
