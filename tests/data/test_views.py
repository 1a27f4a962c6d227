"""Study.matrix / the judges' status matrix from integer codes (medjudge.data.views) against
the independent implementation: pandas pivots of the ratings table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from medjudge.data.tables import load_any

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


@pytest.fixture(scope="module")
def study():
    return load_any(DEMO)


def _pivot(study, dim, *, role=None, raters=None, order=None, items=None):
    r = study.ratings
    sub = r[(r["dimension"] == dim).to_numpy()].assign(_code=study.codes(dim))
    if role is not None:
        sub = sub[sub["role"] == role]
    if raters is not None:
        sub = sub[sub["rater"].isin(raters)]
    if order is not None:
        sub = sub[sub["order"] == order]
    cols = raters if raters is not None else list(dict.fromkeys(sub["rater"]))
    rows = items if items is not None else study.item_ids
    wide = sub.pivot(index="item", columns="rater", values="_code").reindex(
        index=rows, columns=cols
    )
    return wide.to_numpy(dtype=float), list(cols)


@pytest.mark.parametrize(
    "kw",
    [
        {"role": "expert"},
        {"order": "AB"},
        {"order": "BA", "role": "judge"},
        {"raters": ["nobody", "expert_2"], "order": "AB"},
    ],
)
def test_matrix_equals_the_pivot(study, kw):
    dim = study.dimensions[0]
    if "raters" in kw:
        kw = {**kw, "raters": ["nobody", *study.experts[:1], *study.judges[:2][::-1]]}
    items = [*study.item_ids[::-7], "not-an-item", study.item_ids[0]]
    for it in (None, items):
        m = study.matrix(dim, items=it, **kw)
        want, cols = _pivot(study, dim, items=it, **kw)
        assert m.raters == cols
        assert np.array_equal(m.values, want, equal_nan=True)


def test_several_orders_still_refused(study):
    with pytest.raises(ValueError, match="several verdicts per item and rater"):
        study.matrix(study.dimensions[0], role="judge")


def test_status_matrix_equals_the_pivot(study):
    dim = study.dimensions[0]
    r = study.ratings
    sub = r[(r["dimension"] == dim) & r["rater"].isin(study.judges) & (r["order"] == "AB")]
    wide = sub.pivot_table(index="item", columns="rater", values="status", aggfunc="first")
    want = wide.reindex(index=study.item_ids, columns=study.judges).fillna("missing")
    got = study._status_matrix(dim, study.judges, "AB")
    assert (got == want.to_numpy(dtype=object)).all()
