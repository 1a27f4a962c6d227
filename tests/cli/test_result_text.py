"""Issue 35: ``medjudge bias`` and ``medjudge ppi`` print their results' own ``.summary()`` and,
with ``--json``, their ``.to_dict()`` — no column list picked in ``commands/``; the summary
states the method, level, unit of n, test family and alpha the table needs."""

from __future__ import annotations

import json

import pytest
from _studies import write_small_study
from medjudge.analyses.bias import bias_report
from medjudge.analyses.bias_suite import bias_suite
from medjudge.analyses.judge_assisted import judge_assisted_estimate
from medjudge.commands._common import dump_json
from medjudge.data.tables import load_any
from robust_support import cli


def _flat(text: str) -> str:
    """The text with its wrapped comment lines joined (``#   `` continues a line)."""
    return " ".join(text.replace("\n#   ", " ").split(" "))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    table, mapping = write_small_study(tmp_path_factory.mktemp("small"))
    return table, mapping, load_any(table, mapping=mapping)


def test_bias_text_and_json_are_the_results_own(small):
    table, mapping, study = small
    rep = bias_report(study)
    suite = bias_suite(study, length=["answer1_len", "answer2_len"], alpha=0.05)
    rc, out, err = cli(["bias", table, "--mapping", mapping])
    assert rc == 0, err
    assert out == rep.summary() + "\n\n" + suite.summary() + "\n"
    flat = _flat(out)
    assert "95% intervals (wilson)" in flat and "n counts items with gold" in flat
    assert "# bias suite: Holm over every test in the suite, alpha = 0.05" in flat
    rc, out, _ = cli(["bias", table, "--mapping", mapping, "--json"])
    assert json.loads(out) == json.loads(dump_json({**rep.to_dict(), "suite": suite.to_dict()}))


def test_ppi_text_and_json_are_the_results_own(small):
    table, mapping, study = small
    res = judge_assisted_estimate(study, keep_labels=30, by="specialty", cluster="auto")
    argv = ["ppi", table, "--mapping", mapping, "--keep-labels", "30", "--by", "specialty"]
    rc, out, err = cli(argv)
    assert rc == 0, err
    assert out == res.summary() + "\n"
    flat = _flat(out)
    assert "95% intervals: small-sample t" in flat and "n_labelled counts labelled items" in flat
    assert "warning (naive rows): biased" in flat and "# per specialty" in flat
    assert "NaN" not in out
    rc, out, _ = cli([*argv, "--json"])
    assert json.loads(out) == json.loads(dump_json(res.to_dict()))


def test_stability_text_is_the_results_own():
    from conftest import EXTERNAL, MAPPINGS
    from medjudge import Bootstrap
    from medjudge.analyses.stability import stability

    table, mapping = EXTERNAL / "llmbar/verdicts_long.csv", MAPPINGS / "llmbar_long.toml"
    res = stability(load_any(table, mapping=mapping), dimension="preference",
                    bootstrap=Bootstrap(50))  # fmt: skip
    rc, out, err = cli(["stability", table, "--mapping", mapping, "--resamples", "50"])
    assert rc == 0, err
    assert out == res.summary() + "\n"
    assert "# share of items whose verdict flips: 95% intervals (item bootstrap" in out
