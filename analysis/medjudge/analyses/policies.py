"""Accuracy of every judge under each invalid-verdict policy: the ``accuracy.csv`` of ``run``.

One row per judge x dimension x policy (``wrong``: the Med-RewardBench rule, no usable verdict
counts as wrong; ``exclude``: such items are dropped; ``half``: they count 0.5), with the
report's intervals, so the file and the judge report agree.
"""

from __future__ import annotations

import pandas as pd

from ..data.model import Study
from ..stats.accuracy import POLICIES, policy_sensitivity
from .evaluation import cluster_ids

__all__ = ["accuracy_table", "categorical_dimensions"]


def accuracy_table(
    study: Study,
    confidence_level: float = 0.95,
    *,
    gold: str = "auto",
    cluster: str | None = "auto",
) -> pd.DataFrame:
    """Judge × dimension accuracy against gold under each invalid-verdict policy.

    The intervals are the report's: :func:`medjudge.stats.accuracy.policy_sensitivity`
    (Wilson with the effective sample size of the cluster design, clusters as in
    :func:`medjudge.analyses.evaluation.cluster_ids`), so ``accuracy.csv`` and the judge
    report agree. ``wrong`` is the Med-RewardBench rule (no usable verdict counts as wrong),
    ``exclude`` drops such items, ``half`` counts them 0.5. ``gold`` is the gold rule
    (:meth:`~medjudge.data.model.Study.gold`) and ``cluster`` the item attribute that clusters
    items (``"auto"``; ``None`` or ``"none"``: independent items).
    """
    clusters, _ = cluster_ids(study, cluster)
    cluster_of = None if clusters is None else pd.Series(clusters, index=study.item_ids)
    rows = []
    for dim in categorical_dimensions(study):
        o = (
            study.outcomes(dim)
            if gold == "auto"
            else study.outcomes(dim, gold=study.gold(dim, gold))
        )
        cl = None if cluster_of is None else cluster_of.loc[o.items].to_numpy()
        sens = policy_sensitivity(
            o.outcome, list(o.judges), clusters=cl, confidence_level=confidence_level
        )
        # the verdicts used: AB for a judge seen in both orders (its first presentation);
        # "" = each item's one verdict, whatever its order
        orders = [o.orders[j] or "" if o.orders else (o.order or "") for j in range(len(o.judges))]
        rows += policy_rows(sens, dim, o.gold_method, orders, confidence_level)
    return pd.DataFrame(rows)


def categorical_dimensions(study: Study) -> list[str]:
    """Dimensions on which accuracy means something (nominal/ordinal labels)."""
    return [d for d in study.dimensions if study.scales[d].is_categorical]


def policy_rows(
    sens: pd.DataFrame, dimension: str, gold: str, orders: list[str], confidence_level: float
) -> list[dict]:
    """The rows of ``accuracy.csv`` for one dimension: one per judge x policy, from
    :func:`~medjudge.stats.accuracy.policy_sensitivity` (shared by the in-memory and the
    columnar path)."""
    rows = []
    for r, order in zip(sens.itertuples(index=False), orders, strict=True):
        for pol in POLICIES:
            rows.append(
                {
                    "judge": r.judge,
                    "dimension": dimension,
                    "policy": pol,
                    "accuracy": getattr(r, f"accuracy_{pol}"),
                    "ci_low": getattr(r, f"ci_low_{pol}"),
                    "ci_high": getattr(r, f"ci_high_{pol}"),
                    "level": confidence_level,
                    # an accuracy on no item is not defined: the cell says why (not blank)
                    "ci_method": getattr(r, f"ci_method_{pol}")
                    if int(getattr(r, f"n_{pol}")) > 0
                    else f"not defined: no usable verdict (policy {pol})",
                    "n": int(getattr(r, f"n_{pol}")),
                    "n_unusable": int(r.n_invalid),
                    "n_not_assigned": int(r.n_not_assigned),
                    "gold": gold,
                    "order": order,
                }
            )
    return rows
