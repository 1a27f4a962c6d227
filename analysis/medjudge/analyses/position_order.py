"""Position bias of judges seen in one order per item (fixed, Med-RewardBench's reference
run, or randomised): the rate of choosing the first-shown answer against the gold's rate on
the same items (McNemar, clustered after Durkalski et al. 2003, with the interval that inverts
it; Tango's score interval for independent items).

References: McNemar (1947); Tango (1998) Stat Med 17:891-908; Durkalski et al. (2003) Stat Med
22:2465-2476; Fagerland, Lydersen & Laake (2013) BMC Med Res Methodol 13:91.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from medjudge.analyses._tables import gold_dimensions, with_adjusted
from medjudge.data.design import presentation_design
from medjudge.data.model import Study
from medjudge.data.views import dense
from medjudge.stats.groups import group_codes
from medjudge.stats.mcnemar import clustered_mcnemar, mcnemar_pvalue
from medjudge.stats.paired_intervals import paired_difference_interval

from .design import resolve_clusters
from .position_swap import _check_by, answer_codes, item_groups, paired_rates

__all__ = ["RANDOMISED_NOTE", "SINGLE_ORDER_NOTE", "a_rate_table"]


SINGLE_ORDER_NOTE = (
    "only one presentation order: a judge's excess A-rate over the gold A-rate may be position "
    "bias or a one-sided disagreement with the gold; the two cannot be separated without the "
    "swapped order"
)
RANDOMISED_NOTE = (
    "presentation order randomised per item: a judge choosing the first-shown answer more "
    "often than the gold names it estimates position bias"
)


def _verdict_orders(study: Study, dimension: str, judges: Sequence[str]) -> np.ndarray:
    """``items x judges`` presentation order of each judge's one verdict (``""``: none)."""

    v = study._dimension_view(dimension)
    keep = v.select(raters=list(judges))
    names = np.array([str(o) for o in v.orders] + [""], dtype=object)
    return names[
        dense(v, keep, v.order.astype(float), study.item_ids, list(judges), study.item_ids,
              float(len(v.orders)), first=True).astype(int)
    ]  # fmt: skip


def a_rate_table(
    study: Study,
    dimension: str | None = None,
    *,
    judges: Sequence[str] | None = None,
    order: str | None = None,
    by: str | Sequence[str] | None = None,
    cluster: str | None = "auto",
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Judges seen in one order per item: the rate of choosing the first-shown answer against
    the gold's rate on the same items.

    Per judge and dimension, on items with a usable verdict and a gold label that both name one
    of the two answers (ties, in the verdict or the gold, are excluded and counted): the paired
    table (judge chose the first-shown answer) x (gold is the first-shown answer), where
    "first-shown" is answer 1 for a verdict given in order AB and answer 2 in order BA (a
    randomised design mixes both). ``difference = rate(judge) - rate(gold) = (b - c)/n``, with
    Tango's score interval and McNemar's mid-p test for independent items, or, with clusters,
    the clustered McNemar test (Durkalski et al. 2003) with the interval that inverts it (so
    the two never disagree); ``p_value`` is the p-value of ``test``; Holm across the table. A positive difference is *compatible* with position bias
    but, when every verdict has the same order, not proof of it (``note``).

    Dimensions whose presentation design has no positions (single-response labels) or no
    recorded order are skipped (:func:`medjudge.data.design.presentation_design`); judges seen
    in both orders on the same items are analysed by :func:`swap_table` and, unless
    ``order`` names one order, left out here.

    Parameters
    ----------
    study : Study
    dimension : str, optional
        One dimension (default: every dimension where position bias applies).
    judges : sequence of str, optional
    order : {"AB", "BA"}, optional
        Only verdicts given in this order (then swap judges are included with that order).
    by : str or sequence of str, optional
        Item attributes: one row per judge and value combination (a column each), each with
        the test of the whole table restricted to the group's items (and clusters).
    cluster : str or None, default "auto"
        Clusters of items (:func:`medjudge.analyses.design.resolve_clusters`).
    confidence_level : float, default 0.95

    Returns
    -------
    DataFrame
        ``dimension, judge`` (then the ``by`` attributes), ``order, n, judge_a_rate, gold_a_rate`` (first-shown rates),
        ``difference, ci_low, ci_high, ci_method, level, test, p_value`` (of ``test``; the
        interval inverts the same test), ``p_mcnemar_midp`` (item-level mid-p), ``p_holm``,
        excluded_no_verdict_or_gold, excluded_ties, n_clusters, gold, note``.

    References
    ----------
    Tango (1998) Stat Med 17:891-908; Durkalski et al. (2003) Stat Med 22:2465-2476;
    Fagerland, Lydersen & Laake (2013) BMC Med Res Methodol 13:91.

    Examples
    --------
    >>> import medjudge as mj
    >>> t = a_rate_table(mj.datasets.example(), "overall")
    >>> sorted(set(t["order"]))
    ['AB']
    """

    by = _check_by(study, by)
    clusters = resolve_clusters(study, cluster)
    dims = [dimension] if dimension is not None else study.dimensions
    rows = []
    for dim, gold in gold_dimensions(study, dims):
        design = presentation_design(study, dim)
        if design.position_reason is not None:
            continue
        js = list(judges) if judges is not None else study.judges
        if order is None:
            js = [j for j in js if j not in design.swap_judges]
        if not js:
            continue
        m = answer_codes(study, dim, study.matrix(dim, raters=js, order=order).values)
        gold = SimpleNamespace(codes=answer_codes(study, dim, gold.codes), method=gold.method)
        od = _verdict_orders(study, dim, js) if order is None else np.full(m.shape, order, object)
        for key, group in item_groups(study, by, study.item_ids):
            cl = clusters.labels[group] if clusters.labels is not None else None
            for j, judge in enumerate(js):
                row = _a_rate_row(m[group, j], gold, group, od[group, j], cl, clusters.column,
                                  confidence_level)  # fmt: skip
                if row is not None:
                    rows.append({"dimension": dim, "judge": judge,
                                 **dict(zip(by, key, strict=True)), **row})  # fmt: skip
    return with_adjusted(pd.DataFrame(rows), "p_value", p_holm="holm")


def _a_rate_row(
    v: np.ndarray,
    gold: Any,
    group: np.ndarray,
    od: np.ndarray,
    cl: np.ndarray | None,
    cluster_column: str | None,
    confidence_level: float,
) -> dict[str, Any] | None:
    """One judge's row of :func:`a_rate_table` from its verdicts ``v`` on the items of
    ``group``, the ``gold``, the verdicts' orders ``od`` and the item clusters ``cl`` (None:
    independent items)."""

    g = gold.codes[group]
    usable = ~np.isnan(v) & ~np.isnan(g) & np.isin(od, ("AB", "BA"))
    tie = usable & ((v > 1) | (g > 1))
    ok = usable & ~tie
    first = np.where(od == "AB", 0.0, 1.0)  # the code of the first-shown answer
    ja, ga = v[ok] == first[ok], g[ok] == first[ok]
    n11, b, c, n22, rates = paired_rates(ja, ga)
    n = n11 + b + c + n22
    if n == 0:
        return None
    _, pe = mcnemar_pvalue(b, c, "exact")
    _, pm = mcnemar_pvalue(b, c, "midp")
    if cl is None:
        lo, hi = paired_difference_interval(n11, b, c, n22, confidence_level, "tango")
        ci_method, test, n_cl, pv = "tango", "McNemar mid-p", n, pm
    else:
        d = ja.astype(float) - ga.astype(float)
        lo, hi, n_cl = _durkalski_interval(d, cl[ok], confidence_level)
        pv = clustered_mcnemar(ja.astype(float), ga.astype(float), cl[ok]).pvalue
        ci_method = (
            f"inverted clustered McNemar (Durkalski 2003; {n_cl} clusters of {cluster_column})"
        )
        test = "McNemar clustered (Durkalski 2003)"
    orders_used = sorted(set(od[ok]))
    return {
        "order": "/".join(orders_used),
        "n": n,
        "judge_a_rate": rates["rate_x"],
        "gold_a_rate": rates["rate_y"],
        "difference": rates["difference"],
        "ci_low": float(lo),
        "ci_high": float(hi),
        "ci_method": ci_method,
        "level": confidence_level,
        "judge_a_gold_b": b,
        "judge_b_gold_a": c,
        "test": test,
        "p_value": float(pv),
        "p_mcnemar_midp": float(pm),
        "p_mcnemar_exact": float(pe),
        "excluded_no_verdict_or_gold": int((~usable).sum()),
        "excluded_ties": int(tie.sum()),
        "n_clusters": int(n_cl),
        "gold": gold.method,
        "note": SINGLE_ORDER_NOTE if len(orders_used) == 1 else RANDOMISED_NOTE,
    }


def _durkalski_interval(
    d: np.ndarray, clusters: np.ndarray, confidence_level: float
) -> tuple[float, float, int]:
    """The differences ``delta0`` the clustered McNemar test does not reject: the interval
    that inverts the Durkalski (2003) test.

    With per-cluster sums ``s_c = sum d`` and sizes ``n_c``, ``delta0`` is kept when
    ``(sum_c (s_c - delta0 n_c))^2 <= k sum_c (s_c - delta0 n_c)^2`` (``k`` the chi^2_1
    quantile): a quadratic inequality ``a delta0^2 + b delta0 + c <= 0``. At ``delta0 = 0``
    it is the Durkalski test itself, so the interval excludes 0 exactly when the test rejects.
    Limits clipped to [-1, 1] (the whole range when ``a <= 0``, too few clusters).
    """

    cc, n_cl = group_codes(np.asarray(clusters))
    s = np.bincount(cc, weights=d, minlength=n_cl)
    m = np.bincount(cc, minlength=n_cl).astype(float)
    k = float(stats.chi2.ppf(confidence_level, 1))
    big_a, big_n = s.sum(), m.sum()
    a = big_n**2 - k * (m @ m)
    b = -2 * (big_a * big_n - k * (s @ m))
    c = big_a**2 - k * (s @ s)
    disc = b * b - 4 * a * c
    if a <= 0 or disc < 0:
        return -1.0, 1.0, int(n_cl)
    r = np.sqrt(disc)
    lo, hi = (-b - r) / (2 * a), (-b + r) / (2 * a)
    return max(float(lo), -1.0), min(float(hi), 1.0), int(n_cl)
