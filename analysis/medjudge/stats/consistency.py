"""Self-consistency of a rater across repeated runs (the ``run`` column).

For a rater with ``R > 1`` runs on a dimension, over items with at least two usable verdicts:

- ``flip_rate``: share of items whose verdicts are not all identical across runs;
- ``pairwise_disagreement``: mean over items of the share of run pairs that differ
  (``1 - sum_k c_k (c_k - 1) / (m (m - 1))`` with ``c_k`` the count of category ``k`` among the
  item's ``m`` verdicts — Fleiss' (1971) observed disagreement, runs in place of raters);
- ``within_item_variance`` (interval/ratio scores, or category codes of ordinal scales): the
  mean within-item sample variance (ddof=1) — the run-to-run noise a single run carries.

Wilson interval for the flip rate (items independent).
"""

from __future__ import annotations

import numpy as np

__all__ = ["consistency_arrays"]


def consistency_arrays(x: np.ndarray) -> dict[str, float]:
    """Consistency statistics of an ``items x runs`` code/score matrix (NaN = no verdict)."""
    x = np.asarray(x, dtype=float)
    m = (~np.isnan(x)).sum(1)
    keep = m >= 2
    x, m = x[keep], m[keep]
    n = int(keep.sum())
    if n == 0:
        return {"n_items": 0}
    first = np.nanmax(x, 1)
    flips = ~np.all(np.isnan(x) | (x == first[:, None]), axis=1)
    vals = np.unique(x[~np.isnan(x)])
    same_pairs = sum((c := (x == v).sum(1)) * (c - 1) for v in vals)
    disagree = 1.0 - same_pairs / (m * (m - 1))
    var = np.nanvar(x, axis=1, ddof=1)
    return {
        "n_items": n,
        "flips": int(flips.sum()),
        "flip_rate": float(flips.mean()),
        "pairwise_disagreement": float(disagree.mean()),
        "within_item_variance": float(var.mean()),
        "mean_runs": float(m.mean()),
    }
