"""Issue 38, item 6: permuting the rows and the columns of the input changes no number, to the
last bit. Raters (like items) have one canonical order — their ids sorted — so every sum over
raters runs in the same order whatever the input's order (a kappa was 0.4985416666666669 for
one row order and 0.49854166666666677 for another)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from robust_support import cli

CATS = ["A", "B", "C"]
RATERS = [("e1", "expert"), ("e2", "expert"), ("e3", "expert"), ("e10", "expert"),
          ("j1", "judge"), ("j2", "judge"), ("j10", "judge")]  # fmt: skip


def _wide(n: int = 120, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    cols: dict[str, object] = {"item": [f"q{i}" for i in range(n)]}
    cols["grp"] = rng.choice(["x", "y", "z"], n)
    for r, _ in RATERS:
        noisy = np.where(rng.random(n) < 0.7, truth, rng.integers(0, 3, n))
        v = np.array(CATS, dtype=object)[noisy]
        v[rng.random(n) < 0.05] = ""
        cols[r] = v
    return pd.DataFrame(cols)


def _tables(root: Path) -> dict[str, tuple[Path, Path]]:
    """The same study four times: wide and long, each in input order and permuted (rows
    shuffled; the wide table's rater columns and the long table's columns reordered). Files
    have the same name in different folders (the study is named after the file)."""
    df = _wide()
    rng = np.random.default_rng(7)
    out = {}
    wide_toml = ['layout = "wide"', 'item = "item"', 'attributes = ["grp"]', "[scale]",
                 'level = "nominal"', 'categories = ["A", "B", "C"]']  # fmt: skip
    for r, role in RATERS:
        wide_toml += [f"[raters.{r}]", f'role = "{role}"']
    long_toml = ['layout = "long"', 'item = "item"', 'rater = "rater"', 'role_column = "role"',
                 'value = "value"', 'attributes = ["grp"]', "[scale]", 'level = "nominal"',
                 'categories = ["A", "B", "C"]']  # fmt: skip
    long = df.melt(id_vars=["item", "grp"], var_name="rater", value_name="value")
    long["role"] = np.where(long["rater"].str.startswith("e"), "expert", "judge")
    long = long[long["value"] != ""]
    for variant in ("input", "permuted"):
        folder = root / variant
        folder.mkdir(parents=True)
        wide, lng = df, long
        if variant == "permuted":
            raters = list(rng.permutation([r for r, _ in RATERS]))
            wide = df.sample(frac=1, random_state=3)[["grp", "item", *raters]]
            lng = long.sample(frac=1, random_state=4)[["value", "role", "rater", "grp", "item"]]
        wide.to_csv(folder / "study.csv", index=False)
        lng.to_csv(folder / "study_long.csv", index=False)
        (folder / "wide.toml").write_text("\n".join(wide_toml) + "\n")
        (folder / "long.toml").write_text("\n".join(long_toml) + "\n")
        out[f"wide-{variant}"] = (folder / "study.csv", folder / "wide.toml")
        out[f"long-{variant}"] = (folder / "study_long.csv", folder / "long.toml")
    return out


COMMANDS = {
    "compare": ["compare", "--json", "--resamples", "100"],
    "audit": ["audit", "--json", "--resamples", "100"],
    "agreement": ["agreement", "--json", "--role", "expert"],
    "agreement-bootstrap": [
        "agreement",
        "--json",
        "--role",
        "expert",
        "--ci",
        "bootstrap",
        "--resamples",
        "100",
    ],  # fmt: skip
    "subgroups": ["subgroups", "--json", "--by", "grp"],
}


def _canonical(x):
    """Lists of records sorted (their order may follow the input), numbers kept exact."""
    if isinstance(x, dict):
        return {k: _canonical(v) for k, v in x.items() if k not in ("sources", "source", "file")}
    if isinstance(x, list):
        items = [_canonical(v) for v in x]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return x


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return _tables(tmp_path_factory.mktemp("order"))


@pytest.mark.parametrize("layout", ["wide", "long"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_permuted_input_gives_bit_identical_numbers(tables, layout, command):
    outs = []
    for variant in ("input", "permuted"):
        path, mapping = tables[f"{layout}-{variant}"]
        argv = [COMMANDS[command][0], path, "--mapping", mapping, *COMMANDS[command][1:]]
        rc, out, err = cli(argv)
        assert rc == 0, err
        outs.append(_canonical(json.loads(out)))
    assert outs[0] == outs[1]  # exact: every float equal to the last bit


def test_rater_lists_are_sorted_whatever_the_input(tables):
    from medjudge.data.tables import load_any

    for key in ("wide-input", "wide-permuted", "long-input", "long-permuted"):
        study = load_any(*tables[key])
        assert study.experts == ["e1", "e10", "e2", "e3"]
        assert study.judges == ["j1", "j10", "j2"]
        assert study.matrix("overall", role="expert").raters == study.experts
