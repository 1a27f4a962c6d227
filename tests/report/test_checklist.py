"""Issue 40 item 7: reporting checklists. The items are the published ones (checked against the
guidelines' tables: counts, first and last items, and wording spot checks); the appendix fills
each item only from a section the report shows, and renders for the demo, PandaLM and HANNA."""

from __future__ import annotations

import dataclasses
import tomllib
from importlib import resources

import pytest
from conftest import built_reports
from medjudge.report.checklist import CHECKLISTS, fill_checklist, load_checklist
from medjudge.report.document import section_markdown
from medjudge.report.sections import checklist as appendix


def test_items_are_the_published_ones() -> None:
    stard = load_checklist("stard")
    # STARD 2015 (Bossuyt et al. 2015, Table 1): 30 items, 34 with 10a/b, 12a/b, 13a/b, 21a/b
    assert len(stard.items) == 34 and stard.items["id"].iloc[-1] == "30"
    assert {"10a", "10b", "12a", "12b", "13a", "13b", "21a", "21b"} <= set(stard.items["id"])
    assert stard.items.set_index("id").loc["24", "text"] == (
        "Estimates of diagnostic accuracy and their precision (such as 95% confidence intervals)"
    )
    tripod = load_checklist("tripod-llm")
    # TRIPOD-LLM (Gallifant et al. 2025, Table 2): 49 numbered entries, items 1-19
    assert len(tripod.items) == 49 and tripod.items["id"].iloc[-1] == "19g"
    main = {i.rstrip("abcdefg") for i in tripod.items["id"]}
    assert main == {str(k) for k in range(1, 20)}
    assert tripod.items.set_index("id").loc["6a", "text"] == (
        "Report the LLM name, version and last date of training."
    )
    for c in (stard, tripod):
        assert "doi:" in c.citation and c.items["id"].is_unique


def test_each_data_file_is_read_whole() -> None:
    for name in CHECKLISTS:
        raw = resources.files("medjudge.report") / "assets" / f"checklist-{name}.toml"
        data = tomllib.loads(raw.read_text(encoding="utf-8"))
        assert len(data["item"]) == len(load_checklist(name).items)


@pytest.fixture(scope="module", params=["demo", "pandalm", "hanna"])
def built(request, tmp_path_factory):
    return request.param, built_reports(request.param, tmp_path_factory)


@pytest.mark.parametrize("name", CHECKLISTS)
def test_appendix_renders_and_points_only_at_shown_sections(built, name) -> None:
    study_name, reports = built
    for kind, rep in reports.items():
        ctx = dataclasses.replace(rep.context, checklist=name)
        sections = [s for s in rep.sections if s.key not in ("summary", "methods", "references")]
        sec = appendix.build(ctx, sections)
        text = section_markdown(sec)
        assert load_checklist(name).citation.split(" (")[0].split(",")[0] in text
        t = fill_checklist(name, ctx, sections)
        assert t["id"].tolist() == load_checklist(name).items["id"].tolist()
        assert set(t["status"]) <= {"answered", "partly", "authors"}
        titles = {s.title for s in sections if s.applies} | {"Methods"}
        for where in t.loc[t["status"] != "authors", "where"]:
            if where.startswith("section '"):
                assert where.split("'")[1] in titles, (study_name, kind, where)
        # the study's design answers the data and annotation items in every report
        answered = set(t.loc[t["status"] != "authors", "id"])
        assert ({"5b", "8b"} if name == "tripod-llm" else {"14", "16"}) <= answered, (
            study_name, kind, sorted(answered))  # fmt: skip
        # the items left to the authors are named in the text
        authors = t.loc[t["status"] == "authors", "id"].tolist()
        assert f"supply the other {len(authors)} " in text


def test_report_command_checklist_option(tmp_path) -> None:
    from robust_support import cli

    rc, _, err = cli(["report", "data/demo", "--checklist", "consort", "--out", tmp_path / "x"])
    assert rc == 2 and "tripod-llm" in err and "stard" in err
