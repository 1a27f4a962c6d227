"""judge_vs_experts: study-level part (moved from medjudge.stats.judge_vs_experts)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from medjudge.stats.agreement import cohen_kappa, paired_difference
from medjudge.stats.agreement.two_raters import cohen_kappa_columns
from medjudge.stats.judge_vs_experts import (
    ANNOTATOR_EPSILON,
    AltTestResult,
    InvalidPolicy,
    Scoring,
    alt_test,
)
from medjudge.stats.resampling import Bootstrap, ResamplePlan, as_bootstrap

from .._validation import CONFIDENCE_LEVEL
from ..stats.judge_vs_experts import (
    STAND_IN_MARGIN,
    alt_epsilon_in_accuracy,
    check_alt_arguments,
    non_inferiority,
)
from ._arguments import check_dimensions
from .expert_results import AltTests, ExpertAgreement, StandIn


# ---------------------------------------------------------------------------------------------
# study-level wrappers
# ---------------------------------------------------------------------------------------------
def judge_order(study: Any) -> str | None:
    """The presentation order used for judges: ``AB`` when a judge has several orders."""
    orders = study.judge_orders()
    if len(orders) > 1:
        return "AB" if "AB" in orders else orders[0]
    return None


def judge_and_expert_matrices(
    study: Any, dimension: str, judges: list[str] | None = None
) -> tuple[Any, Any]:
    """``(experts, judges)`` rating matrices on the same items (judges in one presentation order)."""
    experts = study.matrix(dimension, role="expert")
    judges = judges if judges is not None else study.judges
    jm = study.matrix(dimension, raters=judges, order=judge_order(study))
    return experts, jm


def study_alt_test(
    study: Any,
    dimension: str,
    *,
    judges: list[str] | None = None,
    epsilon: float = ANNOTATOR_EPSILON["expert"],
    q: float = 0.05,
    policy: InvalidPolicy = "exclude",
    min_items_per_annotator: int = 30,
) -> AltTests:
    """The alt-test of every judge against the study's experts on one dimension.

    For each judge, :func:`medjudge.stats.judge_vs_experts.alt_test` with the study's experts as
    the annotators: the judge "passes" when its winning rate over the leave-one-annotator-out
    comparisons is at least 0.5 after the Benjamini–Yekutieli procedure at ``q``.

    Parameters
    ----------
    study : Study
        Judges and at least three experts who are persons (not exchangeable slots).
    dimension : str
        The dimension tested.
    judges : list of str, optional
        Judges to test (default: all).
    epsilon : float
        The cost-benefit margin ε of the test (default: the experts' value).
    q : float, default 0.05
        The false discovery rate of the Benjamini–Yekutieli procedure over the annotators.
    policy : {"exclude", "wrong"}, default "exclude"
        An item without a usable judge verdict is left out, or counts as a loss.
    min_items_per_annotator : int, default 30
        Annotators with fewer items shared with the judge are left out of the test.

    Returns
    -------
    AltTests
        A list of :class:`~medjudge.stats.judge_vs_experts.AltTestResult`, one per judge
        (``winning_rate``, ``passed``, ``n_items``, ``epsilon`` and the table of per-annotator
        tests), with the result contract: ``table("judges")``, ``table("annotators")``.

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The alternative annotator test for LLM-as-a-
    judge: how to statistically justify replacing human annotators with LLMs. ACL.
    Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in multiple
    testing under dependency. Annals of Statistics 29:1165-1188.

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, 12 judges, 3 experts
    >>> res = mj.study_alt_test(study, 'overall', min_items_per_annotator=20)
    >>> len(res) == len(study.judges)
    True
    """

    check_alt_arguments(epsilon, q, policy, min_items_per_annotator)
    check_dimensions(study, [dimension], "dimension")
    if hasattr(study, "require_persons"):
        study.require_persons("expert", "the alternative-annotator test (one test per annotator)")
    scale = study.scales[dimension]
    ex, jm = judge_and_expert_matrices(study, dimension, judges)
    if len(ex.raters) < 2:
        raise ValueError(
            f"the alt-test needs at least 2 experts; {dimension!r} has {len(ex.raters)}"
        )
    scoring: Scoring = "accuracy" if scale.kind == "nominal" else "neg_rmse"
    if scale.is_categorical and scale.kind == "ordinal":
        vals = scale.numeric_values()
        ex_v = np.where(np.isnan(ex.values), np.nan, vals[np.nan_to_num(ex.values).astype(int)])
        j_v = np.where(np.isnan(jm.values), np.nan, vals[np.nan_to_num(jm.values).astype(int)])
    else:
        ex_v, j_v = ex.values, jm.values
    return AltTests(
        [
            alt_test(
                j_v[:, k],
                ex_v,
                annotator_names=ex.raters,
                judge_name=name,
                epsilon=epsilon,
                q=q,
                scoring=scoring,
                policy=policy,
                min_items_per_annotator=min_items_per_annotator,
            )
            for k, name in enumerate(jm.raters)
        ],
        dimension,
    )


def judge_expert_agreement(
    study: Any,
    dimension: str,
    *,
    judges: list[str] | None = None,
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    clusters: Any = None,
) -> ExpertAgreement:
    """Judge vs expert agreement against the experts' agreement with each other (leave-one-out).

    One row per judge x left-out expert ``e``: ``kappa_judge_e`` (Cohen's kappa with ``e``,
    analytic FCE interval, or the cluster jackknife with ``clusters``), ``kappa_judge_others`` and ``kappa_expert_others`` (mean Cohen's
    kappa with the other experts), and their difference ``judge_minus_expert`` with a paired
    bootstrap interval (item resamples drawn as ``bootstrap`` says; the same resamples for every
    row; whole clusters when ``clusters`` gives one label per item in the order of
    ``study.matrix(dimension)``). A negative difference whose interval excludes 0 means the judge
    agrees with the other experts less than expert ``e`` does. Each row carries ``n`` (items
    the judge and ``e`` both rated), ``ci_method`` and ``level``.
    """
    boot = Bootstrap() if bootstrap is None else as_bootstrap(bootstrap)
    n_resamples, seed = boot.n_resamples, boot.seed
    method = boot.interval("bca")
    if hasattr(study, "require_persons"):
        study.require_persons("expert", "leave-one-expert-out agreement")
    scale = study.scales[dimension]
    if not scale.is_categorical:
        raise ValueError(f"kappa needs a categorical scale; {dimension!r} is {scale.kind}")
    ex, jm = judge_and_expert_matrices(study, dimension, judges)
    cats = np.arange(len(scale.categories), dtype=float)
    n = ex.values.shape[0]
    plan = ResamplePlan(
        n_items=n, n_resamples=n_resamples, seed=seed,
        clusters=None if clusters is None else np.asarray(clusters),
    )  # fmt: skip
    E, J = ex.values, jm.values

    def mean_kappa(col: np.ndarray, others: np.ndarray):
        def stat(W: np.ndarray) -> np.ndarray:
            return np.mean(cohen_kappa_columns(col, others, W, categories=cats), axis=0)

        return stat

    def remembered(stat):  # noqa: ANN001, ANN202
        # an expert's replicates do not depend on the judge: computed once per weight matrix
        # (the plan's cached weights and jackknife are the same objects for every judge)
        seen: dict[int, tuple[np.ndarray, np.ndarray]] = {}

        def f(W: np.ndarray) -> np.ndarray:
            hit = seen.get(id(W))
            if hit is None or hit[0] is not W:
                hit = seen[id(W)] = (W, stat(W))
            return hit[1]

        return f

    expert_stat = {
        e: remembered(mean_kappa(E[:, e], np.delete(E, e, axis=1))) for e in range(E.shape[1])
    }

    rows = []
    kappa_method = ""
    for jj, judge in enumerate(jm.raters):
        for e, expert in enumerate(ex.raters):
            others = np.delete(E, e, axis=1)
            k1 = cohen_kappa(
                np.c_[J[:, jj], E[:, e]], categories=cats, confidence_level=confidence_level,
                clusters=None if clusters is None else np.asarray(clusters),
            )  # fmt: skip
            kappa_method = kappa_method or str(k1.ci_method)
            row: dict[str, Any] = {
                "judge": judge,
                "expert": expert,
                "n": k1.n,
                "kappa_judge_expert": k1.estimate,
                "kappa_judge_expert_low": k1.ci_low,
                "kappa_judge_expert_high": k1.ci_high,
            }
            if others.shape[1]:
                d = paired_difference(
                    mean_kappa(J[:, jj], others),
                    expert_stat[e],
                    n,
                    plan=plan,
                    confidence_level=confidence_level,
                    method=method,
                    name="judge_minus_expert",
                )
                row.update(
                    kappa_judge_others=d.extra["estimate_a"],
                    kappa_expert_others=d.extra["estimate_b"],
                    judge_minus_expert=d.estimate,
                    diff_low=d.ci_low,
                    diff_high=d.ci_high,
                    p_two_sided=d.extra["p_two_sided"],
                    ci_method=d.ci_method,
                    level=d.level,
                    n_items=n,
                )
            rows.append(row)
    return ExpertAgreement(pd.DataFrame(rows), dimension, confidence_level, kappa_method)


def study_stand_in(
    study: Any,
    dimension: str,
    *,
    judges: list[str] | None = None,
    margin: float | None = None,
    clusters: Any = None,
    confidence_level: float = 0.95,
    alt: list[AltTestResult] | None = None,
    agreement: pd.DataFrame | None = None,
) -> StandIn:
    """Can each judge stand in for an expert? The decision, per judge, with its evidence.

    The decision is the non-inferiority test of
    :func:`medjudge.stats.judge_vs_experts.non_inferiority`: for every left-out expert, the
    judge's accuracy minus the expert's against the other experts' majority, with a
    cluster-robust interval; non-inferior when every lower limit lies above ``-margin``
    (default 5 accuracy points). A judge is a **candidate stand-in** only when that decision
    holds *and* no leave-one-expert-out κ difference (``agreement``, from
    :func:`judge_expert_agreement`; when given) has an interval entirely below 0. The alt-test
    (``alt``, from :func:`study_alt_test`; when given) is a second view: its margin ε is
    translated into the lowest judge accuracy that would pass on these experts
    (:func:`medjudge.stats.judge_vs_experts.alt_epsilon_in_accuracy`), and it is listed among
    the disagreeing views when its verdict differs from the decision.

    Parameters
    ----------
    study : Study
        Judges and at least three experts who are persons.
    dimension : str
        A categorical dimension.
    judges : list of str, optional
        Default: all.
    margin : float, optional
        Clinical margin in accuracy points (proportion scale); default
        :data:`~medjudge.stats.judge_vs_experts.STAND_IN_MARGIN` (0.05).
    clusters : array_like, optional
        One label per item in the row order of ``study.matrix(dimension)``.
    confidence_level : float, default 0.95
    alt, agreement : optional
        The alt-test results and the κ comparison of the same dimension.

    Returns
    -------
    DataFrame
        One row per judge: ``dimension, judge, decision`` ("candidate stand-in" or "not a
        stand-in"), ``candidate``, ``non_inferior``, ``margin``, the weakest left-out
        comparison (``expert, difference, ci_low, ci_high``, ``level``, ``ci_method``, ``n``,
        ``n_clusters``), ``kappa_below`` (left-out experts whose κ interval lies below 0),
        ``alt_passed``, ``alt_epsilon``, ``alt_epsilon_accuracy``, ``reasons`` (the views
        that block a stand-in), ``disagreeing_views`` (the views whose verdict differs from the
        decision) and ``per_expert`` (every left-out comparison).

    References
    ----------
    Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling.
    Technometrics 24:295-300 (the intersection-union test over left-out experts).
    Wellek, S. (2010). Testing Statistical Hypotheses of Equivalence and Noninferiority, 2nd
    ed. CRC (non-inferiority with a margin).
    Calderon, N., Reichart, R. & Dror, R. (2025). The alternative annotator test for
    LLM-as-a-judge. ACL (the second view).

    Examples
    --------
    >>> import medjudge as mj
    >>> st = mj.datasets.example()
    >>> t = mj.study_stand_in(st, "overall")
    >>> set(t["decision"]) <= {"candidate stand-in", "not a stand-in"}
    True
    """

    margin = STAND_IN_MARGIN if margin is None else margin
    confidence_level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    if isinstance(agreement, ExpertAgreement):
        agreement = agreement.frame
    ex, jm = _stand_in_inputs(study, dimension, judges, alt, agreement)
    cl = None if clusters is None else np.asarray(clusters)
    alt_by = {r.judge: r for r in (alt or [])}
    eps_acc = (
        alt_epsilon_in_accuracy(ex.values, next(iter(alt_by.values())).epsilon)
        if alt_by
        else float("nan")
    )
    rows = []
    for k, judge in enumerate(jm.raters):
        t = non_inferiority(
            jm.values[:, k], ex.values, expert_names=list(ex.raters), clusters=cl,
            margin=margin, confidence_level=confidence_level,
        )  # fmt: skip
        below: list[str] = []
        if agreement is not None and len(agreement):
            a = agreement[agreement["judge"] == judge]
            below = [str(e) for e, h in zip(a["expert"], a["diff_high"], strict=True) if h < 0]
        rows.append(
            _stand_in_row(
                dimension, judge, t, below, alt_by.get(judge), eps_acc, margin, confidence_level
            )
        )
    return StandIn(pd.DataFrame(rows), confidence_level)


def _stand_in_inputs(
    study: Any,
    dimension: str,
    judges: list[str] | None,
    alt: list[AltTestResult] | None,
    agreement: pd.DataFrame | None,
) -> tuple[Any, Any]:
    """Check what the stand-in decision needs (a categorical dimension, at least three experts
    who are persons, the views in the shapes their functions return) and return the
    ``(experts, judges)`` matrices on the same items."""

    check_dimensions(study, [dimension], "dimension")
    if alt is not None and not (
        isinstance(alt, list | AltTests) and all(isinstance(r, AltTestResult) for r in alt)
    ):
        raise ValueError(f"alt: {alt!r} is not allowed (the list study_alt_test returns, or None)")
    if agreement is not None and not isinstance(agreement, pd.DataFrame):
        raise ValueError(
            f"agreement: {agreement!r} is not allowed (the table judge_expert_agreement "
            "returns, or None)"
        )
    if hasattr(study, "require_persons"):
        study.require_persons("expert", "the stand-in decision (one comparison per expert)")
    if not study.scales[dimension].is_categorical:
        raise ValueError(
            f"the stand-in decision compares accuracies; {dimension!r} is not categorical"
        )
    ex, jm = judge_and_expert_matrices(study, dimension, judges)
    if len(ex.raters) < 3:
        raise ValueError(
            f"the stand-in decision needs at least 3 experts (a left-out expert and a majority "
            f"of two others); {dimension!r} has {len(ex.raters)}"
        )
    return ex, jm


def _stand_in_views(
    t: pd.DataFrame, below: list[str], r: AltTestResult | None, margin: float, eps_acc: float
) -> tuple[bool, list[str], list[str]]:
    """``(candidate, against, disagreeing)``: the decision (non-inferior to every left-out
    expert and no κ interval below 0), the views against a stand-in, and the views whose
    verdict differs from the decision."""
    ni = bool(t.attrs["non_inferior"])
    candidate = ni and not below
    against = [
        f"not non-inferior to {e} (lower limit {lo:.3f} <= -{margin:g})"
        for e, lo, ok in zip(t["expert"], t["ci_low"], t["non_inferior"], strict=True)
        if not ok
    ]
    against += [f"κ with the other experts below {e}'s (interval below 0)" for e in below]
    if r is not None and not r.passed:
        against.append(f"alt-test does not pass (ε = {r.epsilon:g})")
    if candidate:
        return candidate, against, against
    views = [
        f"non-inferior to {e} (lower limit {lo:.3f} > -{margin:g})"
        for e, lo, ok in zip(t["expert"], t["ci_low"], t["non_inferior"], strict=True)
        if ok
    ]
    if r is not None and r.passed:
        views.append(
            f"alt-test passes (ε = {r.epsilon:g}: a judge of accuracy {eps_acc:.2f} "
            "would pass here)"
        )
    return candidate, against, views


def _stand_in_row(
    dimension: str,
    judge: str,
    t: pd.DataFrame,
    below: list[str],
    r: AltTestResult | None,
    eps_acc: float,
    margin: float,
    level: float,
) -> dict[str, Any]:
    """One judge's row of :func:`study_stand_in` from its non-inferiority table ``t`` (one row
    per left-out expert; the weakest comparison is reported), the κ view and the alt-test."""
    candidate, against, views = _stand_in_views(t, below, r, margin, eps_acc)
    worst = t.loc[t["ci_low"].fillna(-np.inf).idxmin()] if len(t) else None
    return {
        "dimension": dimension,
        "judge": judge,
        "decision": "candidate stand-in" if candidate else "not a stand-in",
        "candidate": candidate,
        "non_inferior": bool(t.attrs["non_inferior"]),
        "margin": margin,
        "expert": None if worst is None else worst["expert"],
        "difference": np.nan if worst is None else float(worst["difference"]),
        "ci_low": np.nan if worst is None else float(worst["ci_low"]),
        "ci_high": np.nan if worst is None else float(worst["ci_high"]),
        "level": level,
        "ci_method": t.attrs["method"],
        "n": 0 if worst is None else int(worst["n"]),
        "n_clusters": 0 if worst is None else int(worst["n_clusters"]),
        "kappa_below": below,
        "alt_passed": None if r is None else bool(r.passed),
        "alt_epsilon": None if r is None else float(r.epsilon),
        "alt_epsilon_accuracy": eps_acc,
        "reasons": against if not candidate else [],
        "disagreeing_views": views,
        "per_expert": t.to_dict(orient="records"),
    }
