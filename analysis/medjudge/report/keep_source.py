"""``report --keep-source``: the ``.qmd``, its data and its parameters, renderable by Quarto.

:func:`write_source` writes into ``<out>/source/``:

* ``<name>.qmd`` — the template the report was rendered from, its parameters cell followed by
  the values this report used (as Quarto and papermill inject them), so ``quarto render
  <name>.qmd`` needs no option;
* ``params.yml`` — the same values, for ``quarto render <name>.qmd --execute-params params.yml``;
* ``data/`` — copies of the study's input (the table or bundle folder, the files its mapping
  joins) and its mapping, which the parameters name by relative paths: Quarto and the built-in
  renderer run the chunks in the document's folder, so the source folder can be moved or sent
  as a whole.

The input files are named as they were, so the report's provenance (input names and SHA-256)
is the same whichever copy is rendered.
"""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["SOURCE_DIR", "write_source", "with_parameters"]

#: the folder of the kept source inside a report's output folder
SOURCE_DIR = "source"


def with_parameters(qmd: str, params: Mapping[str, Any], path: str = "<qmd>") -> str:
    """``qmd`` with ``name = value`` lines appended to its parameters chunk (later assignments
    win, as when Quarto injects parameters); values are Python literals written with ``repr``.

    >>> src = '```{python}\\n#| tags: [parameters]\\nseed = 0\\n```\\n'
    >>> print(with_parameters(src, {"seed": 3}))
    ```{python}
    #| tags: [parameters]
    seed = 0
    # parameters of this report (medjudge report --keep-source)
    seed = 3
    ```
    <BLANKLINE>
    """
    lines = qmd.splitlines(keepends=True)
    start = next(
        (k for k, ln in enumerate(lines) if ln.strip().replace(" ", "") == "#|tags:[parameters]"),
        None,
    )
    if start is None:
        raise ValueError(f"{path}: no chunk tagged 'parameters' to hold the report's parameters")
    end = next(k for k in range(start, len(lines)) if lines[k].startswith("```"))
    block = ["# parameters of this report (medjudge report --keep-source)\n"]
    block += [f"{k} = {v!r}\n" for k, v in params.items()]
    return "".join(lines[:end] + block + lines[end:])


def _copy(src: Path, dest_dir: Path) -> Path:
    """Copy a file or folder into ``dest_dir`` under its own name; return the copy."""
    dest = dest_dir / src.name
    if src.is_dir():
        shutil.copytree(src, dest)
    else:
        shutil.copy2(src, dest)
    return dest


def write_source(
    template: str | Path,
    params: Mapping[str, Any],
    out: str | Path,
    *,
    command: str | None = None,
) -> dict[str, Path]:
    """Write the kept source of one report into ``out/source`` (module docstring).

    Parameters
    ----------
    template : path
        The ``.qmd`` the report was rendered from.
    params : mapping
        The parameters it was rendered with (``data`` and ``mapping`` as absolute paths).
    out : path
        The report's output folder (a staging folder medjudge owns).
    command : str, optional
        The command line the report records in its provenance; kept as the ``command``
        parameter when the template declares one (the built-in templates do), so a render of
        the source records the same line.

    Returns
    -------
    dict
        ``{"qmd": path, "params": path, "data": path[, "mapping": path]}`` of what was written.
    """
    import yaml

    src_dir = Path(out) / SOURCE_DIR
    data_dir = src_dir / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    values = dict(params)
    written: dict[str, Path] = {}
    data = Path(values["data"])
    if not (data_dir / data.name).exists():
        written["data"] = _copy(data, data_dir)
    else:
        written["data"] = data_dir / data.name
    values["data"] = f"data/{data.name}"
    if values.get("mapping"):
        mapping = Path(values["mapping"])
        if not (data_dir / mapping.name).exists():
            _copy(mapping, data_dir)
        written["mapping"] = data_dir / mapping.name
        values["mapping"] = f"data/{mapping.name}"
        with open(mapping, "rb") as fh:
            joined = tomllib.load(fh).get("join", [])
        for extra in [joined] if isinstance(joined, str) else joined:
            p = Path(extra)
            if not p.is_absolute() and len(p.parts) == 1 and not (data_dir / p.name).exists():
                _copy(data.parent / p, data_dir)  # joined files sit beside the table
    tpl = Path(template)
    text = tpl.read_text(encoding="utf-8")
    if command is not None:
        from .qmd import parameter_names, parse_qmd

        if "command" in parameter_names(parse_qmd(text, path=str(tpl))):
            values["command"] = command
    qmd = src_dir / tpl.name
    qmd.write_text(with_parameters(text, values, str(tpl)), encoding="utf-8")
    pfile = src_dir / "params.yml"
    pfile.write_text(yaml.safe_dump(values, sort_keys=False, allow_unicode=True),
                     encoding="utf-8")  # fmt: skip
    written.update(qmd=qmd, params=pfile)
    return written
