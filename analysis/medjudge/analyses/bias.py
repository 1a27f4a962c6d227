"""Judge bias diagnostics: label balance, dimension structure, length (verbosity) bias.

Position bias lives in :mod:`medjudge.analyses.position`, score-valued judges and calibration in
:mod:`medjudge.stats.scores`, repeated runs in :mod:`medjudge.stats.consistency`;
:func:`bias_report` collects everything that applies to a study.

Label balance
    Gold prevalence of each category per dimension (and per ``by`` attribute) with Wilson
    intervals, and the accuracy of the constant answers (:func:`trivial_baselines`): a judge
    must beat "always A" before its accuracy means anything.

Dimension structure ("are six verdicts really one?")
    For each rater, Cohen's kappa between its verdicts on every pair of dimensions (items with
    both verdicts), the share of items where all dimensions got the same verdict, and the
    broadcast rate (verdict rows with status ``broadcast``: one verdict copied to every
    dimension). The same for the experts, so the judges' coupling is read against the humans'.

Length bias
    On items whose two answers differ in length (``answer1_len``/``answer2_len``), per judge
    and dimension: ``P(judge picks the longer)`` versus ``P(gold is the longer)`` on the same
    items — a paired 2x2 table (judge longer?) x (gold longer?), difference
    ``(b - c)/n`` with Tango's (1998) score interval and McNemar's mid-p test. A positive
    difference means the judge prefers the longer answer more than the experts do.
    (Experts: each physician against the gold is reported too, for scale.)

    Caveat, and the second measure: any error moves a rater's longer-rate towards 50%, so an
    inaccurate but length-neutral judge shows a *negative* difference when the gold favours the
    longer answer. The accuracy gap ``length_gap = P(correct | gold is the longer) -
    P(correct | gold is the shorter)`` (two independent groups of items: Newcombe hybrid score
    interval, score test) is not attenuated: for a judge that picks the longer answer with
    probability ``lambda`` and otherwise judges independently of length it equals ``lambda``.
    Flag length bias on ``length_gap`` (``gap_p_holm``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from medjudge.analyses._tables import gold_dimensions, with_adjusted
from medjudge.analyses.bias_results import BiasReport, LengthBias
from medjudge.analyses.consistency import run_consistency
from medjudge.analyses.position import a_rate_table, paired_rates, swap_table
from medjudge.data.model import Study
from medjudge.stats.accuracy import trivial_baselines
from medjudge.stats.intervals import wilson_interval
from medjudge.stats.mcnemar import mcnemar_pvalue
from medjudge.stats.paired_intervals import paired_difference_interval

from .._validation import CONFIDENCE_LEVEL
from .design import resolve_clusters

__all__ = [
    "label_balance",
    "constant_answer_scores",
    "dimension_structure",
    "length_bias",
    "bias_report",
]


def label_balance(
    study: Study, by: Sequence[str] = (), confidence_level: float = 0.95
) -> pd.DataFrame:
    """Gold prevalence of each category per dimension (x ``by`` cell), Wilson interval."""
    rows = []
    for dim, g in gold_dimensions(study):
        cats = study.scales[dim].categories
        frame = study.items.assign(_gold=g.codes)
        groups = frame.groupby(list(by), sort=True) if by else [((), frame)]
        for key, sub in groups:
            key = key if isinstance(key, tuple) else (key,)
            codes = sub["_gold"].to_numpy()
            n = int(np.isfinite(codes).sum())
            for ci, cat in enumerate(cats):
                k = int((codes == ci).sum())
                lo, hi = wilson_interval(k, n, confidence_level)
                rows.append(
                    {
                        "dimension": dim,
                        **dict(zip(by, key, strict=True)),
                        "category": cat,
                        "count": k,
                        "n": n,
                        "prevalence": k / n if n else np.nan,
                        "ci_low": float(lo),
                        "ci_high": float(hi),
                        "no_gold": int(len(codes) - n),
                        "gold": g.method,
                    }
                )
    return pd.DataFrame(rows)


def constant_answer_scores(study: Study, confidence_level: float = 0.95) -> pd.DataFrame:
    """Accuracy of always-<category> and of prevalence guessing, per dimension."""
    frames = []
    for dim, g in gold_dimensions(study):
        cats = study.scales[dim].categories
        t = trivial_baselines(
            g.codes,
            categories=np.arange(len(cats)),
            labels=list(cats),
            confidence_level=confidence_level,
        )
        t.insert(0, "dimension", dim)
        frames.append(t)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def verdict_matrix(study: Study, dimension: str, order: str = "AB") -> pd.DataFrame:
    """``items x raters`` codes of one dimension, one verdict per rater: rows in ``order`` (or
    without an order, e.g. experts); with several runs, the first run (sorted) is used."""
    r = study.ratings
    mask = (r["dimension"] == dimension).to_numpy()
    sub = r.loc[mask, ["item", "rater", "order", "run"]].assign(_c=study.codes(dimension))
    sub = sub[sub["order"].isin([order, ""])].sort_values(["rater", "item", "run"])
    sub = sub.drop_duplicates(["item", "rater"], keep="first")
    wide = sub.pivot(index="item", columns="rater", values="_c")
    return wide.reindex(
        index=study.item_ids, columns=[c for c in study.raters() if c in wide.columns]
    )


def _kappa(a: np.ndarray, b: np.ndarray, k: int) -> tuple[float, int]:
    """Cohen's (1960) kappa of two code vectors over complete pairs: ``(po - pe)/(1 - pe)``."""
    ok = ~(np.isnan(a) | np.isnan(b))
    n = int(ok.sum())
    if n == 0:
        return np.nan, 0
    t = np.zeros((k, k))
    np.add.at(t, (a[ok].astype(int), b[ok].astype(int)), 1.0)
    t /= n
    po, pe = np.trace(t), float(t.sum(1) @ t.sum(0))
    return ((po - pe) / (1 - pe) if pe < 1 else np.nan), n


def dimension_structure(
    study: Study, raters: Sequence[str] | None = None, order: str = "AB"
) -> dict[str, pd.DataFrame]:
    """Per rater: kappa between dimensions, share of identical verdicts, broadcast rate.

    Returns ``{"pairs": rater x dimension-pair kappas, "summary": per rater}``. ``summary``
    columns: ``role, n_items (with a verdict on every dimension), all_identical (share),
    mean_kappa, min_kappa, broadcast_rate (share of verdict rows with status broadcast)``.
    Only categorical dimensions sharing one category set are compared. Judges are read in
    ``order`` (experts have no order).
    """
    dims = [d for d in study.dimensions if study.scales[d].is_categorical]
    if len(dims) < 2:
        return {"pairs": pd.DataFrame(), "summary": pd.DataFrame()}
    k = len(study.scales[dims[0]].categories)
    r = study.ratings
    raters = list(raters) if raters is not None else study.raters()
    role = r.drop_duplicates("rater").set_index("rater")["role"]
    pairs, summary = [], []
    wides = {d: verdict_matrix(study, d, order) for d in dims}
    for rater in raters:
        if not all(rater in w.columns for w in wides.values()):
            continue
        mats = np.column_stack([wides[d][rater].to_numpy(dtype=float) for d in dims])
        kap = []
        for (i, a), (j, b) in itertools.combinations(enumerate(dims), 2):
            kv, n = _kappa(mats[:, i], mats[:, j], k)
            kap.append(kv)
            pairs.append(
                {
                    "rater": rater,
                    "role": role[rater],
                    "dimension_a": a,
                    "dimension_b": b,
                    "kappa": kv,
                    "n": n,
                }
            )
        full = ~np.isnan(mats).any(1)
        same = (mats[full] == mats[full, :1]).all(1)
        rr = r[(r["rater"] == rater) & r["order"].isin([order, ""])]
        summary.append(
            {
                "rater": rater,
                "role": role[rater],
                "n_items": int(full.sum()),
                "all_identical": float(same.mean()) if full.any() else np.nan,
                "mean_kappa": float(np.nanmean(kap)),
                "min_kappa": float(np.nanmin(kap)),
                "broadcast_rate": float((rr["status"] == "broadcast").mean())
                if len(rr)
                else np.nan,
                "order": order,
            }
        )
    return {"pairs": pd.DataFrame(pairs), "summary": pd.DataFrame(summary)}


def length_bias(
    study: Study,
    *,
    len_a: str = "answer1_len",
    len_b: str = "answer2_len",
    order: str = "AB",
    confidence_level: float = 0.95,
    include_experts: bool = True,
    alpha: float | None = None,
) -> LengthBias:
    """Does a rater pick the longer answer more often than the gold does? (paired, per dimension).

    Items where the lengths are equal, or the rater or the gold has no verdict, are excluded
    and counted. ``b`` = rater picks longer while gold is the shorter, ``c`` = the reverse;
    ``difference = P(rater longer) - P(gold longer) = (b - c)/n``; Tango score interval;
    McNemar mid-p; Holm over the table (``p_holm``). The wide table is the result's
    ``frame``; ``table("length_gap")`` and ``table("longer_rate")`` are its tidy tables; ``alpha``
    (default 0.05) is the threshold of its findings.
    """
    if len_a not in study.items.columns or len_b not in study.items.columns:
        return LengthBias(pd.DataFrame(), confidence_level, alpha)
    la = pd.to_numeric(study.items[len_a], errors="coerce").to_numpy(dtype=float)
    lb = pd.to_numeric(study.items[len_b], errors="coerce").to_numpy(dtype=float)
    longer = np.where(la > lb, 0.0, np.where(lb > la, 1.0, np.nan))
    rows = []
    for dim, g in gold_dimensions(study):
        raters = study.judges + (study.experts if include_experts else [])
        wide = verdict_matrix(study, dim, order)
        for rater in raters:
            if rater not in wide.columns:
                continue
            v = wide[rater].to_numpy(dtype=float)
            ok = ~np.isnan(v) & ~np.isnan(g.codes) & ~np.isnan(longer) & (v < 2) & (g.codes < 2)
            n11, b, c, n22, rates = paired_rates(v[ok] == longer[ok], g.codes[ok] == longer[ok])
            n = n11 + b + c + n22
            if n == 0:
                continue
            lo, hi = paired_difference_interval(n11, b, c, n22, confidence_level, "tango")
            _, p = mcnemar_pvalue(b, c, "midp")
            # accuracy gap: right when gold is the longer (n11 of n11 + c) vs when it is the shorter
            k1, m1, k2, m2 = n11, n11 + c, n22, b + n22
            gap, glo, ghi, gp = _two_sample(k1, m1, k2, m2, confidence_level)
            rows.append(
                {
                    "dimension": dim,
                    "rater": rater,
                    "role": "expert" if rater in study.experts else "judge",
                    "n": n,
                    "rater_longer_rate": rates["rate_x"],
                    "gold_longer_rate": rates["rate_y"],
                    "difference": rates["difference"],
                    "ci_low": float(lo),
                    "ci_high": float(hi),
                    "ci_method": "tango",
                    "b": b,
                    "c": c,
                    "pvalue": float(p),
                    "test": "McNemar mid-p",
                    "accuracy_gold_longer": k1 / m1 if m1 else np.nan,
                    "accuracy_gold_shorter": k2 / m2 if m2 else np.nan,
                    "length_gap": gap,
                    "gap_ci_low": glo,
                    "gap_ci_high": ghi,
                    "gap_pvalue": gp,
                    "excluded": int((~ok).sum()),
                    "equal_length_items": int(np.isnan(longer).sum()),
                }
            )
    t = with_adjusted(pd.DataFrame(rows), p_holm="holm")
    return LengthBias(with_adjusted(t, "gap_pvalue", gap_p_holm="holm"), confidence_level, alpha)


def _two_sample(
    k1: int, n1: int, k2: int, n2: int, confidence_level: float
) -> tuple[float, float, float, float]:
    """Difference of two independent proportions: Newcombe (1998) hybrid score interval and the
    score test (statsmodels ``confint_proportions_2indep`` / ``test_proportions_2indep``)."""
    from statsmodels.stats.proportion import confint_proportions_2indep, test_proportions_2indep

    if n1 == 0 or n2 == 0:
        return np.nan, np.nan, np.nan, np.nan
    lo, hi = confint_proportions_2indep(
        k1, n1, k2, n2, method="newcomb", alpha=1 - confidence_level
    )
    p = test_proportions_2indep(k1, n1, k2, n2, method="score").pvalue
    return k1 / n1 - k2 / n2, float(lo), float(hi), float(p)


def bias_report(
    study: Study, *, cluster: str | None = "auto", confidence_level: float = 0.95
) -> BiasReport:
    """Every diagnostic that applies to ``study``, as tidy tables (keys name the analysis).

    ``cluster="auto"``: the study's clusters (:func:`medjudge.analyses.design.resolve_clusters`)
    for the position tables. Position bias is reported as the presentation design allows
    (:func:`medjudge.analyses.position.position_bias`): ``position_swap`` for judges seen in
    both orders, ``position_single_order`` for judges seen in one order per item; neither for
    labels without positions or an unrecorded order.

    Parameters
    ----------
    study : Study
        The study; tables that need something it lacks (gold, both orders, answer lengths,
        repeated runs) are left out.
    cluster : str or None, default "auto"
        The item attribute whose values are resampled and tested together in the position
        tables; ``"auto"``: the study's declared or detected clusters; None: items are
        independent.
    confidence_level : float, default 0.95
        Coverage of every interval in the tables.

    Returns
    -------
    BiasReport
        A dict of the wide tables that apply, by name, with the result contract
        (``table("length_gap")``, ``"longer_rate"``, ``"prevalence"``, ``"constant_answers"``,
        ``"flips"``; ``plot("length")``):

        - ``position_swap`` (judges seen in both orders): per dimension and judge the
          counts of consistent and inconsistent pairs, ``consistency``, ``first_shown_rate``
          and ``p_first_inconsistent`` with their intervals, the exact binomial
          ``p_first_test``, ``p_first_pvalue``, ``p_first_binom``, ``mcnemar_midp``, the accuracies per order and ``p_first_holm``;
        - ``position_single_order``: per dimension, judge and order ``judge_a_rate``,
          ``gold_a_rate``, their ``difference`` with ``ci_low``, ``ci_high``, ``ci_method``,
          ``level``, the McNemar ``test`` and p-values, and ``p_holm``;
        - ``label_balance``: per dimension and category the gold ``count``, ``n``,
          ``prevalence`` with its Wilson ``ci_low``, ``ci_high``;
        - ``constant_answers``: per dimension the ``accuracy`` (with ``ci_low``, ``ci_high``,
          ``n``, ``level``) of always answering one category and of prevalence guessing;
        - ``dimension_structure`` and ``dimension_pairs``: per rater the share of items with
          all dimensions identical, mean and min kappa between dimensions, the broadcast
          rate; and the kappa of every pair of dimensions;
        - ``length_bias``: per dimension and rater ``rater_longer_rate``,
          ``gold_longer_rate``, their ``difference`` with a Tango interval, McNemar
          ``pvalue``, the accuracy gap ``length_gap`` with ``gap_ci_low``, ``gap_ci_high``,
          ``gap_pvalue``, and Holm-adjusted ``p_holm``, ``gap_p_holm``;
        - ``run_consistency`` (repeated runs): see :func:`medjudge.run_consistency`.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. EPM 20:37-46.
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
    inference. JASA 22:209-212.
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12:153-157.
    Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary
    matched-pairs data: mid-p and asymptotic are better than exact conditional. BMC Medical
    Research Methodology 13:91.
    Tango, T. (1998). Equivalence test and confidence interval for the difference in
    proportions for the paired-sample design. Statistics in Medicine 17:891-908.
    Newcombe, R. G. (1998). Interval estimation for the difference between independent
    proportions: comparison of eleven methods. Statistics in Medicine 17:873-890.
    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. & Rust, P. F. (2003). Analysis of
    clustered matched-pair data. Statistics in Medicine 22 (clustered McNemar test).
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6:65-70.
    Zheng, L. et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena. NeurIPS
    (position and verbosity bias).

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, 12 judges, 3 experts
    >>> br = mj.bias_report(study)
    >>> sorted(br)
    ['constant_answers', 'dimension_pairs', 'dimension_structure', 'label_balance', 'length_bias', 'position_single_order', 'position_swap']
    """

    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    cl = resolve_clusters(study, cluster)
    out: dict[str, pd.DataFrame] = {}
    swap = swap_table(study, cluster=cl.column if cl.labels is not None else None,
                      confidence_level=level)  # fmt: skip
    if len(swap):
        out["position_swap"] = swap
    out["position_single_order"] = a_rate_table(study, cluster=cluster, confidence_level=level)
    out["label_balance"] = label_balance(study, confidence_level=level)
    out["constant_answers"] = constant_answer_scores(study, confidence_level=level)
    ds = dimension_structure(study)
    if len(ds["summary"]):
        out["dimension_structure"] = ds["summary"]
        out["dimension_pairs"] = ds["pairs"]
    lb = length_bias(study, confidence_level=level)
    if len(lb):
        out["length_bias"] = lb.frame
    rc = run_consistency(study, confidence_level=level)
    if len(rc):
        out["run_consistency"] = rc.frame
    return BiasReport(out, level)
