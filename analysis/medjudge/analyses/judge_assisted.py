"""Judge-assisted estimation: the true rate of a gold label from few expert labels and a judge
on every item (prediction-powered inference).

The *labelled* items are those with a gold label (however the study derives it); the others are
*unlabelled*. For each judge, dimension and target (a category's rate, the difference of two
categories' rates on the same items, or the mean of a numeric score) the result holds, side by
side:

- ``classical``: the expert-only mean of the labelled items;
- ``naive``: the judge-only mean over all items, with its bias measured on the labelled items
  (its interval ignores that bias and is shown only to make the point);
- ``ppi`` (``lam = 1``) and ``ppi++`` (power-tuned), with the effective number of expert labels;
- ``rogan-gladen``: the judge's positive rate on the unlabelled items corrected with the
  sensitivity/specificity measured on the labelled items (categorical targets);
- ``ppi++ stratified`` (with ``by=``) and per-subgroup rows;
- ``cross-fit select`` / ``cross-fit combine`` (with several judges and ``combine=``).

Validity rests on one assumption stated in every result: the labelled items are a random
sample of all items. A judge's missing or unparseable verdict is coded as that judge's mean over
its usable verdicts (a fixed rule that never looks at gold, so PPI stays unbiased) and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from medjudge.stats.ppi.crossfit import ppi_mean_crossfit
from medjudge.stats.ppi.mean import ppi_mean, ppi_proportion
from medjudge.stats.results import Presentable

from .judge_assisted_rows import (
    Sampling,
    _by_rows,
    _naive,
    _ratio,
    _rogan_gladen_row,
    _row,
    _targets,
)

__all__ = ["PPIResult", "judge_assisted_estimate", "ASSUMPTION"]

ASSUMPTION = (
    "labelled items (those with gold) are a random sample of all items; otherwise every "
    "estimate here, the classical one included, may be biased"
)
COLUMNS = [
    "dimension",
    "judge",
    "target",
    "subgroup",
    "method",
    "estimate",
    "se",
    "ci_low",
    "ci_high",
    "level",
    "ci_method",
    "lam",
    "n_labelled",
    "n_unlabelled",
    "n_clusters",
    "effective_n",
    "width_ratio",
    "bias",
    "bias_se",
]


@dataclass(frozen=True)
class PPIResult(Presentable):
    """Judge-assisted estimates beside the expert-only and judge-only ones.

    Attributes
    ----------
    rows : tidy table, one row per dimension × judge × target × subgroup × method (``COLUMNS``).
    counts : per dimension: items, labelled, unlabelled, gold method, invalid verdicts per judge.
    settings : the options used (confidence_level, cluster, by, combine, seed …).
    notes : sentences a reader needs (assumption, dropped targets and why).
    """

    rows: pd.DataFrame
    counts: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def table(
        self,
        method: str | list[str] | None = None,
        *,
        judge: str | None = None,
        dimension: str | None = None,
        subgroup: str | None = "all",
    ) -> pd.DataFrame:
        """Rows filtered by method(s), judge, dimension and subgroup (``None`` = any)."""
        t = self.rows
        if method is not None:
            t = t[t["method"].isin([method] if isinstance(method, str) else method)]
        if judge is not None:
            t = t[t["judge"] == judge]
        if dimension is not None:
            t = t[t["dimension"] == dimension]
        if subgroup is not None:
            t = t[t["subgroup"] == subgroup]
        return t.reset_index(drop=True)

    def to_frame(self) -> pd.DataFrame:
        """All rows (columns ``ci_low``, ``ci_high``, ``level`` among them)."""
        return self.rows.copy()

    def to_dict(self) -> dict[str, Any]:
        rows = self.rows.astype(object).where(self.rows.notna(), None)
        return {
            "estimates": rows.to_dict(orient="records"),
            "counts": self.counts,
            "settings": self.settings,
            "notes": list(self.notes),
        }

    def __repr__(self) -> str:
        t = self.table(["classical", "ppi++"])
        head = (
            f"PPIResult({len(self.rows)} rows; judges={sorted(set(self.rows['judge']))}, "
            f"level={self.settings.get('confidence_level')})"
        )
        if t.empty:
            return head
        lines = [head]
        for _, r in t.head(8).iterrows():
            lines.append(
                f"  {r['dimension']}/{r['target']} {r['judge']} {r['method']}: "
                f"{r['estimate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                + (f" eff.n={r['effective_n']:.0f}" if pd.notna(r["effective_n"]) else "")
            )
        if len(t) > 8:
            lines.append(f"  … {len(t) - 8} more (see .table())")
        return "\n".join(lines)


def judge_assisted_estimate(
    study: Any,
    dimension: str | list[str] | None = None,
    *,
    judges: list[str] | None = None,
    categories: list[str] | None = None,
    contrast: tuple[str, str] | None = None,
    by: str | None = None,
    cluster: str | None = "auto",
    gold: Literal["auto", "majority", "reference", "supplied"] = "auto",
    reference: str | None = None,
    combine: Literal["select", "combine"] | None = None,
    n_folds: int = 10,
    keep_labels: int | None = None,
    seed: int = 0,
    confidence_level: float = 0.95,
    interval: Literal["t", "normal"] = "t",
) -> PPIResult:
    """Judge-assisted (prediction-powered) estimates of gold-label rates, per judge.

    Parameters
    ----------
    study : a :class:`~medjudge.data.model.Study`.
    dimension : dimension(s) to estimate (default: all).
    judges : judges to use (default: all).
    categories : categories whose rate is estimated (default: all; for a two-category scale the
        first one only).
    contrast : ``(a, b)``: estimate ``P(gold = a) - P(gold = b)`` on the same items (paired),
        e.g. the win rate of answer A minus that of B.
    by : item attribute for subgroups: per-subgroup PPI++ and an overall stratified PPI++.
    cluster : item attribute identifying clusters (image, patient): cluster-robust variances.
        ``"auto"`` (default): the cluster the study declares, else image_id, case_id,
        patient_id or cluster when the items have one (:func:`~medjudge.analyses.design.resolve_clusters`);
        ``None``: independent items.
    gold, reference : how gold is derived (:meth:`Study.gold`).
    combine : with several judges, add a cross-fitted estimate that selects the best judge
        (``"select"``) or combines them (``"combine"``) out of fold.
    n_folds : number of cross-fitting folds for ``combine`` (default 10; unused without it).
    keep_labels : keep gold on a random ``keep_labels`` items only (seeded; whole clusters are
        not kept together) — to rehearse a label budget on fully labelled data.
    seed : seeds ``keep_labels`` and the cross-fitting folds.
    confidence_level : interval coverage.
    interval : ``"t"`` (default): small-sample intervals (unbiased divisors, ``n - 2`` when
        ``lam`` is tuned, CR1 per sample for clusters, Student t with Satterthwaite degrees of
        freedom) for every row, the expert-only one included, except the PPI and PPI++ rows
        of a category rate, which take the Wilson interval with continuity correction at the
        effective sample size (:func:`medjudge.stats.ppi.mean.ppi_proportion`: it holds its
        coverage with 50 labels and for rare rates); ``"normal"``: the asymptotic
        intervals of ppi-python (see :func:`medjudge.stats.ppi.mean.ppi_mean`).

    Returns
    -------
    PPIResult

    References
    ----------
    Angelopoulos et al. (2023), Science 382:669; Angelopoulos, Duchi & Zrnic (2023),
    arXiv:2311.01453; Fisch et al. (2024), NeurIPS; Zrnic & Candès (2024), PNAS 121:e2322083121;
    Rogan & Gladen (1978), Am J Epidemiol 107:71.

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.example()  # 60 simulated items, every one with expert labels
    >>> res = mj.judge_assisted_estimate(study, "overall", judges=["sim-control"],
    ...                                  keep_labels=30, seed=1)  # rehearse a 30-label budget
    >>> t = res.table(["classical", "ppi++"])
    >>> t[["target", "judge", "method", "estimate", "ci_low", "ci_high"]].round(3).to_string(index=False)
    '...A (experts only) classical 0.467 0.269 0.664...A sim-control ppi++ 0.471 0.279 0.671...'
    """
    from .._validation import CONFIDENCE_LEVEL, SEED, IntRange, check_choice, check_names
    from ._arguments import check_attribute

    # every argument checked once, one line naming it (the front door's contract)
    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    seed = SEED.check("seed", seed)
    check_choice("interval", interval, ("t", "normal"))
    check_choice("combine", combine, (None, "select", "combine"))
    check_choice("gold", gold, ("auto", "majority", "reference", "supplied"))
    if keep_labels is not None:
        keep_labels = IntRange(2, 10**9, what="number of labels kept").check(
            "keep_labels", keep_labels
        )
    if contrast is not None and (
        not isinstance(contrast, (list, tuple))
        or len(contrast) != 2
        or not all(isinstance(c, str) for c in contrast)
        or contrast[0] == contrast[1]
    ):
        raise ValueError(
            f"contrast: {contrast!r} is not allowed (two different categories, e.g. ('A', 'B'))"
        )
    if dimension is None:
        dims = list(study.dimensions)
    elif isinstance(dimension, str):
        dims = [check_choice("dimension", dimension, tuple(study.dimensions))]
    else:
        dims = check_names("dimension", dimension, study.dimensions, "a dimension or a list")
    if reference is not None:
        check_choice("reference", reference, tuple(study.raters()))
    judges = list(judges) if judges is not None else list(study.judges)
    if not judges:
        raise ValueError("the study has no judges; judge-assisted estimation needs one")
    unknown = [j for j in judges if j not in study.judges]
    if unknown:
        raise ValueError(f"judge(s) {unknown} not in the study; have {study.judges}")
    from .design import resolve_clusters

    resolved = resolve_clusters(study, cluster)  # "auto": declared, else detected
    cluster = resolved.column if resolved.labels is not None else None
    for opt, col in (("by", by), ("cluster", cluster)):
        if col is not None:
            check_attribute(study, col, opt)
    items_tab = study.items.set_index("item")
    from medjudge.analyses.judge_vs_experts import judge_order

    order = judge_order(study)
    ids = np.asarray(study.item_ids, dtype=object)
    srt = np.argsort(ids.astype(str), kind="stable")  # row order of the input does not matter
    ids = ids[srt]
    rows: list[dict] = []
    counts: dict[str, Any] = {}
    notes = [f"Assumption: {ASSUMPTION}."]
    for dim in dims:
        scale = study.scales[dim]
        g = study.gold(dim, gold, reference=reference)
        gcodes = g.codes[srt]
        kept_out = 0
        if keep_labels is not None:
            have = np.flatnonzero(np.isfinite(gcodes))
            if keep_labels >= have.size:
                raise ValueError(
                    f"keep_labels={keep_labels} must be below the {have.size} items with gold"
                )
            keep = np.random.default_rng(seed).choice(have, size=keep_labels, replace=False)
            mask = np.zeros(gcodes.size, bool)
            mask[keep] = True
            kept_out = int(have.size - keep_labels)
            gcodes = np.where(mask, gcodes, np.nan)
        lab = np.isfinite(gcodes)
        n, N = int(lab.sum()), int((~lab).sum())
        m = study.matrix(dim, raters=judges, order=order)
        pred = m.values[srt]
        cl_all = None if cluster is None else items_tab.loc[ids, cluster].astype(str).to_numpy()
        by_all = None if by is None else items_tab.loc[ids, by].astype(str).to_numpy()
        counts[dim] = {
            "items": int(ids.size),
            "labelled": n,
            "unlabelled": N,
            "gold_method": g.method,
            "gold_hidden_by_keep_labels": kept_out,
            "judge_verdicts_missing_or_invalid": {
                j: int(np.isnan(pred[:, k]).sum()) for k, j in enumerate(judges)
            },
            "n_clusters": None if cl_all is None else int(np.unique(cl_all).size),
        }
        if n < 2:
            notes.append(f"{dim}: {n} labelled item(s); at least 2 are needed — skipped.")
            continue
        if N == 0:
            notes.append(
                f"{dim}: every item has gold, so the judge cannot add information; only the "
                "classical estimate is shown (use keep_labels= to rehearse a label budget)."
            )
        cl, clu = (None, None) if cl_all is None else (cl_all[lab], cl_all[~lab])
        sampling = Sampling(cl, clu, level, interval)
        for tname, coder, kcode in _targets(scale, categories, contrast):
            y = coder(gcodes[lab])
            ce = sampling.classical(y, cl)
            rows.append(
                _row(
                    dim,
                    "(experts only)",
                    tname,
                    "all",
                    "classical",
                    ce,
                    n_unlabelled=0,
                    effective_n=float(n),
                    width_ratio=1.0,
                )
            )
            if N == 0:
                continue
            F_l, F_u = [], []
            for k, j in enumerate(judges):
                fv = coder(pred[:, k])
                fill = float(np.nanmean(fv)) if np.isfinite(fv).any() else 0.0
                fv = np.where(np.isnan(fv), fill, fv)
                f_l, f_u = fv[lab], fv[~lab]
                F_l.append(f_l)
                F_u.append(f_u)
                rows.append(_naive(dim, j, tname, "all", y, f_l, f_u, sampling))
                # a category rate (0/1 target) gets the proportion interval (Wilson with
                # continuity correction at the effective n), which holds its coverage with
                # 50 labels and for rare rates; other targets keep the t interval
                estimator = ppi_proportion if kcode is not None else ppi_mean
                for meth, lam in (("ppi", 1.0), ("ppi++", None)):
                    e = estimator(y, f_l, f_u, lam=lam, **sampling.ppi())
                    rows.append(_row(dim, j, tname, "all", meth, e, width_ratio=_ratio(e, ce)))
                if kcode is not None:
                    rows.extend(
                        _rogan_gladen_row(
                            dim,
                            j,
                            tname,
                            y,
                            pred[lab, k],
                            pred[~lab, k],
                            kcode,
                            level,
                            ce,
                            notes,
                        )
                    )
                if by_all is not None:
                    rows.extend(
                        _by_rows(
                            dim,
                            j,
                            tname,
                            y,
                            f_l,
                            f_u,
                            by_all[lab],
                            by_all[~lab],
                            sampling,
                            notes,
                            with_classical=k == 0,
                        )
                    )
            if combine is not None and len(judges) > 1:
                try:
                    e = ppi_mean_crossfit(
                        y,
                        np.column_stack(F_l),
                        np.column_stack(F_u),
                        combine=combine,
                        n_folds=n_folds,
                        seed=seed,
                        **sampling.ppi(),
                    )
                except ValueError as err:
                    notes.append(f"{dim}/{tname}: cross-fitting skipped ({err}).")
                else:
                    label = f"cross-fit {combine} ({len(judges)} judges)"
                    r = _row(
                        dim,
                        label,
                        tname,
                        "all",
                        f"cross-fit {combine}",
                        e,
                        width_ratio=_ratio(e, ce),
                    )
                    rows.append(r)
    df = pd.DataFrame(rows, columns=COLUMNS)
    settings = {
        "confidence_level": level,
        "gold": gold,
        "reference": reference,
        "judges": judges,
        "order": order,
        "by": by,
        "cluster": cluster,
        "combine": combine,
        "n_folds": n_folds,
        "keep_labels": keep_labels,
        "seed": seed,
        "missing_verdict_rule": "coded as the judge's mean over its usable verdicts",
        "interval": (
            "small-sample t (Satterthwaite df); PPI rows of a category rate: Wilson with "
            "continuity correction at the effective n"
            if interval == "t"
            else "normal (ppi-python)"
        )
        + "; cluster-robust when cluster is given",
    }
    return PPIResult(df, counts, settings, notes)
