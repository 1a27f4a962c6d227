"""Turn the library's result objects into the tidy frames the report figures and tables show.

The report templates (``reports/judges.qmd``, ``reports/audit.qmd``) call exactly two functions,
:func:`judges_report` and :func:`audit_report`, and then only *display* what they return: every
number in a report is computed here by the library's estimators (:mod:`medjudge.analyses.evaluation`,
:mod:`medjudge.stats`), never in a template. The small ``*_frame`` helpers reshape result tables
(rename, pivot, select a dimension) for :mod:`medjudge.report.figures` and for display with
:func:`medjudge.report.tables.html_table`; they compute nothing beyond two documented reference
lines of the forest plot (:func:`baseline_by_dimension`, :func:`ceiling_by_dimension`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..analyses.audit import audit_study
from ..analyses.bias import dimension_structure, length_bias
from ..analyses.evaluation import evaluate_judges
from ..analyses.heterogeneity import heterogeneity_table
from ..analyses.judge_vs_experts import judge_expert_agreement, study_alt_test
from ..analyses.position import position_bias
from ..analyses.subgroups import stack_outcomes, subgroup_accuracy
from ..data.model import Study
from ..stats.judge_vs_experts import alt_test_table
from .provenance import collect_provenance, provenance_frame, sha256_file
from .style import PAGE_WIDTH_IN
from .tables import fmt_ci, fmt_estimate_ci, fmt_int, fmt_num, fmt_p

__all__ = [
    "POLICY_LABELS",
    "headline_dimension",
    "study_provenance",
    "summary_frame",
    "parse_status_frame",
    "parse_status_table",
    "not_ok_reasons_frame",
    "gold_frame",
    "leaderboard_table",
    "accuracy_grid",
    "forest_frame",
    "baseline_by_dimension",
    "ceiling_by_dimension",
    "rank_frame",
    "pairs_frame",
    "pairs_table",
    "sensitivity_table",
    "subgroup_frame",
    "heterogeneity_display",
    "position_frame",
    "position_table",
    "a_rate_table",
    "length_gap_frame",
    "length_bias_table",
    "dimension_structure_table",
    "provenance_tables",
    "fit_reference_lines",
    "at_page_width",
    "compact_pairwise",
    "legend_above",
    "JudgesReport",
    "judges_report",
    "reliability_frame",
    "annotator_table",
    "pairwise_agreement_frame",
    "pairwise_agreement_table",
    "category_table",
    "subgroup_reliability_table",
    "disputed_table",
    "dawid_skene_table",
    "dawid_skene_fit_table",
    "judge_agreement_frame",
    "judge_agreement_table",
    "alt_test_display",
    "reliability_table",
    "AuditReportData",
    "audit_report",
]

#: Note shown where an analysis module is not part of the installed version.

POLICY_LABELS = {
    "wrong": "count as wrong (Med-RewardBench rule)",
    "exclude": "exclude from the denominator",
    "half": "count as half correct",
}

#: Item attributes used for subgroup breakdowns, in order of preference.
SUBGROUP_ATTRIBUTES = ("organ_system", "department", "modality_type", "subset")


def headline_dimension(study: Study) -> str:
    """The dimension shown in single-dimension tables: ``overall`` if present, else the first."""
    return "overall" if "overall" in study.dimensions else study.dimensions[0]


def subgroup_attribute(study: Study) -> str | None:
    """First item attribute from :data:`SUBGROUP_ATTRIBUTES` with 2+ distinct values, if any."""
    for col in SUBGROUP_ATTRIBUTES:
        if col in study.items.columns and study.items[col].nunique(dropna=True) > 1:
            return col
    return None


# ---------------------------------------------------------------------------- provenance
def _display_names(paths: Sequence[Path], root: Path | None) -> list[str]:
    """Paths relative to ``root``'s parent (``demo/predictions/x.jsonl``), else as given."""
    base = root.resolve().parent if root is not None else None
    names = []
    for p in paths:
        try:
            names.append(Path(p).resolve().relative_to(base).as_posix())  # type: ignore[arg-type]
        except (ValueError, TypeError):
            names.append(Path(p).as_posix())
    return names


def study_provenance(
    study: Study,
    data: str | Path | None,
    *,
    seed: int | None,
    resamples: int | None,
    policies: Mapping[str, Any],
    mapping: str | Path | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """:func:`~medjudge.report.provenance.collect_provenance` with the files the study read.

    Inputs are ``study.sources`` (plus the mapping file), hashed one by one and named relative
    to the bundle's parent directory (``demo/pair_gt_all/heart.jsonl``) so that the record does
    not depend on where the data sit on disk.
    """
    rec = collect_provenance([], seed=seed, resamples=resamples, policies=policies, command=command)
    files = [Path(p) for p in study.sources]
    if mapping:
        files.append(Path(mapping))
    root = Path(data) if data is not None else None
    rec["inputs"] = {
        name: sha256_file(p) for name, p in zip(_display_names(files, root), files, strict=True)
    }
    return rec


def provenance_tables(record: Mapping[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(inputs, settings)``: ``file, SHA-256`` rows and the other ``section, name, value`` rows
    of :func:`~medjudge.report.provenance.provenance_frame` (two narrow tables fit a page)."""
    frame = provenance_frame(record)
    is_input = frame["section"].str.startswith("input")
    inputs = frame[is_input].rename(columns={"name": "file", "value": "SHA-256"})
    return inputs[["file", "SHA-256"]].reset_index(drop=True), frame[~is_input].reset_index(
        drop=True
    )


# ---------------------------------------------------------------------------- figure layout
def fit_reference_lines(
    fig: Figure,
    data: pd.DataFrame | None = None,
    *,
    pad: float = 0.02,
    baseline_label: str | None = None,
) -> Figure:
    """Set one x range for all panels covering the intervals in ``data`` (``ci_low``/``ci_high``)
    and every vertical reference line (baseline, ceiling), so that none is cut off.

    :func:`figures.forest_plot` assumes accuracies in [0, 1]; differences (which may be
    negative) and reference lines beyond the intervals need this. ``baseline_label`` renames
    the baseline's legend entry (e.g. "no difference").
    """
    lo = hi = None
    if data is not None and len(data):
        lo = float(np.nanmin(data[["ci_low", "estimate"]].to_numpy(float))) - pad
        hi = float(np.nanmax(data[["ci_high", "estimate"]].to_numpy(float))) + pad
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_lines()]
    for ax in axes:
        a, b = ax.get_xlim() if lo is None else (lo, hi)
        xs = [
            float(np.asarray(ln.get_xdata(), dtype=float)[0])
            for ln in ax.get_lines()
            if ln.get_label() in ("baseline", "ceiling") and len(ln.get_xdata())
        ]
        if xs:
            a, b = min(a, min(xs) - pad), max(b, max(xs) + pad)
        lo, hi = (a, b) if lo is None else (min(lo, a), max(hi, b))  # type: ignore[type-var]
    for ax in axes:  # one x range for every panel, so that panels compare at a glance
        ax.set_xlim(lo, hi)
    if baseline_label is not None:
        for leg in fig.legends:
            for t in leg.get_texts():
                if t.get_text() == "trivial baseline":
                    t.set_text(baseline_label)
    return fig


def at_page_width(fig: Figure, width: float = PAGE_WIDTH_IN) -> Figure:
    """Widen a narrow figure to the page's text width (keeping its height).

    Report figures are placed at full text width, so a narrow figure would be scaled *up* and
    its 8 pt text printed larger than the body text; at page width it prints at its own size.
    An invisible figure-sized frame keeps the inline backend's tight bounding box from
    cropping the added margin again (square matrices keep their aspect ratio and are centred).
    """
    w, h = fig.get_size_inches()
    if w < width:
        fig.set_size_inches(width, h)
        fig.tight_layout()
        frame = Rectangle(
            (0, 0), 1, 1, transform=fig.transFigure, fill=False, edgecolor="none", figure=fig
        )
        fig.patches.append(frame)
    return fig


def compact_pairwise(fig: Figure, max_full: int = 8) -> Figure:
    """Keep only the difference in each cell of a pairwise matrix with more than ``max_full``
    judges (the p-values no longer fit; significance stays visible as bold vs hatched)."""
    ax = fig.axes[0]
    if len(ax.get_xticks()) <= max_full:
        return fig
    for t in ax.texts:
        t.set_text(t.get_text().split("\n")[0])
        t.set_fontsize(6.0)
    ax.set_title(
        "bold: Holm-adjusted p < 0.05; hatched: not significant", fontsize=6.5, loc="left",
        color="0.3",
    )  # fmt: skip
    return fig


def legend_above(fig: Figure, title: str | None = None) -> Figure:
    """Move the first panel's legend above the plot (it otherwise may cover the points)."""
    ax = fig.axes[0]
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(
            handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(handles),
            title=title, frameon=False,
        )  # fmt: skip
        fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- data summary
def summary_frame(summary: Mapping[str, Any]) -> pd.DataFrame:
    """``quantity, value`` rows of :meth:`Study.summary` for display."""
    roles = summary.get("roles", {})
    per_role = summary.get("ratings_per_role", {})
    status = summary.get("status", {})
    rows = [
        ("items", fmt_int(summary["n_items"])),
        ("dimensions", ", ".join(map(str, summary["dimensions"]))),
        ("experts", f"{roles.get('expert', 0)} ({fmt_int(per_role.get('expert', 0))} ratings)"),
        ("judges", f"{roles.get('judge', 0)} ({fmt_int(per_role.get('judge', 0))} verdicts)"),
        ("presentation orders", ", ".join(map(str, summary.get("orders", []))) or "–"),
        ("rating rows", fmt_int(summary["n_ratings"])),
        ("rows by status", ", ".join(f"{k} {fmt_int(v)}" for k, v in status.items())),
        ("rows without a usable value", fmt_int(summary["verdicts_without_value"])),
        ("duplicate rows", fmt_int(summary.get("duplicates", 0))),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"])


def parse_status_frame(study: Study, role: str = "judge") -> pd.DataFrame:
    """Long ``judge, status, count`` table (for :func:`~medjudge.report.figures.parse_status_bars`)."""
    t = study.rater_table()
    t = t[t["role"] == role]
    statuses = [c for c in t.columns if c not in ("role", "rater", "total")]
    long = t.melt(id_vars="rater", value_vars=statuses, var_name="status", value_name="count")
    long = long[long["count"] > 0].rename(columns={"rater": "judge"})
    return long.reset_index(drop=True)


def parse_status_table(study: Study) -> pd.DataFrame:
    """:meth:`Study.rater_table` with the share of unusable rows per rater."""
    t = study.rater_table().copy()
    usable = t["ok"] + t.get("broadcast", 0)
    t["share not ok"] = 1.0 - usable / t["total"].where(t["total"] > 0)
    return t.drop(columns=[c for c in ("broadcast", "missing") if c in t and not t[c].any()])


def not_ok_reasons_frame(summary: Mapping[str, Any]) -> pd.DataFrame:
    """Why verdict rows were not ``ok`` (reason, rows), from :meth:`Study.summary`.

    Never empty: without unusable rows it says so in one row (the table keeps its number).
    """
    reasons = summary.get("not_ok_reasons", {}) or {"(none: every verdict row was usable)": 0}
    return pd.DataFrame(list(reasons.items()), columns=["reason", "rows"])


def gold_frame(summary: Mapping[str, Any]) -> pd.DataFrame:
    """Gold-label method and counts per dimension, from :meth:`Study.summary`."""
    rows = []
    mism = summary.get("supplied_vs_majority_mismatch", {})
    for dim, g in summary.get("gold", {}).items():
        row = {"dimension": dim, "method": g.get("method", "none")}
        row["items with gold"] = g.get("with_gold", 0)
        row["items without gold"] = g.get("no_gold", 0)
        if mism:
            row["supplied ≠ expert majority"] = mism.get(dim, 0)
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- leaderboard
def leaderboard_table(leaderboard: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Display table of one dimension's leaderboard (formatted strings, best first)."""
    lb = leaderboard[leaderboard["dimension"] == dimension].sort_values(["rank", "judge"])
    return pd.DataFrame(
        {
            "rank": lb["rank"].astype(int).to_numpy(),
            "judge": lb["judge"].to_numpy(),
            "accuracy": [fmt_num(v, 3) for v in lb["accuracy"]],
            "95% CI": [fmt_ci(a, b, 3) for a, b in zip(lb["ci_low"], lb["ci_high"], strict=True)],
            "rank interval": [
                f"{int(a)}–{int(b)}" if a != b else f"{int(a)}"
                for a, b in zip(lb["rank_low"], lb["rank_high"], strict=True)
            ],
            "P(best)": [fmt_num(v, 3) for v in lb["p_best"]],
            "group": lb["group"].to_numpy(),
            "invalid": [fmt_int(v) for v in lb["n_invalid"]],
            "n": [fmt_int(v) for v in lb["n"]],
        }
    )


def accuracy_grid(leaderboard: pd.DataFrame, dimensions: Sequence[str]) -> pd.DataFrame:
    """Judge × dimension accuracies (rows ordered by the headline dimension's rank)."""
    wide = leaderboard.pivot(index="judge", columns="dimension", values="accuracy")
    wide = wide[list(dimensions)]
    head = leaderboard[leaderboard["dimension"] == dimensions[-1]]
    order = head.sort_values(["rank", "judge"])["judge"].tolist()
    wide = wide.reindex([j for j in order if j in wide.index])
    return wide.reset_index()


def forest_frame(leaderboard: pd.DataFrame) -> pd.DataFrame:
    """``judge, dimension, estimate, ci_low, ci_high`` for :func:`figures.forest_plot`."""
    return leaderboard.rename(columns={"accuracy": "estimate"})[
        ["judge", "dimension", "estimate", "ci_low", "ci_high"]
    ]


def baseline_by_dimension(baselines: pd.DataFrame) -> dict[str, float]:
    """Trivial baseline per dimension: the best constant judge (``always-<class>``).

    Its accuracy is the prevalence of the majority gold class — what a judge that ignores the
    input reaches.
    """
    const = baselines[baselines["judge"].astype(str).str.startswith("always-")]
    return {str(d): float(g["accuracy"].max()) for d, g in const.groupby("dimension", sort=False)}


def ceiling_by_dimension(expert_ceiling: pd.DataFrame) -> dict[str, float]:
    """Expert ceiling per dimension: mean over experts of each expert's accuracy against the
    strict majority of the other experts (:func:`medjudge.analyses.evaluation.expert_ceiling`)."""
    if expert_ceiling.empty:
        return {}
    return {
        str(d): float(g["accuracy"].mean())
        for d, g in expert_ceiling.groupby("dimension", sort=False)
    }


def rank_frame(leaderboard: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """``judge, rank, rank_low, rank_high`` of one dimension (for the rank-interval plot)."""
    lb = leaderboard[leaderboard["dimension"] == dimension]
    return lb[["judge", "rank", "rank_low", "rank_high"]].reset_index(drop=True)


def pairs_frame(pairs: pd.DataFrame, dimension: str, p: str = "p_holm") -> pd.DataFrame:
    """``judge_a, judge_b, estimate, p_adj`` of one dimension (for the pairwise matrix)."""
    sub = pairs[pairs["dimension"] == dimension]
    return pd.DataFrame(
        {
            "judge_a": sub["judge_a"].to_numpy(),
            "judge_b": sub["judge_b"].to_numpy(),
            "estimate": sub["difference"].to_numpy(float),
            "p_adj": sub[p].to_numpy(float),
        }
    )


def pairs_table(
    pairs: pd.DataFrame, dimension: str, *, alpha: float = 0.05, p: str = "p_holm"
) -> pd.DataFrame:
    """Significant pairs of one dimension (Holm-adjusted ``p < alpha``), largest difference first."""
    sub = pairs[(pairs["dimension"] == dimension) & (pairs[p] < alpha)].copy()
    sub = sub.reindex(sub["difference"].abs().sort_values(ascending=False).index)
    better_a = sub["difference"] > 0
    return pd.DataFrame(
        {
            "better": np.where(better_a, sub["judge_a"], sub["judge_b"]),
            "worse": np.where(better_a, sub["judge_b"], sub["judge_a"]),
            "difference": [fmt_num(abs(v), 3) for v in sub["difference"]],
            "95% CI": [
                fmt_ci(a, b, 3) if d > 0 else fmt_ci(-b, -a, 3)
                for a, b, d in zip(sub["ci_low"], sub["ci_high"], sub["difference"], strict=True)
            ],
            "discordant": [fmt_int(v) for v in sub["discordant"]],
            "p (Holm)": [fmt_p(v) for v in sub[p]],
        }
    )


def sensitivity_table(sensitivity: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Accuracy under the three invalid-verdict policies for one dimension (largest shift first)."""
    s = sensitivity[sensitivity["dimension"] == dimension].sort_values(
        ["max_shift", "judge"], ascending=[False, True]
    )
    out = {"judge": s["judge"].to_numpy(), "invalid": [fmt_int(v) for v in s["n_invalid"]]}
    for pol in ("wrong", "exclude", "half"):
        out[f"{pol}"] = [
            fmt_estimate_ci(e, a, b, 3)
            for e, a, b in zip(
                s[f"accuracy_{pol}"], s[f"ci_low_{pol}"], s[f"ci_high_{pol}"], strict=True
            )
        ]
    out["max shift"] = [fmt_num(v, 3) for v in s["max_shift"]]
    return pd.DataFrame(out)


# ---------------------------------------------------------------------------- subgroups
def subgroup_frame(table: pd.DataFrame, attribute: str) -> pd.DataFrame:
    """``judge, <attribute>, estimate, n, ci_low, ci_high, uncertain`` for the organ heatmap."""
    out = table.rename(columns={"accuracy": "estimate"})
    cols = ["judge", attribute, "estimate", "n", "ci_low", "ci_high"]
    out = out[cols + (["small"] if "small" in out else [])].copy()
    if "small" in out:
        out = out.rename(columns={"small": "uncertain"})
    return out.reset_index(drop=True)


def heterogeneity_display(table: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Display rows of :func:`medjudge.analyses.heterogeneity.heterogeneity_table` for one dimension."""
    t = table[table["dimension"] == dimension].sort_values(["pvalue", "judge"])
    return pd.DataFrame(
        {
            "judge": t["judge"].to_numpy(),
            "groups": [fmt_int(v) for v in t["groups"]],
            "accuracy range": [
                f"{fmt_num(a, 3)}–{fmt_num(b, 3)}"
                for a, b in zip(t["min_accuracy"], t["max_accuracy"], strict=True)
            ],
            "χ²": [fmt_num(v, 1) for v in t["chi2"]],
            "df": [fmt_int(v) for v in t["df"]],
            "p": [fmt_p(v) for v in t["pvalue"]],
            "p (Holm)": [fmt_p(v) for v in t["p_holm"]],
            "I² [95% CI]": [
                fmt_estimate_ci(e, a, b, 2)
                for e, a, b in zip(t["I2"], t["I2_ci_low"], t["I2_ci_high"], strict=True)
            ],
        }
    )


# ---------------------------------------------------------------------------- position bias
def position_frame(swap: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Two position-bias measures per swap judge (both 0.5 without position bias).

    ``first-shown share (all verdicts)`` — share of usable verdicts of both orders that chose
    the answer shown first; ``first-first share (inconsistent pairs)`` — among items whose two
    verdicts differ, the share where the judge picked the first-shown answer both times.
    """
    s = swap[swap["dimension"] == dimension]
    rows = []
    for _, r in s.iterrows():
        rows.append(
            (r["judge"], "first-shown share, all verdicts", r["first_shown_rate"],
             r["first_shown_ci_low"], r["first_shown_ci_high"])
        )  # fmt: skip
        rows.append(
            (r["judge"], "first-first share, inconsistent pairs", r["p_first_inconsistent"],
             r["p_first_ci_low"], r["p_first_ci_high"])
        )  # fmt: skip
    return pd.DataFrame(rows, columns=["judge", "order", "estimate", "ci_low", "ci_high"])


def position_table(swap: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Swap consistency, first-shown preference and accuracy per order for one dimension."""
    s = swap[swap["dimension"] == dimension]
    return pd.DataFrame(
        {
            "judge": s["judge"].to_numpy(),
            "consistency": [
                fmt_estimate_ci(e, a, b, 3)
                for e, a, b in zip(
                    s["consistency"], s["consistency_ci_low"], s["consistency_ci_high"], strict=True
                )
            ],
            "first-first / second-second": [
                f"{fmt_int(a)} / {fmt_int(b)}"
                for a, b in zip(s["first_first"], s["second_second"], strict=True)
            ],
            "p (binomial, Holm)": [fmt_p(v) for v in s["p_first_holm"]],
            "accuracy AB": [fmt_num(v, 3) for v in s["accuracy_ab"]],
            "accuracy BA": [fmt_num(v, 3) for v in s["accuracy_ba"]],
            "tie-resolved": [fmt_num(v, 3) for v in s["accuracy_tie_resolved"]],
        }
    )


def a_rate_table(single: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Judge's rate of answering "first" against the gold rate on the same items (one order)."""
    s = single[single["dimension"] == dimension].sort_values(["p_holm", "judge"])
    return pd.DataFrame(
        {
            "judge": s["judge"].to_numpy(),
            "judge A-rate": [fmt_num(v, 3) for v in s["judge_a_rate"]],
            "gold A-rate": [fmt_num(v, 3) for v in s["gold_a_rate"]],
            "difference [95% CI]": [
                fmt_estimate_ci(e, a, b, 3)
                for e, a, b in zip(s["difference"], s["ci_low"], s["ci_high"], strict=True)
            ],
            "p (McNemar mid-p, Holm)": [fmt_p(v) for v in s["p_holm"]],
            "n": [fmt_int(v) for v in s["n"]],
        }
    )


def length_gap_frame(length: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Forest frame of the length-bias accuracy gap ``P(correct | gold longer) - P(correct |
    gold shorter)`` per rater (judges, then experts for scale) on one dimension."""
    t = length[length["dimension"] == dimension]
    return pd.DataFrame(
        {
            "judge": [
                f"{r} (expert)" if role == "expert" else r
                for r, role in zip(t["rater"], t["role"], strict=True)
            ],  # fmt: skip
            "dimension": dimension,
            "estimate": t["length_gap"].to_numpy(float),
            "ci_low": t["gap_ci_low"].to_numpy(float),
            "ci_high": t["gap_ci_high"].to_numpy(float),
        }
    )


def length_bias_table(length: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Longer-answer rate against the gold's and the accuracy gap, per rater (one dimension)."""
    t = length[length["dimension"] == dimension].sort_values(["gap_p_holm", "rater"])
    return pd.DataFrame(
        {
            "rater": t["rater"].to_numpy(),
            "role": t["role"].to_numpy(),
            "picks longer": [fmt_num(v, 3) for v in t["rater_longer_rate"]],
            "gold longer": [fmt_num(v, 3) for v in t["gold_longer_rate"]],
            "accuracy gap [95% CI]": _est_ci(t, "length_gap", "gap_ci_low", "gap_ci_high"),
            "p (gap, Holm)": [fmt_p(v) for v in t["gap_p_holm"]],
            "n": [fmt_int(v) for v in t["n"]],
        }
    )


def dimension_structure_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Per rater: share of items with the same verdict in every dimension, mean and minimum
    Cohen's κ between dimensions, broadcast rate (judges read against the experts)."""
    t = summary.sort_values(["role", "mean_kappa"], ascending=[True, False])
    return pd.DataFrame(
        {
            "rater": t["rater"].to_numpy(),
            "role": t["role"].to_numpy(),
            "items": [fmt_int(v) for v in t["n_items"]],
            "all dimensions identical": [fmt_num(v, 3) for v in t["all_identical"]],
            "mean κ between dimensions": [fmt_num(v, 3) for v in t["mean_kappa"]],
            "min κ": [fmt_num(v, 3) for v in t["min_kappa"]],
            "broadcast": [fmt_num(v, 3) for v in t["broadcast_rate"]],
        }
    )


# ---------------------------------------------------------------------------- judges report
@dataclass
class JudgesReport:
    """Everything the judge evaluation report presents (tidy frames + notes)."""

    study: Study
    summary: dict[str, Any]
    evaluation: Any  # medjudge.analyses.evaluation.JudgeEvaluation
    headline: str
    subgroup_attribute: str | None
    subgroups: pd.DataFrame | None
    heterogeneity: pd.DataFrame | None
    position: dict[str, pd.DataFrame] | None
    bias: dict[str, pd.DataFrame] | None
    provenance: dict[str, Any]
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def dimensions(self) -> list[str]:
        return list(self.evaluation.settings["dimensions"])


def judges_report(
    study: Study,
    *,
    data: str | Path | None = None,
    mapping: str | Path | None = None,
    seed: int = 0,
    resamples: int = 2000,
    policy: str = "wrong",
    command: str | None = None,
) -> JudgesReport:
    """Compute every table of the judge evaluation report.

    :func:`medjudge.analyses.evaluation.evaluate_judges` (leaderboard, pairs, sensitivity, baselines,
    expert ceiling; one shared resample matrix), :func:`medjudge.analyses.subgroups.subgroup_accuracy`
    pooled over dimensions (clustered by item) for the first available subgroup attribute,
    :func:`medjudge.analyses.heterogeneity.heterogeneity_table` and
    :func:`medjudge.analyses.position.position_bias`. Sections whose module or data are missing
    get an entry in ``notes`` instead.
    """
    notes: dict[str, str] = {}
    ev = evaluate_judges(study, policy=policy, seed=seed, n_resamples=resamples)  # type: ignore[arg-type]
    attr = subgroup_attribute(study)
    subgroups = heterogeneity = position = bias = None
    if attr is None:
        notes["subgroups"] = "the items carry no subgroup attribute (e.g. organ_system)"
        notes["heterogeneity"] = notes["subgroups"]
    else:
        stacked = stack_outcomes(study)
        subgroups = subgroup_accuracy(study, (attr,), policy=policy, stacked=stacked)
        heterogeneity = heterogeneity_table(study, attr, policy=policy, stacked=stacked)
    if len(study.scales[ev.settings["dimensions"][0]].categories) != 2:
        notes["position"] = "position bias needs pairwise (two-category) verdicts"
    else:
        position = position_bias(study, policy=policy)
    bias = {
        "length": length_bias(study),
        "structure": dimension_structure(study)["summary"],
    }
    if bias["length"].empty:
        notes["length"] = "the items carry no answer lengths (answer1_len, answer2_len)"
    if len(study.dimensions) < 2:
        notes["structure"] = "the study has a single dimension"
    prov = study_provenance(
        study,
        data,
        seed=seed,
        resamples=resamples,
        policies={
            "invalid verdicts": POLICY_LABELS.get(policy, policy),
            "gold label": ev.settings["gold"],
            "bootstrap clusters": ev.settings["cluster"],
            "judge presentation order": ev.settings["order"],
        },
        mapping=mapping,
        command=command,
    )
    return JudgesReport(
        study=study,
        summary=study.summary(),
        evaluation=ev,
        headline=headline_dimension(study),
        subgroup_attribute=attr,
        subgroups=subgroups,
        heterogeneity=heterogeneity,
        position=position,
        bias=bias,
        provenance=prov,
        notes=notes,
    )


# ---------------------------------------------------------------------------- audit report
def reliability_frame(reliability: pd.DataFrame) -> pd.DataFrame:
    """Coefficient rows of :func:`medjudge.analyses.audit.dimension_reliability` as a forest frame
    (``judge`` = coefficient name, so :func:`figures.forest_plot` draws one panel per dimension)."""
    names = {
        "percent_agreement": "percent agreement",
        "fleiss_kappa": "Fleiss' κ",
        "gwet_ac1": "Gwet's AC1",
        "gwet_ac2": "Gwet's AC2",
        "krippendorff_alpha": "Krippendorff's α",
    }
    out = reliability.assign(judge=reliability["coefficient"].map(lambda c: names.get(c, c)))
    return out[["judge", "dimension", "estimate", "ci_low", "ci_high"]]


def reliability_table(reliability: pd.DataFrame) -> pd.DataFrame:
    """Dimension × coefficient table of ``estimate [CI]`` strings."""
    f = reliability_frame(reliability).copy()
    f["value"] = [
        fmt_estimate_ci(e, a, b, 3)
        for e, a, b in zip(f["estimate"], f["ci_low"], f["ci_high"], strict=True)
    ]
    wide = f.pivot(index="dimension", columns="judge", values="value")
    wide = wide.reindex(index=list(dict.fromkeys(f["dimension"])))
    wide = wide[list(dict.fromkeys(f["judge"]))]
    return wide.reset_index()


@dataclass
class AuditReportData:
    """Everything the annotation audit report presents."""

    study: Study
    summary: dict[str, Any]
    audit: Any  # medjudge.analyses.audit.AuditReport
    headline: str
    subgroup_attribute: str | None
    judge_agreement: pd.DataFrame | None
    alt_test: pd.DataFrame | None
    alt_results: list[Any] | None
    provenance: dict[str, Any]
    notes: dict[str, str] = field(default_factory=dict)


def audit_report(
    study: Study,
    *,
    data: str | Path | None = None,
    mapping: str | Path | None = None,
    seed: int = 0,
    resamples: int = 2000,
    policy: str = "wrong",
    ci: str = "analytic",
    command: str | None = None,
) -> AuditReportData:
    """Compute every table of the annotation reliability audit.

    :func:`medjudge.analyses.audit.audit_study` (reliability per dimension via
    :func:`~medjudge.stats.agreement.agreement_table`, annotator vs leave-one-out majority,
    pairwise Cohen's κ, per-category κ, subgroup reliability, Dawid–Skene, disputed items) and,
    on the headline dimension, :func:`medjudge.analyses.judge_vs_experts.judge_expert_agreement`
    (paired bootstrap, ``resamples``) and the alternative-annotator test, whose items without
    a usable judge verdict count as losses under ``policy="wrong"`` and are excluded otherwise
    (the alt-test has no "half" rule).
    """
    notes: dict[str, str] = {}
    head = headline_dimension(study)
    if len(study.experts) < 2:
        raise ValueError(
            f"the annotation audit needs at least two expert annotators; {study.name!r} has "
            f"{len(study.experts)}"
        )
    audit = audit_study(study, ci=ci, n_resamples=resamples, seed=seed)
    jea = alt = alt_results = None
    alt_invalid = "wrong" if policy == "wrong" else "exclude"
    if not study.judges:
        notes["judges"] = "the study has no judges"
    elif not study.scales[head].is_categorical:
        notes["judges"] = f"{head!r} is not categorical (κ needs categories)"
    else:
        jea = judge_expert_agreement(study, head, n_resamples=resamples, seed=seed)
        alt_results = study_alt_test(study, head, invalid=alt_invalid)
        alt = alt_test_table(alt_results, head)
    prov = study_provenance(
        study,
        data,
        seed=seed,
        resamples=resamples,
        policies={
            "annotators audited": "expert",
            "reliability intervals": ci,
            "alt-test invalid verdicts": (
                "count as losses" if alt_invalid == "wrong" else "exclude (as in the authors' code)"
            ),
        },
        mapping=mapping,
        command=command,
    )
    return AuditReportData(
        study=study,
        summary=study.summary(),
        audit=audit,
        headline=head,
        subgroup_attribute=subgroup_attribute(study),
        judge_agreement=jea,
        alt_test=alt,
        alt_results=alt_results,
        provenance=prov,
        notes=notes,
    )


# ---------------------------------------------------------------------------- audit displays
def _est_ci(df: pd.DataFrame, est: str, low: str, high: str, digits: int = 3) -> list[str]:
    return [
        fmt_estimate_ci(e, a, b, digits) for e, a, b in zip(df[est], df[low], df[high], strict=True)
    ]


def annotator_table(audit: Any, dimensions: Sequence[str] | None = None) -> pd.DataFrame:
    """Each annotator against the leave-one-out majority of the others, per dimension."""
    frames = []
    for dim, d in audit.dimensions.items():
        if (dimensions is not None and dim not in dimensions) or "annotators" not in d:
            continue
        a = d["annotators"]
        frames.append(
            pd.DataFrame(
                {
                    "dimension": dim,
                    "annotator": a["rater"].to_numpy(),
                    "n": [fmt_int(v) for v in a["n"]],
                    "agreement [95% CI]": _est_ci(
                        a, "agreement", "agreement_low", "agreement_high"
                    ),
                    "Cohen's κ [95% CI]": _est_ci(a, "kappa", "kappa_low", "kappa_high"),
                    "others split": [fmt_int(v) for v in a["others_split"]],
                    "no label": [fmt_int(v) for v in a["no_label"]],
                }
            )
        )
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def pairwise_agreement_frame(audit: Any, dimension: str) -> pd.DataFrame:
    """``rater_a, rater_b, estimate, n`` (Cohen's κ) for :func:`figures.agreement_matrix`."""
    p = audit.dimensions[dimension]["pairwise"]
    return p.rename(columns={"kappa": "estimate"})[["rater_a", "rater_b", "estimate", "n"]]


def pairwise_agreement_table(audit: Any, dimension: str) -> pd.DataFrame:
    """Every annotator pair: κ and percent agreement with intervals."""
    p = audit.dimensions[dimension]["pairwise"]
    return pd.DataFrame(
        {
            "annotator A": p["rater_a"].to_numpy(),
            "annotator B": p["rater_b"].to_numpy(),
            "n": [fmt_int(v) for v in p["n"]],
            "Cohen's κ [95% CI]": _est_ci(p, "kappa", "kappa_low", "kappa_high"),
            "agreement [95% CI]": _est_ci(p, "agreement", "agreement_low", "agreement_high"),
        }
    )


def category_table(audit: Any, dimension: str) -> pd.DataFrame:
    """Per-category Fleiss κ (category against the rest) with the category's share."""
    c = audit.dimensions[dimension]["categories"]
    return pd.DataFrame(
        {
            "category": c["category"].astype(str).to_numpy(),
            "share of labels": [fmt_num(v, 3) for v in c["share"]],
            "κ [95% CI]": _est_ci(c, "kappa", "kappa_low", "kappa_high"),
            "n": [fmt_int(v) for v in c["n"]],
        }
    )


def subgroup_reliability_table(audit: Any, dimension: str) -> pd.DataFrame:
    """Fleiss κ and Krippendorff α per item subgroup (too-small subgroups listed, not dropped)."""
    s = audit.dimensions[dimension].get("subgroups")
    if s is None or s.empty:
        return pd.DataFrame()
    out = {
        "attribute": s["attribute"].to_numpy(),
        "group": s["group"].astype(str).to_numpy(),
        "items": [fmt_int(v) for v in s["n_items"]],
    }
    if "fleiss_kappa" in s:
        out["Fleiss' κ [95% CI]"] = _est_ci(s, "fleiss_kappa", "fleiss_low", "fleiss_high")
    out["Krippendorff's α [95% CI]"] = _est_ci(s, "alpha", "alpha_low", "alpha_high")
    out["too small"] = np.where(s["too_small"].astype(bool), "yes", "")
    return pd.DataFrame(out)


def disputed_table(audit: Any, dimension: str, top: int = 15) -> pd.DataFrame:
    """The most disputed items of one dimension with every annotator's label."""
    d = audit.dimensions[dimension]["disputed"].head(top).copy()
    d["pair_agreement"] = [fmt_num(v, 2) for v in d["pair_agreement"]]
    if "ds_posterior" in d:
        d["ds_posterior"] = [fmt_num(v, 3) for v in d["ds_posterior"]]
    d = d.drop(columns=[c for c in ("modal_share",) if c in d])
    return d.rename(
        columns={
            "n_ratings": "labels",
            "pair_agreement": "pair agreement",
            "modal_label": "modal",
            "ds_label": "Dawid–Skene",
            "ds_posterior": "posterior",
        }
    )


def dawid_skene_table(audit: Any) -> pd.DataFrame:
    """Per dimension and annotator: Dawid–Skene model accuracy and per-class sensitivity."""
    rows = []
    for dim, d in audit.dimensions.items():
        ds = d.get("dawid_skene")
        if not ds:
            continue
        for r in ds["raters"]:
            row = {"dimension": dim, "annotator": r["rater"], "model accuracy": r["accuracy"]}
            for k, v in r.items():
                if k.startswith("p_correct_given_"):
                    row[f"P(correct | {k.removeprefix('p_correct_given_')})"] = v
            rows.append(row)
    return pd.DataFrame(rows)


def dawid_skene_fit_table(audit: Any) -> pd.DataFrame:
    """Per dimension: class priors, EM iterations, convergence, disagreements with the majority."""
    rows = []
    for dim, d in audit.dimensions.items():
        ds = d.get("dawid_skene")
        if not ds:
            continue
        rows.append(
            {
                "dimension": dim,
                "priors": ", ".join(f"{k} {fmt_num(v, 3)}" for k, v in ds["priors"].items()),
                "iterations": fmt_int(ds["n_iter"]),
                "converged": "yes" if ds["converged"] else "NO",
                "log-likelihood": fmt_num(ds["log_likelihood_final"], 1),
                "≠ majority": fmt_int(ds.get("differs_from_majority", 0)),
                "disputed items": fmt_int(d.get("n_disputed", 0)),
            }
        )
    return pd.DataFrame(rows)


def judge_agreement_frame(table: pd.DataFrame) -> pd.DataFrame:
    """Forest frame of the leave-one-expert-out κ difference (judge minus expert), one panel per
    left-out expert."""
    return pd.DataFrame(
        {
            "judge": table["judge"].to_numpy(),
            "dimension": [f"left out: {e}" for e in table["expert"]],
            "estimate": table["judge_minus_expert"].to_numpy(float),
            "ci_low": table["diff_low"].to_numpy(float),
            "ci_high": table["diff_high"].to_numpy(float),
        }
    )


def judge_agreement_table(table: pd.DataFrame) -> pd.DataFrame:
    """Display rows of :func:`medjudge.analyses.judge_vs_experts.judge_expert_agreement`."""
    return pd.DataFrame(
        {
            "judge": table["judge"].to_numpy(),
            "left-out expert": table["expert"].to_numpy(),
            "κ judge–others": [fmt_num(v, 3) for v in table["kappa_judge_others"]],
            "κ expert–others": [fmt_num(v, 3) for v in table["kappa_expert_others"]],
            "difference [95% CI]": _est_ci(table, "judge_minus_expert", "diff_low", "diff_high"),
        }
    )


def alt_test_display(table: pd.DataFrame) -> pd.DataFrame:
    """Display rows of :func:`medjudge.stats.judge_vs_experts.alt_test_table` (best ρ first)."""
    table = table.sort_values(["advantage_probability", "judge"], ascending=[False, True])
    out = pd.DataFrame(
        {
            "judge": table["judge"].to_numpy(),
            "ω": [fmt_num(v, 3) for v in table["winning_rate"]],
            "ρ": [fmt_num(v, 3) for v in table["advantage_probability"]],
            "passes": np.where(table["passed"].astype(bool), "yes", "no"),
            "items": [fmt_int(v) for v in table["n_items"]],
        }
    )
    for col in table.columns:
        if col.startswith("p_by["):
            out[col[5:-1]] = [fmt_p(v) for v in table[col]]
    return out
