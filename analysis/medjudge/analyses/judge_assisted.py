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

import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from medjudge.stats.ppi.crossfit import ppi_mean_crossfit
from medjudge.stats.ppi.mean import ppi_mean, ppi_proportion

from .._validation import CONFIDENCE_LEVEL, SEED, IntRange, check_choice, check_names
from ._arguments import check_attribute
from ._result import Quantity, Result, frame_text, long_table
from .design import resolve_clusters
from .judge_assisted_rows import (
    Sampling,
    _by_rows,
    _naive,
    _ratio,
    _rogan_gladen_row,
    _row,
    _targets,
)
from .judge_vs_experts import judge_order

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


@dataclass(frozen=True, repr=False, eq=False)
class PPIResult(Result):
    """Judge-assisted estimates beside the expert-only and judge-only ones.

    Attributes
    ----------
    rows : wide table, one row per dimension × judge × target × subgroup × method (``COLUMNS``).
    counts : per dimension: items, labelled, unlabelled, gold method, invalid verdicts per judge.
    settings : the options used (confidence_level, cluster, by, combine, seed …).
    notes : sentences a reader needs (assumption, dropped targets and why).

    Table ``estimates`` (the result contract): one tidy row per row of ``rows``; the estimand
    is the gold rate (or mean, or difference) of the target, ``method`` names the estimator and
    ``n`` counts the labelled items. Plot ``forest``: :func:`medjudge.plots.forest_plot` of the
    estimates of one dimension and target, one row per judge and method, one panel per target.
    """

    TABLES = ("estimates",)
    PLOTS = {"forest": ("forest_plot", "estimates", {"row": "label", "panel": "target",
                                                     "xlabel": "estimate"})}  # fmt: skip

    rows: pd.DataFrame
    counts: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def estimates(
        self,
        method: str | list[str] | None = None,
        *,
        judge: str | None = None,
        dimension: str | None = None,
        subgroup: str | None = "all",
    ) -> pd.DataFrame:
        """Rows of the wide table filtered by method(s), judge, dimension and subgroup
        (``None`` = any; what ``table(method, ...)`` returned before the result contract)."""
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

    def table(self, name: Any = None, **where: Any) -> pd.DataFrame:
        """The tidy table (``name`` ``"estimates"``, the only one; ``where`` as in
        :meth:`Result.table`). A method name or list as ``name`` (the former signature) gives
        :meth:`estimates` with a DeprecationWarning."""
        if name is None or name in self.TABLES or where.keys() - {"judge", "dimension", "subgroup"}:
            return super().table(name, **where)
        if not isinstance(name, list | tuple) and name not in set(self.rows["method"]):
            return super().table(name, **where)  # refused in one line naming the tables
        warnings.warn(
            "PPIResult.table(method, ...) is deprecated: use .estimates(method, ...) for the "
            "wide rows or .table('estimates', method=...) for the tidy table",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.estimates(name, **where)

    def _table(self, name: str) -> pd.DataFrame:
        f = self.rows
        if len(f):
            f = f.assign(
                estimand=[_estimand(t) for t in f["target"]],
                n_clusters=pd.to_numeric(f["n_clusters"], errors="coerce"),
                n_unit="labelled items",
                label=[j if m == "classical" else f"{j}: {m}"
                       for j, m in zip(f["judge"], f["method"], strict=True)],
            )  # fmt: skip
        q = Quantity("estimand", "estimate", n="n_labelled", estimand_column=True)
        extra = ["label", "se", "lam", "n_unlabelled", "n_clusters", "effective_n",
                 "width_ratio", "bias", "bias_se"]  # fmt: skip
        return long_table(
            f, ["dimension", "judge", "target", "subgroup", "method"], [q],
            confidence_level=float(self.settings.get("confidence_level", 0.95)),
            warning="" if not len(f) else lambda t: np.where(
                t["method"].eq("naive"), "biased: the interval ignores the judge's bias", ""),
            extra=extra if len(f) else (),
        )  # fmt: skip

    def findings(self) -> list[str]:
        pp = self.estimates("ppi++")
        out = [f"Assumption: {ASSUMPTION}."]
        if len(pp):
            b = pp.loc[pp["effective_n"].idxmax()]
            out.append(
                f"With {b['judge']}'s verdicts, the {int(b['n_labelled'])} labelled items of "
                f"{b['dimension']} are worth {b['effective_n']:.0f} expert labels (PPI++ "
                f"{_estimand(b['target'])}: {b['estimate']:.3f}, {100 * b['level']:g}% interval "
                f"{b['ci_low']:.3f} to {b['ci_high']:.3f}, {b['ci_method']})."
            )
        return out + [n for n in self.notes if not n.startswith("Assumption")]

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
        return (
            f"PPIResult({len(self.rows)} rows; {len(self.settings.get('judges', ()))} judges, "
            f"level={self.settings.get('confidence_level')})"
        )

    def summary(self, *, width: int = 100) -> str:
        """The one-line ``repr``; per dimension the labelled and unlabelled items and the
        missing judge verdicts; the level, interval method, unit of ``n`` and the warnings; the
        overall rows (:data:`TEXT_COLUMNS`) and, with ``by``, the per-subgroup rows; then the
        findings (the assumption and the notes)."""

        def comment(line: str) -> str:
            return textwrap.fill(f"# {line}", width, subsequent_indent="#   ",
                                 break_on_hyphens=False, break_long_words=False)  # fmt: skip

        lines = [repr(self)]
        for dim, c in self.counts.items():
            missing = c["judge_verdicts_missing_or_invalid"]
            lines.append(comment(
                f"{dim}: {c['labelled']} labelled (gold: {c['gold_method']}), "
                f"{c['unlabelled']} unlabelled items; missing/invalid judge verdicts: "
                + (", ".join(f"{k} {v}" for k, v in missing.items()) or "none")
            ))  # fmt: skip
        st = self.settings
        level = st.get("confidence_level", 0.95)
        lines.append(comment(
            f"{100 * level:g}% intervals: {st.get('interval')}; n_labelled counts labelled "
            f"items (clusters: {st.get('cluster') or 'none, items independent'}); a missing "
            f"judge verdict is {st.get('missing_verdict_rule')}"
        ))  # fmt: skip
        t = self.table()
        for (method, warn), _ in t[t["warning"] != ""].groupby(["method", "warning"]):
            lines.append(comment(f"warning ({method} rows): {warn}"))
        with pd.option_context("display.float_format", "{:.3f}".format):
            lines.append(frame_text(self.estimates()[TEXT_COLUMNS], 200, width=width,
                                    index=False))  # fmt: skip
            sub = self.estimates(subgroup=None)
            sub = sub[sub["subgroup"] != "all"]
            if len(sub):
                lines.append(f"\n# per {st.get('by')}")
                lines.append(frame_text(sub[["subgroup", *TEXT_COLUMNS]], 200, width=width,
                                        index=False))  # fmt: skip
        return "\n".join(lines + [comment(f) for f in self.findings()])


#: the columns :meth:`PPIResult.summary` shows (``--json``: all of them)
TEXT_COLUMNS = ["dimension", "judge", "target", "method", "estimate", "ci_low", "ci_high", "lam",
                "n_labelled", "n_unlabelled", "effective_n", "width_ratio", "bias"]  # fmt: skip


def _estimand(target: str) -> str:
    """The estimand of a target in words: a category's gold rate, a difference, a mean."""
    if target == "mean":
        return "mean gold score"
    if " - " in target:
        a, b = target.split(" - ", 1)
        return f"rate of gold = {a} minus rate of gold = {b}"
    return f"rate of gold = {target}"


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
    >>> t = res.estimates(["classical", "ppi++"])
    >>> t[["target", "judge", "method", "estimate", "ci_low", "ci_high"]].round(3).to_string(index=False)
    '...A (experts only) classical 0.467 0.269 0.664...A sim-control ppi++ 0.471 0.279 0.671...'
    """
    level, seed, dims, judges, keep_labels = _check_arguments(
        study, dimension, judges, contrast, gold, reference, combine, keep_labels, seed,
        confidence_level, interval,
    )  # fmt: skip

    resolved = resolve_clusters(study, cluster)  # "auto": declared, else detected
    cluster = resolved.column if resolved.labels is not None else None
    for opt, col in (("by", by), ("cluster", cluster)):
        if col is not None:
            check_attribute(study, col, opt)
    items_tab = study.items.set_index("item")
    order = judge_order(study)
    ids = np.asarray(study.item_ids, dtype=object)
    srt = np.argsort(ids.astype(str), kind="stable")  # row order of the input does not matter
    ids = ids[srt]
    cl_all = None if cluster is None else items_tab.loc[ids, cluster].astype(str).to_numpy()
    by_all = None if by is None else items_tab.loc[ids, by].astype(str).to_numpy()
    rows: list[dict] = []
    counts: dict[str, Any] = {}
    notes = [f"Assumption: {ASSUMPTION}."]
    for dim in dims:
        g = study.gold(dim, gold, reference=reference)
        gcodes, kept_out = _kept_gold(g.codes[srt], keep_labels, seed)
        lab = np.isfinite(gcodes)
        n, N = int(lab.sum()), int((~lab).sum())
        pred = study.matrix(dim, raters=judges, order=order).values[srt]
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
        cl = None if cl_all is None else cl_all[lab]
        sampling = Sampling(cl, None if cl_all is None else cl_all[~lab], level, interval)
        split = None if by_all is None else (by_all[lab], by_all[~lab])
        for target in _targets(study.scales[dim], categories, contrast):
            rows += _target_rows(
                dim, target, gcodes, pred, judges, sampling, split, notes,
                combine=combine, n_folds=n_folds, seed=seed,
            )  # fmt: skip
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
    return PPIResult(pd.DataFrame(rows, columns=COLUMNS), counts, settings, notes)


def _check_arguments(
    study: Any,
    dimension: Any,
    judges: Any,
    contrast: Any,
    gold: str,
    reference: Any,
    combine: Any,
    keep_labels: Any,
    seed: Any,
    confidence_level: Any,
    interval: str,
) -> tuple[float, int, list[str], list[str], int | None]:
    """Every argument checked once, one line naming it (the front door's contract); returns
    ``(level, seed, dimensions, judges, keep_labels)``."""

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
    return level, seed, dims, judges, keep_labels


def _kept_gold(gcodes: np.ndarray, keep_labels: int | None, seed: int) -> tuple[np.ndarray, int]:
    """Gold codes with all but a seeded random ``keep_labels`` of them hidden (NaN), to rehearse
    a label budget, and the number hidden (``gcodes`` unchanged without ``keep_labels``)."""
    if keep_labels is None:
        return gcodes, 0
    have = np.flatnonzero(np.isfinite(gcodes))
    if keep_labels >= have.size:
        raise ValueError(f"keep_labels={keep_labels} must be below the {have.size} items with gold")
    keep = np.random.default_rng(seed).choice(have, size=keep_labels, replace=False)
    mask = np.zeros(gcodes.size, bool)
    mask[keep] = True
    return np.where(mask, gcodes, np.nan), int(have.size - keep_labels)


def _target_rows(
    dim: str,
    target: tuple[str, Any, int | None],
    gcodes: np.ndarray,
    pred: np.ndarray,
    judges: list[str],
    sampling: Sampling,
    split: tuple[np.ndarray, np.ndarray] | None,
    notes: list[str],
    *,
    combine: str | None,
    n_folds: int,
    seed: int,
) -> list[dict]:
    """The rows of one target: the expert-only estimate, then per judge the judge-only, PPI,
    PPI++, Rogan–Gladen and per-subgroup rows, then the cross-fitted one (``split``: the
    subgroup of the labelled and of the unlabelled items)."""
    tname, coder, kcode = target
    lab = np.isfinite(gcodes)
    y = coder(gcodes[lab])
    ce = sampling.classical(y, sampling.clusters)
    rows = [
        _row(dim, "(experts only)", tname, "all", "classical", ce, n_unlabelled=0,
             effective_n=float(lab.sum()), width_ratio=1.0)
    ]  # fmt: skip
    if lab.all():
        return rows
    F_l, F_u = [], []
    for k, j in enumerate(judges):
        fv = coder(pred[:, k])
        fill = float(np.nanmean(fv)) if np.isfinite(fv).any() else 0.0
        fv = np.where(np.isnan(fv), fill, fv)
        f_l, f_u = fv[lab], fv[~lab]
        F_l.append(f_l)
        F_u.append(f_u)
        rows.append(_naive(dim, j, tname, "all", y, f_l, f_u, sampling))
        # a category rate (0/1 target) gets the proportion interval (Wilson with continuity
        # correction at the effective n), which holds its coverage with 50 labels and for rare
        # rates; other targets keep the t interval
        estimator = ppi_proportion if kcode is not None else ppi_mean
        for meth, lam in (("ppi", 1.0), ("ppi++", None)):
            e = estimator(y, f_l, f_u, lam=lam, **sampling.ppi())
            rows.append(_row(dim, j, tname, "all", meth, e, width_ratio=_ratio(e, ce)))
        if kcode is not None:
            rows.extend(
                _rogan_gladen_row(dim, j, tname, y, pred[lab, k], pred[~lab, k], kcode,
                                  sampling.confidence_level, ce, notes)
            )  # fmt: skip
        if split is not None:
            rows.extend(
                _by_rows(dim, j, tname, y, f_l, f_u, split[0], split[1], sampling, notes,
                         with_classical=k == 0)
            )  # fmt: skip
    if combine is not None and len(judges) > 1:
        try:
            e = ppi_mean_crossfit(
                y, np.column_stack(F_l), np.column_stack(F_u), combine=combine,
                n_folds=n_folds, seed=seed, **sampling.ppi(),
            )  # fmt: skip
        except ValueError as err:
            notes.append(f"{dim}/{tname}: cross-fitting skipped ({err}).")
        else:
            label = f"cross-fit {combine} ({len(judges)} judges)"
            rows.append(
                _row(dim, label, tname, "all", f"cross-fit {combine}", e, width_ratio=_ratio(e, ce))
            )
    return rows
