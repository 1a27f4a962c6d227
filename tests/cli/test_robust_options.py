"""Issue 14: every option value is validated — one line naming the option, value and what is
allowed, exit 2 — and the option/data mismatches that used to give wrong numbers with exit 0
(``--eval-order ab``, ``--level interval`` on letters, table options next to ``--mapping``)."""

from __future__ import annotations

import argparse
import math

import pytest
from conftest import DEMO, EXTERNAL, MAPPINGS
from medjudge import Bootstrap
from medjudge.commands import _options as opt
from robust_support import assert_one_line_error, cli, small_rows, write_wide

PANDALM = EXTERNAL / "pandalm_testset" / "verdicts_wide.csv"
PANDALM_MAP = MAPPINGS / "pandalm_wide.toml"


# ---------------------------------------------------------------- the validators themselves
@pytest.mark.parametrize(
    "validator, good, bad",
    [
        (opt.ALPHA, ["0.05", "1e-3", "0.999"], ["5", "1", "0", "-0.5", "nan", "inf", "x", ""]),
        (opt.CONFIDENCE_LEVEL, ["0.95", "0.5"], ["1", "0", "5", "nan", "-inf", "95%"]),
        (opt.EPSILON, ["0.1", "0.2"], ["5", "nan", "0", "1"]),
        (opt.MAX_HALF_WIDTH, ["0.15", "1"], ["nan", "0", "-1", "1.5", "inf"]),
        (opt.RESAMPLES, ["10", "2000", "2e3", "100000"], ["0", "9", "1e9", "-5", "2.5", "nan"]),
        (opt.SEED, ["0", "5", str(2**63 - 1)], ["-5", str(2**63), "1.5", "seed"]),
        (opt.TOP, ["1", "10"], ["0", "-3", "x"]),
        (opt.MIN_N, ["1", "30"], ["0", "-5"]),
        (opt.ITEMS, ["13", "1026"], ["12", "0", "1e9"]),
    ],
)
def test_validators_accept_and_refuse(validator, good, bad):
    for text in good:
        value = validator(text)
        assert math.isfinite(value)
    for text in bad:
        with pytest.raises(argparse.ArgumentTypeError) as exc:
            validator(text)
        msg = str(exc.value)
        assert "\n" not in msg and "is not allowed" in msg and validator.what in msg
        if text:
            assert text in msg


def test_check_names_the_library_argument():
    assert opt.RESAMPLES.check("n_resamples", 2000) == 2000
    with pytest.raises(ValueError, match=r"^n_resamples: 0 is not allowed .*from 10 to 100000"):
        opt.RESAMPLES.check("n_resamples", 0)
    with pytest.raises(ValueError, match="^alpha: nan"):
        opt.ALPHA.check("alpha", float("nan"))


# ---------------------------------------------------------------- every option of every command
@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return write_wide(tmp_path_factory.mktemp("opts"), small_rows())


BAD_OPTIONS = [
    ("compare", "--alpha", "5"),
    ("compare", "--alpha", "1"),
    ("compare", "--alpha", "0"),
    ("compare", "--alpha", "-0.5"),
    ("compare", "--alpha", "nan"),
    ("compare", "--resamples", "0"),
    ("compare", "--resamples", "1000000000"),
    ("compare", "--seed", "-5"),
    ("agreement", "--confidence-level", "1"),
    ("agreement", "--confidence-level", "0"),
    ("agreement", "--confidence-level", "5"),
    ("agreement", "--confidence-level", "nan"),
    ("agreement", "--resamples", "0"),
    ("agreement", "--seed", "-5"),
    ("audit", "--epsilon", "5"),
    ("audit", "--epsilon", "nan"),
    ("audit", "--top", "-3"),
    ("audit", "--resamples", "1000000000"),
    ("audit", "--seed", "-5"),
    ("subgroups", "--min-n", "-5"),
    ("subgroups", "--max-half-width", "nan"),
    ("run", "--seed", "-5"),
    ("run", "--resamples", "0"),
    ("report", "--resamples", "1000000000"),
    ("report", "--seed", "-5"),
    ("simulate", "--items", "5"),
    ("simulate", "--seed", "-1"),
]


@pytest.mark.parametrize("command, option, value", BAD_OPTIONS)
def test_bad_option_value_is_one_line_naming_the_option(command, option, value, table, tmp_path):
    path, mapping = table
    argv = [command, path, option, value]
    if command == "simulate":
        argv = [command, "--out", tmp_path / "sim", option, value]
    rc, out, err = cli(argv)
    assert_one_line_error(rc, err, f"argument {option}", value, "is not allowed")
    assert out == ""
    assert not (tmp_path / "sim").exists()


def test_eval_order_that_does_not_exist_is_refused():
    rc, _, err = cli(["compare", DEMO, "--eval-order", "ab", "--resamples", "100"])
    assert_one_line_error(rc, err, "--eval-order 'ab'", "orders present: AB, BA")


def test_eval_order_refused_by_the_library_too(demo_study):
    from medjudge.analyses.evaluation import evaluate_judges

    with pytest.raises(ValueError, match="orders present: AB, BA"):
        evaluate_judges(demo_study, order="ab", bootstrap=Bootstrap(100))


@pytest.mark.parametrize(
    "argv, needles",
    [
        (["compare", DEMO, "--dimensions", "nodim"], ["--dimensions 'nodim'", "overall"]),
        (["audit", DEMO, "--headline", "nodim"], ["--headline 'nodim'"]),
        (["audit", DEMO, "--dimensions", "overall,nodim"], ["--dimensions 'nodim'"]),
    ],
)
def test_unknown_dimension_names_the_option_not_a_bare_key(argv, needles):
    rc, _, err = cli(argv)
    assert_one_line_error(rc, err, *needles)
    assert not err.strip().endswith("'nodim'")


def test_level_interval_on_letter_labels_is_refused(table):
    path, mapping = table
    rc, _, err = cli(
        ["agreement", path, "--mapping", mapping, "--role", "expert", "--level", "interval"]
    )
    assert_one_line_error(rc, err, "--level interval needs numbers", "A, B, tie")
    rc, _, err = cli(
        ["agreement", path, "--raters", "e1,e2,e3", "--categories", "A,B,tie", "--level", "ratio"]
    )
    assert_one_line_error(rc, err, "--level ratio needs numbers")
    rc, _, err = cli(["agreement", path, "--raters", "e1,e2,e3", "--level", "interval"])
    assert_one_line_error(rc, err, "is not a number")


def test_level_interval_on_numbers_still_works(tmp_path):
    t = tmp_path / "scores.csv"
    t.write_text("r1,r2,r3\n1,2,1\n3,3,4\n5,4,5\n2,2,2\n4,5,4\n", encoding="utf-8")
    rc, out, err = cli(["agreement", t, "--level", "interval", "--coef", "icc,alpha"])
    assert rc == 0, err
    assert "level interval" in out


@pytest.mark.parametrize(
    "argv, named",
    [
        (["agreement", "{t}", "--mapping", "{m}", "--categories", "A,B"], "--categories"),
        (["agreement", "{t}", "--mapping", "{m}", "--raters", "e1,e2"], "--raters"),
        (["validate", "{t}", "--mapping", "{m}", "--invalid", "NA"], "--invalid"),
        (["compare", "{t}", "--mapping", "{m}", "--layout", "long"], "--layout"),
        (["run", "{t}", "--mapping", "{m}", "--item", "grp", "--report", "none"], "--item"),
    ],
)
def test_table_options_next_to_mapping_are_refused_not_ignored(argv, named, table, tmp_path):
    path, mapping = table
    argv = [str(a).format(t=path, m=mapping) for a in argv]
    if argv[0] == "run":
        argv += ["--out", str(tmp_path / "o")]
    rc, _, err = cli(argv)
    assert_one_line_error(rc, err, named, "cannot be combined with --mapping")


def test_parser_errors_are_one_line():
    rc, _, err = cli(["compare", DEMO, "--policy", "sometimes"])
    assert_one_line_error(rc, err, "--policy", "invalid choice")
    rc, _, err = cli(["nosuchcommand"])
    assert rc == 2 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["compare", DEMO, "--dimension", "nope"], "--dimension"),
        (["run", DEMO, "--report", "none", "--gold", "label"], "--gold"),
        (["subgroups", DEMO, "--order", "shown"], "--order"),
    ],
)
def test_table_options_on_a_bundle_are_refused_not_dropped(argv, option, tmp_path):
    """Options that describe a table's columns were silently dropped on a bundle folder
    (``compare data/demo --dimension nope`` printed every dimension, exit 0)."""
    if argv[0] == "run":
        argv = [*argv, "--out", tmp_path / "out"]
    rc, _, err = cli(argv)
    assert_one_line_error(rc, err, "bundle folder", option)
