"""Every Examples section in the package runs (issue 11: docstrings a statistician trusts).

The examples are documentation: they show a call and its printed result. This test keeps them
runnable — a changed signature or a renamed column fails here instead of misleading a reader.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import medjudge
import pytest

MODULES = sorted(m.name for m in pkgutil.walk_packages(medjudge.__path__, "medjudge."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: a printed decimal number
NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


class PlatformNumbers(doctest.OutputChecker):
    """Issue 39: an example passes on any machine. Where the text differs only in its decimal
    numbers, each printed number may differ from the expected one by one unit of the expected
    number's last printed digit (BLAS summation order) and a zero may print as ``-0.0``."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        wn, gn = NUMBER.findall(want), NUMBER.findall(got)
        if not wn or len(wn) != len(gn):
            return False
        if not super().check_output(NUMBER.sub("#", want), NUMBER.sub("#", got), optionflags):
            return False
        for w, g in zip(wn, gn, strict=True):
            digits = len(w.split(".")[1].split("e")[0])
            scale = 10.0 ** int(w.split("e")[1]) if "e" in w else 1.0
            if abs(float(w) - float(g)) > 1.000001 * 10.0**-digits * scale:
                return False
        return True


def _run(test: doctest.DocTest) -> doctest.TestResults:
    runner = doctest.DocTestRunner(checker=PlatformNumbers(), verbose=False, optionflags=FLAGS)
    runner.run(test)
    return runner.summarize(verbose=False)


def test_the_checker_forgives_signed_zeros_and_last_digits_only():
    c, f = PlatformNumbers(), FLAGS
    assert c.check_output("[0.6667, 0.0]\n", "[0.6667, -0.0]\n", f)  # issue 39's machine
    assert c.check_output("0.1235\n", "0.1234\n", f)
    assert not c.check_output("0.1235\n", "0.1233\n", f)
    assert not c.check_output("[0.6667, 0.0]\n", "[0.6667, 1.0]\n", f)
    assert not c.check_output("mean 0.5\n", "median 0.5\n", f)


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    module = importlib.import_module(name)
    failed = sum(_run(t).failed for t in doctest.DocTestFinder().find(module, name))
    assert failed == 0, f"{failed} failing example(s) in {name}"


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
    """Issue 11: every public name of ``import medjudge as mj`` shows a call that runs; it runs
    in :func:`test_examples_run` of the module that defines it (not run twice)."""
    import inspect

    obj = getattr(medjudge, name)
    tests = [t for t in doctest.DocTestFinder().find(obj, name) if t.examples]
    assert tests, f"mj.{name} has no Examples section"
    home = inspect.getmodule(obj)
    assert home is not None and home.__name__ in MODULES, f"mj.{name}: defined outside medjudge"
    found = doctest.DocTestFinder().find(home, home.__name__)
    assert any(t.docstring == tests[0].docstring for t in found), (
        f"mj.{name}: its example is not among {home.__name__}'s (it would not run)"
    )
