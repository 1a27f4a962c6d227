"""Issue 13 deliverable 6: studies from evaluation harnesses — Inspect AI eval logs (Inspect's own
writer and reader), lm-evaluation-harness ``--log_samples`` JSONL, Hugging Face datasets saved to
disk — each written here by the test, loaded through the shipped mapping, and checked against an
independent pandas computation of the same numbers."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import MAPPINGS
from medjudge.data.errors import InputError
from medjudge.data.tables import load_any
from robust_support import assert_one_line_error, cli

RNG = np.random.default_rng(2026)


def _compare_json(path, mapping) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "medjudge.cli", "compare", str(path), "--mapping", str(mapping),
         "--json", "--resamples", "100"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# --- lm-evaluation-harness ----------------------------------------------------------------


def _write_lm_eval(root, n_docs=40):
    """What ``lm_eval --log_samples --output_path root`` writes: root/<model>/samples_*.jsonl."""
    truth = RNG.choice(["A", "B", "tie"], size=n_docs, p=[0.45, 0.45, 0.1])
    expected = {}
    for model, skill in (("judge-small", 0.6), ("judge-large", 0.85)):
        folder = root / model
        folder.mkdir(parents=True)
        lines, resp = [], []
        for i, t in enumerate(truth):
            r = t if RNG.uniform() < skill else RNG.choice(["A", "B", "tie"])
            resp.append(r)
            lines.append(json.dumps({
                "doc_id": i, "doc": {"question": f"q{i}", "label": t, "meta": {"organ": "eye"}},
                "target": t, "arguments": [["prompt", {"until": ["\n"]}]],
                "resps": [[f" {r}"]], "filtered_resps": [r], "filter": "strict-match",
                "metrics": ["exact_match"], "exact_match": float(r == t),
                "doc_hash": "x", "prompt_hash": "y", "target_hash": "z",
            }))  # fmt: skip
        (folder / "samples_pairjudge_2026-11-24T10-00-00.123456.jsonl").write_text(
            "\n".join(lines) + "\n", encoding="utf-8"
        )
        expected[model] = float(np.mean(np.array(resp) == truth))
    return expected


def test_lm_eval_samples_folder_loads_and_accuracy_matches_pandas(tmp_path):
    expected = _write_lm_eval(tmp_path / "out")
    study = load_any(tmp_path / "out", MAPPINGS / "lm_eval.toml")
    assert len(study.items) == 40 and sorted(study.judges) == sorted(expected)
    assert study.items["task"].unique().tolist() == ["pairjudge"]
    board = pd.DataFrame(_compare_json(tmp_path / "out", MAPPINGS / "lm_eval.toml")["leaderboard"])
    for model, acc in expected.items():
        assert board.set_index("judge").loc[model, "accuracy"] == pytest.approx(acc)


def test_lm_eval_single_file_and_bad_line(tmp_path):
    _write_lm_eval(tmp_path)
    (f,) = (tmp_path / "judge-small").glob("*.jsonl")
    study = load_any(f, MAPPINGS / "lm_eval.toml")
    assert study.judges == ["judge-small"]
    f.write_text(f.read_text() + json.dumps({"doc": {}}) + "\n", encoding="utf-8")
    rc, _, err = cli(["validate", f, "--mapping", MAPPINGS / "lm_eval.toml"])
    assert_one_line_error(rc, err, f.name, "line 41", "doc_id")


# --- Inspect AI ----------------------------------------------------------------------------


def _write_inspect(path, n=30):
    inspect_log = pytest.importorskip("inspect_ai.log", reason="optional extra medjudge[inspect]")
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    truth = RNG.choice(["C", "I"], size=n, p=[0.6, 0.4])
    samples, graded = [], []
    for i, t in enumerate(truth):
        g = t if RNG.uniform() < 0.8 else ("I" if t == "C" else "C")
        graded.append(g)
        samples.append(
            inspect_log.EvalSample(
                id=f"case-{i}", epoch=1, input=f"question {i}", target="reference answer",
                output=ModelOutput.from_content("mockllm/model", f"answer {i}"),
                scores={"model_graded_qa": Score(value=g, answer=f"answer {i}",
                                                 explanation="graded")},
                metadata={"human_label": t, "organ": ["eye", "chest"][i % 2]},
            )
        )  # fmt: skip
    log = inspect_log.EvalLog(
        eval=inspect_log.EvalSpec(
            created="2026-11-24T10:00:00+00:00", task="judge_study", dataset=inspect_log.EvalDataset(),
            model="mockllm/model", config=inspect_log.EvalConfig(),
        ),
        samples=samples,
    )  # fmt: skip
    inspect_log.write_eval_log(log, str(path))
    return float(np.mean(np.array(graded) == truth))


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_log_loads_with_inspects_reader(tmp_path, suffix):
    path = tmp_path / f"log{suffix}"
    expected = _write_inspect(path)
    study = load_any(path, MAPPINGS / "inspect.toml")
    assert len(study.items) == 30 and study.judges == ["model_graded_qa"]
    assert "metadata.organ" not in study.items.columns  # only declared attributes are kept
    board = pd.DataFrame(_compare_json(path, MAPPINGS / "inspect.toml")["leaderboard"])
    assert board.set_index("judge").loc["model_graded_qa", "accuracy"] == pytest.approx(expected)


def test_not_an_inspect_log_is_one_line(tmp_path):
    pytest.importorskip("inspect_ai.log", reason="optional extra medjudge[inspect]")
    bad = tmp_path / "log.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    rc, _, err = cli(["validate", bad, "--mapping", MAPPINGS / "inspect.toml"])
    assert_one_line_error(rc, err, "log.json", "Inspect AI eval log")


# --- Hugging Face datasets -------------------------------------------------------------------


def _judgments(n=36):
    rows = []
    for q in range(n):
        human = RNG.choice(["model_a", "model_b", "tie"], p=[0.45, 0.4, 0.15])
        for who, role, skill in (("author_0", "expert", 0.9), ("author_1", "expert", 0.85),
                                 ("author_2", "expert", 0.8), ("gpt4_pair", "judge", 0.7)):  # fmt: skip
            w = human if RNG.uniform() < skill else RNG.choice(["model_a", "model_b", "tie"])
            rows.append({"question_id": 81 + q, "model_a": "alpaca-13b", "model_b": "vicuna-13b",
                         "winner": w, "judge": who, "judge_role": role, "turn": 1})  # fmt: skip
    return pd.DataFrame(rows)


def test_hf_dataset_saved_to_disk_loads(tmp_path):
    datasets = pytest.importorskip("datasets", reason="optional extra medjudge[hf]")
    df = _judgments()
    datasets.DatasetDict({"train": datasets.Dataset.from_pandas(df)}).save_to_disk(
        str(tmp_path / "ds")
    )
    study = load_any(tmp_path / "ds", MAPPINGS / "hf_judgments.toml")
    assert len(study.items) == 36 and study.judges == ["gpt4_pair"] and len(study.experts) == 3
    # the judge's agreement with the strict expert majority, by pandas
    ex = df[df["judge_role"] == "expert"]
    maj = ex.groupby("question_id")["winner"].agg(
        lambda s: s.value_counts().index[0] if s.value_counts().iloc[0] > len(s) / 2 else None
    )
    j = df[df["judge"] == "gpt4_pair"].set_index("question_id")["winner"]
    ok = maj.notna()
    expected = float((j[ok.index[ok]] == maj[ok]).mean())
    board = pd.DataFrame(
        _compare_json(tmp_path / "ds", MAPPINGS / "hf_judgments.toml")["leaderboard"]
    )
    assert board.set_index("judge").loc["gpt4_pair", "accuracy"] == pytest.approx(expected)


def test_hf_split_must_exist(tmp_path):
    datasets = pytest.importorskip("datasets", reason="optional extra medjudge[hf]")
    ds = datasets.Dataset.from_pandas(_judgments(4))
    datasets.DatasetDict({"a": ds, "b": ds}).save_to_disk(str(tmp_path / "ds"))
    rc, _, err = cli(["validate", tmp_path / "ds", "--mapping", MAPPINGS / "hf_judgments.toml"])
    assert_one_line_error(rc, err, "split 'train'", "have a and b")


def test_missing_path_says_it_does_not_exist(tmp_path):
    rc, _, err = cli(["validate", tmp_path / "nope.csv"])
    assert_one_line_error(rc, err, "nope.csv", "does not exist")


@pytest.mark.parametrize(
    "reader, module, words",
    [
        (
            "read_inspect_log",
            "inspect_ai.log",
            "reading Inspect AI logs needs the inspect_ai package",
        ),
        ("read_hf_dataset", "datasets", "reading Hugging Face datasets needs the datasets package"),
    ],
)
def test_a_missing_optional_reader_is_one_line_naming_the_extra(
    tmp_path, monkeypatch, reader, module, words
):
    from medjudge.data import harness

    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(InputError) as e:
        getattr(harness, reader)(tmp_path)
    assert words in str(e.value) and "pip install 'medjudge[" in str(e.value)
