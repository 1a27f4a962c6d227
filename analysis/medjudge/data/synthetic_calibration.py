"""A simulated study of judges with known calibration (tests, docs/calibration.md, benchmark).

``n_items`` binary items (categories A / B) in cases of four (``case_id``), three experts whose
strict majority is the gold label (two always give it, the third errs 10% of the time), and
two judges that state a confidence with every verdict:

* ``calibrated``: true probability of being right ``c ~ Uniform(0.5, 1)``, stated confidence
  ``c`` (true ECE 0, true Brier score ``E[c(1 - c)] = 1/6``);
* ``overconfident``: ``c ~ Uniform(0.5, 0.85)``, stated ``c + 0.15`` (true confidence gap and
  true binned ECE 0.15 — every bin is off by the same 0.15 — and true Brier score
  ``E[c(1 - c - 0.15)² + (1 - c)(c + 0.15)²] =`` :data:`TRUTH` ``["overconfident"]["brier"]``).

Given its confidence, each verdict is right independently of the others (the assumption of the
calibration test); the cases only group items for the cluster bootstrap.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .model import Study
from .scale import Scale

__all__ = ["TRUTH", "calibration_table", "calibration_study", "MAPPING"]

#: the true calibration of the two simulated judges (module docstring)
TRUTH = {
    "calibrated": {"ece": 0.0, "gap": 0.0, "brier": 1 / 6},
    # c(1 - s)² + (1 - c)s² with s = c + .15 is c - c² + .0225; E over c ~ U(.5, .85)
    "overconfident": {"ece": 0.15, "gap": 0.15, "brier": 0.675 - (0.85**3 - 0.125) / 1.05 + 0.0225},
}

#: the column mapping of :func:`calibration_table`
MAPPING = 'role_column = "role"\nconfidence = "confidence"\ncluster = "case_id"\n'


def calibration_table(n_items: int = 400, seed: int = 0) -> pd.DataFrame:
    """The long verdict table: ``item, case_id, rater, role, value, confidence``.

    >>> t = calibration_table(8, seed=1)
    >>> sorted(t["rater"].unique()), int(t["confidence"].notna().sum())
    (['calibrated', 'e1', 'e2', 'e3', 'overconfident'], 16)
    """
    rng = np.random.default_rng(seed)
    items = np.array([f"q{i:04d}" for i in range(n_items)])
    case = np.array([f"case{i // 4:03d}" for i in range(n_items)])
    gold = rng.integers(0, 2, n_items)
    cats = np.array(["A", "B"])
    parts = []
    for e in ("e1", "e2", "e3"):
        lab = np.where((e == "e3") & (rng.random(n_items) < 0.1), 1 - gold, gold)
        parts.append(pd.DataFrame({"item": items, "case_id": case, "rater": e, "role": "expert",
                                   "value": cats[lab], "confidence": np.nan}))  # fmt: skip
    for j, (lo, hi, shift) in {"calibrated": (0.5, 1.0, 0.0),
                               "overconfident": (0.5, 0.85, 0.15)}.items():  # fmt: skip
        c = rng.uniform(lo, hi, n_items)
        right = rng.random(n_items) < c
        parts.append(pd.DataFrame({"item": items, "case_id": case, "rater": j, "role": "judge",
                                   "value": cats[np.where(right, gold, 1 - gold)],
                                   "confidence": c + shift}))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def calibration_study(n_items: int = 400, seed: int = 0):  # noqa: ANN201 - Study
    """:func:`calibration_table` as a :class:`~medjudge.data.model.Study` (cluster ``case_id``).

    >>> calibration_study(8).judges
    ['calibrated', 'overconfident']
    """

    t = calibration_table(n_items, seed)
    items = t[["item", "case_id"]].drop_duplicates("item").reset_index(drop=True)
    ratings = t.drop(columns="case_id").assign(dimension="overall")
    return Study(ratings, items, {"overall": Scale("nominal", ("A", "B"))}, name="calibration",
                 cluster="case_id")  # fmt: skip
