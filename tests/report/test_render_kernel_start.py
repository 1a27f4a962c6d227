"""A report kernel that exits before it answers is started again (medjudge.report.render)."""

from __future__ import annotations

import nbformat
import pytest
from medjudge.report import render


def _notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(6 * 7)")]
    return nb


def _failing_starts(monkeypatch, n_failures: int, message: str) -> list[int]:
    from nbclient import NotebookClient

    real = NotebookClient.execute
    calls: list[int] = []

    def execute(self, **kwargs):
        calls.append(1)
        if len(calls) <= n_failures:
            raise RuntimeError(message)
        return real(self, **kwargs)

    monkeypatch.setattr(NotebookClient, "execute", execute)
    return calls


def test_a_kernel_that_died_at_start_is_started_again(monkeypatch, tmp_path):
    calls = _failing_starts(monkeypatch, 2, "Kernel died before replying to kernel_info")
    nb = render.execute_notebook(_notebook(), cwd=tmp_path)
    assert len(calls) == 3
    assert nb.cells[0].outputs[0]["text"] == "42\n"


def test_after_the_last_attempt_one_line_names_the_notebook(monkeypatch, tmp_path):
    calls = _failing_starts(monkeypatch, 99, "Kernel died before replying to kernel_info")
    with pytest.raises(render.RenderError, match=r"judges\.qmd: the Python kernel did not start"):
        render.execute_notebook(_notebook(), cwd=tmp_path, path="judges.qmd")
    assert len(calls) == render.KERNEL_START_ATTEMPTS


def test_other_runtime_errors_are_not_retried(monkeypatch, tmp_path):
    calls = _failing_starts(monkeypatch, 1, "something else")
    with pytest.raises(RuntimeError, match="something else"):
        render.execute_notebook(_notebook(), cwd=tmp_path)
    assert len(calls) == 1
