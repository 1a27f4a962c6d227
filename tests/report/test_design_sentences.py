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
    assert "organ\\_system" in text and "organ\\\\\\_system" not in text


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
