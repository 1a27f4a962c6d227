"""Issue 14 fuzz suite (hypothesis): generated tables, rater names, mappings and option values
drive the CLI (in-process) and the public API.

Every CLI run must end in exit 0 with the right counts, or exit 2 with one line — never exit 3,
a traceback, a MemoryError, or a partially replaced output folder; the public API returns a
result or raises ValueError. Permuting the input rows gives identical numbers.

Runtime: the valid ranges of the costly options are sampled at their cheap end (at most 300
resamples) and the example counts are small; the suite takes well under a minute on 2 cores.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from medjudge import Bootstrap
from robust_support import (
    CATEGORIES,
    assert_complete,
    cli,
    no_partials,
    small_rows,
    snapshot,
    write_wide,
)

FUZZ = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

TOKENS = [*CATEGORIES, "", "NA"]
# characters that are markup somewhere: spreadsheets, markdown, HTML, typst, mathtext, TOML
NAME_CHARS = st.sampled_from(list("abcXYZ019 _-=+@$#*`<>[]{}()!/\\'\".,:;%&|~^"))
NAMES = (
    st.text(NAME_CHARS, min_size=1, max_size=8)
    .map(str.strip)
    .filter(lambda s: s and s.lower() not in ("item", "grp"))
)


def _one_line_or_ok(rc: int, out: str, err: str) -> None:
    assert rc in (0, 2), (rc, err)
    assert "Traceback" not in err and "internal error" not in err and "MemoryError" not in err
    if rc == 2:
        assert len([ln for ln in err.splitlines() if ln.strip()]) == 1, err


@st.composite
def tables(draw):
    n = draw(st.integers(1, 12))
    names = draw(st.lists(NAMES, min_size=3, max_size=5, unique_by=str.lower))
    n_exp = draw(st.integers(1, len(names) - 1))
    cells = draw(
        st.lists(
            st.lists(st.sampled_from(TOKENS), min_size=len(names), max_size=len(names)),
            min_size=n,
            max_size=n,
        )
    )
    rows = [[f"i{k:02d}", "xy"[k % 2], *c] for k, c in enumerate(cells)]
    return rows, names[:n_exp], names[n_exp:]


# ---------------------------------------------------------------- tables -> counts
@FUZZ
@given(tables())
def test_validate_counts_every_cell(tmp_path_factory, spec):
    rows, experts, judges = spec
    folder = tmp_path_factory.mktemp("fz")
    path, mapping = write_wide(folder, rows, experts=experts, judges=judges)
    rc, out, err = cli(["validate", path, "--mapping", mapping, "--json"])
    _one_line_or_ok(rc, out, err)
    if rc != 0:
        return
    s = json.loads(out)
    ne = len(experts)
    exp_cells = [v for r in rows for v in r[2 : 2 + ne]]
    jud_cells = [v for r in rows for v in r[2 + ne :]]
    status = s["status"]
    assert s["n_items"] == len(rows)
    assert s["n_ratings"] == len(jud_cells) + sum(v != "" for v in exp_cells)
    assert status.get("ok", 0) == sum(v in CATEGORIES for v in exp_cells + jud_cells)
    assert status.get("invalid", 0) == sum(v == "NA" for v in exp_cells + jud_cells)
    assert status.get("missing", 0) == sum(v == "" for v in jud_cells)
    assert set(s["status_per_judge"]) == set(judges)


# ---------------------------------------------------------------- tables -> run -> output set
@FUZZ
@given(tables(), st.booleans())
def test_run_replaces_the_whole_set_or_nothing(tmp_path_factory, spec, break_it):
    rows, experts, judges = spec
    folder = tmp_path_factory.mktemp("fzrun")
    good, good_map = write_wide(folder / "good", small_rows(9))
    out = folder / "out"
    assert cli(["run", good, "--mapping", good_map, "--out", out, "--report", "none"])[0] == 0
    before = snapshot(out)
    if break_it:  # a label outside the declared scale: must fail without touching the outputs
        rows = [r[:] for r in rows]
        rows[0][2] = "zzz"
    path, mapping = write_wide(folder / "in", rows, experts=experts, judges=judges)
    rc, out_text, err = cli(["run", path, "--mapping", mapping, "--out", out, "--report", "none"])
    _one_line_or_ok(rc, out_text, err)
    if break_it:
        assert rc == 2 and "zzz" in err
    if rc == 0:
        assert_complete(out)
        v = json.loads((out / "validation.json").read_text(encoding="utf-8"))
        assert v["n_items"] == len(rows)
    else:
        assert snapshot(out) == before
    assert no_partials(folder) == []


# ---------------------------------------------------------------- option values
@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    return write_wide(tmp_path_factory.mktemp("fzopt"), small_rows(18, seed=3))


def _real_text():
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.floats(0, 1).map(str),
        st.sampled_from(["0", "1", "-0", "1e-300", "0.5", "x", "", "nan", "-inf", "5%"]),
    )


def _resamples_text():
    # valid values at the cheap end of the allowed range; the rest out of range or not numbers
    return st.one_of(
        st.integers(100, 300).map(str),
        st.integers(-(10**12), 9).map(str),
        st.integers(100_001, 10**15).map(str),
        st.sampled_from(["1e9", "2.5", "nan", "", "ten"]),
    )


def _int_text(lo=-(10**20), hi=10**20):
    return st.one_of(st.integers(lo, hi).map(str), st.sampled_from(["1.5", "x", "", "-0"]))


@FUZZ
@given(
    alpha=_real_text(),
    resamples=_resamples_text(),
    seed=_int_text(),
    order=st.sampled_from([None, "AB", "BA", "ab", "", "x"]),
    policy=st.sampled_from(["wrong", "exclude", "half", "never"]),
)
@example(alpha="0.05", resamples="150", seed="3", order=None, policy="exclude")
@example(alpha="0.5", resamples="100", seed="0", order=None, policy="half")
@example(alpha="0.05", resamples="150", seed="3", order="ab", policy="wrong")
def test_compare_options(fixed, alpha, resamples, seed, order, policy):
    path, mapping = fixed
    argv = ["compare", path, "--mapping", mapping, "--json", "--alpha", alpha,
            "--resamples", resamples, "--seed", seed, "--policy", policy]  # fmt: skip
    if order is not None:
        argv += ["--eval-order", order]
    rc, out, err = cli(argv)
    _one_line_or_ok(rc, out, err)
    if order == "ab":  # refused (for this or for another bad option), never scored as 0
        assert rc == 2
    if rc == 0:
        doc = json.loads(out)
        assert 0 < float(alpha) < 1 and 10 <= int(float(resamples)) <= 100_000
        assert doc["settings"]["n_resamples"] == int(float(resamples))


@FUZZ
@given(
    command=st.sampled_from(["audit", "subgroups", "agreement"]),
    real=_real_text(),
    count=_int_text(-5, 40),
    level=st.sampled_from([None, "nominal", "ordinal", "interval", "ratio", "bogus"]),
)
@example(command="audit", real="0.1", count="3", level=None)
@example(command="subgroups", real="0.2", count="5", level=None)
@example(command="agreement", real="0.9", count="1", level="ordinal")
@example(command="agreement", real="0.9", count="1", level="interval")
def test_other_commands_options(fixed, command, real, count, level):
    path, mapping = fixed
    if command == "audit":
        argv = ["audit", path, "--mapping", mapping, "--json", "--epsilon", real, "--top", count]
    elif command == "subgroups":
        argv = ["subgroups", path, "--mapping", mapping, "--by", "grp", "--json", "--model",
                "none", "--max-half-width", real, "--min-n", count]  # fmt: skip
    else:
        argv = ["agreement", path, "--mapping", mapping, "--role", "expert", "--json",
                "--confidence-level", real]  # fmt: skip
        if level is not None:
            argv += ["--level", level]
    rc, out, err = cli(argv)
    _one_line_or_ok(rc, out, err)
    if rc == 0:
        assert math.isfinite(float(real))
        json.loads(out)
    if command == "agreement" and level in ("interval", "ratio"):
        assert rc == 2  # letters have no distances


# ---------------------------------------------------------------- row order
def _runs_on_permuted_rows(tmp_path, argv_tail_compare, argv_tail_agree):
    rows = small_rows(24, seed=7)
    shuffled = rows[:]
    random.Random(1).shuffle(shuffled)
    results = []
    for name, rws in (("a", rows), ("b", shuffled)):
        path, mapping = write_wide(tmp_path / name, rws)
        rc1, compare, err1 = cli(
            ["compare", path, "--mapping", mapping, "--json", *argv_tail_compare]
        )
        rc2, agree, err2 = cli(["agreement", path, "--mapping", mapping, "--role", "expert",
                                "--json", *argv_tail_agree])  # fmt: skip
        assert rc1 == 0 and rc2 == 0, err1 + err2
        results.append((json.loads(compare), json.loads(agree)))
    return results


def _rounded(records, keys, cols):
    out = []
    for r in sorted(records, key=lambda r: tuple(str(r[k]) for k in keys)):
        out.append(
            tuple(str(r[k]) for k in keys)
            + tuple(None if r[c] is None else round(float(r[c]), 12) for c in cols)
        )
    return out


def test_row_order_does_not_change_estimates(tmp_path):
    """Point estimates and analytic intervals: identical (to 12 decimals: summation order)."""
    (c1, g1), (c2, g2) = _runs_on_permuted_rows(
        tmp_path, ["--resamples", "200"], ["--ci", "analytic"]
    )
    lb = ("dimension", "judge")
    assert _rounded(c1["leaderboard"], lb, ["accuracy", "n_invalid"]) == _rounded(
        c2["leaderboard"], lb, ["accuracy", "n_invalid"]
    )
    pk = ("dimension", "judge_a", "judge_b")
    assert _rounded(c1["pairs"], pk, ["difference", "b", "c", "pvalue"]) == _rounded(
        c2["pairs"], pk, ["difference", "b", "c", "pvalue"]
    )
    cols = ["estimate", "se", "ci_low", "ci_high"]
    assert _rounded(g1["coefficients"], ["coefficient"], cols) == _rounded(
        g2["coefficients"], ["coefficient"], cols
    )


def test_row_order_does_not_change_resampled_numbers(tmp_path):
    """Items are put in one canonical (natural) order when a study is built, so resampling
    weights drawn by item position see the same items whatever the input row order."""
    (c1, g1), (c2, g2) = _runs_on_permuted_rows(
        tmp_path, ["--resamples", "200"], ["--ci", "bootstrap", "--resamples", "200"]
    )
    lb = ("dimension", "judge")
    cols = ["share_ranked_first", "ci_low", "ci_high", "rank_low", "rank_high"]
    assert _rounded(c1["leaderboard"], lb, cols) == _rounded(c2["leaderboard"], lb, cols)
    cols = ["estimate", "se", "ci_low", "ci_high"]
    assert _rounded(g1["coefficients"], ["coefficient"], cols) == _rounded(
        g2["coefficients"], ["coefficient"], cols
    )


# ---------------------------------------------------------------- public API
@FUZZ
@given(
    n_resamples=st.one_of(st.integers(-5, 9), st.integers(100, 200), st.integers(10**6, 10**12)),
    seed=st.integers(-(10**6), 2**70),
    order=st.sampled_from([None, "ab", "AB"]),
    dimensions=st.sampled_from([None, ["overall"], ["nodim"]]),
)
def test_public_api_returns_or_raises_value_error(fixed, n_resamples, seed, order, dimensions):
    from medjudge.analyses.evaluation import evaluate_judges
    from medjudge.data.tables import load_any

    study = load_any(*fixed)
    try:
        ev = evaluate_judges(
            study, bootstrap=Bootstrap(n_resamples, seed), order=order, dimensions=dimensions
        )
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert 10 <= n_resamples <= 100_000 and 0 <= seed < 2**63
    assert ev.settings["n_resamples"] == n_resamples
