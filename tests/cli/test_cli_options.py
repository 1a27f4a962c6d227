"""One option, one meaning: the shared options have the same name, default and choices on every
command that has them, every option has help, and the options added for this (``--ties``,
``--gold-method plurality``, ``--by`` on ``run``) do what their help says, counted and stated."""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import io
import json
from pathlib import Path

import pytest
from medjudge.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
PANDALM_CSV = ROOT / "data/external/pandalm_testset/verdicts_wide.csv"
PANDALM = [str(PANDALM_CSV), "--mapping", str(ROOT / "data/mappings/pandalm_wide.toml")]
DEMO = str(ROOT / "data/demo")

#: options that mean the same thing wherever they appear
SHARED = (
    "--confidence-level", "--resamples", "--seed", "--policy", "--cluster", "--by", "--ties",
    "--gold-method", "--alpha", "--json",
)  # fmt: skip
#: (command, option) pairs that mean something else on purpose
OTHER_MEANING = {
    ("simulate", "--seed"),  # the simulated data's seed, not a resampling seed
    ("plan", "--seed"),  # plan alt-test: the simulation's seed
    ("ppi", "--seed"),  # the labels kept (--keep-labels) and the cross-fitting folds
    ("ppi", "--by"),  # one attribute, no default: per-subgroup and stratified estimates
}


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, sub-commands of ``plan`` included (``"plan accuracy"``)."""
    root = build_parser("*")
    out: dict[str, argparse.ArgumentParser] = {}

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        out[name] = parser
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for sub, p in a.choices.items():
                    walk(f"{name} {sub}".strip(), p)

    walk("", root)
    out.pop("")
    return out


def _effective_default(command: str, action: argparse.Action) -> object:
    """The parser's default; ``None`` in ``report``/``compare`` means "not given" and stands
    for the module's ``_DEFAULTS`` entry (the same value every other command shows)."""
    if action.default is None:
        module = importlib.import_module(f"medjudge.commands.{command.split()[0]}")
        return getattr(module, "_DEFAULTS", {}).get(action.dest)
    return action.default


def test_shared_options_have_one_default_and_one_set_of_choices():
    seen: dict[str, dict[str, tuple[object, object]]] = {}
    for command, parser in _parsers().items():
        for a in parser._actions:
            for opt in a.option_strings:
                if opt in SHARED and (command.split()[0], opt) not in OTHER_MEANING:
                    choices = tuple(a.choices) if a.choices else None
                    seen.setdefault(opt, {})[command] = (_effective_default(command, a), choices)
    differing = {o: v for o, v in seen.items() if len(set(v.values())) > 1}
    assert not differing, differing
    # the values the issue settled
    assert set(seen["--resamples"].values()) == {(2000, None)}
    assert set(seen["--confidence-level"].values()) == {(0.95, None)}
    assert set(seen["--policy"].values()) == {("wrong", ("wrong", "exclude", "half"))}
    assert set(seen["--cluster"].values()) == {("auto", None)}
    assert set(seen["--ties"].values()) == {("keep", ("keep", "exclude"))}
    assert "plurality" in next(iter(seen["--gold-method"].values()))[1]
    # where they must appear
    assert {"audit", "compare", "subgroups", "report"} <= set(seen["--policy"])
    assert {"run", "subgroups", "report"} <= set(seen["--by"])
    for command in ("run", "agreement", "audit", "compare", "subgroups", "bias", "models",
                    "stability", "report", "ppi"):  # fmt: skip
        assert command in seen["--confidence-level"], command


def test_every_option_has_help():
    missing = [
        f"{command} {opt}"
        for command, parser in _parsers().items()
        for a in parser._actions
        for opt in a.option_strings[:1]
        if opt not in ("-h", "--help", "--version")
        and (not a.help or a.help.startswith("(default"))
    ]
    assert not missing, missing


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def _pandalm_tie_gold() -> int:
    """Items whose three annotators' strict majority is the tie label 0, read from the CSV with
    the csv module (independent of medjudge's loaders and gold rules)."""
    n = 0
    with PANDALM_CSV.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            votes = [row[f"annotator{i}"].strip() for i in (1, 2, 3)]
            votes = ["tie" if v in ("0", "Tie") else v for v in votes if v != ""]
            if votes.count("tie") * 2 > len(votes):
                n += 1
    return n


def test_ties_exclude_counts_and_drops_tie_gold_items():
    expected = _pandalm_tie_gold()
    assert expected > 50  # PandaLM's test set has about a tenth of ties
    rc, out, err = _cli(["compare", *PANDALM, "--json", "--resamples", "50"])
    assert rc == 0
    kept = json.loads(out)["settings"]["n_items_with_gold"]["preference"]
    rc, out, err = _cli(["compare", *PANDALM, "--json", "--resamples", "50", "--ties", "exclude"])
    assert rc == 0
    assert f"{expected} items with a tie gold label left out" in err
    assert json.loads(out)["settings"]["n_items_with_gold"]["preference"] == kept - expected


def test_ties_exclude_on_a_study_without_a_tie_category_is_refused():
    rc, out, err = _cli(["compare", DEMO, "--ties", "exclude"])
    assert rc == 2 and "no dimension of this study has a tie category" in err
    assert len(err.strip().splitlines()) == 1


def test_gold_method_plurality_and_the_allowed_values():
    rc, out, _ = _cli(
        ["compare", *PANDALM, "--json", "--resamples", "50", "--gold-method", "plurality"]
    )
    assert rc == 0 and json.loads(out)["settings"]["gold"] == "plurality"
    rc, _, err = _cli(["compare", *PANDALM, "--gold-method", "supplied"])
    assert rc == 2
    assert "allowed for this study: auto, majority, plurality" in err


def test_run_by_writes_subgroups_and_states_the_judge_order(tmp_path):
    rc, out, err = _cli(
        ["run", *PANDALM, "--out", str(tmp_path / "o"), "--report", "none",
         "--resamples", "50", "--by", "motivation_app"]
    )  # fmt: skip
    assert rc == 0, err
    assert (tmp_path / "o" / "subgroups.csv").is_file()
    assert "accuracy by motivation_app in subgroups.csv" in out
    assert "judges sorted by accuracy on preference (the report's order)" in out
    rc, _, err = _cli(
        ["run", *PANDALM, "--out", str(tmp_path / "p"), "--report", "none", "--by", "nope"]
    )
    assert rc == 2 and "--by nope: not an item attribute" in err and "['" not in err


def test_run_sorts_judges_by_the_headline_dimension_as_the_report_does(tmp_path):
    rc, out, _ = _cli(
        ["run", DEMO, "--out", str(tmp_path / "o"), "--report", "none", "--resamples", "50"]
    )
    assert rc == 0
    lines = out.splitlines()
    start = lines.index("judges sorted by accuracy on overall (the report's order)") + 2
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split())
    header = lines[start - 1].split()
    overall = [float(r[header.index("overall")]) for r in rows]
    assert overall == sorted(overall, reverse=True) and len(rows) == 12
    assert "run in both presentation orders: the verdicts of order AB are used" in out


def test_agreement_does_not_mix_experts_and_judges():
    rc, _, err = _cli(["agreement", *PANDALM])
    assert rc == 2 and "--role expert or --role judge" in err


def test_audit_accepts_policy_half():
    rc, out, _ = _cli(["audit", DEMO, "--json", "--resamples", "50", "--policy", "half",
                       "--dimensions", "overall"])  # fmt: skip
    assert rc == 0 and json.loads(out)["alt_test"]


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", *PANDALM, "--resamples", "50"],
        ["ppi", DEMO, "--dimensions", "overall"],
    ],
)
def test_no_python_reprs_on_the_terminal(argv):
    rc, out, err = _cli(argv)
    assert rc == 0
    for bad in ("{'", "['", "?."):
        assert bad not in out + err, bad


def test_long_cells_are_cut_and_the_cut_is_said():
    import pandas as pd
    from medjudge.analyses._result import MAX_CELL
    from medjudge.commands._common import table_text

    frame = pd.DataFrame({"cell": ["a", "GPT-4/CoT," * 60], "n": [1, 2]})
    text = table_text(frame, index=False)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert f"long cells cut to {MAX_CELL} characters; --json prints everything" in text
    assert "cut to" not in table_text(frame.head(1), index=False)


def test_ppi_counts_keep_judge_names_and_fit_the_width():
    llmbar = [str(ROOT / "data/external/llmbar/verdicts_long.csv"), "--mapping",
              str(ROOT / "data/mappings/llmbar_long.toml")]  # fmt: skip
    rc, out, _ = _cli(["ppi", *llmbar])
    assert rc == 0
    head = out.split("\n  ")[0]
    assert "ChatGPT-0301/Swap_CoT 466" in head  # a name is not reworded
    assert max(len(line) for line in head.splitlines() if line.startswith("#")) <= 100


# ---------------------------------------------------------------- issue 40 item 1: one name each
def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {o: a for a in parser._actions for o in a.option_strings}


def _visible(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {o: a for o, a in _options(parser).items() if a.help != argparse.SUPPRESS}


def test_one_name_per_idea_across_commands():
    """A dimension filter is ``--dimensions``; the headline dimension ``--headline``; the data
    path ``--engine`` (auto, memory, duckdb, spark) and the report renderer ``--renderer``.
    ``--dimension`` is left to the table option it names (the dimension of every row)."""
    from medjudge.commands import _options as opt
    from medjudge.engine.choose import ENGINE_CHOICES

    parsers = _parsers()
    for command, parser in parsers.items():
        shown = _visible(parser)
        assert "--only" not in shown and "--judge-dimension" not in shown, command
        if "--dimension" in shown:
            assert shown["--dimension"].container.title.startswith("table mapping"), command
        if "--engine" in shown:
            assert tuple(shown["--engine"].choices) == tuple(ENGINE_CHOICES), command
        for name, spec in opt.SHARED.items():
            if name in shown and (command.split()[0], name) not in OTHER_MEANING:
                assert shown[name].help.startswith(spec["help"]), (command, name)
    for command in ("compare", "audit", "ppi", "agreement", "plan ppi"):
        assert "--dimensions" in _visible(parsers[command]), command
    for command in ("report", "audit"):
        assert "--headline" in _visible(parsers[command]), command
    assert "--renderer" in _visible(parsers["report"])
    assert "--engine" not in _visible(parsers["report"])
    for command in ("compare", "run", "subgroups", "validate"):
        assert "--engine" in _visible(parsers[command]), command


@pytest.mark.parametrize(
    ("argv", "dest", "value"),
    [
        (["compare", DEMO, "--only", "overall", "--only", "safety,x"], "dimensions",
         ["overall", "safety", "x"]),
        (["agreement", "t.csv", "--dimension", "overall"], "dimensions", ["overall"]),
        (["plan", "ppi", "--dimension", "overall"], "dimensions", ["overall"]),
        (["audit", DEMO, "--judge-dimension", "overall"], "judge_dimension", "overall"),
        (["report", DEMO, "--engine", "builtin"], "engine", "builtin"),
    ],
)  # fmt: skip
def test_old_spellings_still_work_for_one_release_with_a_note(argv, dest, value):
    from medjudge.commands._options import RENAMED

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        args = build_parser("*").parse_args(argv)
    assert getattr(args, dest) == value
    old = next(a for a in argv if a.startswith("--"))
    new = RENAMED[(argv[0], old)]
    assert f"{old} is now {new}" in err.getvalue()
    assert err.getvalue().count("\n") == argv.count(old)
    # the new name sets the same thing, without a note
    err = io.StringIO()
    new_argv = [new if a == old else a for a in argv]
    with contextlib.redirect_stderr(err):
        again = build_parser("*").parse_args(new_argv)
    assert err.getvalue() == ""
    if dest == "dimensions" and argv[0] == "compare":
        return  # --dimensions given twice: the last one wins (argparse), not appended
    assert getattr(again, dest) == value


def test_run_takes_every_option_the_readme_calls_shared():
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("Options shared by the commands")
    paragraph = text[start : text.index("\n\n", start)]
    shared = set(re.findall(r"`(--[a-z-]+)", paragraph))
    assert {"--policy", "--cluster", "--gold-method", "--dimensions", "--headline"} <= shared
    run = _visible(_parsers()["run"])
    # run writes files (no --json); it filters no dimension and its reports choose their own
    # headline: the README says so in the same paragraph
    missing = shared - set(run) - {"--json", "--dimensions", "--headline", "--renderer"}
    assert not missing, missing
    assert "`run` takes every one but `--json`" in paragraph


def test_run_policy_cluster_and_gold_method_reach_its_tables(tmp_path):
    """``run --policy exclude --cluster none --gold-method majority``: accuracy.csv holds the
    same numbers as ``accuracy_table`` with those settings (and different intervals from the
    clustered default), and the printed table is the excluded one."""
    from medjudge.analyses.policies import accuracy_table
    from medjudge.data.medrewardbench import load_medrewardbench

    rc, out, err = _cli(
        ["run", DEMO, "--out", str(tmp_path / "o"), "--report", "none", "--resamples", "20",
         "--policy", "exclude", "--cluster", "none", "--gold-method", "majority"]
    )  # fmt: skip
    assert rc == 0, err
    assert "accuracy against gold (invalid verdicts excluded;" in out
    import pandas as pd

    got = pd.read_csv(tmp_path / "o" / "accuracy.csv")
    study = load_medrewardbench(ROOT / "data/demo")
    flat = accuracy_table(study, gold="majority", cluster=None)
    clustered = accuracy_table(study)
    assert set(got["gold"]) == {"majority"}
    pd.testing.assert_series_equal(got["ci_low"], flat["ci_low"].round(6), check_names=False)
    assert not (flat["ci_low"].round(6) == clustered["ci_low"].round(6)).all()
    rc, _, err = _cli(["run", DEMO, "--out", str(tmp_path / "p"), "--cluster", "none"])
    assert rc == 2 and "--cluster none applies to the tables only" in err


def test_the_reports_name_only_options_that_exist():
    """Every option a report sentence names is one its reader can give: a bare `` `--x` `` is an
    option of ``report`` (the command that makes the reports), and
    ``medjudge CMD ... --x`` one of CMD (the audit report once pointed to ``--dimension``, a
    table option, to choose its headline dimension)."""
    import re

    parsers = _parsers()
    makers = set(_visible(parsers["report"]))
    named: list[tuple[str, str, set[str]]] = []
    for path in sorted((ROOT / "analysis" / "medjudge" / "report").rglob("*")):
        if path.suffix not in (".py", ".qmd", ".md") or path.name == "render.py":
            continue  # render.py passes pandoc's own options
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"`(--[a-z][a-z-]*)", text):
            named.append((m.group(1), path.name, makers))
        for m in re.finditer(r"medjudge ([a-z]+)[^\n\"'`]*?(--[a-z][a-z-]*)", text):
            if m.group(1) in parsers:
                named.append((m.group(2), path.name, set(_visible(parsers[m.group(1)]))))
    assert named, "no option named in the reports: the pattern is wrong"
    unknown = sorted({(o, where) for o, where, known in named if o not in known})
    assert not unknown, unknown
