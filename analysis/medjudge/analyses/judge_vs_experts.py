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
) -> list[AltTestResult]:
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
    list of AltTestResult
        One per judge (``winning_rate``, ``passed``, ``n_items``, ``epsilon`` and the table of
        per-annotator tests).

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
    from ..stats.judge_vs_experts import check_alt_arguments
    from ._arguments import check_dimensions

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
    scoring: Scoring = "accuracy" if scale.level == "nominal" else "neg_rmse"
    if scale.is_categorical and scale.level == "ordinal":
        vals = scale.numeric_values()
        ex_v = np.where(np.isnan(ex.values), np.nan, vals[np.nan_to_num(ex.values).astype(int)])
        j_v = np.where(np.isnan(jm.values), np.nan, vals[np.nan_to_num(jm.values).astype(int)])
    else:
        ex_v, j_v = ex.values, jm.values
    return [
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
    ]


def judge_expert_agreement(
    study: Any,
    dimension: str,
    *,
    judges: list[str] | None = None,
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    clusters: Any = None,
) -> pd.DataFrame:
    """Judge vs expert agreement against the experts' agreement with each other (leave-one-out).

    One row per judge x left-out expert ``e``: ``kappa_judge_e`` (Cohen's kappa with ``e``,
    analytic FCE interval), ``kappa_judge_others`` and ``kappa_expert_others`` (mean Cohen's
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
        raise ValueError(f"kappa needs a categorical scale; {dimension!r} is {scale.level}")
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
    for jj, judge in enumerate(jm.raters):
        for e, expert in enumerate(ex.raters):
            others = np.delete(E, e, axis=1)
            k1 = cohen_kappa(
                np.c_[J[:, jj], E[:, e]], categories=cats, confidence_level=confidence_level
            )
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
    return pd.DataFrame(rows)
