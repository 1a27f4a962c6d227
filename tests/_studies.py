"""Studies unlike the demo, written to a folder by the tests (issue 13 done-when).

* :func:`write_crowd_study` — a long CSV: items × 4 dimensions (``question``), gold per item and
  dimension (``gold``), an ordinal 4-level risk scale and a nominal 6-category scale on the other
  three, 3–12 crowd labels per item and dimension from anonymous slots (exchangeable raters), two
  judges with some unparseable ("N/A") verdicts, items clustered by image.
* :func:`write_score_study` — a wide CSV of 1–10 quality scores by three experts and two judges.

Both return ``(table path, mapping path)``. Data are simulated with a fixed seed; the tests
compute every expected number independently (pandas / scikit-learn / krippendorff).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DIMS = ["risk", "topic", "intent", "response"]
RISK = ["Non-serious", "Moderate", "Serious", "Critical"]
LABELS = ["diagnosis", "treatment", "medication", "lifestyle", "administrative", "other"]

CROWD_MAPPING = """\
# a crowd study: one row per label; gold per item and dimension
layout = "long"
item = "item_id"
rater = "worker"
role_column = "kind"
value = "label"
dimension_column = "question"
gold = "gold"
cluster = "image"
attributes = ["specialty"]
invalid = ["N/A"]
exchangeable = ["expert"]

[role_map]
crowd = "expert"
model = "judge"

[role_names]
expert = "crowd worker"

[scale]
level = "nominal"
categories = ["diagnosis", "treatment", "medication", "lifestyle", "administrative", "other"]

[scales.risk]
level = "ordinal"
categories = ["Non-serious", "Moderate", "Serious", "Critical"]
"""


def write_crowd_study(folder: Path, n_items: int = 90, seed: int = 13) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    rows = []
    specialties = ("cardiology", "oncology", "neurology")
    for i in range(n_items):
        item = f"case{i:03d}"
        image = f"img{i // 3:03d}"  # three questions per image
        spec = specialties[(i // 3) % 3]
        hard = rng.uniform(0, 0.5)  # item difficulty shared by everyone
        for d in DIMS:
            cats = RISK if d == "risk" else LABELS
            p = np.array([0.45, 0.3, 0.15, 0.1]) if d == "risk" else np.full(6, 1 / 6)
            g = int(rng.choice(len(cats), p=p))
            n_labels = int(rng.integers(3, 13))
            slots = rng.choice(12, size=n_labels, replace=False)
            for s in sorted(slots):
                ok = rng.uniform() > 0.15 + hard / 2
                lab = g if ok else int(rng.integers(len(cats)))
                rows.append((item, d, f"slot{s + 1}", "crowd", cats[lab], cats[g], image, spec))
            for judge, skill in (("judge-a", 0.8), ("judge-b", 0.65)):
                u = rng.uniform()
                if u < 0.04:
                    lab_text = "N/A"
                elif rng.uniform() < skill - hard / 2:
                    lab_text = cats[g]
                elif d == "risk":  # ordinal errors: mostly one step off, more often too low
                    step = -1 if rng.uniform() < 0.65 else 1
                    lab_text = cats[int(np.clip(g + step, 0, 3))]
                else:
                    lab_text = cats[int(rng.integers(len(cats)))]
                rows.append((item, d, judge, "model", lab_text, cats[g], image, spec))
    df = pd.DataFrame(
        rows,
        columns=["item_id", "question", "worker", "kind", "label", "gold", "image", "specialty"],
    )
    df = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # row order is arbitrary
    table = Path(folder) / "crowd.csv"
    df.to_csv(table, index=False)
    mapping = Path(folder) / "crowd.toml"
    mapping.write_text(CROWD_MAPPING, encoding="utf-8")
    return table, mapping


SCORE_MAPPING = """\
# 1-10 quality scores: three experts and two judges, one row per answer
layout = "wide"
item = "answer_id"
dimension = "quality"
attributes = ["topic"]

[scale]
level = "interval"
low = 1
high = 10

[raters.e1]
role = "expert"
[raters.e2]
role = "expert"
[raters.e3]
role = "expert"
[raters.j1]
role = "judge"
[raters.j2]
role = "judge"
"""


def write_score_study(folder: Path, n_items: int = 80, seed: int = 7) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    true = rng.uniform(2, 9, n_items)
    cols = {"answer_id": [f"a{i:03d}" for i in range(n_items)]}
    cols["topic"] = [("triage", "dosage", "imaging")[i % 3] for i in range(n_items)]
    for e in ("e1", "e2", "e3"):
        cols[e] = np.clip(np.rint(true + rng.normal(0, 0.8, n_items)), 1, 10).astype(int)
    cols["j1"] = np.clip(np.rint(true + 0.5 + rng.normal(0, 1.0, n_items)), 1, 10).astype(int)
    cols["j2"] = np.clip(np.rint(0.6 * true + 3 + rng.normal(0, 1.5, n_items)), 1, 10).astype(int)
    table = Path(folder) / "scores.csv"
    pd.DataFrame(cols).to_csv(table, index=False)
    mapping = Path(folder) / "scores.toml"
    mapping.write_text(SCORE_MAPPING, encoding="utf-8")
    return table, mapping


SMALL_MAPPING = """\
# a small study of one's own: 3 LLM judges (some junk outputs) and 3 experts, one row per label
layout = "long"
item = "item"
rater = "rater"
role_column = "role"
value = "verdict"
dimension = "overall"
cluster = "case"
attributes = ["specialty"]
invalid = ["ERROR: rate limit", "I cannot answer"]

[scale]
level = "nominal"
categories = ["A", "B"]
"""


def write_small_study(folder: Path, n_cases: int = 15, seed: int = 3) -> tuple[Path, Path]:
    """3 judges × 3 experts on 4 questions in each of ``n_cases`` cases (3 specialties)."""
    rng = np.random.default_rng(seed)
    rows = []
    specialties = ("cardiology", "oncology", "neurology")
    for c in range(n_cases):
        case, spec = f"case{c + 1:02d}", specialties[c % 3]
        for q in range(4):
            item, truth = f"{case}_q{q + 1}", int(rng.integers(2))
            for e, skill in (("dr_ahmed", 0.92), ("dr_brown", 0.88), ("dr_chen", 0.85)):
                v = truth if rng.uniform() < skill else 1 - truth
                rows.append((item, e, "expert", "AB"[v], case, spec))
            for j, skill in (("gpt-4o", 0.85), ("llama-3-70b", 0.75), ("mistral-7b", 0.62)):
                u = rng.uniform()
                if u < 0.05:
                    text = "ERROR: rate limit" if u < 0.03 else "I cannot answer"
                else:
                    text = "AB"[truth if rng.uniform() < skill else 1 - truth]
                rows.append((item, j, "judge", text, case, spec))
    df = pd.DataFrame(rows, columns=["item", "rater", "role", "verdict", "case", "specialty"])
    table = Path(folder) / "small.csv"
    df.to_csv(table, index=False)
    mapping = Path(folder) / "small.toml"
    mapping.write_text(SMALL_MAPPING, encoding="utf-8")
    return table, mapping
