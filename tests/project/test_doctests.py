"""Every Examples section in the package runs (issue 11: docstrings a statistician trusts).

The examples are documentation: they show a call and its printed result. This test keeps them
runnable — a changed signature or a renamed column fails here instead of misleading a reader.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import medjudge
import pytest

MODULES = sorted(m.name for m in pkgutil.walk_packages(medjudge.__path__, "medjudge."))


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
    )
    assert result.failed == 0, f"{result.failed} failing example(s) in {name}"


def test_the_examples_exist():
    """The package carries examples (not a test that passes on an empty set)."""
    total = 0
    for name in MODULES:
        finder = doctest.DocTestFinder()
        total += sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
    assert total >= 150


def test_docs_api_lists_the_whole_front_door():
    """docs/api.md names every public name of ``import medjudge as mj`` (and no other)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`mj\.([A-Za-z_]+)`", text))
    assert listed == set(medjudge._API)


@pytest.mark.parametrize("name", sorted(medjudge._API))
def test_every_front_door_name_has_a_runnable_example(name):
    """Issue 11: every public name of ``import medjudge as mj`` shows a call that runs."""
    obj = getattr(medjudge, name)
    tests = [t for t in doctest.DocTestFinder().find(obj, name) if t.examples]
    assert tests, f"mj.{name} has no Examples section"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in tests[:1]:
        runner.run(t)
    assert runner.failures == 0, f"mj.{name}: {runner.failures} failing example line(s)"
