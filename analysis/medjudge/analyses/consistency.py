"""consistency: study-level part (moved from medjudge.stats.consistency)."""

from __future__ import annotations

import pandas as pd

from medjudge.data.model import Study
from medjudge.stats.consistency import consistency_arrays
from medjudge.stats.intervals import wilson_interval

from .._validation import CONFIDENCE_LEVEL
from .bias_results import RunConsistency


def run_consistency(study: Study, confidence_level: float = 0.95) -> RunConsistency:
    """One row per rater x dimension (x order) with more than one run; empty when there is none.

    On the items a rater rated in at least two runs: an item *flips* when its runs do not all
    give the same verdict; ``flip_rate = flips / n_items`` with a Wilson interval;
    ``pairwise_disagreement`` is the mean share of disagreeing run pairs per item and
    ``within_item_variance`` the mean variance of the codes (or scores) across runs.

    Parameters
    ----------
    study : Study
        The study; repeated runs are the ratings' ``run`` column (several values for the same
        rater, item, dimension and order).
    confidence_level : float, default 0.95
        Coverage of the Wilson interval of ``flip_rate``.

    Returns
    -------
    RunConsistency
        The wide table as ``frame`` (and DataFrame access), with the result contract
        (``table("flips")``, ``plot("forest")``): one row per rater x dimension x order with two or more runs, columns ``rater``,
        ``dimension``, ``order``, ``runs``, ``n_items``, ``flips``, ``flip_rate``,
        ``pairwise_disagreement``, ``within_item_variance``, ``mean_runs``, ``ci_low``,
        ``ci_high`` (the interval of ``flip_rate``) and ``level``; no rows and no columns
        when no rater has repeated runs.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
    JASA 22:209-212.

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, 12 judges, 3 experts
    >>> t = mj.run_consistency(study)
    >>> type(t).__name__, t.tables
    ('RunConsistency', ['flips'])
    >>> import pandas as pd  # one judge, three items, two runs: q2 flips
    >>> r = pd.DataFrame({'item': ['q1', 'q2', 'q3'] * 2, 'rater': 'j', 'role': 'judge',
    ...                   'dimension': 'overall', 'value': ['A', 'B', 'A', 'A', 'A', 'A'],
    ...                   'run': ['1'] * 3 + ['2'] * 3})
    >>> st = mj.Study(r, pd.DataFrame({'item': ['q1', 'q2', 'q3']}),
    ...               {'overall': mj.Scale('nominal', ('A', 'B'))})
    >>> t = mj.run_consistency(st)
    >>> t[['rater', 'runs', 'n_items', 'flips']].values.tolist(), round(float(t.flip_rate[0]), 3)
    ([['j', 2, 3, 1]], 0.333)
    >>> round(float(t.ci_low[0]), 4), round(float(t.ci_high[0]), 4)  # Wilson 95% interval of 1/3
    (0.0615, 0.7923)
    """

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
    return RunConsistency(pd.DataFrame(rows), level)
