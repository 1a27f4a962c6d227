"""Can a judge stand in for an expert? Leave-one-expert-out agreement and the alt-test.

Two views of the same question, on one dimension:

1. **Leave-one-out agreement** (:func:`judge_expert_agreement`). For judge ``J`` and expert
   ``e``, with ``O = experts \\ {e}``: ``kappa(J, O) = mean_{k in O} kappa(J, k)`` against
   ``kappa(e, O) = mean_{k in O} kappa(e, k)`` (Cohen's kappa on the items both raters rated).
   Their difference gets a paired bootstrap interval (same resamples for both terms, through the
   shared engine), so "the judge agrees with the other experts as well as expert e does" is a
   statement with an interval rather than two overlapping ones.

2. **The alternative annotator test** (:func:`alt_test`) of Calderon, Reichart & Dror (2025),
   "The Alternative Annotator Test for LLM-as-a-Judge: How to Statistically Justify Replacing
   Human Annotators with LLMs", ACL 2025 (arXiv:2501.10970). For every annotator ``h_j``:

   * ``I_j`` = items annotated by ``h_j`` that have at least ``min_annotators_per_item``
     human annotations in all (so at least one other), and a judge verdict;
   * per item, the alignment with the *remaining* annotators ``H_{-j}[i]``:
     ``S(f, i, j) = mean_{k in H_-j[i]} s(f(x_i), h_k(x_i))`` for the judge and
     ``S(h_j, i, j)`` likewise for the excluded annotator; ``s`` is agreement (``1[a = b]``,
     "ACC", categorical labels) or ``-RMSE`` (numeric scores);
   * indicators ``W^f_i = 1[S(f) >= S(h_j)]``, ``W^h_i = 1[S(h_j) >= S(f)]``; advantage
     probabilities ``rho^f_j = mean_i W^f_i``, ``rho^h_j = mean_i W^h_i``;
   * ``H0_j: rho^f_j <= rho^h_j - epsilon`` against ``H1_j: rho^f_j > rho^h_j - epsilon``, by a
     one-sided paired t-test on ``d_i = W^h_i - W^f_i``: ``t = (mean(d) - epsilon) / (sd(d) /
     sqrt(n_j))``, ``p = F_{t, n_j - 1}(t)`` (reject for small ``t``). If every ``d_i`` is equal
     the t statistic is undefined; then ``p = 0`` when ``d < epsilon`` and 1 otherwise.
   * The ``m`` p-values are adjusted by Benjamini & Yekutieli (2001) at FDR level ``q``
     (default 0.05). The **winning rate** ``omega`` is the share of rejected nulls; the judge
     passes (may replace the annotators) if ``omega >= 0.5``. The **average advantage
     probability** ``rho = mean_j rho^f_j`` compares judges independently of ``epsilon``.

   ``epsilon`` is the cost–benefit margin. The authors' rule of thumb (Calderon, Reichart &
   Dror 2025, ACL, sec. "How to select epsilon" and the FAQ of their code repository
   nitaytech/AltTest): **0.2 for experts** (reliable but expensive, sometimes inaccessible),
   **0.15 for skilled annotators** (e.g. trained students or workers), **0.1 for crowd
   workers** — a larger margin where the humans are costlier — and a smaller one when
   inter-annotator agreement is low. :data:`ANNOTATOR_EPSILON` holds these values; the default
   is the expert value 0.2 because medjudge's annotators are physicians. The paper asks for at least 3 annotators and
   50–100 items; annotators with fewer than ``min_items_per_annotator`` (30, as in the
   authors' code) usable items are skipped and listed.

A judge verdict that is missing or invalid is handled by ``invalid``: ``"exclude"`` drops the
item for that judge (as the authors' code does; the count is reported), ``"wrong"`` keeps it with
the worst alignment (the judge loses that item) — the Med-RewardBench rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from .._validation import ALPHA, IntRange, RealRange, check_choice, check_numbers
from .results import Presentable

Scoring = Literal["accuracy", "neg_rmse"]
InvalidPolicy = Literal["exclude", "wrong"]


# ---------------------------------------------------------------------------------------------
# multiplicity
# ---------------------------------------------------------------------------------------------
def benjamini_yekutieli(p: np.ndarray, q: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini & Yekutieli (2001, Ann. Stat. 29:1165-1188) step-up FDR under dependence.

    With sorted p-values ``p_(1) <= ... <= p_(m)`` and ``c(m) = sum_{i<=m} 1/i``, reject
    ``H_(1..k)`` for the largest ``k`` with ``p_(k) <= k q / (m c(m))``. Adjusted p-values:
    ``min_{k >= i} min(1, m c(m) p_(k) / k)``. Returns ``(rejected, adjusted)``.
    """
    p = np.asarray(p, dtype=float)
    m = p.size
    if m == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    order = np.argsort(p, kind="stable")
    cm = np.sum(1.0 / np.arange(1, m + 1))
    k = np.arange(1, m + 1)
    raw = p[order] * m * cm / k
    adj_sorted = np.minimum(1.0, np.minimum.accumulate(raw[::-1])[::-1])
    adjusted = np.empty(m)
    adjusted[order] = adj_sorted
    return adjusted <= q, adjusted


def one_sided_paired_t(d: np.ndarray, epsilon: float) -> tuple[float, float, int]:
    """``t = (mean(d) - epsilon) / (sd(d)/sqrt(n))`` and ``p = P(T_{n-1} <= t)``.

    Same as ``scipy.stats.ttest_1samp(d, epsilon, alternative="less")``; when ``sd(d) = 0`` the
    p-value is 0 if ``d < epsilon`` and 1 otherwise (the t statistic is then +-inf or undefined).
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        return math.nan, 1.0, n - 1
    mean, sd = d.mean(), d.std(ddof=1)
    if sd == 0:
        return (-math.inf if mean < epsilon else math.inf), (0.0 if mean < epsilon else 1.0), n - 1
    t = (mean - epsilon) / (sd / math.sqrt(n))
    return float(t), float(stats.t.cdf(t, n - 1)), n - 1


# ---------------------------------------------------------------------------------------------
# alt-test
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class AltTestResult(Presentable):
    """Outcome of the alt-test for one judge (one row per excluded annotator in ``table``)."""

    def to_frame(self) -> pd.DataFrame:
        """One row per left-out annotator: the judge's and the annotator's advantage, p-value."""
        return self.table.copy()

    def __repr__(self) -> str:
        return (
            f"AltTestResult({self.judge}: {'passed' if self.passed else 'not passed'}, "
            f"winning rate {self.winning_rate:.3g}, advantage probability "
            f"{self.advantage_probability:.3g}, epsilon={self.epsilon:g}, q={self.q:g}, "
            f"n={self.n_items})"
        )

    judge: str
    winning_rate: float
    advantage_probability: float
    passed: bool
    epsilon: float
    q: float
    scoring: str
    invalid: str
    table: pd.DataFrame
    n_items: int
    skipped_annotators: list[str] = field(default_factory=list)
    excluded: dict[str, int] = field(default_factory=dict)
    method: str = (
        "alt-test (Calderon, Reichart & Dror 2025), one-sided paired t, Benjamini-Yekutieli"
    )

    def to_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "winning_rate": self.winning_rate,
            "advantage_probability": self.advantage_probability,
            "passed": self.passed,
            "epsilon": self.epsilon,
            "q": self.q,
            "scoring": self.scoring,
            "invalid": self.invalid,
            "n_items": self.n_items,
            "n_annotators_tested": len(self.table),
            "skipped_annotators": list(self.skipped_annotators),
            "excluded": dict(self.excluded),
            "method": self.method,
            "per_annotator": self.table.to_dict(orient="records"),
        }


def _alignment(x: np.ndarray, others: np.ndarray, scoring: Scoring) -> np.ndarray:
    """Per item, alignment of ``x`` (n,) with the non-missing entries of ``others`` (n, k)."""
    seen = ~np.isnan(others)
    cnt = seen.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if scoring == "accuracy":
            s = np.where(seen, others == x[:, None], 0.0).sum(axis=1) / cnt
        elif scoring == "neg_rmse":
            s = -np.sqrt(np.where(seen, (others - x[:, None]) ** 2, 0.0).sum(axis=1) / cnt)
        else:
            raise ValueError(f"scoring must be 'accuracy' or 'neg_rmse', got {scoring!r}")
    return np.where(np.isnan(x), -np.inf, s)  # a missing verdict aligns worst of all


ANNOTATOR_EPSILON: dict[str, float] = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
"""Calderon, Reichart & Dror (2025): recommended ``epsilon`` by who the human annotators are."""


def epsilon_for(annotators: str) -> float:
    """The authors' recommended margin for ``"expert"``, ``"skilled"`` or ``"crowd"`` annotators.

    Examples
    --------
    >>> epsilon_for("expert"), epsilon_for("skilled"), epsilon_for("crowd")
    (0.2, 0.15, 0.1)
    """
    try:
        return ANNOTATOR_EPSILON[annotators]
    except KeyError:
        raise ValueError(
            f"annotators={annotators!r} is not one of {sorted(ANNOTATOR_EPSILON)}"
        ) from None


def check_alt_arguments(epsilon: Any, q: Any, policy: Any, min_items_per_annotator: Any) -> None:
    """The alt-test's options, checked once (one line naming the argument)."""
    RealRange(0.0, 1.0, open_low=False, what="a margin").check("epsilon", epsilon)
    ALPHA.check("q", q)
    check_choice("policy", policy, ("exclude", "wrong"))
    IntRange(1, 10**9, what="count").check("min_items_per_annotator", min_items_per_annotator)


def _annotator_rows(
    f: np.ndarray,
    H: np.ndarray,
    keep: np.ndarray,
    names: list[str],
    scoring: str,
    epsilon: float,
    min_items: int,
) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per annotator ``j``: the judge's and ``j``'s alignment with the other annotators
    on the items both cover, the winning indicators and the one-sided paired t-test of
    ``d = W_h - W_f`` against ``epsilon``; annotators with fewer than ``min_items`` are skipped."""
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for j in range(H.shape[1]):
        items = keep & ~np.isnan(H[:, j])
        n_j = int(items.sum())
        if n_j < min_items:
            skipped.append(names[j])
            continue
        others = np.delete(H[items], j, axis=1)
        s_f = _alignment(f[items], others, scoring)
        s_h = _alignment(H[items, j], others, scoring)
        w_f = (s_f >= s_h).astype(float)
        w_h = (s_h >= s_f).astype(float)
        d = w_h - w_f
        t, p, df = one_sided_paired_t(d, epsilon)
        finite = np.isfinite(s_f)
        rows.append(
            {
                "annotator": names[j],
                "n": n_j,
                "rho_judge": float(w_f.mean()),
                "rho_annotator": float(w_h.mean()),
                "align_judge": float(s_f[finite].mean()) if finite.any() else math.nan,
                "align_annotator": float(s_h.mean()),
                "mean_d": float(d.mean()),
                "t": t,
                "df": df,
                "pvalue": p,
            }
        )
    return rows, skipped


def _judge_and_humans(
    judge: Any, humans: Any, word: str, names: list[str] | None
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The judge's ``(n,)`` and the humans' ``(n, m)`` codes as float arrays and the humans'
    names (default ``{word}_0`` …); one line naming the argument when they do not fit."""
    f = check_numbers("judge", judge, "a 1-d array of the judge's labels, NaN for missing").ravel()
    H = check_numbers(f"{word}s", humans, f"an items x {word}s array, NaN for missing")
    if H.ndim != 2 or H.shape[0] != f.size:
        raise ValueError(
            f"{word}s: an array of shape {H.shape} is not allowed (items x {word}s, "
            f"{f.size} rows like judge)"
        )
    return f, H, names or [f"{word}_{j}" for j in range(H.shape[1])]


def alt_test(
    judge: Any,
    annotators: Any,
    *,
    annotator_names: list[str] | None = None,
    judge_name: str = "judge",
    epsilon: float = ANNOTATOR_EPSILON["expert"],
    q: float = 0.05,
    scoring: Scoring = "accuracy",
    policy: InvalidPolicy = "exclude",
    min_annotators_per_item: int = 2,
    min_items_per_annotator: int = 30,
) -> AltTestResult:
    """The alternative annotator test for one judge (see the module docstring for the procedure).

    Parameters
    ----------
    judge : ``(n_items,)`` judge labels/scores (NaN = no usable verdict).
    annotators : ``(n_items, m)`` human labels/scores (NaN = not annotated).
    epsilon : margin; the authors recommend 0.2 for experts (default), 0.15 for skilled
        annotators, 0.1 for crowd workers (:data:`ANNOTATOR_EPSILON`, :func:`epsilon_for`).
    q : FDR level of the Benjamini–Yekutieli procedure.
    scoring : ``"accuracy"`` (categorical) or ``"neg_rmse"`` (numeric scores).
    policy : ``"exclude"`` or ``"wrong"`` for items without a usable judge verdict.
    annotator_names : list of str, optional
        Names of the annotator columns (default ``annotator_1`` …).
    judge_name : str, default "judge"
        The judge's name in the result.
    min_annotators_per_item : int, default 2
        Items with fewer annotators are left out (the leave-one-out reference needs one more).
    min_items_per_annotator : int, default 30
        Annotators with fewer items are left out of the test.

    Returns
    -------
    AltTestResult
        ``winning_rate``, ``passed`` (winning rate ≥ 0.5), ``n_items``, ``epsilon`` and the
        per-annotator ``table`` (advantage probabilities, p-values, decisions).

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The alternative annotator test for
    LLM-as-a-judge: how to statistically justify replacing human annotators with LLMs. ACL
    (arXiv:2501.10970). Benjamini, Y. & Yekutieli, D. (2001). Annals of Statistics
    29:1165-1188.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> rng = np.random.default_rng(2)
    >>> truth = rng.integers(0, 2, 120)
    >>> ann = np.column_stack([np.where(rng.random(120) < 0.85, truth, 1 - truth) for _ in range(3)])
    >>> judge = np.where(rng.random(120) < 0.9, truth, 1 - truth)
    >>> r = mj.alt_test(judge, ann, epsilon=0.2)
    >>> r.passed
    True
    """
    check_alt_arguments(epsilon, q, policy, min_items_per_annotator)
    check_choice("scoring", scoring, ("accuracy", "neg_rmse"))
    min_annotators_per_item = IntRange(2, 10**6, what="count").check(
        "min_annotators_per_item", min_annotators_per_item
    )
    f, H, names = _judge_and_humans(judge, annotators, "annotator", annotator_names)
    n_humans = (~np.isnan(H)).sum(axis=1)
    keep = n_humans >= min_annotators_per_item
    no_verdict = keep & np.isnan(f)
    if policy == "exclude":
        keep = keep & ~np.isnan(f)
    excluded = {
        "items_with_too_few_annotators": int((n_humans < min_annotators_per_item).sum()),
        f"items_without_judge_verdict_{'excluded' if policy == 'exclude' else 'counted_as_losses'}": int(
            no_verdict.sum()
        ),
    }
    rows, skipped = _annotator_rows(f, H, keep, names, scoring, epsilon, min_items_per_annotator)
    table = pd.DataFrame(
        rows,
        columns=[
            "annotator",
            "n",
            "rho_judge",
            "rho_annotator",
            "align_judge",
            "align_annotator",
            "mean_d",
            "t",
            "df",
            "pvalue",
        ],
    )
    if len(table):
        rej, adj = benjamini_yekutieli(table["pvalue"].to_numpy(), q)
        table["p_by"] = adj
        table["rejected"] = rej
        omega = float(rej.mean())
        rho = float(table["rho_judge"].mean())
    else:
        table["p_by"] = []
        table["rejected"] = []
        omega = rho = math.nan
    return AltTestResult(
        judge=judge_name,
        winning_rate=omega,
        advantage_probability=rho,
        passed=bool(np.isfinite(omega) and omega >= 0.5),
        epsilon=epsilon,
        q=q,
        scoring=scoring,
        invalid=policy,
        table=table,
        n_items=int(keep.sum()),
        skipped_annotators=skipped,
        excluded=excluded,
    )


#: the fields of an :class:`AltTestResult` that :func:`alt_test_table` shows, in order
ALT_TEST_COLUMNS = (
    "judge",
    "winning_rate",
    "advantage_probability",
    "passed",
    "n_items",
    "epsilon",
)


def alt_test_table(results: list[AltTestResult], dimension: str | None = None) -> pd.DataFrame:
    """One row per judge: winning rate, advantage probability, pass, and the per-annotator p-values."""
    rows = []
    for r in results:
        row: dict[str, Any] = {"dimension": dimension} if dimension is not None else {}
        row.update({k: getattr(r, k) for k in ALT_TEST_COLUMNS})
        for _, a in r.table.iterrows():
            row[f"p_by[{a['annotator']}]"] = a["p_by"]
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# non-inferiority: the stand-in decision
# ---------------------------------------------------------------------------------------------
STAND_IN_MARGIN = 0.05
"""Default clinical margin of the stand-in decision: 5 accuracy points."""


def _majority(others: np.ndarray) -> np.ndarray:
    """Strict-majority label per row of ``others`` (NaN when split or nobody rated)."""
    out = np.full(others.shape[0], np.nan)
    seen = ~np.isnan(others)
    cnt = seen.sum(axis=1)
    for c in np.unique(others[seen]):
        votes = (others == c).sum(axis=1)
        out = np.where(2 * votes > cnt, c, out)
    return out


def clustered_mean_interval(
    d: np.ndarray, clusters: np.ndarray | None, confidence_level: float
) -> tuple[float, float, float, int]:
    """Mean of ``d`` with the cluster-robust (CR1) SE and a t interval with ``G - 1`` df.

    ``se^2 = G/(G-1) sum_g (sum_{i in g} (d_i - dbar))^2 / n^2`` (each item its own cluster
    without ``clusters``: the one-sample t interval). Returns ``(mean, low, high, G)``.
    """
    from .groups import group_codes

    n = d.size
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    cc, g = group_codes(np.arange(n) if clusters is None else np.asarray(clusters))
    est = float(d.mean())
    if g < 2:
        return est, math.nan, math.nan, g
    s = np.bincount(cc, weights=d - est, minlength=g)
    se = math.sqrt(g / (g - 1) * float(np.sum(s**2))) / n
    q = float(stats.t.ppf(0.5 + confidence_level / 2, g - 1))
    return est, est - q * se, est + q * se, g


def non_inferiority(
    judge: Any,
    experts: Any,
    *,
    expert_names: list[str] | None = None,
    clusters: Any = None,
    margin: float = STAND_IN_MARGIN,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Is the judge's accuracy at most ``margin`` below each expert's? (leave one expert out)

    For each expert ``e``, the reference is the strict majority of the *other* experts; on
    the items where that reference exists and both the judge and ``e`` gave a verdict, the
    paired difference ``d_i = 1[judge_i = ref_i] - 1[e_i = ref_i]`` has mean ``accuracy(judge)
    - accuracy(e)`` against the same reference. Its interval is cluster-robust (CR1, t with
    ``G - 1`` df; the one-sample t interval when ``clusters`` is None). The judge is
    non-inferior to ``e`` when the lower limit lies above ``-margin`` (a one-sided test at
    ``(1 - confidence_level) / 2``), and non-inferior to the experts when it is to every one
    of them (an intersection-union test: no multiplicity adjustment is needed).

    A missing judge verdict counts as wrong (the judge gave no usable answer).

    Parameters
    ----------
    judge : array_like, shape (n_items,)
        The judge's category codes (NaN = no usable verdict).
    experts : array_like, shape (n_items, n_experts)
        The experts' codes (NaN = not rated); at least 3 experts so that two remain.
    expert_names : list of str, optional
    clusters : array_like, optional
        One label per item (image, case).
    margin : float, default 0.05
        The clinical margin in accuracy points (proportion scale).
    confidence_level : float, default 0.95

    Returns
    -------
    DataFrame
        One row per left-out expert: ``expert, n, n_clusters, accuracy_judge,
        accuracy_expert, difference, ci_low, ci_high, margin, non_inferior``;
        ``attrs["non_inferior"]`` is True when every row is (and there is one).

    References
    ----------
    Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling.
    Technometrics 24:295-300 (intersection-union tests).
    Wellek, S. (2010). Testing Statistical Hypotheses of Equivalence and Noninferiority, 2nd
    ed. CRC.

    Examples
    --------
    >>> import numpy as np
    >>> from medjudge.stats.judge_vs_experts import non_inferiority
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 400)
    >>> ex = np.column_stack([np.where(rng.random(400) < .85, truth, 1 - truth) for _ in range(3)])
    >>> judge = np.where(rng.random(400) < .85, truth, 1 - truth)
    >>> t = non_inferiority(judge, ex, margin=0.1)
    >>> t["non_inferior"].tolist(), t.attrs["non_inferior"]  # one lower limit is below -0.1
    ([False, True, True], False)
    """
    RealRange(0.0, 1.0, open_low=True, what="a margin in accuracy points").check("margin", margin)
    f, H, names = _judge_and_humans(judge, experts, "expert", expert_names)
    cl = None if clusters is None else np.asarray(clusters)
    rows = []
    for e in range(H.shape[1]):
        others = np.delete(H, e, axis=1)
        if others.shape[1] < 2:
            continue
        ref = _majority(others)
        ok = ~np.isnan(ref) & ~np.isnan(H[:, e])
        dj = np.where(np.isnan(f[ok]), 0.0, (f[ok] == ref[ok]).astype(float))
        de = (H[ok, e] == ref[ok]).astype(float)
        est, lo, hi, g = clustered_mean_interval(
            dj - de, None if cl is None else cl[ok], confidence_level
        )
        rows.append(
            {
                "expert": names[e],
                "n": int(ok.sum()),
                "n_clusters": g,
                "accuracy_judge": float(dj.mean()) if dj.size else math.nan,
                "accuracy_expert": float(de.mean()) if de.size else math.nan,
                "difference": est,
                "ci_low": lo,
                "ci_high": hi,
                "margin": margin,
                "non_inferior": bool(np.isfinite(lo) and lo > -margin),
            }
        )
    cols = ["expert", "n", "n_clusters", "accuracy_judge", "accuracy_expert", "difference",
            "ci_low", "ci_high", "margin", "non_inferior"]  # fmt: skip
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["non_inferior"] = bool(len(out) and out["non_inferior"].all())
    out.attrs["method"] = (
        "cluster-robust (CR1) t interval, G-1 df" if cl is not None else "paired t interval"
    )
    return out


def alt_epsilon_in_accuracy(annotators: Any, epsilon: float, gold: Any | None = None) -> float:
    """The lowest judge accuracy that passes the alt-test at ``epsilon`` on these annotators.

    The alt-test's margin is on the scale of advantage probabilities; to say what it means
    clinically, take a hypothetical judge that gives the gold label (default: the annotators'
    strict majority) with probability ``a`` and another label otherwise, independently of
    the annotators. Its expected ``d_i = W^h_i - W^f_i`` is linear in ``a`` per annotator
    (the alignments of the right and of a wrong label with the other annotators are known),
    so the ``a`` at which ``mean(d) = epsilon`` is explicit for each annotator; the judge
    passes when it wins against half of them, so the threshold is their median. Categorical
    labels; a wrong label is each other category with equal probability.

    Returns NaN when no annotator has items with a gold label.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.integers(0, 2, 300)
    >>> ann = np.column_stack([np.where(rng.random(300) < .83, truth, 1 - truth) for _ in range(3)])
    >>> 0.3 < alt_epsilon_in_accuracy(ann, 0.2) < 0.7
    True
    """
    H = np.asarray(annotators, dtype=float)
    g = _majority(H) if gold is None else np.asarray(gold, dtype=float)
    cats = np.unique(H[~np.isnan(H)])
    thresholds = []
    for j in range(H.shape[1]):
        items = ~np.isnan(H[:, j]) & ~np.isnan(g) & ((~np.isnan(H)).sum(axis=1) >= 2)
        if not items.any():
            continue
        others = np.delete(H[items], j, axis=1)
        s_h = _alignment(H[items, j], others, "accuracy")

        def d_of(
            label: np.ndarray, others: np.ndarray = others, s_h: np.ndarray = s_h
        ) -> np.ndarray:
            s_f = _alignment(label, others, "accuracy")
            return (s_h >= s_f).astype(float) - (s_f >= s_h).astype(float)

        d_right = d_of(g[items])
        wrong = [d_of(np.full(items.sum(), c)) for c in cats]
        is_gold = np.stack([g[items] == c for c in cats])
        d_wrong = (np.stack(wrong) * ~is_gold).sum(axis=0) / max(cats.size - 1, 1)
        r, w = float(d_right.mean()), float(d_wrong.mean())
        if w == r:
            continue
        thresholds.append(min(1.0, max(0.0, (w - epsilon) / (w - r))))
    return float(np.median(thresholds)) if thresholds else math.nan
