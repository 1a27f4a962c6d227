"""The data model's modules import one way: ``model`` uses its helper modules, which read a
study through ``data.interface.StudyLike`` and never import ``model`` (not even for type
hints), so the modules of ``medjudge.data`` form no import circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "analysis" / "medjudge" / "data"
HELPERS = ["accounting", "design", "gold", "outcomes", "ratings", "interface"]


def _imports(module: str) -> set[str]:
    """The sibling modules of ``medjudge.data`` that ``module`` imports (anywhere in the file)."""
    out: set[str] = set()
    tree = ast.parse((DATA / f"{module}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                out.add(node.module.split(".")[0])
            elif node.level == 1:  # from . import x
                out.update(a.name for a in node.names)
            elif (node.module or "").startswith("medjudge.data."):
                out.add(node.module.split(".")[2])
    return out


@pytest.mark.parametrize("module", HELPERS)
def test_helpers_do_not_import_the_model(module):
    assert "model" not in _imports(module), f"data/{module}.py imports data/model.py"


def test_no_import_circle_in_data():
    modules = sorted(p.stem for p in DATA.glob("*.py") if p.stem != "__init__")
    graph = {m: _imports(m) & set(modules) for m in modules}
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycle = path[path.index(n) :] + [n]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if n not in state:
                visit(n, [*path, n])
        state[m] = 2

    for m in modules:
        if m not in state:
            visit(m, [m])


def test_study_still_answers_for_its_helpers():
    """Study is the implementation of StudyLike: every name the protocol lists exists on it."""
    from medjudge.data.interface import StudyLike
    from medjudge.data.model import Study

    protocol_machinery = {"_abc_impl", "_is_protocol", "_is_runtime_protocol"}
    names = {n for n in vars(StudyLike) if not n.startswith("__")} - protocol_machinery
    names |= set(StudyLike.__annotations__)
    missing = [
        n for n in sorted(names) if not hasattr(Study, n) and n not in Study.__dataclass_fields__
    ]
    assert not missing, missing
