"""Position (order) bias of pairwise judges.

Both presentation orders available (LLMBar; the demo's swap judges)
    Every item is judged twice: answer 1 shown first (order ``AB``) and answer 2 shown first
    (``BA``). Verdicts are stored in the *original* indexing (code 0 = answer 1), whatever the
    order, so a position-free judge gives the same code in both orders.

    - **swap consistency**: share of items with the same verdict in both orders
      (``consistent / n``). Upstream LLMBar (``evaluate.py``) counts ``None == None`` as equal,
      so its ``equal`` column is ``consistent + both_invalid``; both are reported.
    - **preference for the first-shown answer**: an inconsistent pair (both verdicts usable,
      different) means the judge chose the *same position* twice: first-first (code 0 in AB,
      code 1 in BA) or second-second. Without position bias the two are exchangeable, so
      ``k_first ~ Bin(k_first + k_second, 1/2)``: exact binomial test
      (``scipy.stats.binomtest``) with the Clopper–Pearson interval. This is exactly the exact
      McNemar test of the AB-versus-BA table of verdicts (its discordant cells are these two
      counts); the mid-p McNemar (Fagerland et al. 2013) is reported next to it.
      The share of first-shown choices over *all* usable verdicts of both orders is reported
      too (0.5 without position bias, whatever the judge's preferences, because each item is
      shown both ways), with an item-clustered interval (the two verdicts of an item are
      dependent).
    - **accuracy**: in each order (``accuracy_ab`` = upstream ``correct_False``,
      ``accuracy_ba`` = ``correct_True``), correct in both orders (``correct_both``), and
      *tie-resolved* accuracy, where an inconsistent pair scores 0.5 — equal to the mean of the
      two orders' correctness, i.e. upstream's ``correct_average``. Unusable verdicts follow the
      invalid-verdict policy (default ``wrong``, the upstream rule).

One order only (Med-RewardBench)
    Position bias cannot be separated from a genuine preference for answer A: a judge that
    says "A" more often than the gold may be position-biased *or* may disagree with the gold in
    one direction. What can be tested is whether the judge's A-rate equals the gold A-rate on the
    same items: McNemar of the paired 2x2 table (judge says A) x (gold is A), with Tango's
    (1998) score interval for the difference of the two rates.

References: Zeng et al. (2024) LLMBar, ICLR (arXiv:2310.07641); Wang et al. (2023) "Large
language models are not fair evaluators" (arXiv:2305.17926); Zheng et al. (2023) MT-Bench
(position consistency); McNemar (1947); Fagerland, Lydersen & Laake (2013) BMC Med Res Methodol
13:91; Tango (1998) Stat Med 17:891-908.
"""

from __future__ import annotations

from collections.abc import Sequence

from medjudge.data.design import presentation_design
from medjudge.data.model import Study
from medjudge.stats.accuracy import Policy

from .._validation import ALPHA, CONFIDENCE_LEVEL
from ._arguments import check_policy
from .design import resolve_clusters
from .position_order import RANDOMISED_NOTE, SINGLE_ORDER_NOTE, a_rate_table
from .position_result import PositionBias
from .position_swap import (
    SwapData,
    _check_by,
    answer_codes,
    item_groups,
    paired_rates,
    swap_counts,
    swap_data,
    swap_judges,
    swap_table,
)

__all__ = [
    "RANDOMISED_NOTE",
    "SINGLE_ORDER_NOTE",
    "SwapData",
    "a_rate_table",
    "answer_codes",
    "item_groups",
    "paired_rates",
    "position_bias",
    "swap_counts",
    "swap_data",
    "swap_judges",
    "swap_table",
]


def position_bias(
    study: Study,
    *,
    by: str | Sequence[str] | None = None,
    cluster: str | None = "auto",
    policy: Policy = "wrong",
    confidence_level: float = 0.95,
    alpha: float | None = None,
) -> PositionBias:
    """Position bias as the presentation design allows, per dimension.

    ``swap``: judges seen in both orders on the same items (:func:`swap_table`);
    ``single_order``: judges seen in one order per item, fixed or randomised
    (:func:`a_rate_table`); ``not_applicable``: ``{dimension: reason}`` for dimensions whose
    labels have no positions or whose presentation order is not recorded
    (:func:`medjudge.data.design.presentation_design`).

    With ``by``, every row is one judge on the items of one group (one value combination of
    the ``by`` item attributes, a column each): the group's counts, intervals and the same test
    as without ``by`` (swap: exact binomial of first-first against second-second pairs;
    single order: McNemar, clustered when items are), computed on the group's items and
    clusters only; Holm runs over every row of a table.

    Parameters
    ----------
    study : Study
    by : str or sequence of str, optional
        Item attributes to report per group (e.g. ``"organ_system"`` or ``["subset"]``);
        None: one row per judge and dimension.
    cluster : str or None, default "auto"
        Clusters of items (:func:`medjudge.analyses.design.resolve_clusters`).
    policy : {"wrong", "exclude", "half"}, default "wrong"
        Unusable verdicts in the per-order accuracies of the swap table.
    confidence_level : float, default 0.95
    alpha : float, optional
        The decision threshold of the result's findings (a Holm-adjusted p below it); default
        0.05 (a setting of its own, not ``1 - confidence_level``).

    Returns
    -------
    PositionBias
        The result contract (``table``, ``plot("position" | "single_order")``, ``findings``)
        over ``swap`` and ``single_order`` (DataFrames, possibly empty; ``n`` counts items,
        said in ``n_unit``) and ``not_applicable``; ``result["swap"]`` works as on a dict.

    Raises
    ------
    ValueError
        ``by`` names something that is not an item attribute (the message lists them), or
        another argument is not allowed.

    References
    ----------
    Zeng et al. (2024) LLMBar, ICLR (arXiv:2310.07641); Tango (1998) Stat Med 17:891-908.

    Examples
    --------
    >>> import medjudge as mj
    >>> pb = mj.position_bias(mj.datasets.example())
    >>> sorted(pb)
    ['not_applicable', 'single_order', 'swap']
    >>> ax = pb.plot("position", where={"dimension": "overall"})  # one bar per table row
    >>> g = mj.position_bias(mj.datasets.example(), by="organ_system")["single_order"]
    >>> {"judge", "organ_system", "n", "n_unit", "difference", "p_value"} <= set(g.columns)
    True
    """

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    if alpha is not None:
        alpha = ALPHA.check("alpha", alpha)
    check_policy(policy)
    by = _check_by(study, by)
    cl = resolve_clusters(study, cluster)
    reasons = {
        d: r for d in study.dimensions if (r := presentation_design(study, d).position_reason)
    }
    tables = {
        "swap": swap_table(study, by=by, cluster=cl.column if cl.labels is not None else None,
                           policy=policy, confidence_level=level),
        "single_order": a_rate_table(study, by=by, cluster=cluster, confidence_level=level),
    }  # fmt: skip
    for t in tables.values():
        if len(t):
            t.insert(t.columns.get_loc("n") + 1, "n_unit", "items")
    return PositionBias(
        tables["swap"], tables["single_order"], reasons, tuple(by or ()), level, alpha
    )
