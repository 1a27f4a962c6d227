"""Execute every notebook in notebooks/ (kernel python3, cwd = notebooks/) and fail on any cell error.

Each notebook ends with a published-vs-reproduced table checked by
``mj.published.check_published``, which raises when a reproduced value drifts beyond its stated
tolerance — so a drift fails this test. Notebooks are stored without outputs, and they use the
library through its front door only (``import medjudge as mj``).
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = int(os.environ.get("MEDJUDGE_NB_CELL_TIMEOUT", "300"))


def test_notebooks_found():
    assert len(NOTEBOOKS) >= 6, [p.name for p in NOTEBOOKS]


def front_door_violations(source: str) -> list[str]:
    """Ways a code cell reaches medjudge other than ``import medjudge as mj`` and ``mj.<public>``.

    Flags ``import medjudge.x`` / ``import medjudge`` without ``as mj``, ``from medjudge[.x]
    import ...``, ``importlib.import_module("medjudge...")`` / ``__import__("medjudge...")``,
    and ``mj.<name>`` for a name that is not on the front door (a deep import elsewhere makes
    ``mj.stats`` reachable at run time, so this is checked too).
    """
    import medjudge

    # IPython lines (magics, shell escapes) are not Python: blank them, keeping line numbers
    code = "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )
    bad = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "medjudge" and (a.name, a.asname) != ("medjudge", "mj"):
                    as_ = f" as {a.asname}" if a.asname else ""
                    bad.append(f"line {node.lineno}: import {a.name}{as_}")
        elif isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] == "medjudge":
                bad.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Call) and node.args:
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            arg = node.args[0]
            if (
                name in ("import_module", "__import__")
                and isinstance(arg, ast.Constant)
                and str(arg.value).split(".")[0] == "medjudge"
            ):
                bad.append(f"line {node.lineno}: {name}({arg.value!r})")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "mj"
            and node.attr not in medjudge.__all__
        ):
            bad.append(f"line {node.lineno}: mj.{node.attr} is not on the front door")
    return bad


@pytest.mark.parametrize(
    "source",
    [
        "from medjudge.stats.agreement import fleiss_kappa",
        "from medjudge import Bootstrap",
        "import medjudge.stats.accuracy",
        "import medjudge",
        "import medjudge as m",
        "import importlib\nimportlib.import_module('medjudge.notebook_utils')",
        "import medjudge as mj\nmj.stats.agreement.fleiss_kappa",
    ],
)
def test_front_door_check_flags_deep_imports(source):
    """The check below can fail: every way around the front door is caught."""
    assert front_door_violations(source), source


def test_front_door_check_accepts_the_front_door():
    ok = "import medjudge as mj\n%matplotlib inline\nmj.fleiss_kappa\nmj.published.check_published"
    assert front_door_violations(ok) == []


def _code_cell_findings(path: Path, scan) -> list[str]:
    """``"cell i, finding"`` for every finding of ``scan`` in each code cell of ``path``."""
    nb = nbformat.read(path, as_version=4)
    return [
        f"cell {i}, {v}"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for v in scan(c.source)
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_uses_the_front_door_only(path):
    """Notebooks reach medjudge through ``import medjudge as mj`` only (no deep imports)."""
    bad = _code_cell_findings(path, front_door_violations)
    assert not bad, f"{path.name} goes around `import medjudge as mj`: " + "; ".join(bad)


#: matplotlib calls that draw an interval (or a band) by hand
_INTERVAL_CALLS = {"errorbar", "hlines", "vlines", "fill_between", "fill_betweenx", "axvspan",
                   "axhspan", "broken_barh"}  # fmt: skip
#: calls that draw marks, and the interval columns whose use in them draws an interval by hand
_MARK_CALLS = {"plot", "scatter", "bar", "barh", "step", "stairs"}
_INTERVAL_NAMES = {"ci_low", "ci_high", "ci_lower", "ci_upper", "lower", "upper"}


def hand_drawn_intervals(source: str) -> list[str]:
    """Places where a code cell draws an interval itself instead of ``result.plot(...)``:
    a call of ``errorbar``/``hlines``/``vlines``/``fill_between``/``axvspan`` …, a call with
    ``xerr=``/``yerr=``, or a mark-drawing call (``plot``, ``scatter``, ``barh`` …) that uses
    an interval bound (``ci_low``, ``ci_high`` …), or a plot function called on a table the
    cell built (``mj.plots.forest_plot(...)``)."""
    code = "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )
    bad = []
    for node in ast.walk(ast.parse(code)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(owner, ast.Attribute) and owner.attr == "plots":
            bad.append(f"line {node.lineno}: mj.plots.{name}(...) of a hand-built table")
        elif name in _INTERVAL_CALLS:
            bad.append(f"line {node.lineno}: .{name}(...)")
        elif any(k.arg in ("xerr", "yerr") for k in node.keywords):
            bad.append(f"line {node.lineno}: xerr=/yerr=")
        elif name in _MARK_CALLS:
            used = {
                n.value if isinstance(n, ast.Constant) else n.attr
                for arg in [*node.args, *(k.value for k in node.keywords)]
                for n in ast.walk(arg)
                if isinstance(n, ast.Constant | ast.Attribute)
            }
            hit = sorted(_INTERVAL_NAMES & {u for u in used if isinstance(u, str)})
            if hit:
                bad.append(f"line {node.lineno}: .{name}(...) of {', '.join(hit)}")
    return bad


@pytest.mark.parametrize(
    "source",
    [
        "ax.errorbar(x, y, xerr=[x - lo, hi - x], fmt='o')",
        "plt.errorbar(x, y)",
        "ax.hlines(y, t['ci_low'], t['ci_high'])",
        "ax.plot([r.ci_low, r.ci_high], [i, i], color='C0')",
        "ax.scatter(x, y, xerr=e)",
        "ax.fill_betweenx(y, lo, hi)",
        "ax.barh(y, width, xerr=e)",
        "mj.plots.forest_plot(table, ax=ax)",
    ],
)
def test_hand_drawn_interval_check_flags(source):
    """The check below can fail: each way of drawing an interval by hand is caught."""
    assert hand_drawn_intervals(source), source


def test_hand_drawn_interval_check_accepts_result_plots():
    ok = (
        "%matplotlib inline\nev.plot('forest', ax=ax, where={'dimension': 'overall'})\n"
        "ax.plot(published, y, 'x')\nax.axvline(0.5)\nax.set_xlabel(f'{t.ci_method.iloc[0]}')"
    )
    assert hand_drawn_intervals(ok) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_draws_intervals_with_result_plot(path):
    """Every interval in a notebook's figures is drawn by a result's ``.plot(...)`` (issue 35),
    never by hand (``ax.errorbar`` …)."""
    bad = _code_cell_findings(path, hand_drawn_intervals)
    assert not bad, f"{path.name} draws intervals by hand (use result.plot): " + "; ".join(bad)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    assert not dirty, (
        f"{path.name}: cells {dirty} have outputs; strip them (jupyter nbconvert --clear-output)"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_opens_with_title_question_and_sources(path):
    """Issue 15: a title, the question it answers, and published-vs-ours with the source of each."""
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "markdown", f"{path.name}: first cell is not markdown"
    assert first.source.startswith("# "), f"{path.name}: first cell has no '# ' title"
    assert "**Question.**" in first.source, f"{path.name}: no '**Question.**' in the opening cell"
    assert "Published value vs our value" in first.source, path.name
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "check_published(" in code and '"source"' in code, (
        f"{path.name}: no published-vs-ours table with a source column"
    )


# a float printed with 7+ decimals (0.7234567891) is not formatted for people
_RAW_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{7,}(?![\d])")


def _output_texts(nb):
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text = out.get("text") or data.get("text/html") or data.get("text/plain") or ""
            yield i, out, "".join(text) if isinstance(text, list) else text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path):
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    # the kernel inherits this: the inline backend puts each figure in the outputs (checked below),
    # where Agg would draw them nowhere
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:  # the message holds the failing cell and its traceback
        pytest.fail(f"{path.name} failed:\n{str(exc)[-4000:]}")
    outs = list(_output_texts(nb))
    images = [i for i, out, _ in outs if {"image/png", "image/svg+xml"} & set(out.get("data", {}))]
    assert images, f"{path.name}: no figure in the executed notebook"
    raw = [(i, m) for i, _, text in outs for m in _RAW_FLOAT.findall(text)]
    assert not raw, f"{path.name}: unformatted numbers (cell, value): {raw[:5]}"
