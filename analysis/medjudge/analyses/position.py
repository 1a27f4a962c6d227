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
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from medjudge.analyses._tables import gold_dimensions, with_adjusted
from medjudge.data.model import Study
from medjudge.stats.accuracy import Policy, judge_accuracy
from medjudge.stats.mcnemar import mcnemar_pvalue, swap_position_test
from medjudge.stats.paired_intervals import paired_difference_interval

from .position_result import PositionBias

__all__ = [
    "SwapData",
    "swap_data",
    "swap_counts",
    "swap_table",
    "a_rate_table",
    "position_bias",
    "SINGLE_ORDER_NOTE",
]

SINGLE_ORDER_NOTE = (
    "only one presentation order: a judge's excess A-rate over the gold A-rate may be position "
    "bias or a one-sided disagreement with the gold; the two cannot be separated without the "
    "swapped order"
)
RANDOMISED_NOTE = (
    "presentation order randomised per item: a judge choosing the first-shown answer more "
    "often than the gold names it estimates position bias"
)


@dataclass(frozen=True)
class SwapData:
    """Verdict codes of judges in both orders on one dimension (original indexing).

    ``ab``/``ba``: ``(n_items, n_judges)`` codes, NaN = no usable verdict; ``in_ab``/``in_ba``:
    whether a verdict row exists (usable or not) — the design; ``gold``: gold codes (NaN = none).
    """

    ab: np.ndarray
    ba: np.ndarray
    in_ab: np.ndarray
    in_ba: np.ndarray
    gold: np.ndarray
    items: list[str]
    judges: list[str]
    dimension: str
    n_categories: int
    gold_method: str


def _presence(study: Study, dimension: str, judges: Sequence[str], order: str) -> np.ndarray:
    """``items x judges`` bool: a verdict row exists (any status other than an absent row)."""
    r = study.ratings
    sub = r[(r["dimension"] == dimension) & (r["order"] == order) & r["rater"].isin(judges)]
    # rows with status 'missing' (a judge skipped the item) are part of the design: they count
    wide = sub.assign(_one=1.0).pivot_table(
        index="item", columns="rater", values="_one", aggfunc="max"
    )
    wide = wide.reindex(index=study.item_ids, columns=list(judges))
    return wide.notna().to_numpy()


def answer_codes(study: Study, dimension: str, codes: np.ndarray) -> np.ndarray:
    """Category codes recoded so that 0 = the first answer and 1 = the second answer.

    The design (:func:`medjudge.data.design.presentation_design`, declared or inferred) names
    the ``first`` and ``second`` categories; every other category (a tie) gets a code >= 2 and
    NaN stays NaN. The identity when first and second are the scale's first two categories.
    """
    from medjudge.data.design import presentation_design

    design = presentation_design(study, dimension)
    cats = [str(c) for c in study.scales[dimension].categories]
    if not design.pairwise or design.first is None or design.second is None:
        return np.asarray(codes, dtype=float)
    order = [cats.index(design.first), cats.index(design.second)]
    order += [k for k in range(len(cats)) if k not in order]
    if order == list(range(len(cats))):
        return np.asarray(codes, dtype=float)
    new = np.empty(len(cats))
    new[order] = np.arange(len(cats))
    c = np.asarray(codes, dtype=float)
    out = np.full(c.shape, np.nan)
    ok = ~np.isnan(c)
    out[ok] = new[c[ok].astype(int)]
    return out


def swap_judges(study: Study, dimension: str) -> list[str]:
    """Judges with verdicts in both orders (AB and BA) on the same items of ``dimension``."""
    from medjudge.data.design import presentation_design

    swapped = set(presentation_design(study, dimension).swap_judges)
    return [j for j in study.judges if j in swapped]


def swap_data(
    study: Study, dimension: str, judges: Sequence[str] | None = None, gold=None
) -> SwapData:
    """Collect both orders' verdicts of ``judges`` (default: every judge with both orders)."""
    judges = list(judges) if judges is not None else swap_judges(study, dimension)
    if not judges:
        raise ValueError(f"no judge has verdicts in both orders (AB and BA) on {dimension!r}")
    ab = answer_codes(study, dimension, study.matrix(dimension, raters=judges, order="AB").values)
    ba = answer_codes(study, dimension, study.matrix(dimension, raters=judges, order="BA").values)
    if gold is None:
        try:
            gold = study.gold(dimension)
        except ValueError:
            gold = None
    gcodes = (
        answer_codes(study, dimension, gold.codes)
        if gold is not None
        else np.full(len(study.item_ids), np.nan)
    )
    return SwapData(
        ab,
        ba,
        _presence(study, dimension, judges, "AB"),
        _presence(study, dimension, judges, "BA"),
        np.asarray(gcodes, dtype=float),
        study.item_ids,
        judges,
        dimension,
        len(study.scales[dimension].categories),
        gold.method if gold is not None else "none",
    )


def swap_counts(
    ab: np.ndarray, ba: np.ndarray, gold: np.ndarray, design: np.ndarray
) -> dict[str, np.ndarray]:
    """Per-judge counts of the two-order design, vectorised over judges (columns).

    ``design`` marks the items judged in both orders. Codes 0/1 are answer 1/answer 2 in the
    original indexing (so "first shown" is code 0 in AB and code 1 in BA); any further code
    (a tie category) is never a position choice. Returns arrays (per judge): ``n``,
    ``correct_ab``, ``correct_ba``, ``correct_both``, ``consistent``, ``inconsistent``,
    ``both_invalid``, ``one_invalid``, ``upstream_equal`` (= consistent + both_invalid),
    ``first_first``, ``second_second``, ``first_choices``, ``valid_verdicts``.
    """
    ab = np.asarray(ab, dtype=float)
    ba = np.asarray(ba, dtype=float)
    d = np.asarray(design, dtype=bool)
    g = np.asarray(gold, dtype=float)[:, None]
    va, vb = d & ~np.isnan(ab), d & ~np.isnan(ba)
    ca, cb = va & (ab == g), vb & (ba == g)
    both = va & vb
    return {
        "n": d.sum(0),
        "n_with_gold": (d & ~np.isnan(g)).sum(0),
        "correct_ab": ca.sum(0),
        "correct_ba": cb.sum(0),
        "correct_both": (ca & cb).sum(0),
        "consistent": (both & (ab == ba)).sum(0),
        "inconsistent": (both & (ab != ba)).sum(0),
        "both_invalid": (d & ~va & ~vb).sum(0),
        "one_invalid": (d & (va ^ vb)).sum(0),
        "upstream_equal": ((both & (ab == ba)) | (d & ~va & ~vb)).sum(0),
        "first_first": (both & (ab == 0) & (ba == 1)).sum(0),
        "second_second": (both & (ab == 1) & (ba == 0)).sum(0),
        "first_choices": (va & (ab == 0)).sum(0) + (vb & (ba == 1)).sum(0),
        "valid_verdicts": va.sum(0) + vb.sum(0),
    }


def _check_by(study: Study, by: str | Sequence[str] | None) -> list[str]:
    """``by`` as a list of item attributes (a bare name is one attribute); ``[]`` for None."""
    from ._arguments import check_attributes

    if by is None:
        return []
    return check_attributes(study, [by] if isinstance(by, str) else by, "by")


def item_groups(
    study: Study, by: Sequence[str], item_ids: Sequence[str]
) -> list[tuple[tuple, np.ndarray]]:
    """``(key, mask over item_ids)`` per value combination of the item attributes ``by``.

    One group ``((), all True)`` when ``by`` is empty; keys sorted; a missing attribute value
    is a group of its own (no item is dropped).
    """
    if not by:
        return [((), np.ones(len(item_ids), dtype=bool))]
    items = study.items.set_index("item").reindex(list(item_ids)).reset_index()
    return [
        (key if isinstance(key, tuple) else (key,), items.index.isin(idx).astype(bool))
        for key, idx in items.groupby(
            by[0] if len(by) == 1 else list(by), sort=True, dropna=False
        ).groups.items()
    ]


def paired_rates(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int, int, dict[str, float]]:
    """Counts of the paired 2x2 table of two boolean vectors and the two rates' difference.

    ``n11`` both true, ``b`` only ``x``, ``c`` only ``y``, ``n22`` neither; with
    ``n = n11 + b + c + n22``: ``rate_x = (n11 + b)/n``, ``rate_y = (n11 + c)/n`` and
    ``difference = rate_x - rate_y = (b - c)/n`` (Tango 1998; NaN when ``n = 0``).
    """
    n11, b = int((x & y).sum()), int((x & ~y).sum())
    c, n22 = int((~x & y).sum()), int((~x & ~y).sum())
    n = n11 + b + c + n22
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = {
            "rate_x": np.float64(n11 + b) / n,
            "rate_y": np.float64(n11 + c) / n,
            "difference": np.float64(b - c) / n,
        }
    return n11, b, c, n22, {k: float(v) for k, v in rates.items()}


def _rate(ind: np.ndarray, keep: np.ndarray, clusters, confidence_level: float) -> pd.DataFrame:
    """Wilson (cluster-aware: effective-n Wilson) interval of the column means of ``ind`` over ``keep``."""
    y = np.where(keep, ind.astype(float), np.nan)
    return judge_accuracy(y, policy="exclude", clusters=clusters, confidence_level=confidence_level)


def _binom(
    k: np.ndarray, n: np.ndarray, confidence_level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = np.full(k.shape, np.nan)
    lo, hi = p.copy(), p.copy()
    for i, (kk, nn) in enumerate(zip(k, n, strict=True)):
        if nn > 0:
            r = stats.binomtest(int(kk), int(nn), 0.5)
            p[i] = r.pvalue
            ci = r.proportion_ci(confidence_level=confidence_level, method="exact")
            lo[i], hi[i] = ci.low, ci.high
    return p, lo, hi


def swap_table(
    study: Study,
    dimension: str | None = None,
    *,
    judges: Sequence[str] | None = None,
    by: Sequence[str] | None = None,
    policy: Policy = "wrong",
    cluster: str | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Position-bias table for judges with both orders: one row per judge (x ``by`` group).

    ``by``: item attributes to break down by (e.g. ``["subset"]`` for LLMBar; a bare name is
    one attribute; a missing value is a group of its own). ``cluster``: an
    item attribute whose values cluster items (e.g. ``image_id``) for the rate intervals.
    ``policy`` resolves unusable verdicts in the accuracies (``wrong``: upstream rule; n is
    every item judged in both orders). Columns: the counts of :func:`swap_counts`, rates with
    intervals (``consistency``, ``first_shown_rate``, ``accuracy_ab``, ``accuracy_ba``,
    ``accuracy_both``, ``accuracy_tie_resolved``), ``p_first_inconsistent`` with the test
    named in ``p_first_test``, its p-value ``p_first_pvalue`` (Holm: ``p_first_holm``) and the
    interval ``p_first_ci_low``/``p_first_ci_high`` from the same test: without ``cluster``
    the exact binomial of first-first against second-second with the Clopper–Pearson
    interval; with ``cluster`` the cluster sign-flip test of the per-cluster differences
    (:func:`medjudge.stats.mcnemar.swap_position_test`; the exact binomial ignores that pairs
    of one image share a position preference and rejected 8% of null studies). The exact
    binomial (``p_first_binom``) and McNemar mid-p (``mcnemar_midp``, AB vs BA verdicts) are
    kept as item-level references.
    """
    from medjudge.data.design import presentation_design

    by = _check_by(study, by)
    dims = [dimension] if dimension is not None else study.dimensions
    frames = []

    for dim in dims:
        if presentation_design(study, dim).position_reason is not None:
            continue  # no positions, or the order is not recorded
        try:
            sd = swap_data(study, dim, judges)
        except ValueError:
            continue
        items = study.items.set_index("item").reindex(sd.items)
        for key, rows in item_groups(study, by, sd.items):
            frames.append(
                _swap_rows(sd, rows, key, by or [], items, policy, cluster, confidence_level)
            )
    if not frames:
        return pd.DataFrame()
    return with_adjusted(
        pd.concat(frames, ignore_index=True), "p_first_pvalue", p_first_holm="holm"
    )


def _swap_rows(
    sd: SwapData, rows, key, by, items, policy, cluster, confidence_level
) -> pd.DataFrame:
    ab, ba, g = sd.ab[rows], sd.ba[rows], sd.gold[rows]
    design = sd.in_ab[rows] & sd.in_ba[rows]
    cnt = swap_counts(ab, ba, g, design)
    cl = items[cluster].to_numpy()[rows] if cluster else None
    va, vb = ~np.isnan(ab), ~np.isnan(ba)
    both = va & vb
    df = pd.DataFrame({"dimension": sd.dimension, "judge": sd.judges})
    for col, val in zip(by, key, strict=True):
        df[col] = val
    for k, v in cnt.items():
        df[k] = v.astype(int)
    n = cnt["n"]
    # swap consistency: consistent / n (n = items judged in both orders)
    r = _rate(both & (ab == ba), design, cl, confidence_level)
    df["consistency"], df["consistency_ci_low"], df["consistency_ci_high"] = (
        r["accuracy"],
        r["ci_low"],
        r["ci_high"],
    )
    df["consistency_ci_method"] = r["ci_method"]
    # first-shown choices over all usable verdicts (items clustered: two verdicts per item)
    first = np.where(va, (ab == 0).astype(float), 0.0) + np.where(vb, (ba == 1).astype(float), 0.0)
    nv = va.astype(float) + vb.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(design & (nv > 0), first / np.where(nv > 0, nv, 1), np.nan)
    rr = _rate(np.nan_to_num(share), design & (nv > 0), cl, confidence_level)
    df["first_shown_rate"] = cnt["first_choices"] / np.where(
        cnt["valid_verdicts"] > 0, cnt["valid_verdicts"], np.nan
    )
    df["first_shown_ci_low"], df["first_shown_ci_high"] = rr["ci_low"], rr["ci_high"]
    # inconsistent pairs: first-first vs second-second, exact binomial = exact McNemar AB vs BA
    k1, k2 = cnt["first_first"], cnt["second_second"]
    p, lo, hi = _binom(k1, k1 + k2, confidence_level)
    with np.errstate(invalid="ignore", divide="ignore"):
        df["p_first_inconsistent"] = k1 / (k1 + k2)
    df["p_first_binom"] = p
    _, df["mcnemar_midp"] = mcnemar_pvalue(k1, k2, "midp")
    if cl is None:
        df["p_first_ci_low"], df["p_first_ci_high"], df["p_first_pvalue"] = lo, hi, p
        df["p_first_test"] = "exact binomial (Clopper-Pearson interval)"
    else:
        # pairs of one image are not independent: the cluster sign-flip test of first-first
        # minus second-second per cluster, with the interval that inverts it
        ff = both & (ab == 0) & (ba == 1) & design
        ss = both & (ab == 1) & (ba == 0) & design
        res = [
            swap_position_test(
                ff[:, j].astype(float), ss[:, j].astype(float), cl,
                confidence_level=confidence_level,
            )
            for j in range(ab.shape[1])
        ]  # fmt: skip
        df["p_first_ci_low"] = [r["ci_low"] for r in res]
        df["p_first_ci_high"] = [r["ci_high"] for r in res]
        df["p_first_pvalue"] = [r["p_value"] for r in res]
        df["p_first_test"] = [r["method"] for r in res]
    # accuracies under the invalid-verdict policy (NaN outcome = unusable verdict)
    with np.errstate(invalid="ignore"):
        ya = np.where(va, (ab == g[:, None]).astype(float), np.nan)
        yb = np.where(vb, (ba == g[:, None]).astype(float), np.nan)
    has_gold = ~np.isnan(g)
    keep = design & has_gold[:, None]
    fill = {"wrong": 0.0, "half": 0.5, "exclude": np.nan}[policy]
    ya_p, yb_p = np.where(np.isnan(ya), fill, ya), np.where(np.isnan(yb), fill, yb)
    variants = {
        "accuracy_ab": ya_p,
        "accuracy_ba": yb_p,
        "accuracy_both": np.where(np.isnan(ya_p) | np.isnan(yb_p), np.nan, ya_p * yb_p),
        "accuracy_tie_resolved": (ya_p + yb_p) / 2.0,
    }
    for name, y in variants.items():
        # y already carries the policy (NaN only under 'exclude'); cells outside the design drop out
        a = judge_accuracy(
            np.where(keep, y, np.nan),
            policy="exclude",
            clusters=cl,
            confidence_level=confidence_level,
        )
        df[name], df[f"{name}_ci_low"], df[f"{name}_ci_high"] = (
            a["accuracy"],
            a["ci_low"],
            a["ci_high"],
        )
        df[f"{name}_n"] = a["n"]
    df["policy"] = policy
    df["gold"] = sd.gold_method
    return df[n > 0].reset_index(drop=True)


def _verdict_orders(study: Study, dimension: str, judges: Sequence[str]) -> np.ndarray:
    """``items x judges`` presentation order of each judge's one verdict (``""``: none)."""
    from medjudge.data.views import dense

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
    from medjudge.data.design import presentation_design

    from .design import resolve_clusters

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
    from medjudge.stats.mcnemar import clustered_mcnemar

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
    from medjudge.stats.groups import group_codes

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


def position_bias(
    study: Study,
    *,
    by: str | Sequence[str] | None = None,
    cluster: str | None = "auto",
    policy: Policy = "wrong",
    confidence_level: float = 0.95,
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
    from medjudge.data.design import presentation_design

    from .._validation import CONFIDENCE_LEVEL
    from ._arguments import check_policy
    from .design import resolve_clusters

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
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
    return PositionBias(tables["swap"], tables["single_order"], reasons, tuple(by or ()), level)
