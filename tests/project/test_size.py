"""Smaller pieces (issue 35, item 5): no function over 150 lines, no module over 600.

A function's length is ``end_lineno - lineno + 1`` of its ``def`` (docstring and nested
functions included; a nested function is also measured on its own); a module's is its number of
lines. Every module of the package is walked with :mod:`ast`, and each offender is named.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "analysis" / "medjudge"
MAX_FUNCTION, MAX_MODULE = 150, 600


def oversized(source: str, name: str) -> list[str]:
    """The functions over :data:`MAX_FUNCTION` lines and the module itself if over
    :data:`MAX_MODULE`, each as ``"<name>: <what> <n> lines"``."""
    out = []
    n_lines = len(source.splitlines())
    if n_lines > MAX_MODULE:
        out.append(f"{name}: module {n_lines} lines")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            n = node.end_lineno - node.lineno + 1
            if n > MAX_FUNCTION:
                out.append(f"{name}:{node.lineno}: function {node.name} {n} lines")
    return out


def test_the_measure_names_each_offender():
    body = "\n".join(["    x = 1"] * MAX_FUNCTION)
    inner = "def outer():\n    def inner():\n" + "\n".join(["        y = 2"] * MAX_FUNCTION)
    assert oversized(f"def f():\n{body}\n", "m.py") == ["m.py:1: function f 151 lines"]
    assert oversized(f"def f():\n{body[:-10]}\n", "m.py") == []  # 150 lines: allowed
    assert oversized(inner, "m.py") == [
        "m.py:1: function outer 152 lines",
        "m.py:2: function inner 151 lines",
    ]
    assert oversized("x = 1\n" * (MAX_MODULE + 1), "m.py") == ["m.py: module 601 lines"]


def test_no_function_over_150_lines_and_no_module_over_600():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100  # the package, not an empty folder
    found = [
        line
        for path in modules
        for line in oversized(
            path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix()
        )
    ]
    assert not found, "split by what each part computes:\n" + "\n".join(found)
