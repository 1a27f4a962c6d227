"""Generated studies through ``medjudge compare``: the text against the result tables
(issue 36, item 6).

Random pairwise studies coded "0"/"1"/"2" (response 1, response 2, tie), judged in both orders
by some judges, with 1, 2, 5, 30 and 40 judges, at confidence levels 0.9 and 0.95 and α 0.05 / 0.10.
For each, the text output's α, family and count of significant pairs must equal what the JSON
result records, the letters must follow the pairs' decisions, and a one-judge study must get
no pairwise language.
"""

from __future__ import annotations

import contextlib
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from medjudge.cli import main
from medjudge.data.tables import TableMapping, load_table

MAPPING = """\
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "value"
order = "order"
gold = "gold"
attributes = ["image"]
cluster = "image"
"""


def _study(folder, n_judges: int, seed: int, n_items: int = 150):
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.45, 0.9, n_judges)
    swap = rng.uniform(size=n_judges) < 0.5  # these judges see every item in both orders
    rows = []
    for i in range(n_items):
        g = int(rng.integers(2))
        for j in range(n_judges):
            orders = ("AB", "BA") if swap[j] else (("AB", "BA")[int(rng.integers(2))],)
            for o in orders:
                u = rng.uniform()
                v = 2 if u < 0.05 else (g if u < 0.05 + skill[j] else 1 - g)
                rows.append((f"q{i:03d}", f"judge{j:02d}", "judge", str(v), o, str(g), i // 3))
    path = folder / f"study_{n_judges}_{seed}.csv"
    cols = ["item", "rater", "role", "value", "order", "gold", "image"]
    pd.DataFrame(rows, columns=cols).to_csv(path, index=False)
    mapping = folder / "mapping.toml"
    mapping.write_text(MAPPING)
    return path, mapping


def _run(argv: list[str]) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def _codes(group: str) -> set[str]:
    return set(group.split(",")) if group[:1].isdigit() else set(group)


@pytest.mark.parametrize(
    "n_judges, level, alpha, seed, engine",
    [
        (1, 0.95, 0.05, 1, "memory"),
        (2, 0.9, 0.05, 2, "memory"),
        (30, 0.9, 0.05, 3, "memory"),
        (40, 0.95, 0.10, 4, "memory"),
        (5, 0.9, 0.10, 6, "duckdb"),
    ],
)
def test_compare_text_states_the_alpha_family_and_counts_of_its_result(
    tmp_path, n_judges, level, alpha, seed, engine
):
    path, mapping = _study(tmp_path, n_judges, seed, n_items=60 if n_judges > 30 else 150)
    args = ["compare", str(path), "--mapping", str(mapping), "--resamples", "50",
            "--confidence-level", str(level), "--alpha", str(alpha), "--engine", engine]  # fmt: skip
    res = json.loads(_run([*args, "--json"]))
    text = _run(args)
    settings, pairs = res["settings"], pd.DataFrame(res["pairs"])
    board = pd.DataFrame(res["leaderboard"])
    assert settings["alpha"] == alpha and settings["level"] == level
    if settings["order"] != "single order":  # some judges saw both orders: the text says which
        assert f"accuracy uses order {settings['order']}" in text
    if n_judges == 1:
        assert pairs.empty
        assert "pairwise:" not in text and "Holm over all 0" not in text
        assert "(no pairs: 1 judge" in text
        return
    m = re.search(
        r"pairwise: (\d+) comparisons .*?; (.*); significant at α = ([0-9.]+): (\d+)", text
    )
    assert m, text
    n_pairs, family, a_text, n_sig = m.groups()
    assert int(n_pairs) == len(pairs) == n_judges * (n_judges - 1) // 2
    assert family == settings["multiplicity"]["description"]
    assert float(a_text) == alpha
    assert int(n_sig) == int((pairs["p_holm"] < alpha).sum())
    # letters follow the decisions at alpha (brute force over every pair)
    g = dict(zip(board["judge"], board["group"], strict=True))
    for a, b, p in zip(pairs["judge_a"], pairs["judge_b"], pairs["p_holm"], strict=True):
        assert bool(_codes(g[a]) & _codes(g[b])) == (not p < alpha)
    # the leader's count of indistinguishable judges is its non-significant pairs
    lead = board.sort_values("rank").iloc[0]
    mine = pairs[(pairs["judge_a"] == lead["judge"]) | (pairs["judge_b"] == lead["judge"])]
    assert lead["n_indistinguishable"] == int((~(mine["p_holm"] < alpha)).sum())
    assert int(lead["rank_high"]) == n_judges - int((mine["p_holm"] < alpha).sum())


def test_validate_on_a_generated_study_says_pairwise_from_the_orders(tmp_path):
    path, mapping = _study(tmp_path, 2, 7)
    out = _run(["validate", str(path), "--mapping", str(mapping)])
    line = next(ln for ln in out.splitlines() if ln.startswith("design ("))
    assert "pairwise (inferred (rule 1): the judges' rows record both answer orders" in line
    assert "first '0', second '1', tie '2'" in line


def test_subgroups_on_a_one_judge_study_says_why_instead_of_failing(tmp_path):
    # one judge, a grouping attribute, and a level on which the judge is always right
    # (separation): no internal error, and the untested row says why, never a bare NaN
    path, mapping = _study(tmp_path, 1, 5)
    d = pd.read_csv(path)
    d["grp"] = (d["item"].str[1:].astype(int) % 3).map({0: "x", 1: "y", 2: "z"})
    d.loc[d["grp"] == "x", "value"] = d.loc[d["grp"] == "x", "gold"]
    d.to_csv(path, index=False)
    mapping.write_text(MAPPING.replace('["image"]', '["image", "grp"]'))
    out = _run(["subgroups", str(path), "--mapping", str(mapping), "--by", "grp"])
    effect = out.split("effect per judge")[1].split("\n\n")[0]
    assert "NaN" not in effect
    # the level without variation is named: left out of the test, or the test not run
    assert "excluded from the test: x" in effect or "not tested: separation" in effect
    assert "best judge per cell: not computed (1 judge" in out


def test_compare_refuses_to_rank_exchangeable_judge_slots(tmp_path, capsys):
    path, mapping = _study(tmp_path, 3, 9, n_items=40)
    mapping.write_text(MAPPING + 'exchangeable = ["judge"]\n')
    assert main(["compare", str(path), "--mapping", str(mapping), "--resamples", "50"]) == 2
    err = capsys.readouterr().err
    assert "exchangeable slots" in err and "Traceback" not in err


# --------------------------------------------------------------------------------------------
# generated studies through both reports (markdown) and the CLI: 40 judges, exchangeable and
# renamed crowds with sparse labels, scores (issue 36, item 6)

CROWD = """\
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "value"
attributes = ["image"]
cluster = "image"
exchangeable = ["expert"]

[role_names]
expert = "crowd rater"
judge = "grader"
"""

SCORES = """\
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "value"
exchangeable = ["expert"]

[scale]
level = "interval"
low = 1
high = 5
"""

#: the report settings of the generated reports: a 90% level (a typed "95%" cannot hide) and
#: α 0.05 (not 1 - level, so an α read from the level cannot hide either)
LEVEL, ALPHA, B = 0.9, 0.05, 30


def _crowd(folder, seed: int = 21, n_items: int = 80):
    """Sparse exchangeable crowd: 1-4 labels per item from 8 slots (about a quarter of the
    items have one label), two graders; no supplied gold (the crowd's majority)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        g = ("yes", "no")[int(rng.integers(2))]
        other = "no" if g == "yes" else "yes"
        k = int(rng.choice([1, 2, 3, 4], p=[0.25, 0.35, 0.25, 0.15]))
        for s in rng.choice(8, size=k, replace=False):
            lab = g if rng.uniform() < 0.8 else other
            rows.append((f"c{i:03d}", f"slot{s}", "expert", lab, i // 4))
        for j, skill in (("grader-a", 0.85), ("grader-b", 0.65)):
            rows.append((f"c{i:03d}", j, "judge", g if rng.uniform() < skill else other, i // 4))
    path, mapping = folder / "crowd.csv", folder / "crowd.toml"
    cols = ["item", "rater", "role", "value", "image"]
    pd.DataFrame(rows, columns=cols).to_csv(path, index=False)
    mapping.write_text(CROWD)
    return path, mapping


def _scores(folder, seed: int = 22, n_items: int = 60):
    """1-5 scores: three exchangeable expert slots, two judges (one biased low)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        t = rng.uniform(1.5, 4.5)
        for e in range(3):
            rows.append(
                (f"s{i}", f"slot{e}", "expert", int(np.clip(round(t + rng.normal(0, 0.7)), 1, 5)))
            )
        rows.append(
            (f"s{i}", "low", "judge", int(np.clip(round(t - 1.2 + rng.normal(0, 0.6)), 1, 5)))
        )
        rows.append((f"s{i}", "close", "judge", int(np.clip(round(t + rng.normal(0, 0.5)), 1, 5))))
    path, mapping = folder / "scores.csv", folder / "scores.toml"
    pd.DataFrame(rows, columns=["item", "rater", "role", "value"]).to_csv(path, index=False)
    mapping.write_text(SCORES)
    return path, mapping


def _markdown(study) -> dict[str, str]:
    """Both reports as markdown (built in-process; figures are not drawn)."""
    from medjudge.report.audit import audit_report
    from medjudge.report.judges import judges_report
    from medjudge.report.sections import section_markdown

    kw = {"n_resamples": B, "confidence_level": LEVEL, "alpha": ALPHA}
    return {
        name: "\n\n".join(section_markdown(s) for s in build(study, **kw).sections if s.applies)
        for name, build in (("judges", judges_report), ("audit", audit_report))
    }


def _plain(md: str) -> str:
    return re.sub(r"\\(.)", r"\1", md)


def _level_and_alpha_only(text: str) -> None:
    assert set(re.findall(r"α = ([0-9.]*[0-9])", text)) <= {f"{ALPHA:g}"}
    assert "95%" not in text and f"{100 * LEVEL:g}%" in text


def test_reports_of_forty_judges_state_counts_alpha_and_order_of_their_results(tmp_path):
    from medjudge.analyses.evaluation import evaluate_judges
    from medjudge.data.design import presentation_design
    from medjudge.stats.resampling import Bootstrap

    path, mapping = _study(tmp_path, 40, 8, n_items=60)
    study = load_table(path, TableMapping.from_toml(mapping))
    text = _plain(_markdown(study)["judges"])
    _level_and_alpha_only(text)
    ev = evaluate_judges(study, bootstrap=Bootstrap(B, 0), confidence_level=LEVEL, alpha=ALPHA)
    board = ev.leaderboard[ev.leaderboard["dimension"] == "overall"]
    lead = board.sort_values("rank").iloc[0]
    key = text.split("## Key findings")[1].split("\n## ")[0]
    m = re.search(r"most accurate judge is \*\*(\S+)\*\* .*?rank set (\d+)–(\d+)", key)
    assert m and m.group(1) == lead["judge"]
    assert (int(m.group(2)), int(m.group(3))) == (int(lead["rank_low"]), int(lead["rank_high"]))
    n = re.search(r"(\d+) other judges cannot be distinguished", key)
    assert n and int(n.group(1)) == int(lead["n_indistinguishable"])
    d = presentation_design(study, "overall")
    assert f"verdicts in order {d.evaluation_order} for the {len(d.swap_judges)} judges" in key
    assert "all tests have size α = 0.05" in text


def test_reports_of_a_sparse_renamed_exchangeable_crowd(tmp_path):
    path, mapping = _crowd(tmp_path)
    study = load_table(path, TableMapping.from_toml(mapping))
    md = _markdown(study)
    for text in md.values():
        _level_and_alpha_only(_plain(text))
    audit = _plain(md["audit"])
    # n of the reliability finding: items with at least two crowd labels (counted here)
    v = study.matrix("overall", role="expert").values
    two = int((np.isfinite(v).sum(1) >= 2).sum())
    assert two < int((np.isfinite(v).sum(1) >= 1).sum())
    assert f"n = {two} items with at least two labels" in audit
    # exchangeable slots: no per-rater table, and the study's own role names throughout
    assert "tbl-annotators" not in audit and "least in line" not in audit
    for name, text in md.items():
        key = _plain(text).split("## Key findings")[1].split("\n## ")[0]
        assert "expert" not in key.lower(), (name, key)
    assert "crowd raters" in audit and "graders" in _plain(md["judges"])


def test_reports_and_compare_of_a_score_study(tmp_path):
    from medjudge.analyses.score_study import score_study
    from medjudge.stats.resampling import Bootstrap

    path, mapping = _scores(tmp_path)
    study = load_table(path, TableMapping.from_toml(mapping))
    text = _plain(_markdown(study)["judges"])
    _level_and_alpha_only(text)
    res = score_study(study, bootstrap=Bootstrap(B, 0), confidence_level=LEVEL, baselines=True)
    mae = res.metrics[res.metrics["metric"] == "mae"].set_index("rater")["estimate"]
    best = mae[["low", "close"]].idxmin()
    assert f"**{best}**: MAE {mae[best]:.2f}" in text
    base = mae[[r for r in mae.index if r.startswith("always")]].min()
    assert f"has MAE {base:.2f}" in text
    # exchangeable expert slots: no per-slot rows, one ICC form
    assert "against the mean of the other" not in text and "ICC(A,1) = " not in text
    assert not (res.metrics["role"] == "expert").any()
    args = ["compare", str(path), "--mapping", str(mapping), "--resamples", "30",
            "--confidence-level", str(LEVEL)]  # fmt: skip
    out = _run(args)
    doc = json.loads(_run([*args, "--json"]))
    head = doc["scores"]["headline"]["overall"]
    assert head in out and "constant baseline" in head
    assert "Experts against the mean of the others" not in out
