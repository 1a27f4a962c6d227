"""The report sections judge_vs_gold and scores build from a study (needs the report-section
interface of medjudge.report.sections)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

sections = pytest.importorskip("medjudge.report.sections")
if not hasattr(sections, "Section"):
    pytest.skip("report-section interface not merged yet", allow_module_level=True)

from medjudge.report.sections import judge_vs_gold as jg_section  # noqa: E402
from medjudge.report.sections import scores as score_section  # noqa: E402
from test_judge_vs_gold import crowd_study  # noqa: E402


def _ctx(study):
    cache = {}
    return SimpleNamespace(
        study=study, policy="wrong", n_resamples=100, seed=0, confidence_level=0.95, alpha=0.05,
        level="95%", name=lambda r: r, names_of=lambda r, n=None: r + "s",
        get=lambda k, f: cache[k] if k in cache else cache.setdefault(k, f()),
    )  # fmt: skip


def test_sections_build_and_say_why_not():
    st = crowd_study(n_items=24)
    sec = jg_section.build(_ctx(st))
    assert sec.applies and sec.tables and sec.findings
    other = score_section.build(_ctx(st))
    assert not other.applies and "interval or ratio" in other.reason
