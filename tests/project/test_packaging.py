"""The install gives what the package imports, and nothing else (issue 40 item 5).

A runtime dependency that no module imports costs every user its download (pingouin alone pulls
in scikit-learn); an import with no declared dependency fails on a fresh install. Both are read
from the source and from ``pyproject.toml`` here, not from the environment the tests run in.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

#: import name -> distribution name, where the two differ
DISTRIBUTION = {"ibis": "ibis-framework", "yaml": "pyyaml", "pypandoc": "pypandoc_binary"}
#: base dependencies that are reached through another one, with the reason
REACHED_THROUGH = {"duckdb": "ibis.duckdb.connect (ibis-framework[duckdb]); pinned below 2"}
#: imported only inside the report renderer, from packages its extra installs
REPORT_STACK = {"IPython", "jupyter_client", "jupyter_core", "traitlets"}
#: imported only when present, with a fallback
OPTIONAL = {"orjson"}
#: the notebook renderer's modules, loaded only by ``report`` (the ``report`` extra)
RENDERER = {"render.py", "notebook_markdown.py", "qmd.py"}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _imports(*, top_level_only: bool) -> set[str]:
    """Third-party modules imported by the package (all, or only at module level)."""
    found: set[str] = set()
    for path in (ROOT / "analysis" / "medjudge").rglob("*.py"):
        if top_level_only and path.parent.name == "report" and path.name in RENDERER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = tree.body if top_level_only else ast.walk(tree)
        for node in nodes:
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m != "medjudge"}


def _distribution(module: str) -> str:
    return DISTRIBUTION.get(module, module).lower().replace("_", "-")


def _extra(name: str) -> set[str]:
    return {_name(r) for r in PROJECT["optional-dependencies"][name]}


def test_every_base_dependency_is_imported_by_the_package():
    base = {_name(r) for r in PROJECT["dependencies"]}
    imported = {_distribution(m) for m in _imports(top_level_only=False)}
    unused = base - imported - set(REACHED_THROUGH)
    assert not unused, f"runtime dependencies the package never imports: {sorted(unused)}"


def test_every_module_level_import_is_a_base_dependency():
    base = {_name(r) for r in PROJECT["dependencies"]}
    undeclared = {_distribution(m) for m in _imports(top_level_only=True)} - base
    assert not undeclared, f"imported at module level but not declared: {sorted(undeclared)}"


def test_every_import_is_declared_somewhere():
    declared = {_name(r) for r in PROJECT["dependencies"]}
    for name in PROJECT["optional-dependencies"]:
        declared |= _extra(name)
    modules = _imports(top_level_only=False) - REPORT_STACK - OPTIONAL
    undeclared = {_distribution(m) for m in modules} - declared
    assert not undeclared, f"imported but in no dependency list: {sorted(undeclared)}"


def test_cross_check_libraries_are_an_extra_that_dev_installs():
    base = {_name(r) for r in PROJECT["dependencies"]}
    crosscheck = _extra("crosscheck")
    assert {"pingouin", "krippendorff", "seaborn"} <= crosscheck
    assert not crosscheck & base
    assert "medjudge[crosscheck]" in PROJECT["optional-dependencies"]["dev"]


def test_the_dev_install_fetches_wheels_only_and_downgrades_nothing():
    """PySpark is published as a source archive only, and Inspect's S3 client (botocore) pins
    python-dateutil below 3, which downgrades what the first README command installed: both stay
    out of ``dev`` (and of the README's test command); CI installs them beside ``dev`` so that
    their tests run there."""
    dev = " ".join(PROJECT["optional-dependencies"]["dev"])
    assert "spark" not in dev and "inspect" not in dev
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert '".[dev,spark,inspect]"' in ci


def test_metadata_a_package_index_shows():
    assert PROJECT["license"] == "MIT" and (ROOT / "LICENSE").is_file()
    assert PROJECT["readme"] == "README.md"
    classifiers = PROJECT["classifiers"]
    assert any(c.startswith("Programming Language :: Python :: 3.") for c in classifiers)
    assert any(c.startswith("Topic :: Scientific/Engineering") for c in classifiers)
