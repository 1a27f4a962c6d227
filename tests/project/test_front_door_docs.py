"""Every public name of ``import medjudge as mj`` has a complete numpydoc docstring.

Issue 26 item 6: numpydoc validation of the front door runs in the suite. A docstring counts a
section only when its header line is followed by a line of dashes (numpydoc's format), so a
word "References" inside a sentence does not pass. ``Returns`` is not required for classes
(their constructor returns the instance).
"""

from __future__ import annotations

import inspect
import re
import types

import medjudge
import pytest

#: Front-door names whose docstrings still lack sections (known gap, listed in the closing note;
#: an empty set is the goal: remove a name when its docstring is complete).
IN_PROGRESS: set[str] = set()

NAMES = sorted(
    name for name in medjudge._API if not isinstance(getattr(medjudge, name), types.ModuleType)
)


def sections(doc: str) -> set[str]:
    """Names of the numpydoc sections in ``doc``: a title line, then a line of dashes."""
    lines = [line.strip() for line in doc.splitlines()]
    return {
        title
        for title, rule in zip(lines, lines[1:], strict=False)
        if title and re.fullmatch(r"-{3,}", rule) and len(rule) == len(title)
    }


def required(obj) -> list[str]:
    need = ["Parameters", "References", "Examples"]
    if not inspect.isclass(obj):
        need.insert(1, "Returns")
    return need


@pytest.mark.parametrize("name", NAMES)
def test_front_door_docstring_has_numpydoc_sections(name):
    if name in IN_PROGRESS:
        pytest.skip(f"mj.{name}: docstring being completed on another branch")
    obj = getattr(medjudge, name)
    doc = inspect.getdoc(obj) or ""
    missing = [s for s in required(obj) if s not in sections(doc)]
    assert not missing, f"mj.{name} docstring lacks numpydoc section(s): {', '.join(missing)}"


@pytest.mark.parametrize("name", NAMES)
def test_every_parameter_is_documented(name):
    """Each argument of the signature appears as an entry of the Parameters section."""
    if name in IN_PROGRESS:
        pytest.skip(f"mj.{name}: docstring being completed on another branch")
    obj = getattr(medjudge, name)
    doc = inspect.getdoc(obj) or ""
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        pytest.skip(f"mj.{name} has no inspectable signature")
    block = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-{3,}\n|\Z)", doc, re.S | re.M)
    documented = set()
    if block:
        for line in block.group(1).splitlines():
            if line and not line[0].isspace():
                head = line.split(":")[0]
                documented.update(p.strip().lstrip("*") for p in head.split(","))
    names = [p for p in params if p not in ("self", "cls")]
    missing = [p for p in names if p not in documented]
    assert not missing, f"mj.{name}: parameters not documented: {', '.join(missing)}"


def test_the_check_sees_the_front_door():
    """Not a test that passes on an empty set: most of the 37 names are functions/classes."""
    assert len(NAMES) >= 30
    assert sections("Title\n-----\nbody\nOther\n---\n") == {"Title"}
