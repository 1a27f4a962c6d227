"""Issue 40 item 8: ``report --keep-source`` writes the ``.qmd``, its data and its parameters;
everything they reference exists, and the built-in renderer gives the same report from them
(after the source folder is moved elsewhere)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from medjudge.commands.report import template_path
from medjudge.data.synthetic_calibration import MAPPING, calibration_table
from medjudge.report.keep_source import write_source
from medjudge.report.qmd import parameter_names, parse_qmd
from robust_support import cli

pytest.importorskip("nbclient")


def _declared(qmd: Path) -> list[str]:
    return parameter_names(parse_qmd(qmd.read_text(encoding="utf-8"), path=str(qmd)))


def test_kept_source_is_complete_and_renders_the_same_report(tmp_path) -> None:
    from medjudge.report.render import render_qmd

    calibration_table(120, seed=3).to_csv(tmp_path / "study.csv", index=False)
    (tmp_path / "study.toml").write_text(MAPPING, encoding="utf-8")
    out = tmp_path / "out"
    rc, _, err = cli(["report", tmp_path / "study.csv", "--mapping", tmp_path / "study.toml",
                      "--kind", "judges", "--to", "html", "--resamples", 30, "--keep-source",
                      "--checklist", "stard", "--out", out])  # fmt: skip
    assert rc == 0, err
    src = out / "source"
    qmd, pfile = src / "judges.qmd", src / "params.yml"
    params = yaml.safe_load(pfile.read_text(encoding="utf-8"))
    declared = _declared(qmd)
    # every parameter is one the document declares, every one it declares has a value here
    assert set(params) <= set(declared) and set(declared) <= set(params), (declared, params)
    assert params["checklist"] == "stard" and params["resamples"] == 30
    assert "--keep-source" in params["command"] and "True" not in params["command"]
    for key in ("data", "mapping"):  # relative to the document's folder, and there
        assert not Path(params[key]).is_absolute() and (src / params[key]).is_file()
    assert (src / params["data"]).read_bytes() == (tmp_path / "study.csv").read_bytes()
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    assert "source/judges.qmd" in json.dumps(manifest)
    # the source folder alone, moved elsewhere: the built-in renderer gives the same bytes
    moved = tmp_path / "elsewhere" / "source"
    shutil.copytree(src, moved)
    again = render_qmd(moved / "judges.qmd", to="html", out_dir=tmp_path / "re", engine="builtin")
    assert again["html"].read_bytes() == (out / "judges.html").read_bytes()


def test_a_bundle_folder_is_copied_whole(tmp_path) -> None:
    demo = Path("data/demo").resolve()
    params = {"data": str(demo), "mapping": None, "seed": 0}
    w = write_source(template_path("audit"), params, tmp_path)
    copied = sorted(p.relative_to(w["data"]) for p in w["data"].rglob("*") if p.is_file())
    assert copied == sorted(p.relative_to(demo) for p in demo.rglob("*") if p.is_file())
    text = w["qmd"].read_text(encoding="utf-8")
    assert "data = 'data/demo'" in text and "mapping = None" in text
