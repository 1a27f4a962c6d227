"""Shared fixtures: paths to the bundled demo and the real public datasets."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# property tests are derandomised so CI and local runs explore the same examples
settings.register_profile("medjudge", derandomize=True, deadline=None)
settings.load_profile("medjudge")

os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parents[1]
# the checkout under test, not whichever copy an editable install points at (git worktrees);
# subprocesses (CLI tests) inherit it through PYTHONPATH
sys.path.insert(0, str(ROOT / "analysis"))
# shared helpers (_studies, robust_support) for the tests in every floor folder
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT / "analysis")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
)
DEMO = ROOT / "data" / "demo"
EXTERNAL = ROOT / "data" / "external"
MAPPINGS = ROOT / "data" / "mappings"
#: bootstrap resamples of the rendered demo reports (modest, to keep the renders fast)
DEMO_RESAMPLES = 300


@pytest.fixture(scope="session")
def demo_reports(tmp_path_factory):
    """Both demo reports rendered twice into the same directory (first copies kept aside):
    ``(files, first)`` with ``files = {kind: {"html": Path, "pdf": Path}}``. Rendered once per
    test session and shared by every test that reads the rendered demo reports."""
    import shutil

    pytest.importorskip("nbclient")
    pytest.importorskip("typst")
    from medjudge.commands.report import command_line, render_reports

    out = tmp_path_factory.mktemp("reports")
    first = tmp_path_factory.mktemp("first")
    cmd = command_line(["report"], "data/demo", {"resamples": DEMO_RESAMPLES})
    files = render_reports(DEMO, out=out, resamples=DEMO_RESAMPLES, command=cmd, workers=2)
    for fmts in files.values():
        for p in fmts.values():
            shutil.copy2(p, first / p.name)
    again = render_reports(DEMO, out=out, resamples=DEMO_RESAMPLES, command=cmd, workers=2)
    assert again == files
    return files, first


@pytest.fixture(scope="session")
def demo_study():
    from medjudge.data.medrewardbench import load_medrewardbench

    return load_medrewardbench(DEMO)


@pytest.fixture(scope="session")
def pandalm_study():
    from medjudge.data.tables import load_any

    return load_any(
        EXTERNAL / "pandalm_testset" / "verdicts_wide.csv", MAPPINGS / "pandalm_wide.toml"
    )


@pytest.fixture(scope="session")
def llmbar_study():
    from medjudge.data.tables import load_any

    return load_any(EXTERNAL / "llmbar" / "verdicts_long.csv", MAPPINGS / "llmbar_long.toml")


#: test modules that render reports, execute notebooks, run simulations or start Spark: marked
#: ``slow`` (``python -m pytest -m "not slow"`` skips them; the README's command runs them all)
SLOW_MODULES = {
    "test_notebooks",
    "test_report_datasets",
    "test_claims",
    "test_reports",
    "test_render",
    "test_robust_faults",
    "test_robust_fuzz",
    "test_engine",
    "test_calibration_intervals",
}


def pytest_collection_modifyitems(config, items):  # noqa: ARG001 - pytest's hook signature
    for item in items:
        if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
