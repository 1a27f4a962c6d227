"""A crowd-labelled study built in memory for the judges-against-gold tests: items x 4
dimensions, gold per item and dimension, 3-12 crowd labels per item, two judges, three
questions per image."""

from __future__ import annotations

import numpy as np
import pandas as pd
from medjudge.data.model import Study
from medjudge.data.scale import Scale

RISK = ["Non-serious", "Moderate", "Serious", "Critical"]
LABELS = ["refuse", "comply", "partial", "redirect", "clarify", "unsafe"]
DIMS = ["risk", "response_label", "tone", "scope"]


def crowd_study(seed: int = 11, n_items: int = 60) -> Study:
    """Items × 4 dimensions, gold per item and dimension, ordinal risk + nominal 6-category
    dimensions, 3–12 crowd labels per item, two judges (one with invalid verdicts), three
    questions per image."""
    rng = np.random.default_rng(seed)
    rows, gold, items = [], [], []
    for i in range(n_items):
        it = f"case{i:03d}"
        items.append({"item": it, "image_id": f"img{i // 3:02d}"})
        n_lab = int(rng.integers(3, 13))
        for d in DIMS:
            cats = RISK if d == "risk" else LABELS
            k = len(cats)
            t = int(rng.integers(k)) if d != "risk" else int(rng.choice(k, p=[0.4, 0.3, 0.2, 0.1]))
            gold.append({"item": it, "dimension": d, "value": cats[t]})
            for w in range(n_lab):
                v = t if rng.random() < 0.7 else int(rng.integers(k))
                rows.append((it, f"slot{w}", "expert", d, cats[v]))
            for judge, p in (("judge-a", 0.75), ("judge-b", 0.5)):
                if rng.random() < p:
                    v = t
                elif d == "risk":
                    v = int(np.clip(t + rng.choice([-1, 1]), 0, k - 1))
                else:
                    v = int(rng.integers(k))
                val = None if judge == "judge-b" and rng.random() < 0.08 else cats[v]
                rows.append((it, judge, "judge", d, val))
    ratings = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    scales = {
        d: Scale("ordinal", tuple(RISK)) if d == "risk" else Scale("nominal", tuple(LABELS))
        for d in DIMS
    }
    return Study(ratings, pd.DataFrame(items), scales, gold_table=pd.DataFrame(gold))
