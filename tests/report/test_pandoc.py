"""Which pandoc the renderer runs (medjudge.report.pandoc)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pypandoc = pytest.importorskip("pypandoc")

from medjudge.report import pandoc  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_cache():
    pandoc.pandoc_path.cache_clear()
    pandoc.pandoc_version.cache_clear()
    yield
    pandoc.pandoc_path.cache_clear()
    pandoc.pandoc_version.cache_clear()


def test_the_shipped_binary_is_used(monkeypatch):
    monkeypatch.delenv("PYPANDOC_PANDOC", raising=False)
    shipped = Path(pypandoc.__file__).resolve().parent / "files"
    if not shipped.is_dir():
        pytest.skip("pypandoc without a shipped binary (pypandoc, not pypandoc_binary)")
    assert Path(pandoc.pandoc_path()).parent == shipped


def test_version_agrees_with_pypandoc(monkeypatch):
    # independent reading: pypandoc's own probe of the same binary
    monkeypatch.setenv("PYPANDOC_PANDOC", pandoc.pandoc_path())
    assert pandoc.pandoc_version() == pypandoc.get_pandoc_version()


def test_pypandoc_pandoc_names_the_binary(monkeypatch, tmp_path):
    fake = tmp_path / "pandoc"
    fake.write_text("#!/bin/sh\necho 'pandoc 9.8.7'\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PYPANDOC_PANDOC", str(fake))
    assert pandoc.pandoc_path() == str(fake)
    if os.name != "nt":
        assert pandoc.pandoc_version() == "9.8.7"


def test_a_binary_that_does_not_run_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("PYPANDOC_PANDOC", str(tmp_path / "absent"))
    with pytest.raises(pandoc.PandocNotFound, match="does not run"):
        pandoc.pandoc_version()
