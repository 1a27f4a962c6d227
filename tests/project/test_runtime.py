"""Process settings of the entry points (medjudge._runtime): numpy.f2py / numpy.testing deferred
on the command line and in report kernels, never on ``import medjudge``."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_scipy_no_longer_runs_them_and_a_user_gets_the_real_modules() -> None:
    out = _python(
        """
        import sys
        from medjudge._runtime import defer_numpy_extras
        print(defer_numpy_extras())
        import scipy.special, scipy.stats
        print(type(sys.modules["numpy.f2py"]).__name__, "charset_normalizer" in sys.modules)
        import numpy, numpy.testing
        numpy.testing.assert_allclose(1.0, 1.0)  # the first attribute access runs it
        print(type(numpy.testing).__name__, callable(numpy.f2py.run_main))
        """
    )
    assert out.splitlines() == [
        "['numpy.f2py', 'numpy.testing']",
        "_LazyModule False",
        "module True",
    ]


def test_without_it_scipy_imports_them() -> None:
    # the reason for the module: if scipy stops doing this, the deferral can go
    out = _python(
        """
        import sys, scipy.special
        print("numpy.f2py" in sys.modules, "numpy.testing" in sys.modules)
        """
    )
    assert out == "True True"


def test_already_imported_or_not_numpy_is_left_alone() -> None:
    out = _python(
        """
        import sys, numpy.testing
        from medjudge._runtime import defer_numpy_extras
        print(defer_numpy_extras(("numpy.testing", "json.decoder", "numpy.no_such_module")))
        print(type(sys.modules["numpy.testing"]).__name__)
        """
    )
    assert out.splitlines() == ["[]", "module"]


def test_the_command_line_defers_them_and_the_results_do_not_change(tmp_path) -> None:
    from medjudge.cli import main

    study, a, b = (str(tmp_path / x) for x in ("sim", "cli", "in_process"))
    assert main(["simulate", "--items", "60", "--out", study, "--quiet"]) == 0
    out = _python(
        f"""
        import sys, medjudge.cli as cli
        cli._exit_now = lambda code: None
        sys.argv = ["medjudge", "run", {study!r}, "--report", "none", "--out", {a!r}, "--quiet"]
        cli.main()
        print(type(sys.modules["numpy.f2py"]).__name__)
        """
    )
    assert out.splitlines()[-1] == "_LazyModule"
    # in-process main(argv) (notebooks, tests) leaves numpy as it is; the tables are the same
    assert main(["run", study, "--report", "none", "--out", b, "--quiet"]) == 0
    tables = sorted(p.name for p in (tmp_path / "cli").glob("*.csv"))
    assert "judge_vs_gold.csv" in tables
    for name in [*tables, "validation.json"]:
        assert (tmp_path / "cli" / name).read_bytes() == (
            tmp_path / "in_process" / name
        ).read_bytes()


def test_report_kernels_defer_them_and_keep_the_namespace_clean(tmp_path) -> None:
    import nbformat
    from medjudge.report.render import execute_notebook

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import gc, sys, scipy.special\n"
            "print(type(sys.modules['numpy.f2py']).__name__, "
            "sorted(k for k in dir() if k.startswith('_mj')), gc.get_freeze_count() > 0)"
        )
    ]
    out = execute_notebook(nb, cwd=tmp_path)
    assert out.cells[0].outputs[0]["text"] == "_LazyModule [] True\n"


def test_import_medjudge_changes_nothing_in_the_process() -> None:
    out = _python(
        """
        import gc, os, sys
        before = dict(os.environ)
        import medjudge as mj
        mj.load  # the lazy front door
        import medjudge.report.document, medjudge.analyses.judge_vs_gold
        print("numpy.f2py" in sys.modules and type(sys.modules["numpy.f2py"]).__name__,
              gc.get_freeze_count(), dict(os.environ) == before)
        """
    )
    assert out.split()[1:] == ["0", "True"]


def test_kernel_environment_keeps_user_settings() -> None:
    from medjudge._runtime import kernel_environment

    env = kernel_environment({"MKL_NUM_THREADS": "8"})
    assert env["MKL_NUM_THREADS"] == "8" and env["OPENBLAS_NUM_THREADS"] == "1"
    assert env["MALLOC_TRIM_THRESHOLD_"] == str(256 << 20)
