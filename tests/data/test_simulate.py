"""Demo simulator: deterministic, matches the committed bundle, and its truth is recoverable."""

from __future__ import annotations

import filecmp
import json

import numpy as np
import pandas as pd
from conftest import DEMO
from medjudge.data.simulate import simulate
from scipy import stats


def test_simulate_reproduces_committed_demo_bundle(tmp_path):
    params = simulate(
        tmp_path / "demo", seed=json.loads((DEMO / "truth" / "params.json").read_text())["seed"]
    )
    for f in sorted(DEMO.rglob("*")):
        if f.is_file():
            other = tmp_path / "demo" / f.relative_to(DEMO)
            assert other.exists(), f
            assert filecmp.cmp(f, other, shallow=False), f"{f} differs from a fresh simulation"
    assert params["n_items"] == 1026


def test_different_seed_differs(tmp_path):
    simulate(tmp_path / "a", seed=1, n_items=60)
    simulate(tmp_path / "b", seed=2, n_items=60)
    assert (tmp_path / "a" / "expert_labels.jsonl").read_bytes() != (
        tmp_path / "b" / "expert_labels.jsonl"
    ).read_bytes()


def test_true_accuracy_recovered(demo_study):
    """Usable-verdict accuracy (exclude policy) vs the simulator's population truth: the share of
    judge x dimension cells whose 95% Wilson interval covers the truth is consistent with 95%
    (binomial test), and the estimates correlate with the truth."""
    params = json.loads((DEMO / "truth" / "params.json").read_text())
    covered, est, true = 0, [], []
    cells = 0
    for dim in demo_study.dimensions:
        o = demo_study.outcomes(dim, order="AB")
        for j, judge in enumerate(o.judges):
            y = o.outcome[:, j]
            y = y[np.isfinite(y)]
            k, n = y.sum(), len(y)
            ci = stats.binomtest(int(k), n).proportion_ci(method="wilson")
            t = params["judges"][judge]["true_accuracy_usable"][dim]
            covered += ci.low <= t <= ci.high
            est.append(k / n)
            true.append(t)
            cells += 1
    assert cells == 72
    # 72 cells at 95%: P(covered <= 62) < 0.01 under nominal coverage (items are shared, so
    # cells are not independent; the bound is loose on purpose)
    assert covered >= 63, covered
    assert np.corrcoef(est, true)[0, 1] > 0.9


def _gt_table(folder):
    """The pair_gt_all files as one table, read with json + pandas (not the medjudge loader)."""
    rows = [
        json.loads(line)
        for f in sorted((folder / "pair_gt_all").glob("*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return pd.DataFrame(rows)


def _assert_one_organ_and_department_per_image(gt):
    per_image = gt.groupby("image_id")[["modality_type", "department"]].nunique()
    spanning = per_image.index[per_image["modality_type"] > 1].tolist()
    assert not spanning, f"{len(spanning)} images span several organ systems, e.g. {spanning[:3]}"
    assert (per_image["department"] == 1).all()
    # several questions per image, as in the benchmark (not one image per case)
    assert gt["image_id"].nunique() < 0.7 * len(gt)


def test_simulated_images_lie_inside_one_organ_system(tmp_path):
    """Med-RewardBench files its cases by organ system and an image shows one organ, so every
    simulated image has exactly one organ system (and one department); the old simulator drew
    images across all cases, so about half of them spanned several organs."""
    for seed, n in ((1, 60), (7, 400), (20261122, 1026)):
        simulate(tmp_path / str(seed), seed=seed, n_items=n)
        gt = _gt_table(tmp_path / str(seed))
        assert len(gt) == n
        _assert_one_organ_and_department_per_image(gt)
        # each case's id starts with its organ system, as in the organ file it is written to
        assert all(
            q.startswith(o) for q, o in zip(gt["question_id"], gt["modality_type"], strict=True)
        )


def test_demo_bundle_images_lie_inside_one_organ_system():
    gt = _gt_table(DEMO)
    assert len(gt) == 1026
    _assert_one_organ_and_department_per_image(gt)
    assert gt["image_id"].nunique() == 502
    assert gt["modality_type"].nunique() == 13
    assert gt["department"].nunique() == 8
