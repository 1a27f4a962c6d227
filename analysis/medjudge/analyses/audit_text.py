"""The terminal text of an annotation audit (:class:`~medjudge.analyses.audit.AuditReport`) and
of the judge-versus-expert views beside it (alt-test, leave-one-expert-out κ, stand-in decision).

Every heading names the level and the interval method recorded in the result's own rows; an
estimate that is not defined shows its reason, any other missing number "not defined".
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd

from medjudge.stats.audit import as_square

from ._result import Result

__all__ = ["audit_summary", "alt_test_text", "expert_agreement_text", "stand_in_text"]


def _fmt(df: pd.DataFrame, cols: list[str] | None = None, *, width: int = 100) -> str:
    """A table as text; an estimate that is not defined shows its reason (``note``), any other
    missing number ``not defined`` — never a bare NaN."""
    if df is None or len(df) == 0:
        return "  (none)"
    if "note" in df.columns and "estimate" in df.columns:
        undefined = df["note"].fillna("").astype(str) != ""
        if undefined.any():
            df = df.astype({"estimate": object})
            df.loc[undefined, "estimate"] = df.loc[undefined, "note"]
    d = df[[c for c in cols if c in df.columns]] if cols else df
    return d.to_string(
        line_width=width,
        index=False,
        float_format=lambda v: f"{v:.3f}",
        na_rep="not defined",
    )


def _pct(level: float) -> str:
    pct = 100.0 * float(level)
    return f"{pct:.0f}%" if abs(pct - round(pct)) < 1e-9 else f"{pct:g}%"


def _level(levels: Any) -> str:
    vals = sorted({float(v) for v in levels})
    return " / ".join(_pct(v) for v in vals) if vals else "no"


def _methods(values: Any) -> str:
    seen = [str(v) for v in dict.fromkeys(values) if isinstance(v, str) and v]
    return "; ".join(seen) if seen else "none"


def audit_summary(rep: Result, *, who: str = "experts", width: int = 100) -> str:
    """The audit as text: clusters, the reliability of the ``who`` per dimension, then per
    dimension each rater against the others, pairwise κ, Dawid–Skene, subgroups and the most
    disputed items (what :meth:`AuditReport.summary` prints)."""
    out: list[str] = []
    fmt = partial(_fmt, width=width)
    st = rep.settings
    if st.get("cluster"):
        out.append(f"items clustered by {st['cluster']!r} ({st['n_clusters']} clusters)")
    rel = rep.reliability
    if "level" not in rel:
        out.append(f"\n== Reliability of the {who}: not computed (it needs two or more raters)")
    else:
        out.append(
            f"\n== Reliability of the {who} per dimension ({_level(rel['level'])} intervals: "
            + _methods(rel["ci_method"])
            + ")"
        )
    out.append(
        fmt(
            rel,
            ["dimension", "coefficient", "weights", "estimate", "ci_low", "ci_high", "n"],
        )
    )
    for dim, d in rep.dimensions.items():
        out.append(f"\n== {dim}")
        if "skipped" in d:
            out.append("  skipped: " + d["skipped"])
            continue
        if "annotators" in d:
            a = d["annotators"]
            out.append(
                "-- each expert vs the leave-one-out majority of the others "
                f"({_level(a['level'])} intervals: agreement "
                + _methods(a["agreement_ci_method"])
                + "; kappa "
                + _methods(a["kappa_ci_method"])
                + ")"
            )
            out.append(
                fmt(
                    d["annotators"],
                    [
                        "rater",
                        "n",
                        "agreement",
                        "agreement_low",
                        "agreement_high",
                        "kappa",
                        "kappa_low",
                        "kappa_high",
                        "others_split",
                    ],
                )
            )
            out.append("-- pairwise Cohen's kappa")
            sq = as_square(d["pairwise"])
            shown = sq.astype(object)
            for i, a in enumerate(sq.index):  # a rater with itself: "—"; else a value or why not
                for k, b in enumerate(sq.columns):
                    v = sq.iat[i, k]
                    shown.iat[i, k] = "—" if a == b else ("not defined" if v != v else f"{v:.3f}")
            out.append(shown.to_string(line_width=width))
        if "per_rater_skipped" in d:
            out.append(f"-- per-annotator tables not computed: {d['per_rater_skipped']}")
        if "dawid_skene_skipped" in d:
            out.append(f"-- Dawid-Skene not fitted: {d['dawid_skene_skipped']}")
        if "dawid_skene" in d:
            ds = d["dawid_skene"]
            out.append(
                f"-- Dawid-Skene ({ds['n_iter']} EM iterations, {'converged' if ds['converged'] else 'NOT converged'}, "
                f"log-lik {ds['log_likelihood_final']:.2f}; labels differing from the majority: "
                f"{ds.get('differs_from_majority', 'n/a')})"
            )
            out.append(fmt(pd.DataFrame(ds["raters"])))
        if len(d.get("subgroups", [])):
            sg = d["subgroups"]
            ok = sg[~sg["too_small"].astype(bool)]
            out.append(
                f"-- reliability by subgroup (Fleiss' kappa, {sg['weights'].iloc[0]} weights; "
                "Krippendorff's alpha"
                + (f"; {_level(ok['level'])} intervals: {_methods(ok['ci_method'])}" if len(ok)
                   else "")
                + ")"
            )  # fmt: skip
            out.append(
                fmt(
                    d["subgroups"],
                    [
                        "attribute",
                        "group",
                        "n_items",
                        "fleiss_kappa",
                        "fleiss_low",
                        "fleiss_high",
                        "alpha",
                        "alpha_low",
                        "alpha_high",
                    ],
                )
            )
        if "disputed" in d:
            out.append(f"-- most disputed items ({d['n_disputed']} items without unanimity)")
            out.append(fmt(d["disputed"]))
    return "\n".join(out)


def alt_test_text(table: pd.DataFrame, epsilon: float, *, width: int = 100) -> str:
    """The alt-test table (Calderon, Reichart & Dror 2025) under its heading."""
    return "\n".join(
        [
            "\n== Alt-test (Calderon, Reichart & Dror 2025): can a judge replace an expert? "
            f"epsilon={epsilon:g}",
            _fmt(table, width=width),
        ]
    )


def expert_agreement_text(ja: pd.DataFrame, dimension: str, *, width: int = 100) -> str:
    """Each judge's leave-one-expert-out κ against the experts' own, under its heading."""
    interval = (
        f"{_level(ja['level'].dropna())} interval of the difference: "
        + _methods(ja["ci_method"].dropna())
        if "level" in ja and ja["level"].notna().any()
        else "no interval"
    )
    cols = ["judge", "expert", "kappa_judge_others", "kappa_expert_others",
            "judge_minus_expert", "diff_low", "diff_high"]  # fmt: skip
    return "\n".join(
        [
            f"\n== Judge vs experts, leave one expert out ({dimension}; mean Cohen's kappa with "
            f"the other experts; {interval})",
            _fmt(ja, cols, width=width),
        ]
    )


def stand_in_text(si: pd.DataFrame, *, width: int = 100) -> str:
    """The stand-in section of the text output, every number from the table ``si``."""
    margin = float(si["margin"].iloc[0])
    lines = [
        f"\n== Can a judge stand in for an expert? (non-inferiority within {100 * margin:g} "
        "accuracy points of every left-out expert, against the other experts' majority; "
        f"{_level(si['level'])} intervals: {_methods(si['ci_method'])}; weakest comparison "
        "shown)"
    ]
    for dim, g in si.groupby("dimension", sort=False):
        eps = g["alt_epsilon"].dropna()
        acc = g["alt_epsilon_accuracy"].dropna()
        if len(eps) and len(acc):
            lines.append(
                f"-- {dim}: alt-test epsilon = {float(eps.iloc[0]):g} here means a judge as "
                f"low as {float(acc.iloc[0]):.2f} accuracy passes"
            )
    lines.append(
        _fmt(
            si,
            [
                "dimension",
                "judge",
                "decision",
                "expert",
                "difference",
                "ci_low",
                "ci_high",
                "alt_passed",
            ],
            width=width,
        )  # fmt: skip
    )
    return "\n".join(lines)
