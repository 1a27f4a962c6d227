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


def hanna_long_table(directory: str | Path, *, min_valid: float = 1.0) -> pd.DataFrame:
    """HANNA's human and LLM ratings in one long table (``data/mappings/hanna_long.toml``).

    Columns ``story_id, system, prompt_idx, rater, role, criterion, score``: the three human
    rating slots are experts ``human-1``..``human-3`` (slots, not persistent workers — see
    SOURCE.md), each LLM judge under each prompt variant is ``<model>/p<variant>``. LLM values
    below ``min_valid`` lie outside the 1-5 scale (failed generations, SOURCE.md) and are
    written as ``invalid`` — kept as invalid verdicts and counted by the loader, never dropped.

    Examples
    --------
    >>> t = hanna_long_table("data/external/hanna")  # doctest: +SKIP
    >>> t.to_csv("hanna_long.csv", index=False)       # doctest: +SKIP
    >>> # medjudge report hanna_long.csv --mapping data/mappings/hanna_long.toml
    """
    d = Path(directory)
    h = pd.read_csv(d / "human_ratings_long.csv")
    h = h.assign(rater="human-" + h["rater_slot"].astype(str), role="expert")
    llm = pd.read_csv(d / "llm_ratings_long.csv")
    llm = llm.assign(
        rater=llm["judge"] + "/p" + llm["prompt_variant"].astype(str),
        role="judge",
        score=[("invalid" if v < min_valid else repr(float(v))) for v in llm["score"]],
    )
    h = h.assign(score=h["score"].astype(float).map(repr))
    cols = ["story_id", "system", "prompt_idx", "rater", "role", "criterion", "score"]
    return pd.concat([h[cols], llm[cols]], ignore_index=True)
