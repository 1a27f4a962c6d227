"""The README's Python example runs as pasted (extracted from README.md and executed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_block_runs_as_pasted(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has no Python example"
    code = "\n".join(blocks)
    script = tmp_path / "readme_example.py"
    script.write_text(code, encoding="utf-8")
    # run from the repository root as a user would, in a fresh interpreter
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
