"""The three designs of issue 28 that the earlier calibrations did not cover (shared generator).

- **Design H** (heterogeneity at high accuracy): 3 equally good judges at population accuracy
  0.9, 50 images of 1-6 items (uniform), a subgroup attribute that varies *within* images
  (each item falls in group ``g1``/``g2``/``g3`` with probability 0.45/0.45/0.10, so the small
  group often has 0 or 1 errors).
- **Design S** (few, unequal clusters): 12 images holding 1 to 15 items, 88 items in all
  (sizes fixed: ``SIZES_12``), 4 judges.
- Rare rates for PPI are in ``ppi_rare.py``.

Outcomes follow :mod:`study_sim`: an image effect ``u_c ~ N(0, 1)`` and an item effect
``e_i ~ N(0, 0.7^2)`` shared by every judge, judge ``j`` correct with probability
``expit(a_j + u_c + e_i)`` with ``a_j`` set so that the population accuracy is the target.

Every study is a real :class:`medjudge.Study` (one expert gives the gold label, judges answer
A/B, ``image_id`` is the declared cluster), so the calibrations call the public API with its
default settings.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_sim import intercept_for  # noqa: E402

#: 12 images, 1 to 15 items each, 88 items (the issue's design).
SIZES_12 = np.array([1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 13, 15])
assert SIZES_12.sum() == 88
SD_CLUSTER, SD_ITEM = 1.0, 0.7
SD_TOTAL = float(np.hypot(SD_CLUSTER, SD_ITEM))


def sizes_h(rng: np.random.Generator, n_images: int = 50) -> np.ndarray:
    """Design H image sizes: uniform on 1..6."""
    return rng.integers(1, 7, n_images)


def correctness(
    rng: np.random.Generator, sizes: np.ndarray, accuracies: list[float], reps: int
) -> np.ndarray:
    """Correctness ``(reps, n_items, n_judges)`` with shared image and item effects."""
    cl = np.repeat(np.arange(sizes.size), sizes)
    d = rng.normal(0, SD_CLUSTER, (reps, sizes.size))[:, cl] + rng.normal(
        0, SD_ITEM, (reps, cl.size)
    )
    out = np.empty((reps, cl.size, len(accuracies)))
    for j, acc in enumerate(accuracies):
        a = intercept_for(acc, SD_TOTAL) if 0 < acc < 1 else (40.0 if acc >= 1 else -40.0)
        out[:, :, j] = rng.random((reps, cl.size)) < expit(a + d)
    return out


def verdict_frame(items: np.ndarray, y: np.ndarray) -> pd.DataFrame:
    """Long ratings: one expert giving the gold (A on even items, B on odd ones) and one judge
    per column of ``y`` (1 = agrees with the gold)."""
    truth = np.where(np.arange(len(items)) % 2 == 0, "A", "B")
    other = np.where(truth == "A", "B", "A")
    frames = [
        pd.DataFrame(
            {
                "item": items,
                "rater": "expert",
                "role": "expert",
                "dimension": "overall",
                "value": truth,
            }
        )
    ]
    for k in range(y.shape[1]):
        frames.append(
            pd.DataFrame(
                {
                    "item": items,
                    "rater": f"judge_{k}",
                    "role": "judge",
                    "dimension": "overall",
                    "value": np.where(y[:, k] > 0.5, truth, other),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def make_study(y: np.ndarray, sizes: np.ndarray, attrs: dict[str, np.ndarray] | None = None):
    """A Study from correctness ``y`` (n_items, n_judges): gold from one expert, A/B verdicts."""
    from medjudge import Scale, Study

    n = y.shape[0]
    items = np.array([f"i{i:04d}" for i in range(n)], dtype=object)
    cl = np.repeat(np.arange(sizes.size), sizes)
    frames = [verdict_frame(items, y)]
    item_table = pd.DataFrame({"item": items, "image_id": [f"img{c:02d}" for c in cl]})
    for name, v in (attrs or {}).items():
        item_table[name] = v
    return Study(
        frames[0],
        item_table,
        {"overall": Scale("nominal", ("A", "B"))},
        cluster="image_id",
    )


def mc_se(p: float, reps: int) -> float:
    """Monte Carlo SE of a proportion from ``reps`` replicates."""
    return float(np.sqrt(max(p * (1 - p), 1e-12) / reps))
