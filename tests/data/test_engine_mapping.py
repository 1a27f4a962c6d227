"""One input description for both engines (issue 29).

- the columnar projection of a mapping (:mod:`medjudge.engine.projection`) gives the in-memory
  loader's canonical rows, scales, supplied gold and load counts, on every bundled mapping that
  reads a table (data/mappings/*.toml on data/external/*) and on a synthetic table with supplied
  gold per item x dimension, two dimensions with different scales, invalid tokens and clusters;
- the engine's item x rater matrices (:mod:`medjudge.engine.matrices`) equal the loaded study's,
  so the same mapping, data and seed give the same ``JudgeEvaluation`` (every table, settings
  and exclusions) in memory, on DuckDB and on Spark, and the accuracies equal a pandas
  computation from the table's own columns;
- ``--engine auto`` picks the columnar path for large inputs from file metadata (the same
  output), the one option the columnar path cannot honour is refused in one line, and the
  memory path refuses a table that is too big in one line naming ``--engine``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from medjudge import Bootstrap
from medjudge.data.errors import InputError
from medjudge.data.tables import TableMapping, load_table
from medjudge.engine.projection import canonical_rows, check, dimension_scales, project

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ROOT / "data" / "external"
MAPPINGS = ROOT / "data" / "mappings"
COLS = ["item", "rater", "role", "dimension", "order", "run", "status", "value"]

MAPPING = """
layout = "long"
item = "item"
rater = "judge"
role_column = "kind"
value = "verdict"
dimension_column = "criterion"
gold = "gold"
cluster = "image"
attributes = ["organ"]
invalid = ["NA", "refused"]
[role_map]
model = "judge"
doctor = "expert"
[recode]
"Tie" = "tie"
[scales.preference]
level = "nominal"
categories = ["A", "B", "tie"]
[scales.severity]
level = "ordinal"
categories = ["1", "2", "3", "4"]
"""


def synthetic_table(n_items: int = 240, seed: int = 3) -> pd.DataFrame:
    """Judges and two doctors on two dimensions (nominal A/B/tie, ordinal 1-4), gold supplied
    per item x dimension, items in images of 1-4 questions, invalid tokens and a recoded label."""
    rng = np.random.default_rng(seed)
    image = np.repeat(np.arange(n_items), rng.integers(1, 5, n_items))[:n_items]
    organ = rng.choice(["heart", "lung", "brain"], n_items)
    rows = []
    for dim, cats in (("preference", ["A", "B", "Tie"]), ("severity", ["1", "2", "3", "4"])):
        gold = rng.choice(cats, n_items)
        gold_cell = np.where(rng.random(n_items) < 0.05, "", gold)  # some items without gold
        raters = [("gpt", "model", 0.8), ("llama", "model", 0.6), ("qwen", "model", 0.7)]
        raters += [("dr1", "doctor", 0.9), ("dr2", "doctor", 0.85)]
        for name, kind, skill in raters:
            right = rng.random(n_items) < skill
            v = np.where(right, gold, rng.choice(cats, n_items)).astype(object)
            u = rng.random(n_items)
            v[u < 0.04] = "NA"
            v[(u >= 0.04) & (u < 0.06)] = "refused"
            v[(u >= 0.06) & (u < 0.08)] = ""
            rows.append(
                pd.DataFrame(
                    {"item": [f"q{i:04d}" for i in range(n_items)], "image": image,
                     "organ": organ, "judge": name, "kind": kind, "criterion": dim,
                     "verdict": v, "gold": gold_cell}
                )
            )  # fmt: skip
    df = pd.concat(rows, ignore_index=True)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # any row order


@pytest.fixture(scope="module")
def mapped(tmp_path_factory):
    d = tmp_path_factory.mktemp("mapped")
    (d / "m.toml").write_text(MAPPING)
    df = synthetic_table()
    df.to_csv(d / "t.csv", index=False)
    df.to_parquet(d / "t.parquet", index=False)
    with (d / "t.jsonl").open("w") as fh:
        for rec in df.to_dict(orient="records"):
            fh.write(json.dumps(rec) + "\n")
    return d


def _same_rows(path: Path, mapping: TableMapping) -> None:
    study = load_table(path, mapping)
    proj = project(path, mapping)
    scales = dimension_scales(proj)
    counts = check(proj, scales)
    rows = canonical_rows(proj, scales)
    a = study.ratings[COLS].sort_values(COLS[:6]).reset_index(drop=True)
    b = rows[COLS].sort_values(COLS[:6]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a.astype(str), b.astype(str))
    assert scales == study.scales
    for k, v in counts.items():
        assert study.load_counts[k] == v, k
    if mapping.gold:
        from medjudge.engine.projection import gold_table

        g = gold_table(proj, scales).execute().rename(columns={"gold": "value"})
        g = g.sort_values(["item", "dimension"]).reset_index(drop=True)
        s = study.gold_table.dropna(subset=["value"]).sort_values(["item", "dimension"])
        s = s.reset_index(drop=True).astype(str)
        pd.testing.assert_frame_equal(s[["item", "dimension", "value"]], g.astype(str))
    if proj.attributes:
        it = proj.items.distinct().execute().sort_values("item").reset_index(drop=True)
        ref = study.items[["item", *proj.attributes]].sort_values("item").reset_index(drop=True)
        pd.testing.assert_frame_equal(ref.astype(str), it[ref.columns].astype(str))


@pytest.mark.parametrize(
    "data, mapping",
    [
        ("llmbar/verdicts_long.csv", "llmbar_long"),
        ("pandalm_testset/verdicts_wide.csv", "pandalm_wide"),
        ("pandalm_testset/testset-v1.json", "pandalm_upstream"),
        ("hanna", "hanna_long"),
    ],
)
def test_projection_gives_the_loaders_rows_on_bundled_mappings(data, mapping, tmp_path):
    path = EXTERNAL / data
    if data == "hanna":
        from medjudge.data.hanna import hanna_long_table

        path = tmp_path / "hanna_long.csv"
        hanna_long_table(EXTERNAL / "hanna").to_csv(path, index=False)
    _same_rows(path, TableMapping.from_toml(MAPPINGS / f"{mapping}.toml"))


@pytest.mark.parametrize("suffix", ["csv", "parquet", "jsonl"])
def test_projection_gives_the_loaders_rows_on_a_synthetic_table(mapped, suffix):
    _same_rows(mapped / f"t.{suffix}", TableMapping.from_toml(mapped / "m.toml"))


def test_projection_refuses_what_the_loader_refuses(tmp_path):
    m = TableMapping.from_toml(MAPPINGS / "llmbar_long.toml")
    df = pd.read_csv(EXTERNAL / "llmbar/verdicts_long.csv", dtype=str, keep_default_na=False)
    df.loc[7, "winner"] = "3"  # outside categories ["1", "2"]
    path = tmp_path / "bad.csv"
    df.to_csv(path, index=False)
    with pytest.raises(InputError) as mem:
        load_table(path, m)
    with pytest.raises(InputError) as col:
        proj = project(path, m)
        check(proj, dimension_scales(proj))
    assert str(col.value) == str(mem.value)  # same file, line (9), column and words


def test_projection_and_loader_refuse_a_varying_cluster_in_the_same_words(tmp_path):
    df = synthetic_table(60)
    first = df.index[df["item"] == df["item"].iloc[0]]
    df.loc[first[-1], "image"] = 999  # the item's last row names another image
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    (tmp_path / "m.toml").write_text(MAPPING)
    m = TableMapping.from_toml(tmp_path / "m.toml")
    with pytest.raises(InputError) as mem:
        load_table(path, m)
    with pytest.raises(InputError) as col:
        proj = project(path, m)
        check(proj, dimension_scales(proj))
    for e in (mem.value, col.value):
        assert f"cluster column 'image' has several values for item {df['item'].iloc[0]!r}" in str(
            e
        )
        assert e.column == "image"


def _evaluations(path: Path, mapping: TableMapping, engines=("duckdb",)):
    from medjudge.analyses.evaluation import evaluate_judges

    boot = Bootstrap(300, seed=7)
    study = load_table(path, mapping)
    out = {"memory": evaluate_judges(study, bootstrap=boot)}
    for e in engines:
        out[e] = evaluate_judges(path, engine=e, mapping=mapping, bootstrap=boot)
    return study, out


def _assert_same(a, b):
    """Every table of two JudgeEvaluations, to the last digit, and the same settings."""
    for name in a.TABLES:
        pd.testing.assert_frame_equal(a.table(name), b.table(name), check_exact=True)
    assert a.settings == b.settings and a.excluded == b.excluded


def test_memory_and_duckdb_give_identical_evaluations(mapped):
    m = TableMapping.from_toml(mapped / "m.toml")
    study, res = _evaluations(mapped / "t.parquet", m)
    _assert_same(res["memory"], res["duckdb"])
    assert len(res["duckdb"].pairs) == 2 * 3  # 3 pairs x 2 dimensions
    assert res["duckdb"].settings["cluster"] == "image"
    assert res["duckdb"].settings["gold"] == "supplied"
    # the accuracies (invalid = wrong) from the synthetic table's own columns, independently of
    # both readers
    got = res["duckdb"].leaderboard.set_index(["dimension", "judge"])["accuracy"].sort_index()
    df = synthetic_table()
    j = df[df["kind"] == "model"]
    gold = j["gold"].replace({"Tie": "tie"})
    verdict = j["verdict"].replace({"Tie": "tie"})
    has = gold != ""
    acc = (verdict[has] == gold[has]).groupby([j["criterion"][has], j["judge"][has]]).mean()
    np.testing.assert_array_equal(acc.sort_index().to_numpy(), got.to_numpy())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs Java")
def test_spark_gives_the_same_evaluation(mapped):
    pytest.importorskip("pyspark", reason="optional extra medjudge[spark]")
    m = TableMapping.from_toml(mapped / "m.toml")
    _, res = _evaluations(mapped / "t.csv", m, engines=("duckdb", "spark"))
    _assert_same(res["memory"], res["duckdb"])
    _assert_same(res["duckdb"], res["spark"])


def test_the_matrices_equal_the_loaded_studys(mapped):
    """The engine's item x rater matrices are the loaded study's: values, statuses, gold,
    outcomes, raters in order of first appearance, items and their attributes."""
    from medjudge.engine.matrices import reduce_to_matrices

    m = TableMapping.from_toml(mapped / "m.toml")
    study = load_table(mapped / "t.csv", m)
    red = reduce_to_matrices(mapped / "t.csv", m)
    assert red.judges == study.judges == ["gpt", "llama", "qwen"] or red.judges == study.judges
    assert red.experts == study.experts and red.item_ids == study.item_ids
    pd.testing.assert_frame_equal(red.items.astype(str), study.items.astype(str))
    for d in study.dimensions:
        for role in ("expert", "judge"):
            a, b = study.matrix(d, role=role), red.matrix(d, role=role)
            assert a.raters == b.raters
            np.testing.assert_array_equal(a.values, b.values)
        js = study.judges
        np.testing.assert_array_equal(
            study._status_matrix(d, js, None), red._status_matrix(d, js, None)
        )
        oa, ob = study.outcomes(d), red.outcomes(d)
        for f in ("outcome", "pred", "gold"):
            np.testing.assert_array_equal(getattr(oa, f), getattr(ob, f))
        assert oa.excluded == ob.excluded


# ---- the command line: --engine auto, refusals, the memory path's size limit


def _cli(capsys, *argv):
    from medjudge.cli import main

    rc = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_row_estimates_come_from_metadata(mapped):
    from medjudge.engine.choose import estimate_rows

    m = TableMapping.from_toml(mapped / "m.toml")
    n = len(synthetic_table())
    assert estimate_rows(mapped / "t.parquet", m) == n  # the footer's count
    assert abs(estimate_rows(mapped / "t.csv", m) - n) <= 0.05 * n  # size / mean line length
    wide = TableMapping.from_toml(MAPPINGS / "pandalm_wide.toml")
    assert estimate_rows(EXTERNAL / "pandalm_testset/verdicts_wide.csv", wide) == 999 * 5


def test_engine_auto_takes_the_columnar_path_for_large_tables(mapped, capsys, monkeypatch):
    import medjudge.engine.choose as choose

    args = ["compare", mapped / "t.parquet", "--mapping", mapped / "m.toml", "--resamples", 50]
    rc, small, err = _cli(capsys, *args, "--json")
    assert rc == 0, err
    seen = []
    real = choose.choose_engine

    def spy(requested, path, mapping):  # noqa: ANN001, ANN202
        seen.append(real(requested, path, mapping))
        return seen[-1]

    monkeypatch.setattr(choose, "choose_engine", spy)
    monkeypatch.setattr(choose, "AUTO_ROWS", 1000)
    rc, large, err = _cli(capsys, *args, "--json")
    assert rc == 0, err
    assert "duckdb" in seen  # the columnar path, and the same result
    assert json.loads(large) == json.loads(small)
    rc, out, err = _cli(capsys, *args, "--eval-order", "BA")
    assert rc == 2 and "--eval-order 'BA'" in err


@pytest.mark.parametrize(
    "option", [["--kappa-weights", "quadratic"], ["--score-intervals", "analytic"],
               ["--alpha", "0.1"], ["--gold-method", "majority"], ["--family", "dimension"]],
)  # fmt: skip
def test_columnar_path_honours_the_options_of_the_memory_path(mapped, capsys, option):
    """These options were refused on the columnar path; the same code now honours them."""
    out = {}
    for e in ("memory", "duckdb"):
        rc, out[e], err = _cli(
            capsys, "compare", mapped / "t.parquet", "--mapping", mapped / "m.toml",
            "--engine", e, "--resamples", 50, *option,
        )  # fmt: skip
        assert rc == 0, err
    assert out["memory"] == out["duckdb"]


def test_columnar_path_refuses_what_it_cannot_honour(mapped, capsys):
    rc, out, err = _cli(
        capsys, "compare", mapped / "t.parquet", "--mapping", mapped / "m.toml",
        "--engine", "duckdb", "--ties", "exclude",
    )  # fmt: skip
    assert rc == 2 and out == ""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--ties" in lines[0] and "--engine memory" in lines[0]


def test_memory_path_refuses_a_table_too_big_for_it(mapped, capsys, monkeypatch):
    monkeypatch.setenv("MEDJUDGE_MEMORY_ROWS", "1000")
    for cmd in (["compare", "--engine", "memory"], ["audit"]):
        rc, out, err = _cli(capsys, cmd[0], mapped / "t.csv", "--mapping", mapped / "m.toml",
                            *cmd[1:])  # fmt: skip
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert rc == 2 and len(lines) == 1 and "--engine" in lines[0], err
        assert "t.csv" in lines[0] and "1,000" in lines[0]


def test_validate_run_and_subgroups_give_the_same_tables_on_both_paths(mapped, capsys, tmp_path):
    data, m = tmp_path / "t.parquet", mapped / "m.toml"
    synthetic_table().sort_values("judge", kind="stable").to_parquet(data, index=False)
    text = {}
    for e in ("memory", "duckdb"):
        rc, out, err = _cli(capsys, "validate", data, "--mapping", m, "--engine", e)
        assert rc == 0, err
        text[e] = sorted(ln for ln in out.splitlines() if "columnar path" not in ln)
    assert text["memory"] == text["duckdb"]  # the same lines (raters: by name, not by order)
    for e in ("memory", "duckdb"):
        rc, out, err = _cli(capsys, "run", data, "--mapping", m, "--engine", e, "--report",
                            "none", "--out", tmp_path / e)  # fmt: skip
        assert rc == 0, err
    for name, keys in (("accuracy.csv", ["judge", "dimension", "policy"]),
                       ("parse_status.csv", ["role", "rater"])):  # fmt: skip
        a, b = (pd.read_csv(tmp_path / e / name, dtype=str, keep_default_na=False)
                .sort_values(keys).reset_index(drop=True) for e in ("memory", "duckdb"))  # fmt: skip
        pd.testing.assert_frame_equal(a, b)  # every digit as written (rows: by name)
    tables = {}
    for e in ("memory", "duckdb"):
        rc, out, err = _cli(capsys, "subgroups", data, "--mapping", m, "--by", "organ,dimension",
                            "--cluster", "image", "--engine", e, "--json")  # fmt: skip
        assert rc == 0, err
        tables[e] = json.loads(out)
    for name in ("breakdown", "heterogeneity", "organ_effects", "best"):
        a, b = (pd.DataFrame(tables[e][name]) for e in ("memory", "duckdb"))
        keys = [c for c in a.select_dtypes(exclude=["number", "bool"]).columns]
        pd.testing.assert_frame_equal(
            a.sort_values(keys).reset_index(drop=True), b.sort_values(keys).reset_index(drop=True)
        )
    assert tables["duckdb"] == tables["memory"]  # every number, to the last digit


def test_row_gold_and_joined_gold_give_the_same_numbers(tmp_path):
    """Every row carries its gold (compared on the row) vs some empty gold cells (joined)."""
    df = synthetic_table(seed=5)
    full = df[df["gold"] != ""]
    (tmp_path / "m.toml").write_text(MAPPING)
    m = TableMapping.from_toml(tmp_path / "m.toml")
    full.to_parquet(tmp_path / "full.parquet", index=False)
    study = load_table(tmp_path / "full.parquet", m)
    from medjudge.analyses.evaluation import evaluate_judges

    boot = Bootstrap(200, seed=3)
    a = evaluate_judges(study, bootstrap=boot)
    b = evaluate_judges(tmp_path / "full.parquet", engine="duckdb", mapping=m, bootstrap=boot)
    _assert_same(a, b)


def test_an_incomplete_judge_design_gives_the_same_numbers(tmp_path):
    """Judges not given every item (rows absent): neither wrong nor invalid, on both paths."""
    df = synthetic_table(seed=11)
    rng = np.random.default_rng(0)
    drop = (df["kind"] == "model") & (rng.random(len(df)) < 0.2)
    df = df[~drop | (df["judge"] == "gpt")]  # gpt keeps every item, the others lose ~20%
    (tmp_path / "m.toml").write_text(MAPPING)
    m = TableMapping.from_toml(tmp_path / "m.toml")
    df.to_csv(tmp_path / "t.csv", index=False)
    from medjudge.analyses.evaluation import evaluate_judges

    boot = Bootstrap(200, seed=4)
    a = evaluate_judges(load_table(tmp_path / "t.csv", m), bootstrap=boot)
    b = evaluate_judges(tmp_path / "t.csv", engine="duckdb", mapping=m, bootstrap=boot)
    _assert_same(a, b)
    lb = b.leaderboard.set_index(["dimension", "judge"])
    n_gpt = lb.loc[("preference", "gpt"), "n"]
    assert lb.loc[("preference", "llama"), "n"] < 0.9 * n_gpt


def test_one_cluster_rule_on_both_paths(tmp_path):
    """The engine path resolves clusters with the analyses' own rule
    (:func:`medjudge.analyses.design.resolve_clusters`), including "a column whose values are
    all distinct gives independent items", which the removed engine copy lacked."""
    from medjudge.analyses.design import resolve_clusters
    from medjudge.engine.matrices import reduce_to_matrices

    df = synthetic_table(n_items=60, seed=2)
    df["image"] = df["item"]  # one image per item: every value distinct
    df.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "m.toml").write_text(MAPPING)
    m = TableMapping.from_toml(tmp_path / "m.toml")
    mem, col = load_table(tmp_path / "t.csv", m), reduce_to_matrices(tmp_path / "t.csv", m)
    for cluster in ("auto", "image", "none"):
        a, b = resolve_clusters(mem, cluster), resolve_clusters(col, cluster)
        assert (a.labels is None) == (b.labels is None) and a.source == b.source, cluster
    assert resolve_clusters(col, "auto").labels is None  # distinct values: independent items
    assert resolve_clusters(col, "auto").source == "every item its own image"
