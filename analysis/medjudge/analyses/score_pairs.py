"""Every pair of score judges compared on the same items against the gold score (the paired
tests of :func:`medjudge.stats.score_tests.paired_score_difference`, Holm over the table).

Split from :mod:`medjudge.analyses.score_study`, which re-exports :func:`score_judge_pairs`.
"""

from __future__ import annotations

import pandas as pd

from ..data.model import Study
from ..stats.resampling import Permutation
from .evaluation import cluster_ids

__all__ = ["score_judge_pairs"]


def score_judge_pairs(
    study: Study,
    dimension: str,
    *,
    judges: list[str] | None = None,
    metrics: tuple[str, ...] = ("mae", "bias"),
    gold: str = "auto",
    cluster: str | None = "auto",
    confidence_level: float = 0.95,
    permutation: Permutation | None = None,
) -> pd.DataFrame:
    """Every pair of score judges compared on the same items against the gold score.

    One row per judge pair and metric: the metric of each judge, their difference (first
    minus second) with the interval and test of
    :func:`medjudge.stats.score_tests.paired_score_difference` (MAE and bias: the cluster
    sign-flip test and the interval inverting it; RMSE and CCC: the cluster jackknife t), and
    ``p_holm`` over every row of the table. Items are those with both judges' scores and a
    gold score; clusters as :func:`score_study` resolves them.

    Parameters
    ----------
    study : Study
    dimension : str
        An interval or ratio dimension.
    judges : list of str, optional
        Default: every judge.
    metrics : tuple of str, default ("mae", "bias")
        Any of ``"mae"``, ``"rmse"``, ``"bias"``, ``"ccc"``.
    gold, cluster : str
        As in :func:`score_study`.
    confidence_level : float, default 0.95
    permutation : Permutation, optional
        Random sign patterns (more than 14 clusters) and their seed, as in
        :func:`~medjudge.stats.score_tests.paired_score_difference`.

    Returns
    -------
    DataFrame
        ``dimension, judge_a, judge_b, metric, estimate_a, estimate_b, difference, ci_low,
        ci_high, confidence_level, p_value, p_holm, n, n_clusters, method``.

    References
    ----------
    Fisher (1935) The Design of Experiments; Holm (1979) Scand J Stat 6:65-70.

    Examples
    --------
    >>> import numpy as np
    >>> from medjudge.data.model import Study
    >>> from medjudge.data.scale import Scale
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(1, 6, 40).astype(float)
    >>> rows = [(f"i{i}", r, "judge", "q", float(np.clip(t + rng.integers(-k, k + 1), 1, 5)))
    ...         for i, t in enumerate(truth) for r, k in (("a", 1), ("b", 2))]
    >>> st = Study(pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"]),
    ...            pd.DataFrame({"item": [f"i{i}" for i in range(40)]}),
    ...            {"q": Scale("interval", low=1, high=5)},
    ...            gold_table=pd.DataFrame({"item": [f"i{i}" for i in range(40)], "dimension": "q",
    ...                                     "value": truth}))
    >>> t = score_judge_pairs(st, "q")
    >>> list(t["metric"]), bool((t["ci_low"] <= t["difference"]).all())
    (['mae', 'bias'], True)
    """
    from itertools import combinations

    from ..stats.multiplicity import adjust_pvalues
    from ..stats.score_tests import SCORE_METRICS, paired_score_difference
    from ._arguments import check_dimensions

    check_dimensions(study, [dimension], "dimension")
    if study.scales[dimension].is_categorical:
        raise ValueError(f"{dimension!r} is categorical; paired score comparisons need scores")
    for m in metrics:
        if m not in SCORE_METRICS:
            raise ValueError(f"metrics: {m!r} is not allowed (any of {', '.join(SCORE_METRICS)})")
    judges = list(study.judges) if judges is None else list(judges)
    g = study.gold(dimension, gold)  # type: ignore[arg-type]
    clusters, _ = cluster_ids(study, cluster)
    X = study.matrix(dimension, raters=judges, items=list(g.items)).values
    cl = None
    if clusters is not None:
        cl = pd.Series(clusters, index=study.item_ids).loc[list(g.items)].to_numpy()
    rows = []
    for (i, a), (j, b) in combinations(enumerate(judges), 2):
        for m in metrics:
            r = paired_score_difference(
                X[:, i], X[:, j], g.codes, metric=m, clusters=cl,
                confidence_level=confidence_level, permutation=permutation,
            )  # fmt: skip
            rows.append({"dimension": dimension, "judge_a": a, "judge_b": b, **r})
    out = pd.DataFrame(rows)
    if len(out):
        out["p_holm"] = adjust_pvalues(out["p_value"].to_numpy(float), "holm")
        cols = ["dimension", "judge_a", "judge_b", "metric", "estimate_a", "estimate_b",
                "difference", "ci_low", "ci_high", "confidence_level", "p_value", "p_holm", "n",
                "n_clusters", "method"]  # fmt: skip
        out = out[cols]
    return out
