"""One analysis, any engine: ``compare``, ``subgroups`` and ``run`` print and write the same on
``--engine memory`` and ``--engine duckdb`` (and Spark on a small table when Java is present).

The columnar path reduces a table to the study's item x rater matrices and the in-memory code
computes every number from them, so the comparison is exact: the same text, the same JSON and
the same files, byte for byte, except the command line recorded in ``MANIFEST.json``. The
expected values are the in-memory path's, computed from the study the in-memory loader builds;
the memory path itself is checked against published and independent values elsewhere. A bundle
folder is read in memory only: an engine asked for one is refused in one line, exit 2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from medjudge.cli import main

ROOT = Path(__file__).resolve().parents[2]
LLMBAR = ["data/external/llmbar/verdicts_long.csv", "--mapping", "data/mappings/llmbar_long.toml"]

MAPPING = """
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "value"
dimension_column = "dimension"
cluster = "image"
attributes = ["site"]
invalid = ["NA"]
[scales.accuracy]
level = "nominal"
categories = ["A", "B"]
[scales.safety]
level = "ordinal"
categories = ["low", "mid", "high"]
"""


def synthetic(tmp_path: Path, n_items: int = 150, seed: int = 4) -> list[str]:
    """A long table: 3 experts (gold = their majority), 4 judges, two dimensions, images of
    1-3 items, a site attribute, invalid tokens, a judge not given every item; rows shuffled."""
    rng = np.random.default_rng(seed)
    image = np.repeat(np.arange(n_items), rng.integers(1, 4, n_items))[:n_items]
    site = rng.choice(["north", "south", "east"], n_items)
    rows = []
    for dim, cats in (("accuracy", ["A", "B"]), ("safety", ["low", "mid", "high"])):
        truth = rng.choice(cats, n_items)
        raters = [(f"e{k}", "expert", 0.85) for k in range(3)]
        raters += [(f"j{k}", "judge", 0.55 + 0.1 * k) for k in range(4)]
        for name, role, skill in raters:
            v = np.where(rng.random(n_items) < skill, truth, rng.choice(cats, n_items))
            v = v.astype(object)
            v[rng.random(n_items) < 0.04] = "NA"
            keep = np.ones(n_items, bool) if name != "j3" else rng.random(n_items) < 0.8
            rows.append(
                pd.DataFrame(
                    {"item": [f"q{i}" for i in range(n_items)], "rater": name, "role": role,
                     "dimension": dim, "value": v, "image": image, "site": site}
                )[keep]
            )  # fmt: skip
    df = pd.concat(rows, ignore_index=True).sample(frac=1.0, random_state=seed)
    (tmp_path / "m.toml").write_text(MAPPING)
    df.to_parquet(tmp_path / "t.parquet", index=False)
    return [str(tmp_path / "t.parquet"), "--mapping", str(tmp_path / "m.toml")]


def _cli(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _same_output(capsys, command: list[str], engines=("memory", "duckdb")) -> dict[str, str]:
    out = {}
    for e in engines:
        rc, out[e], err = _cli(capsys, *command, "--engine", e)
        assert rc == 0, err
    first = out[engines[0]]
    for e in engines[1:]:
        assert out[e] == first, f"{command[0]}: {e} differs from {engines[0]}"
    return out


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return synthetic(tmp_path_factory.mktemp("synthetic"))


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("data", ["llmbar", "synthetic"])
def test_compare_is_the_same_on_memory_and_duckdb(capsys, table, data):
    src = LLMBAR if data == "llmbar" else table
    for extra in ([], ["--json"]):
        out = _same_output(capsys, ["compare", *src, "--resamples", "200", *extra])
    res = json.loads(out["duckdb"])
    assert {"leaderboard", "pairs", "baselines", "expert_ceiling", "judge_vs_gold"} <= set(res)
    assert "judge_a" in res["pairs"][0] and "rank" in res["leaderboard"][0]


@pytest.mark.parametrize("data, by", [("llmbar", "subset"), ("synthetic", "site,dimension")])
def test_subgroups_is_the_same_on_memory_and_duckdb(capsys, table, data, by):
    src = LLMBAR if data == "llmbar" else table
    for extra in ([], ["--json"]):
        _same_output(capsys, ["subgroups", *src, "--by", by, *extra])


@pytest.mark.parametrize("data", ["llmbar", "synthetic"])
def test_run_writes_the_same_tables_on_memory_and_duckdb(capsys, tmp_path, table, data):
    src = LLMBAR if data == "llmbar" else table
    text = {}
    for e in ("memory", "duckdb"):
        rc, out, err = _cli(
            capsys, "run", *src, "--engine", e, "--report", "none", "--out", tmp_path / e
        )
        assert rc == 0, err
        text[e] = out.replace(str(tmp_path / e), "OUT")
    assert text["memory"] == text["duckdb"]
    files = sorted(p.name for p in (tmp_path / "memory").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "duckdb").iterdir())
    assert "accuracy.csv" in files
    for name in files:
        a, b = ((tmp_path / e / name).read_text() for e in ("memory", "duckdb"))
        if name != "MANIFEST.json":
            assert a == b, name


def test_a_bundle_folder_on_an_engine_is_one_line(capsys):
    for command in (["compare"], ["subgroups"], ["run", "--report", "none", "--out", "/tmp/x"],
                    ["validate"]):  # fmt: skip
        rc, out, err = _cli(capsys, command[0], "data/demo", *command[1:], "--engine", "duckdb")
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert rc == 2 and out == "" and len(lines) == 1, err
        assert "--engine memory" in lines[0] and "internal" not in lines[0]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs Java (java -version)")
def test_spark_agrees_on_the_synthetic_table(capsys, table):
    pytest.importorskip("pyspark", reason="optional extra medjudge[spark]")
    _same_output(capsys, ["compare", *table, "--resamples", "100", "--json"],
                 engines=("memory", "spark"))  # fmt: skip
