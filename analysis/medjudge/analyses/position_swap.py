"""Position bias of judges seen in both presentation orders on the same items (LLMBar; the
demo's swap judges): the verdicts of both orders, their counts and the swap table.

Verdicts are stored in the *original* indexing (code 0 = answer 1), whatever the order, so a
position-free judge gives the same code in both orders; see :mod:`medjudge.analyses.position`
for the estimands and tests.

References: Zeng et al. (2024) LLMBar, ICLR (arXiv:2310.07641); McNemar (1947); Fagerland,
Lydersen & Laake (2013) BMC Med Res Methodol 13:91.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from medjudge.analyses._tables import with_adjusted
from medjudge.data.design import presentation_design
from medjudge.data.model import Study
from medjudge.stats.accuracy import Policy, judge_accuracy
from medjudge.stats.mcnemar import mcnemar_pvalue, swap_position_test

from ._arguments import check_attributes

__all__ = [
    "SwapData",
    "answer_codes",
    "item_groups",
    "paired_rates",
    "swap_counts",
    "swap_data",
    "swap_judges",
    "swap_table",
]


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
