"""Reports computed once and handed to the kernels (medjudge.report.shared).

The check is against the independent path: the same report rendered with every result
computed inside the kernel (``share=False``) must be byte-identical.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from medjudge.data.tables import load_any
from medjudge.report import shared
from medjudge.report.context import ReportContext

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
SETTINGS = dict(seed=0, n_resamples=50, policy="wrong", confidence_level=0.95, alpha=0.05,
                epsilon=0.2, by=None, names={})  # fmt: skip


@pytest.fixture(scope="module")
def bundle_files(tmp_path_factory):
    study = load_any(DEMO)
    folder = tmp_path_factory.mktemp("shared")
    sb = shared.study_bundle(study, DEMO, None)
    shared.write_shared(sb, folder / "study.pickle")
    res = shared.precompute(study, ["audit"], data=str(DEMO), mapping=None, **SETTINGS)
    shared.write_shared({"token": sb["token"], **res}, folder / "results.pickle")
    return folder, res


def test_precomputed_results_exclude_process_local_ones(bundle_files):
    folder, res = bundle_files
    assert res["cache"], "the audit computes shared results"
    assert not set(shared.PROCESS_LOCAL) & set(res["cache"])
    assert not list(folder.glob("*.part"))


def test_kernel_side_adopts_only_matching_study_and_settings(bundle_files, monkeypatch):
    folder, res = bundle_files
    monkeypatch.setattr(shared, "_LOADED", None)
    monkeypatch.setenv(shared.SHARED_ENV, str(folder / "study.pickle"))
    monkeypatch.setenv(shared.RESULTS_ENV, str(folder / "results.pickle"))
    study = shared.load_study(str(DEMO), None)
    assert study is shared.load_study(DEMO, None)  # the pickled one, loaded once
    assert shared.load_study(ROOT / "data" / "demo" / ".", None) is study  # same inputs
    ctx = ReportContext(study, data=str(DEMO), mapping=None, **SETTINGS)
    assert ctx._cache and set(ctx._cache) == set(res["cache"])
    other = ReportContext(study, data=str(DEMO), mapping=None, **{**SETTINGS, "seed": 1})
    assert other._cache == {}  # another seed: computed afresh
    fresh = load_any(DEMO)
    assert ReportContext(fresh, data=str(DEMO), **SETTINGS)._cache == {}  # another study
    monkeypatch.delenv(shared.RESULTS_ENV)  # a kernel without precomputed results
    assert ReportContext(study, data=str(DEMO), mapping=None, **SETTINGS)._cache == {}
    monkeypatch.delenv(shared.SHARED_ENV)
    assert shared.load_study(DEMO, None) is not study


def test_kernel_does_not_wait_when_the_renderer_failed(tmp_path, monkeypatch):
    path = tmp_path / "shared.pickle"
    shared.mark_failed(path)
    monkeypatch.setattr(shared, "_LOADED", None)
    monkeypatch.setenv(shared.SHARED_ENV, str(path))
    monkeypatch.setenv(shared.WAIT_ENV, "30")
    assert shared._bundle() is None  # returns at once: no precomputed results


def test_shared_and_unshared_reports_are_byte_identical(tmp_path, monkeypatch):
    pytest.importorskip("nbclient")
    from medjudge.commands.report import render_reports

    # a study the caller loaded from a relative path is not handed over as it is: its file
    # paths are relative to a folder the kernels do not run in (it used to fail the render)
    monkeypatch.chdir(ROOT)
    relative = load_any(Path("data") / "demo")
    out = {}
    for variant, share, study in (("shared", True, None), ("unshared", False, None),
                                  ("given relative", True, relative)):  # fmt: skip
        dest = tmp_path / variant.replace(" ", "_")
        res = render_reports(
            DEMO, kinds=["audit"], out=dest, to="html", resamples=50, share=share,
            command="medjudge report data/demo", study=study,
        )  # fmt: skip
        out[variant] = res["audit"]["html"].read_bytes()
        assert not [p for p in os.listdir(dest) if p.startswith(".")]
    assert out["shared"] == out["unshared"] == out["given relative"]
