"""Report sentences that follow the design (issue 36, items 1, 5 and 7).

Small synthetic studies (pairwise, "0"/"1"/"2" codes, some judges in both orders) built by the
generated-study helper of ``tests/cli/test_generated_studies.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from medjudge.data.tables import TableMapping, load_table
from medjudge.report.context import ReportContext

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from test_generated_studies import _study  # noqa: E402


def _texts(sec) -> str:
    parts = [getattr(b, "markdown", "") for b in sec.blocks]
    parts += [f.text for f in sec.findings] + list(sec.methods)
    return "\n".join(str(p) for p in parts)


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    folder = tmp_path_factory.mktemp("design_sentences")
    out = {}
    for n in (1, 4):
        path, mapping = _study(folder, n, 11, n_items=60)
        out[n] = load_table(path, TableMapping.from_toml(mapping))
    return out


def test_one_judge_leaderboard_has_no_pairwise_language(studies):
    from medjudge.report.sections import leaderboard

    ctx = ReportContext(studies[1], n_resamples=50)
    text = _texts(leaderboard.build(ctx))
    for word in ("pairwise", "Holm", "rank set", "letter", "0 pairwise tests"):
        assert word not in text, word


def test_leaderboard_states_the_accuracy_order_and_the_decisions_alpha(studies):
    from medjudge.data.design import presentation_design
    from medjudge.report.sections import leaderboard

    study = studies[4]
    d = presentation_design(study, "overall")
    assert d.kind == "swapped"
    for level, alpha in ((0.9, 0.05), (0.95, 0.1)):
        ctx = ReportContext(study, n_resamples=50, confidence_level=level, alpha=alpha)
        sec = leaderboard.build(ctx)
        text = _texts(sec)
        assert f"in order {d.evaluation_order}" in text
        assert f"α = {alpha:g}" in text and "max-t" not in text and "Mogstad" not in text
        # the rank sets' own description (markdown-escaped)
        assert "p\\_holm \\< " + f"{alpha:g}".replace(".", "\\.") in text


def test_not_run_reason_names_attributes_escaped_once(studies):
    from medjudge.report.sections import subgroups

    sec = subgroups.build(ReportContext(studies[4], n_resamples=50))
    text = _texts(sec)
    assert not sec.applies
    # the reason states the one default rule (no name list) and is markdown-escaped once
    assert "no item attribute is a subgroup by the default rule" in text
    assert "\\-\\-by" in text and "\\\\\\-" not in text


def test_no_annotator_is_least_in_line_on_a_degenerate_kappa():
    # e1-e3 agree with the others' majority on almost every item; the majority never varies,
    # so every kappa is 0 with a zero-width interval (the prevalence paradox): nobody is named
    import medjudge as mj
    import pandas as pd
    from medjudge.report.sections import annotators

    rows = []
    for i in range(40):
        rows += [(f"q{i}", e, "expert", "overall", "A") for e in ("e1", "e2")]
        rows.append((f"q{i}", "e3", "expert", "overall", "B" if i in (3, 17) else "A"))
        rows.append((f"q{i}", "e4", "expert", "overall", ("A", "B")[i % 2]))
    r = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    items = pd.DataFrame({"item": [f"q{i}" for i in range(40)]})
    study = mj.Study(r, items, {"overall": mj.Scale("nominal", ("A", "B"))})
    sec = annotators.build(ReportContext(study, n_resamples=50))
    text = " ".join(f.text for f in sec.findings)
    assert "least in line" not in text or "no one is named least in line" in text
    assert "not informative" in text and "raw agreement" in text


def test_position_rows_name_their_own_estimand(demo_study):
    # the demo has swap judges (both orders) and one-order judges: two different position
    # estimands, which the table and the sentence must name per row, never as one
    from medjudge.analyses.bias_suite import POSITION_ESTIMANDS
    from medjudge.data.design import presentation_design
    from medjudge.report.sections import bias_suite as B

    ctx = ReportContext(demo_study, n_resamples=50)
    sec = B.build(ctx)
    res = B.result(ctx)
    pos = res.effects[res.effects["effect"] == "position"]
    swap = set(presentation_design(demo_study, ctx.headline).swap_judges)
    for j, e in zip(pos["judge"], pos["estimand"], strict=True):
        assert e == POSITION_ESTIMANDS["swap" if j in swap else "one_order"]
    table = sec.tables["tbl-bias-suite"]
    labels = set(table.loc[table["effect"].str.startswith("position"), "effect"])
    assert labels == {f"position ({e})" for e in POSITION_ESTIMANDS.values()}
    assert "judges seen in both orders" in sec.blocks[0].markdown


def test_dimension_structure_needs_judges_and_one_label_set(tmp_path, demo_study):
    from _studies import write_crowd_study
    from medjudge.data.tables import load_any
    from medjudge.report.sections import structure

    table, mapping = write_crowd_study(tmp_path)
    crowd = load_any(table, mapping)  # risk is ordinal 4-level, the others 6 nominal labels
    sec = structure.build(ReportContext(crowd, n_resamples=50))
    assert not sec.applies and "different label sets" in sec.reason
    experts_only = demo_study.ratings[demo_study.ratings["role"] == "expert"]
    import medjudge as mj

    no_judges = mj.Study(experts_only, demo_study.items, demo_study.scales)
    sec = structure.build(ReportContext(no_judges, n_resamples=50))
    assert not sec.applies and "no judges" in sec.reason
    assert structure.build(ReportContext(demo_study, n_resamples=50)).applies


def test_renamed_roles_are_used_in_the_unusable_rule(tmp_path):
    from _studies import write_crowd_study
    from medjudge.data.tables import load_any

    table, mapping = write_crowd_study(tmp_path)  # [role_names] expert = "crowd worker"
    ctx = ReportContext(load_any(table, mapping), n_resamples=50)
    rule = ctx.unusable_rule()
    assert "unusable crowd worker labels" in rule and "expert" not in rule


def _sparse_study(folder: Path, seed: int = 3, n_items: int = 60):
    """3 experts, each label present with probability 0.55 (many items with one label), and
    two judges."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        g = int(rng.integers(2))
        for e in range(3):
            if rng.uniform() < 0.55:
                v = g if rng.uniform() < 0.8 else 1 - g
                rows.append((f"q{i:02d}", f"exp{e}", "expert", str(v)))
        for j in range(2):
            rows.append(
                (f"q{i:02d}", f"judge{j}", "judge", str(g if rng.uniform() < 0.7 else 1 - g))
            )
    path, mapping = folder / "sparse.csv", folder / "sparse.toml"
    pd.DataFrame(rows, columns=["item", "rater", "role", "value"]).to_csv(path, index=False)
    mapping.write_text(
        'layout = "long"\nitem = "item"\nrater = "rater"\nrole_column = "role"\nvalue = "value"\n'
    )
    return load_table(path, TableMapping.from_toml(mapping))


def test_reliability_finding_counts_the_items_the_coefficient_used(tmp_path):
    # the key finding's n is the items with at least two labels (what an agreement coefficient
    # uses), not every item with a label (issue 36, item 4): counted here with numpy
    import numpy as np
    from medjudge.report.sections import reliability

    study = _sparse_study(tmp_path)
    v = study.matrix(study.dimensions[0], role="expert").values
    labelled = int((np.isfinite(v).sum(1) >= 1).sum())
    pairable = int((np.isfinite(v).sum(1) >= 2).sum())
    assert pairable < labelled
    sec = reliability.build(ReportContext(study, n_resamples=50))
    key = sec.findings[0].text
    assert f"n = {pairable} items with at least two labels" in key, key
    assert f"n = {labelled} " not in key
