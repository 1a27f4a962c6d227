"""Pairwise comparisons of judges on the headline dimension (paired tests, Holm)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...analyses.evaluation_text import pairs_finding
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import family_size, fmt_ci, fmt_int, fmt_num, fmt_p
from . import Section, builder, md
from ._results import evaluation, judge_order, why_no_judge_evaluation
from .references import ADJUSTMENT_CITES, test_cites

KEY = "pairwise"
TITLE = "Pairwise comparisons"

#: The matrix shows at most this many judges (the best by the headline metric).
MAX_MATRIX = 15


def pairs_table(
    pairs: pd.DataFrame,
    dimension: str,
    *,
    alpha: float = 0.05,
    p: str = "p_holm",
    level: str = "95%",
) -> pd.DataFrame:
    """Significant pairs of one dimension (Holm-adjusted ``p < alpha``), largest difference first."""
    sub = pairs[(pairs["dimension"] == dimension) & (pairs[p] < alpha)].copy()
    sub = sub.reindex(sub["difference"].abs().sort_values(ascending=False, kind="stable").index)
    better_a = sub["difference"] > 0
    return pd.DataFrame(
        {
            "better": np.where(better_a, sub["judge_a"], sub["judge_b"]),
            "worse": np.where(better_a, sub["judge_b"], sub["judge_a"]),
            "difference": [fmt_num(abs(v), 3) for v in sub["difference"]],
            f"{level} CI": [
                fmt_ci(a, b, 3) if d > 0 else fmt_ci(-b, -a, 3)
                for a, b, d in zip(sub["ci_low"], sub["ci_high"], sub["difference"], strict=True)
            ],
            "discordant": [fmt_int(v) for v in sub["discordant"]],
            "p (Holm)": [fmt_p(v) for v in sub[p]],
        }
    )


def why_no_pair(ctx: ReportContext) -> str | None:
    if len(ctx.study.judges) < 2:
        return f"the study has a single {ctx.name('judge')}; there is no pair to compare"
    return None


APPLIES = (why_no_judge_evaluation, why_no_pair)


def present(ctx: ReportContext, ev: Any) -> Section:
    head, lvl = ctx.headline, ctx.level
    a = float(ev.settings.get("alpha", ctx.alpha))  # the α the decisions were made at
    pairs = ev.pairs[ev.pairs["dimension"] == head]
    m = family_size(pairs, "pvalue")
    mult = ev.settings.get("multiplicity") or {}
    # the family the adjustment actually used (its words, from the result)
    fam = md(str(mult.get("description", "")))
    order = judge_order(ctx)
    shown = order[:MAX_MATRIX]
    sig = pairs_table(ev.pairs, head, alpha=a, level=lvl)
    # the test and interval each row records (not a typed name)
    test = " / ".join(md(t) for t in dict.fromkeys(pairs["test"].astype(str)))
    cis = " / ".join(md(c) for c in dict.fromkeys(pairs["ci_method"].astype(str)))
    sec = Section(KEY, TITLE)
    sec.text(
        f"Every pair of {md(ctx.names_of('judge'))} is compared on the items both were given "
        f"({test}; {cis} interval for the difference; clusters: "
        f"{md(ev.settings.get('cluster', 'none'))}). The p-values are adjusted by {fam}. @fig-pairwise-matrix shows the adjusted p-values and the direction of "
        "each difference"
        + (
            f" for the {len(shown)} most accurate of the {len(order)} judges"
            if len(shown) < len(order)
            else ""
        )
        + "; @tbl-pairwise lists the significant pairs, largest difference first."
    )
    sec.figure(
        "fig-pairwise-matrix",
        f"Pairwise accuracy differences (row minus column) on *{md(head)}*; faded and hatched: "
        f"adjusted p ≥ {a:g} ({fam}).",
        lambda: at_page_width(
            ev.plot("pairs", where={"dimension": head}, order=shown, alpha=a, p_label="adjusted p")
        ),
    )
    sec.table(
        "tbl-pairwise",
        f"Significantly different pairs on *{md(head)}* (adjusted p < {a:g}; {fam}); {lvl} "
        f"intervals ({cis}).",
        sig
        if len(sig)
        else pd.DataFrame({"result": [f"no pair differs at adjusted p < {a:g} ({fam})"]}),
    )
    sec.text(
        f"{fmt_int(len(sig))} of {fmt_int(m)} pairs differ significantly on *{md(head)}* "
        f"({fam}; α = {a:g})."
    )
    sec.findings.append(pairs_finding(ev, head, names=ctx.names_of, markup=ctx.markup))
    cites = test_cites(list(dict.fromkeys(pairs["test"].astype(str))))
    adjust = ADJUSTMENT_CITES.get(str(mult.get("method", "")))
    sec.methods.append(
        f"Pairs of judges were compared on the items both were given: {test}"
        + (f" ({'; '.join(c for _, c in cites)})" if cites else "")
        + f"; {lvl} {cis} intervals for the difference. Multiplicity: {fam}"
        + (f" ({adjust[1]})" if adjust else "")
        + f"; decisions at α = {a:g}."
    )
    sec.references += [k for k, _ in cites] + ([adjust[0]] if adjust else [])
    return sec


build = builder(KEY, TITLE, APPLIES, evaluation, present)
