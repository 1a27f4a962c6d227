"""Issue 13: a study unlike the demo — gold per item × dimension, a scale per dimension, crowd
labels as exchangeable raters, a declared cluster — through the loader, ``validate``,
``agreement``, ``audit`` and ``report``, with numbers checked against independent computations
(pandas, the ``krippendorff`` package); score and expert-only studies through ``run`` with both
reports."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import unescape

import _studies
import krippendorff
import numpy as np
import pandas as pd
import pytest
from medjudge.data.errors import InputError
from medjudge.data.gold import plurality_gold
from medjudge.data.tables import load_any
from robust_support import assert_one_line_error, cli


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "medjudge.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def crowd(tmp_path_factory):
    folder = tmp_path_factory.mktemp("crowd")
    table, mapping = _studies.write_crowd_study(folder)
    raw = pd.read_csv(table, keep_default_na=False)
    return table, mapping, raw, load_any(table, mapping)


def test_gold_per_item_and_dimension_and_scales(crowd):
    _, _, raw, study = crowd
    assert study.scales["risk"].level == "ordinal"
    assert list(study.scales["risk"].categories) == _studies.RISK
    for d in ("topic", "intent", "response"):
        assert study.scales[d].level == "nominal"
        assert list(study.scales[d].categories) == _studies.LABELS
    expected = raw.drop_duplicates(["item_id", "question"]).set_index(["item_id", "question"])
    for d in _studies.DIMS:
        g = study.gold(d)
        cats = study.scales[d].categories
        got = pd.Series([cats[int(c)] for c in g.codes], index=g.items)
        want = expected.xs(d, level="question")["gold"].reindex(got.index)
        assert (got == want).all(), d
    assert study.cluster == "image"
    assert study.items.set_index("item")["image"]["case004"] == "img001"
    assert int((study.ratings["status"] == "invalid").sum()) == int((raw["label"] == "N/A").sum())
    # labels per item and dimension vary from 3 to 12, as written
    n = raw[raw["kind"] == "crowd"].groupby(["item_id", "question"]).size()
    assert n.min() >= 3 and n.max() <= 12 and n.nunique() > 3


def test_validate_names_the_study_model(crowd):
    table, mapping, _, _ = crowd
    proc = _cli("validate", table, "--mapping", mapping, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["exchangeable"] == ["expert"]
    assert doc["cluster"] == "image"
    assert doc["scales"]["risk"]["level"] == "ordinal"
    assert doc["role_names"] == {"expert": "crowd worker"}
    text = _cli("validate", table, "--mapping", mapping).stdout
    assert "exchangeable annotation slots" in text and "crowd worker" in text


def _reliability_data(raw: pd.DataFrame, dim: str, cats: list[str]) -> np.ndarray:
    """slots × items matrix of category codes (NaN: slot did not label the item)."""
    sub = raw[(raw["kind"] == "crowd") & (raw["question"] == dim)]
    wide = sub.pivot(index="worker", columns="item_id", values="label")
    code = {c: i for i, c in enumerate(cats)}
    return wide.apply(lambda col: col.map(code)).to_numpy(dtype=float)


def _percent_agreement(rel: np.ndarray, q: int) -> float:
    """Multi-rater percent agreement (Gwet 2014, eq. 2.9 with identity weights), by hand."""
    vals = []
    for col in rel.T:
        x = col[np.isfinite(col)]
        r = len(x)
        if r < 2:
            continue
        counts = np.bincount(x.astype(int), minlength=q)
        vals.append((counts * (counts - 1)).sum() / (r * (r - 1)))
    return float(np.mean(vals))


@pytest.mark.parametrize("dim", ["topic", "risk"])
def test_agreement_of_crowd_equals_krippendorff_package(crowd, dim):
    table, mapping, raw, _ = crowd
    proc = _cli("agreement", table, "--mapping", mapping, "--dimensions", dim,
                "--ci", "none", "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    rows = {r["coefficient"]: r for r in doc["coefficients"]}
    cats = _studies.RISK if dim == "risk" else _studies.LABELS
    rel = _reliability_data(raw, dim, cats)
    level = "ordinal" if dim == "risk" else "nominal"
    exp = krippendorff.alpha(reliability_data=rel, level_of_measurement=level)
    assert rows["krippendorff_alpha"]["estimate"] == pytest.approx(exp, abs=1e-10)
    if dim == "topic":
        exp_pa = _percent_agreement(rel, len(cats))
        assert rows["percent_agreement"]["estimate"] == pytest.approx(exp_pa, abs=1e-12)
    # only rater-exchangeable coefficients; the per-rater ones are named as not computed
    assert not {"conger_kappa", "kendall_w", "cohen_kappa"} & set(rows)
    assert "conger_kappa" in doc["not_computed"]
    assert len(doc["raters"]) == 12  # the judges are not mixed in with the crowd slots


def test_audit_of_crowd_skips_per_annotator_analyses_with_a_reason(crowd):
    table, mapping, raw, _ = crowd
    proc = _cli("audit", table, "--mapping", mapping, "--json", "--resamples", "100")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    for d in _studies.DIMS:
        dd = doc["audit"]["dimensions"][d]
        assert "exchangeable" in dd["per_rater_skipped"]
        assert "annotators" not in dd and "dawid_skene" not in dd
    assert "alt_test" not in doc and "exchangeable" in doc["per_rater_skipped"]
    rel = pd.DataFrame(doc["audit"]["reliability"])
    a = rel[(rel["dimension"] == "intent") & (rel["coefficient"] == "krippendorff_alpha")]
    exp = krippendorff.alpha(
        reliability_data=_reliability_data(raw, "intent", _studies.LABELS),
        level_of_measurement="nominal",
    )
    assert a["estimate"].iloc[0] == pytest.approx(exp, abs=1e-10)
    assert {"conger_kappa"}.isdisjoint(set(rel["coefficient"]))


def test_per_rater_analyses_refused_through_the_api(crowd):
    from medjudge.analyses.dawid_skene import study_dawid_skene
    from medjudge.analyses.judge_vs_experts import study_alt_test

    study = crowd[3]
    for call in (lambda: study_dawid_skene(study, "topic"), lambda: study_alt_test(study, "topic")):
        with pytest.raises(InputError, match="exchangeable annotation slots"):
            call()


def _text(path) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def test_crowd_study_reports_use_the_studys_words(crowd, tmp_path):
    table, mapping, _, _ = crowd
    out = tmp_path / "rep"
    proc = _cli("report", table, "--mapping", mapping, "--out", out, "--to", "html",
                "--resamples", "100")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    audit, judges = _text(out / "audit.html"), _text(out / "judges.html")
    assert "crowd workers" in audit and "exchangeable annotation slots" in audit
    assert "physician" not in (audit + judges).lower()
    assert "Key findings" in judges and "Methods" in judges


@pytest.mark.parametrize("expert_only", [False, True], ids=["score-study", "expert-only"])
def test_score_and_expert_only_studies_run_with_both_reports(tmp_path, expert_only):
    table, mapping = _studies.write_score_study(tmp_path)
    if expert_only:
        pd.read_csv(table).drop(columns=["j1", "j2"]).to_csv(table, index=False)
        text = mapping.read_text(encoding="utf-8")
        for j in ("j1", "j2"):
            text = text.replace(f'[raters.{j}]\nrole = "judge"\n', "")
        mapping.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    proc = _cli("run", table, "--mapping", mapping, "--out", out, "--resamples", "100")
    assert proc.returncode == 0, proc.stderr
    assert "accuracy against gold not computed" in proc.stdout
    assert not (out / "accuracy.csv").exists()
    for kind in ("judges", "audit"):
        assert (out / "reports" / f"{kind}.html").stat().st_size > 0
        assert (out / "reports" / f"{kind}.pdf").stat().st_size > 0
    judges = _text(out / "reports" / "judges.html")
    if expert_only:
        assert "the study has no judges" in judges
    gold = pd.read_csv(table)[["e1", "e2", "e3"]].mean(axis=1)
    sc = pd.read_csv(out / "scores.csv")
    assert len(sc) and np.isfinite(gold).all()


# --- study-model mapping errors: one line naming the place ---------------------------------


def _crowd_variant(tmp_path, edit_table=None, edit_mapping=None):
    table, mapping = _studies.write_crowd_study(tmp_path, n_items=12)
    if edit_table:
        df = pd.read_csv(table, keep_default_na=False)
        edit_table(df).to_csv(table, index=False)
    if edit_mapping:
        mapping.write_text(edit_mapping(mapping.read_text(encoding="utf-8")), encoding="utf-8")
    return table, mapping


def test_scale_for_an_unknown_dimension_is_refused(tmp_path):
    table, mapping = _crowd_variant(
        tmp_path,
        edit_mapping=lambda t: t + '\n[scales.riks]\nlevel = "nominal"\ncategories = ["a"]\n',
    )
    rc, _, err = cli(["validate", table, "--mapping", mapping])
    assert_one_line_error(rc, err, "[scales.riks]", "no dimension")


def test_cluster_that_varies_within_an_item_names_the_column(tmp_path):
    def edit(df):
        df.loc[df.index[df["item_id"] == "case001"][:1], "image"] = "imgX"
        return df

    table, mapping = _crowd_variant(tmp_path, edit_table=edit)
    rc, _, err = cli(["validate", table, "--mapping", mapping])
    assert_one_line_error(rc, err, "column image", "case001")


def test_missing_cluster_column_is_named(tmp_path):
    table, mapping = _crowd_variant(tmp_path, edit_table=lambda df: df.drop(columns=["image"]))
    rc, _, err = cli(["validate", table, "--mapping", mapping])
    assert_one_line_error(rc, err, "'image'")


def test_role_value_outside_role_map_names_line_and_column(tmp_path):
    def edit(df):
        df.loc[5, "kind"] = "student"
        return df

    table, mapping = _crowd_variant(tmp_path, edit_table=edit)
    rc, _, err = cli(["validate", table, "--mapping", mapping])
    assert_one_line_error(rc, err, "'student'", "line 7", "column role")


def test_conflicting_gold_for_one_item_and_dimension_names_the_line(tmp_path):
    def edit(df):
        i = df.index[(df["item_id"] == "case002") & (df["question"] == "topic")]
        df.loc[i[1], "gold"] = "other" if df.loc[i[0], "gold"] != "other" else "diagnosis"
        return df

    table, mapping = _crowd_variant(tmp_path, edit_table=edit)
    rc, _, err = cli(["validate", table, "--mapping", mapping])
    assert_one_line_error(rc, err, "'case002', dimension 'topic'", "conflicting gold")


def test_same_item_different_gold_per_dimension_is_fine(tmp_path):
    table, mapping = _crowd_variant(tmp_path)
    df = pd.read_csv(table, keep_default_na=False)
    per_item = df.drop_duplicates(["item_id", "question"]).groupby("item_id")["gold"].nunique()
    assert (per_item > 1).any()  # the case that used to be "conflicting gold labels"
    rc, _, err = cli(["validate", table, "--mapping", mapping])
    assert rc == 0, err


def test_plurality_gold_tie_rule():
    """Hand-computed: top label wins; a tied top has no gold (never a silent pick)."""
    codes = np.array(
        [[0, 0, 1, np.nan], [0, 1, np.nan, np.nan], [2, 2, 1, 1], [np.nan] * 4, [1, 2, 2, 0]]
    )
    gold, counts = plurality_gold(codes, 3)
    np.testing.assert_array_equal(gold, [0, np.nan, np.nan, np.nan, 2])
    assert counts == {"no_expert_label": 1, "tied_top": 2, "no_gold": 3}


def test_exchangeable_on_the_command_line(crowd, tmp_path):
    """--exchangeable expert does what the mapping key does (mapping without the key)."""
    table, mapping, _, _ = crowd
    m2 = tmp_path / "m.toml"
    m2.write_text(mapping.read_text().replace('exchangeable = ["expert"]\n', ""))
    plain = _cli("audit", table, "--mapping", m2, "--json", "--resamples", "50", "--no-judges")
    assert plain.returncode == 0, plain.stderr
    assert "annotators" in json.loads(plain.stdout)["audit"]["dimensions"]["topic"]
    flag = _cli("audit", table, "--mapping", m2, "--exchangeable", "expert", "--json",
                "--resamples", "50", "--no-judges")  # fmt: skip
    assert flag.returncode == 0, flag.stderr
    assert "per_rater_skipped" in json.loads(flag.stdout)["audit"]["dimensions"]["topic"]
    agr = _cli("agreement", table, "--mapping", m2, "--role", "expert", "--exchangeable", "expert",
               "--dimensions", "topic", "--ci", "none", "--json")  # fmt: skip
    assert agr.returncode == 0, agr.stderr
    assert "conger_kappa" in json.loads(agr.stdout)["not_computed"]
