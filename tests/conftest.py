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


#: the studies whose judges and audit reports are built in-process (not rendered) and read by
#: the claims checker (report/test_claims.py) and the wording tests (report/test_report_text.py)
REPORT_STUDIES = ("demo", "pandalm", "llmbar", "hanna")
#: their settings: intervals at 90% (a typed "95%" cannot hide), few resamples (the words and
#: the levels are under test, not the intervals); HANNA's first 120 stories keep all 6 criteria,
#: 3 experts and 20 judge/prompt raters, so the sections are those of the full table
REPORT_LEVEL, REPORT_ALPHA, REPORT_RESAMPLES, HANNA_STORIES = 0.9, 0.05, 60, 120
_BUILT: dict[str, tuple] = {}


def report_study_files(name: str, folder: Path) -> tuple[Path, Path | None]:
    """(data, mapping) of one of :data:`REPORT_STUDIES` (HANNA's subset written to ``folder``)."""
    if name == "demo":
        return DEMO, None
    if name == "pandalm":
        return EXTERNAL / "pandalm_testset" / "verdicts_wide.csv", MAPPINGS / "pandalm_wide.toml"
    if name == "llmbar":
        return EXTERNAL / "llmbar" / "verdicts_long.csv", MAPPINGS / "llmbar_long.toml"
    import pandas as pd

    t = pd.read_csv(EXTERNAL / "hanna" / "hanna_long.csv")
    keep = sorted(t["story_id"].unique())[:HANNA_STORIES]
    path = folder / "hanna_subset.csv"
    t[t["story_id"].isin(keep)].to_csv(path, index=False)
    return path, MAPPINGS / "hanna_long.toml"


def built_reports(name: str, tmp_path_factory) -> dict:
    """``{"judges": Report, "audit": Report}`` of one of :data:`REPORT_STUDIES`, built once per
    process and shared by the modules that read them (their fixtures are one xdist group, see
    :data:`SHARED_BUILDS`, so once per test run)."""
    if name not in _BUILT:
        from medjudge.data.tables import load_any
        from medjudge.report.audit import audit_report
        from medjudge.report.judges import judges_report

        data, mapping = report_study_files(name, tmp_path_factory.mktemp(name))
        study = load_any(data, mapping)
        settings = dict(
            data=str(data), mapping=None if mapping is None else str(mapping),
            n_resamples=REPORT_RESAMPLES, confidence_level=REPORT_LEVEL, alpha=REPORT_ALPHA,
        )  # fmt: skip
        _BUILT[name] = {"judges": judges_report(study, **settings),
                        "audit": audit_report(study, **settings)}  # fmt: skip
    return _BUILT[name]


#: (module, fixture) -> the build its instances share (one xdist group per parameter value)
SHARED_BUILDS = {("test_claims", "reports"): "built_reports",
                 ("test_report_text", "built"): "built_reports"}  # fmt: skip


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


#: session fixtures that cost more than a few seconds: their tests run in one worker, so that
#: each is built once per run (the cheap study loaders are built once per worker instead)
EXPENSIVE_SESSION_FIXTURES = ("demo_reports",)


def _shared_fixtures(item: pytest.Item) -> list[str]:
    """The instances of module-, class- or expensive session-scoped fixtures a test uses, each
    named by module (or session), fixture and parameter."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    params = getattr(getattr(item, "callspec", None), "params", {})
    module = item.module.__name__ if item.module is not None else item.nodeid
    out = []
    for name in info.names_closure:
        defs = info.name2fixturedefs.get(name)
        if not defs:
            continue
        if name in EXPENSIVE_SESSION_FIXTURES:
            out.append(name)
        elif (module.rsplit(".", 1)[-1], name) in SHARED_BUILDS:
            out.append(f"{SHARED_BUILDS[(module.rsplit('.', 1)[-1], name)]}[{params.get(name)!r}]")
        elif defs[-1].scope in ("module", "class", "package"):
            out.append(
                f"{module}::{name}[{params[name]!r}]" if name in params else f"{module}::{name}"
            )
    return out


def xdist_groups(items: list[pytest.Item]) -> dict[str, str]:
    """The worker group of each test that shares a fixture instance (nodeid -> group) under
    ``pytest -n`` (``--dist loadgroup``, pyproject addopts): tests connected through a module-
    or class-scoped fixture instance (a rendered report, a simulated study; one per parameter
    value) or an expensive session fixture run in one worker, so that each instance is built
    once per run and different datasets still render on different workers. Other tests are
    spread one by one."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    uses = {item.nodeid: _shared_fixtures(item) for item in items}
    for names in uses.values():
        for a, b in zip(names, names[1:], strict=False):
            parent[find(a)] = find(b)
    return {nodeid: find(names[0]) for nodeid, names in uses.items() if names}


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """The whole suite (``python -m pytest``, no paths given) runs on one worker per core when
    pytest-xdist is installed (the ``dev`` extra) and ``-n`` is not given; named files or tests
    run in one process, as does everything without pytest-xdist (``-n 0`` asks for one process,
    ``-n auto`` for workers, in any case). Runs before xdist's own hook, which turns ``auto``
    into the number of cores."""
    if hasattr(config, "workerinput") or not hasattr(config.option, "numprocesses"):
        return
    whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    if whole and config.option.numprocesses is None and not config.option.collectonly:
        config.option.numprocesses = "auto"
        if config.option.dist == "no":
            config.option.dist = "loadgroup"  # see xdist_groups


def pytest_collection_modifyitems(config, items):  # noqa: ARG001 - pytest's hook signature
    for item in items:
        if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    groups = xdist_groups(items)
    for item in items:
        if item.nodeid in groups:
            item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
