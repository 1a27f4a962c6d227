"""scores: study-level part (moved from medjudge.stats.scores)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def load_hanna(directory: str | Path, *, min_valid: float = 1.0) -> dict[str, object]:
    """HANNA (data/external/hanna): expert mean and LLM scores per (story, criterion).

    Returns ``{"reference": DataFrame story_id x criterion (mean of the 3 human ratings),
    "llm": long DataFrame story_id, prompt_idx, criterion, judge ("<model>/p<variant>"), score,
    "invalid": number of LLM values below ``min_valid`` set to NaN}`` — SOURCE.md: values
    below 1 lie outside the 1-5 scale (failed generations) and are treated as invalid.
    """
    d = Path(directory)
    h = pd.read_csv(d / "human_ratings_long.csv")
    ref = h.groupby(["story_id", "criterion"])["score"].mean().unstack("criterion")
    llm = pd.read_csv(d / "llm_ratings_long.csv")
    bad = llm["score"] < min_valid
    llm.loc[bad, "score"] = np.nan
    llm["judge"] = llm["judge"] + "/p" + llm["prompt_variant"].astype(str)
    prompt = h.drop_duplicates("story_id").set_index("story_id")["prompt_idx"]
    return {
        "reference": ref,
        "llm": llm[["story_id", "prompt_idx", "criterion", "judge", "score"]],
        "invalid": int(bad.sum()),
        "prompt_idx": prompt,
    }
