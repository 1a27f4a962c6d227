"""The house has floors and imports only go down (issue 11, DESIGN.md "layers").

``stats`` (arrays in, arrays out: numpy/scipy/statsmodels, no Study) < ``data`` and ``engine``
(loading, the data model, columnar reduction) < ``analyses`` (a Study in, a result out) <
``plots`` (one figure per module, drawing a result on a given axes) < ``report`` (sections,
captions and figure sizes, rendering) < ``commands`` (parse arguments, call one analysis, print
or write). A module may import its own floor and the floors below, never above (so ``plots``
may use ``stats``, ``data`` and ``analyses``, the report uses ``plots``, and nothing below
``report`` imports a plot, except the result contract's ``Result.plot`` in
``analyses/_result.py``, which imports ``plots`` inside the method: ``LAZY_UP`` below); the
package loads no module by a computed name except the CLI's
lazy sub-command table and the PEP 562 ``__getattr__`` of the front door and of ``mj.plots``
(and ``_lazy``'s third-party modules).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "analysis" / "medjudge"
FLOOR = {
    "stats": 1, "data": 2, "engine": 2, "analyses": 3, "plots": 4, "report": 5, "commands": 6,
}  # fmt: skip
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] in FLOOR)


def _imported_floors(path: Path, *, module_level: bool = False) -> set[str]:
    """The floors ``path`` imports (only those imported outside any function when
    ``module_level``)."""
    rel = path.relative_to(PACKAGE).parts
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {
        id(n)
        for f in ast.walk(tree)
        if module_level and isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        for n in ast.walk(f)
    }
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in inner:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").startswith("medjudge."):
                out.add(node.module.split(".")[1])
            elif node.level == 0 and node.module == "medjudge":  # from medjudge import plots
                out.update(a.name for a in node.names)
            elif node.level > 0:
                base = list(rel[:-1])[: len(rel) - node.level]
                parts = base + [m for m in (node.module or "").split(".") if m]
                if parts:
                    out.add(parts[0])
                else:  # "from .. import x" at the package root
                    out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("medjudge."))
    return {f for f in out if f in FLOOR}


def test_there_are_modules_on_every_floor():
    assert {p.relative_to(PACKAGE).parts[0] for p in MODULES} == set(FLOOR)


#: the one import that goes up: a result's ``.plot`` hands its own tidy table to ``plots``,
#: imported inside the method (importing an analysis loads no matplotlib, and ``plots`` never
#: imports a result class, so no circle forms); docs/api.md "Results"
LAZY_UP = {"analyses/_result.py": {"plots"}}


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_imports_only_go_down(path):
    own = path.relative_to(PACKAGE).parts[0]
    allowed = LAZY_UP.get(path.relative_to(PACKAGE).as_posix(), set())
    up = sorted(f for f in _imported_floors(path) if FLOOR[f] > FLOOR[own] and f not in allowed)
    assert not up, f"{path.relative_to(PACKAGE)} ({own}) imports from the floor above: {up}"
    eager = sorted(_imported_floors(path, module_level=True) & allowed)
    assert not eager, f"{path.relative_to(PACKAGE)} imports {eager} at module level (lazily only)"


def test_the_layer_scan_sees_a_package_level_import(tmp_path):
    mod = PACKAGE / "analyses" / "_probe_layer.py"
    try:
        mod.write_text("def f():\n    from medjudge import plots\n", encoding="utf-8")
        assert _imported_floors(mod) == {"plots"}
        assert _imported_floors(mod, module_level=True) == set()
    finally:
        mod.unlink(missing_ok=True)


def test_stats_floor_takes_no_study():
    """``stats`` is arrays in, arrays out: no function there takes a ``study``."""
    hits = []
    for p in MODULES:
        if p.relative_to(PACKAGE).parts[0] != "stats":
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args + node.args.kwonlyargs]
                if "study" in names:
                    hits.append(f"{p.relative_to(PACKAGE)}:{node.name}")
    assert not hits, hits


def test_no_module_is_loaded_by_a_computed_name():
    # the CLI's sub-command table, the PEP 562 __getattr__ of the front door and of mj.plots, and
    # _lazy.py (third-party modules such as scipy.stats imported on first use, for start-up time)
    allowed = {
        PACKAGE / "cli.py", PACKAGE / "__init__.py", PACKAGE / "plots" / "__init__.py",
        PACKAGE / "_lazy.py",
    }  # fmt: skip
    hits = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p not in allowed
        and ("import_module(" in (t := p.read_text(encoding="utf-8")) or "optional_module(" in t)
    ]
    assert not hits, hits


#: where process settings may be made: the command line, the report kernel start (the renderer,
#: which sets the kernels' environment) and the module they call; the output folder's atomic
#: swap may call renameat2 through ctypes
PROCESS_POLICY_ALLOWED = {
    "_runtime.py": {"fork", "gc.freeze", "ctypes", "environ", "priority", "mallopt"},
    "cli.py": {"environ"},
    "report/render.py": {"environ"},
    "commands/_output.py": {"ctypes"},
}


def _process_tricks(path: Path) -> set[str]:
    """The process-policy calls in ``path``: forks, gc.freeze, ctypes, environment writes,
    scheduling priority, allocator tuning."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(n.split(".")[0] == "ctypes" for n in names):
                found.add("ctypes")
        elif isinstance(node, ast.Attribute):
            chain = ast.unparse(node)
            if chain in ("os.fork", "os.forkpty", "os.register_at_fork"):
                found.add("fork")
            elif chain == "gc.freeze":
                found.add("gc.freeze")
            elif chain in ("os.setpriority", "os.nice", "os.sched_setaffinity"):
                found.add("priority")
            elif chain.endswith("mallopt"):
                found.add("mallopt")
            elif chain in ("os.putenv", "os.unsetenv") or (
                chain.startswith("os.environ.")
                and node.attr in ("setdefault", "update", "pop", "clear", "__setitem__")
            ):
                found.add("environ")
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and ast.unparse(t.value) == "os.environ":
                    found.add("environ")
    return found


@pytest.mark.parametrize(
    "path",
    sorted(PACKAGE.rglob("*.py")),
    ids=[str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("*.py"))],
)
def test_process_policy_only_at_the_entry_points(path):
    rel = str(path.relative_to(PACKAGE).as_posix())
    extra = _process_tricks(path) - PROCESS_POLICY_ALLOWED.get(rel, set())
    assert not extra, f"{rel}: process policy outside medjudge._runtime / the entry points: {extra}"


def test_the_process_policy_scan_finds_each_trick(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "import os, gc\nimport ctypes\nos.fork()\ngc.freeze()\nos.environ['A'] = '1'\n"
        "os.environ.setdefault('B', '2')\nos.setpriority(0, 0, 1)\nlibc.mallopt(1, 2)\n"
    )
    assert _process_tricks(src) == {"fork", "gc.freeze", "ctypes", "environ", "priority", "mallopt"}
    src.write_text("import os\nx = os.environ.get('A')\nenv = dict(os.environ)\nenv['A'] = '1'\n")
    assert _process_tricks(src) == set()


def test_plots_sit_between_the_analyses_and_the_report():
    """The figures are a floor of their own: the report draws with them, no floor below does,
    and they never reach up into the report (its captions, sizes or escaping)."""
    assert FLOOR["analyses"] < FLOOR["plots"] < FLOOR["report"]
    below = [p for p in MODULES if FLOOR[p.relative_to(PACKAGE).parts[0]] < FLOOR["plots"]]
    assert not [p for p in below if "plots" in _imported_floors(p, module_level=True)]
    lazy = [p for p in below if "plots" in _imported_floors(p)]
    assert [p.relative_to(PACKAGE).as_posix() for p in lazy] == list(LAZY_UP)
    report = [p for p in MODULES if p.relative_to(PACKAGE).parts[0] == "report"]
    assert any("plots" in _imported_floors(p) for p in report)
    plots = [p for p in MODULES if p.relative_to(PACKAGE).parts[0] == "plots"]
    assert plots and not any(_imported_floors(p) & {"report", "commands"} for p in plots)


#: environment variables the renderer sets for its own report kernels and reads back there
RENDERER_INTERNAL = {"MEDJUDGE_RAW_TOKEN", "MEDJUDGE_COMMAND", "MEDJUDGE_PROGRESS"}


def _environment_reads(source: str) -> list[str]:
    """Names of the environment variables a module reads (``os.environ.get``, ``os.getenv``,
    ``os.environ[...]``), resolving module-level string constants used as the name."""
    tree = ast.parse(source)
    consts = {
        t.id: n.value.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
        for t in n.targets
        if isinstance(t, ast.Name) and isinstance(n.value.value, str)
    }

    def is_environ(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
            isinstance(node, ast.Name) and node.id == "environ"
        )

    def name_of(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return consts.get(node.id, f"<{node.id}>")
        return None

    out = []
    for node in ast.walk(tree):
        arg = None
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in ("get", "pop") and is_environ(f.value):
                arg = node.args[0]
            elif (isinstance(f, ast.Attribute) and f.attr == "getenv") or (
                isinstance(f, ast.Name) and f.id == "getenv"
            ):
                arg = node.args[0]
        elif isinstance(node, ast.Subscript) and is_environ(node.value):
            arg = node.slice
        name = name_of(arg) if arg is not None else None
        if name is not None:
            out.append(name)
    return out


ALL_MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize(
    "path", ALL_MODULES, ids=[str(p.relative_to(PACKAGE)) for p in ALL_MODULES]
)
def test_medjudge_environment_variables_are_read_in_cli_only(path):
    """``MEDJUDGE_*`` settings are read by ``cli.py`` and passed down as arguments
    (``memory_rows=``, ``memory_limit=``, ``spark_master=``, the renderer); only the renderer's
    own kernel variables are read back inside ``report/``."""
    rel = path.relative_to(PACKAGE)
    if str(rel) == "cli.py":
        return
    reads = [n for n in _environment_reads(path.read_text(encoding="utf-8"))
             if n.startswith("MEDJUDGE_") or n.startswith("<")]  # fmt: skip
    allowed = RENDERER_INTERNAL if rel.parts[0] == "report" else set()
    bad = [n for n in reads if n not in allowed]
    assert not bad, f"{rel} reads {bad} from the environment; read it in cli.py, pass it down"


def test_the_environment_scan_finds_each_form():
    src = (
        "import os\nfrom os import environ, getenv\nK = 'MEDJUDGE_X'\n"
        "a = os.environ.get('MEDJUDGE_A')\nb = os.getenv('MEDJUDGE_B')\n"
        "c = os.environ['MEDJUDGE_C']\nd = environ.get(K)\ne = getenv('MEDJUDGE_E', '1')\n"
    )
    assert sorted(_environment_reads(src)) == [
        "MEDJUDGE_A", "MEDJUDGE_B", "MEDJUDGE_C", "MEDJUDGE_E", "MEDJUDGE_X",
    ]  # fmt: skip


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_imports(path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``path`` imports anywhere in the file (type-checking blocks and
    function bodies included: a circle through a lazy import is still a circle to a reader)."""
    name = _module_name(path)
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            target = ".".join(base + [m for m in (node.module or "").split(".") if m])
            for alias in node.names:  # "from .x import y": y may be a module
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in known else target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in known and m != name}


def test_no_import_circle_in_the_package():
    """DESIGN "layers": no two modules import each other, directly or through others (the one
    lazy upward import, ``Result.plot`` -> ``plots``, closes no circle either)."""
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {_module_name(p) for p in paths}
    graph = {_module_name(p): _package_imports(p, known) for p in paths}
    graph["medjudge"] = set()  # the front door loads names lazily (PEP 562), never at import
    state: dict[str, int] = {}
    circles: list[str] = []

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                circles.append(" -> ".join(trail[trail.index(n) :] + [n]))
            elif n not in state:
                visit(n, [*trail, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not circles, "import circles:\n" + "\n".join(circles)


# --- issue 35, item 5: imports inside functions only for optional heavy dependencies ----------

#: (module, medjudge module it imports inside a function) -> why not at the top. Only optional
#: heavy dependencies may load on use: matplotlib (``plots``), the notebook renderer (nbformat,
#: ``report.render``/``report.qmd``), and the CLI's start-up (``medjudge --help`` loads no
#: pandas: tests/project/test_namespace.py). Everything else is imported at the module's top.
FUNCTION_IMPORTS = {
    ("analyses/_result.py", "medjudge.plots"): "matplotlib; the one upward import (LAZY_UP)",
    ("cli.py", "medjudge._runtime"): "start-up: the entry point loads a command on use",
    ("cli.py", "medjudge.data.errors"): "start-up: medjudge.data loads pandas",
    ("cli.py", "medjudge.report.escape"): "start-up: only to print an error",
    ("commands/_gold_tables.py", "medjudge.analyses.score_study"): "scipy.stats (0.6 s at "
    "start-up) for score dimensions only",
    ("commands/report.py", "medjudge.report.qmd"): "nbformat (the renderer)",
    ("commands/report.py", "medjudge.report.render"): "nbformat (the renderer)",
    ("commands/run.py", "medjudge.report.render"): "nbformat (the renderer)",
    ("report/keep_source.py", "medjudge.report.qmd"): "nbformat (the renderer)",
}


def _function_imports(path: Path) -> set[tuple[str, str]]:
    """``(module, imported medjudge module)`` for every import of a medjudge module inside a
    function of ``path`` (relative imports resolved; ``from . import x`` names ``….x``)."""
    rel = path.relative_to(PACKAGE).as_posix()
    here = ["medjudge", *rel.split("/")[:-1]]
    out = set()
    for f in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(f):
            if isinstance(node, ast.Import):
                out |= {(rel, a.name) for a in node.names if a.name.startswith("medjudge")}
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:
                    mod = ".".join([*here[: len(here) - node.level + 1], *[m for m in [mod] if m]])
                if mod.split(".")[0] != "medjudge":
                    continue
                if not node.module or mod == "medjudge":  # from . import x / from medjudge import x
                    out |= {(rel, f"{mod}.{a.name}") for a in node.names}
                else:
                    out.add((rel, mod))
    return out


def test_function_level_imports_are_only_for_heavy_dependencies():
    found = set().union(*(_function_imports(p) for p in sorted(PACKAGE.rglob("*.py"))))
    assert found <= set(FUNCTION_IMPORTS), sorted(found - set(FUNCTION_IMPORTS))
    assert set(FUNCTION_IMPORTS) <= found, ("gone, remove:", sorted(set(FUNCTION_IMPORTS) - found))


def test_the_function_import_scan_resolves_relative_imports():
    mod = PACKAGE / "analyses" / "_probe_imports.py"
    try:
        mod.write_text(
            "def f():\n    from ..stats import groups\n    from .design import x\n"
            "    from . import policies\n",
            encoding="utf-8",
        )
        assert _function_imports(mod) == {
            ("analyses/_probe_imports.py", "medjudge.stats"),
            ("analyses/_probe_imports.py", "medjudge.analyses.design"),
            ("analyses/_probe_imports.py", "medjudge.analyses.policies"),
        }
    finally:
        mod.unlink(missing_ok=True)
