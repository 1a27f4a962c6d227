"""The allocator settings of the command line and the report kernels (medjudge._malloc)."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys

import medjudge._malloc as M
import pytest

GLIBC = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION") is not None

CHECK = "from medjudge._malloc import keep_freed_memory_here as k; print(k())"


def _run(env_extra: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in M.KEEP_FREED_MEMORY}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_docstring_example():
    failed, _ = doctest.testmod(M)
    assert failed == 0


def test_kernel_environment_keeps_the_users_settings():
    env = {"MALLOC_TOP_PAD_": "0"}
    M.keep_freed_memory(env)
    assert env["MALLOC_TOP_PAD_"] == "0"
    assert env["MALLOC_TRIM_THRESHOLD_"] == str(256 << 20)
    assert env["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's")
def test_applied_with_glibc():
    assert _run({}) == "True"


def test_not_applied_when_the_user_set_a_variable():
    assert _run({"MALLOC_TRIM_THRESHOLD_": str(1 << 20)}) == "False"
