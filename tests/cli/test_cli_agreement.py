"""CLI: ``medjudge agreement`` and ``medjudge audit`` — exit codes, JSON shape, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import DEMO, EXTERNAL, MAPPINGS
from medjudge.cli import main
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

PANDALM = EXTERNAL / "pandalm_testset" / "verdicts_wide.csv"


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_agreement_wide_json(capsys):
    out = _json(
        capsys,
        [
            "agreement",
            str(PANDALM),
            "--item",
            "idx",
            "--raters",
            "annotator1,annotator2,annotator3",
            "--json",
        ],
    )
    assert out["n_items"] == 999 and out["raters"] == ["annotator1", "annotator2", "annotator3"]
    assert out["level"] == "nominal" and out["missing_ratings"] == 0
    rows = {r["coefficient"]: r for r in out["coefficients"]}
    assert {"percent_agreement", "fleiss_kappa", "krippendorff_alpha"} <= set(rows)
    for r in rows.values():
        assert set(r) >= {"estimate", "se", "ci_low", "ci_high", "ci_method", "n"}
    # independent: statsmodels Fleiss kappa; SOURCE.md reports 0.864
    import pandas as pd

    X = pd.read_csv(PANDALM)[["annotator1", "annotator2", "annotator3"]].to_numpy()
    ref = fleiss_kappa(aggregate_raters(X)[0])
    assert rows["fleiss_kappa"]["estimate"] == pytest.approx(ref, abs=1e-12)
    assert round(ref, 3) == 0.864


def test_agreement_two_raters_bootstrap_is_seeded(capsys):
    argv = [
        "agreement",
        str(PANDALM),
        "--item",
        "idx",
        "--raters",
        "annotator1,annotator2",
        "--coef",
        "cohen,alpha",
        "--ci",
        "bootstrap",
        "--resamples",
        "300",
        "--seed",
        "3",
        "--json",
    ]
    a, b = _json(capsys, argv), _json(capsys, argv)
    assert a == b
    rows = {r["coefficient"]: r for r in a["coefficients"]}
    assert set(rows) == {"cohen_kappa", "krippendorff_alpha"}
    assert round(rows["cohen_kappa"]["estimate"], 2) == 0.85  # PandaLM README, annotators 1-2
    assert "B=300, seed=3" in rows["cohen_kappa"]["ci_method"]


def test_agreement_missing_cells_and_labels(tmp_path, capsys):
    f = tmp_path / "r.csv"
    f.write_text("id,a,b,c\n1,yes,yes,\n2,no,yes,no\n3,no,no,no\n4,,yes,yes\n5,yes,yes,yes\n")
    out = _json(capsys, ["agreement", str(f), "--item", "id", "--json"])
    assert out["categories"] == ["no", "yes"] and out["missing_ratings"] == 2
    ordered = _json(
        capsys,
        [
            "agreement",
            str(f),
            "--item",
            "id",
            "--level",
            "ordinal",
            "--categories",
            "no,yes",
            "--weights",
            "linear",
            "--json",
        ],
    )
    assert ordered["level"] == "ordinal"
    assert any(r["coefficient"] == "kendall_w" for r in ordered["coefficients"])


def test_agreement_mapping_long(capsys):
    out = _json(
        capsys,
        [
            "agreement",
            str(PANDALM),
            "--mapping",
            str(MAPPINGS / "pandalm_wide.toml"),
            "--role",
            "expert",
            "--coef",
            "fleiss",
            "--json",
        ],
    )
    assert out["categories"] == ["1", "2", "tie"]
    assert round(out["coefficients"][0]["estimate"], 3) == 0.864


def test_agreement_table_output(capsys):
    assert (
        main(["agreement", str(PANDALM), "--item", "idx", "--raters", "annotator1,annotator2"]) == 0
    )
    assert "cohen_kappa" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["agreement", "/no/such/file.csv"],
        ["agreement", str(PANDALM), "--raters", "annotator1,nobody"],
        ["agreement", str(PANDALM), "--raters", "annotator1,gpt-3.5-turbo", "--level", "ordinal"],
        ["agreement", str(PANDALM), "--raters", "annotator1,annotator2", "--coef", "nonsense"],
        ["agreement", str(DEMO / "README.md")],
        ["audit", "/no/such/dir"],
        ["audit", str(DEMO), "--dimensions", "nope"],
    ],
)
def test_bad_input_exit_2_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("medjudge: error:") and "\n" not in err and "Traceback" not in err


def test_audit_json_shape(capsys):
    out = _json(
        capsys,
        [
            "audit",
            str(DEMO),
            "--dimensions",
            "creativity",
            "--top",
            "3",
            "--resamples",
            "200",
            "--json",
        ],
    )
    dim = out["audit"]["dimensions"]["creativity"]
    assert {"annotators", "pairwise", "categories", "subgroups", "dawid_skene", "disputed"} <= set(
        dim
    )
    assert len(dim["disputed"]) == 3 and dim["dawid_skene"]["converged"]
    worst = min(dim["annotators"], key=lambda r: r["agreement"])
    assert worst["rater"] == "physician_3"  # planted creativity drift (truth/params.json)
    assert {r["judge"] for r in out["alt_test_table"]} == set(out["judges"])
    assert all(0 <= r["winning_rate"] <= 1 for r in out["alt_test_table"])
    jv = out["judge_vs_experts"]
    assert len(jv) == len(out["judges"]) * 3 and out["judge_vs_experts_dimension"] == "creativity"
    assert all(np.isfinite(r["judge_minus_expert"]) for r in jv)


def test_audit_text_pandalm(capsys):
    argv = [
        "audit",
        str(PANDALM),
        "--mapping",
        str(MAPPINGS / "pandalm_wide.toml"),
        "--top",
        "2",
        "--resamples",
        "200",
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "pairwise Cohen's kappa" in text and "Alt-test" in text and "0.852" in text


def test_judges_seen_in_both_orders_use_their_first_presentation(tmp_path):
    """LLMBar's judges saw every item in both presentation orders; ``agreement --role judge``
    used to stop with 'pass order= or run=' (a Python argument the command line does not
    have). It now uses each such judge's first presentation, as accuracy does, says so, and
    its percent agreement equals the one computed here with pandas on the 'original' rows."""
    import pandas as pd

    table = EXTERNAL / "llmbar" / "verdicts_long.csv"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "medjudge.cli",
            "agreement",
            str(table),
            "--mapping",
            str(MAPPINGS / "llmbar_long.toml"),
            "--role",
            "judge",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert "order-AB verdicts are used" in out.stderr
    got = {r["coefficient"]: r["estimate"] for r in json.loads(out.stdout)["coefficients"]}
    raw = pd.read_csv(table)
    raw = raw[(raw["order"] == "original") & raw["winner"].notna()]
    raw = raw.assign(item=raw["subset"] + ":" + raw["item_idx"].astype(str))
    counts = raw.groupby(["item", "winner"]).size().unstack(fill_value=0).to_numpy(float)
    n = counts.sum(axis=1)
    keep = n >= 2
    p_i = (counts[keep] * (counts[keep] - 1)).sum(axis=1) / (n[keep] * (n[keep] - 1))
    assert got["percent_agreement"] == pytest.approx(p_i.mean(), abs=1e-12)
