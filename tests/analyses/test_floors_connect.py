"""The floors connect: a study's matrix goes into every coefficient, ``mj.datasets`` gives the
demo, and a study prints as one short line."""

from __future__ import annotations

from pathlib import Path

import medjudge as mj
import numpy as np
import pytest

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


@pytest.fixture(scope="module")
def study():
    return mj.load(DEMO)


def test_style_guide_example_runs(study):
    m = study.matrix("overall", role="expert")
    e = mj.fleiss_kappa(m)
    # the same coefficient from the raw codes with the scale's categories given by hand
    ref = mj.fleiss_kappa(m.values, categories=[0, 1])
    assert e.estimate == ref.estimate and (e.ci_low, e.ci_high) == (ref.ci_low, ref.ci_high)


def test_every_coefficient_takes_the_matrix(study):
    m = study.matrix("accuracy", role="expert")
    cats = np.arange(len(m.scale.categories), dtype=float)
    for fn in (mj.percent_agreement, mj.gwet_ac, mj.brennan_prediger, mj.conger_kappa):
        assert fn(m, ci=None).estimate == fn(m.values, categories=cats, ci=None).estimate
    a = mj.krippendorff_alpha(m, ci=None)  # the scale comes from the matrix
    assert a.estimate == mj.krippendorff_alpha(m.values, scale=m.scale, ci=None).estimate
    two = study.matrix("accuracy", raters=study.experts[:2])
    assert mj.cohen_kappa(two).estimate == mj.cohen_kappa(two.values, categories=cats).estimate
    t = mj.agreement_table(m, ci=None)
    ref = mj.agreement_table(m.values, scale=m.scale, ci=None)
    assert t["estimate"].tolist() == ref["estimate"].tolist()


def test_a_category_nobody_used_still_counts(study):
    """The scale's categories, not the observed values, define the coefficient: a subset of
    items where one category never occurs gives the chance agreement of the full scale."""
    m = study.matrix("overall", role="expert")
    only_a = np.where(np.nan_to_num(m.values, nan=0).sum(axis=1) == 0)[0][:50]
    sub = type(m)(m.values[only_a], [m.items[i] for i in only_a], m.raters, m.dimension, m.scale)
    e = mj.brennan_prediger(sub, ci=None)
    assert e.extra["q"] == 2  # the unused category B is part of the scale
    assert e.estimate == pytest.approx(1.0)


def test_scale_is_still_required_for_plain_arrays():
    with pytest.raises(ValueError, match="scale"):
        mj.krippendorff_alpha(np.array([[0, 1], [1, 1], [0, 0]]))


def test_repr_is_one_short_line(study):
    text = repr(study)
    assert "\n" not in text and len(text) <= 200
    assert text == (
        "<Study 'demo': 1,026 items, 3 experts, 12 judges, 6 dimensions, 110,808 ratings>"
    )
    assert "<table>" in study._repr_html_()


def test_datasets_demo_is_the_bundled_demo(study):
    files = sorted(p.relative_to(DEMO) for p in DEMO.rglob("*") if p.is_file())
    made = mj.datasets.demo_path()
    assert sorted(p.relative_to(made) for p in made.rglob("*") if p.is_file()) == files
    for rel in files:
        assert (made / rel).read_bytes() == (DEMO / rel).read_bytes(), rel
    demo = mj.datasets.demo()
    assert repr(demo) == repr(study)
    assert demo is mj.datasets.demo()  # loaded once per process
