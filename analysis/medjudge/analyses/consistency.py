"""consistency: study-level part (moved from medjudge.stats.consistency)."""

from __future__ import annotations

import pandas as pd

from medjudge.data.model import Study
from medjudge.stats.consistency import consistency_arrays
from medjudge.stats.intervals import wilson_interval


def run_consistency(study: Study, confidence_level: float = 0.95) -> pd.DataFrame:
    """One row per rater x dimension (x order) with more than one run; empty when there is none.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> from medjudge.data.simulate import example_study
    >>> study = example_study()  # 60 simulated items, 12 judges, 3 experts
    >>> t = mj.run_consistency(study)
    >>> type(t).__name__
    'DataFrame'
    """
    from .._validation import CONFIDENCE_LEVEL

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    r = study.ratings
    runs = r.groupby(["rater", "dimension", "order"])["run"].nunique()
    rows = []
    for (rater, dim, order), k in runs.items():
        if k < 2:
            continue
        sub = r[(r["rater"] == rater) & (r["dimension"] == dim) & (r["order"] == order)]
        codes = study.scales[dim].encode(sub["value"])
        wide = sub.assign(_c=codes).pivot(index="item", columns="run", values="_c")
        st = consistency_arrays(wide.to_numpy(dtype=float))
        if st["n_items"] == 0:
            continue
        lo, hi = wilson_interval(st["flips"], st["n_items"], level)
        rows.append(
            {
                "rater": rater,
                "dimension": dim,
                "order": order,
                "runs": int(k),
                **st,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "level": level,
            }
        )
    return pd.DataFrame(rows)
