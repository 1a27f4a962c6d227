"""The key finding of the judge-versus-experts analysis, in words: can a judge stand in for an
expert? One sentence over the alternative annotator test (:class:`AltTests`), the
leave-one-expert-out κ comparison (:class:`ExpertAgreement`) and the stand-in decision
(:class:`StandIn`), each number from its own table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._findings import PLAIN, Finding, Markup, Names, fmt_int, fmt_num
from .audit_findings import method_words, n_items, one_level
from .expert_results import AltTests


def stand_in_finding(
    alt: pd.DataFrame,
    ja: pd.DataFrame,
    si: pd.DataFrame,
    *,
    head: str,
    epsilon: float,
    q: float,
    n_exp: int,
    names: Names | None = None,
    markup: Markup = PLAIN,
    adjustment: str = AltTests.adjustment,
) -> Finding:
    """The judge-versus-expert finding, from the stand-in decision and its views.

    The decision is :func:`medjudge.analyses.judge_vs_experts.study_stand_in` (``si``):
    non-inferiority within the clinical margin (accuracy points, stated in every sentence
    that uses it) against every left-out expert, with no leave-one-expert-out κ interval
    entirely below 0. The alt-test is a second view, its ε translated into the lowest judge
    accuracy that would pass here. A judge is called a candidate stand-in only when the
    decision says so, so the sentence cannot say "stand in" while a table says
    "significantly less than an expert". A caveat when fewer than three annotators make the
    alt-test weak.
    """
    judge_word = markup.role(names, "judge")
    caveat = (
        f"the alt-test with {n_exp} annotators is weak (Calderon et al. recommend at least three)"
        if n_exp < 3
        else None
    )
    judges = [str(j) for j in dict.fromkeys(alt["judge"])] if len(alt) else []
    n = len(judges) or len(si)
    passed = {str(j) for j, ok in zip(alt["judge"], alt["passed"], strict=True) if bool(ok)}
    acc = si["alt_epsilon_accuracy"].dropna() if len(si) else pd.Series(dtype=float)
    text = (
        f"{fmt_int(len(passed))} of {fmt_int(n)} {judge_word} pass the alternative "
        f"annotator test on {markup.em_data(head)} (Calderon et al. 2025: ε = {epsilon:g}"
        + (
            f", which here lets a judge of accuracy {fmt_num(float(acc.iloc[0]), 2)} pass"
            if len(acc)
            else ""
        )
        + f"; one-sided paired t-tests, {adjustment} at q = {q:g} over {n_exp} "
        "annotators, pass = winning rate ≥ 0.5)."
    )
    rows = ja[np.isfinite(ja["diff_high"].astype(float))] if len(ja) else ja
    below_rows = rows[rows["diff_high"].astype(float) < 0] if len(rows) else rows
    below = {str(j) for j in below_rows["judge"]} if len(rows) else set()
    if len(rows):
        lvl = one_level(rows["level"])
        d = rows["judge_minus_expert"].astype(float)
        n_items_ = int(rows["n_items"].max()) if "n_items" in rows else int(rows["n"].max())
        text += (
            f" In the leave-one-expert-out comparison (mean Cohen's κ with the remaining "
            f"experts, judge minus left-out expert, {n_items(n_items_)}), the differences run "
            f"from {fmt_num(d.min(), 3)} to {fmt_num(d.max(), 3)}; "
            f"{fmt_int(len(below_rows))} of {fmt_int(len(rows))} {lvl} intervals "
            f"({method_words(rows['ci_method'], markup)}) lie entirely below 0, for "
            f"{fmt_int(len(below))} of {fmt_int(n)} {judge_word}"
            + (
                f", including {fmt_int(len(passed & below))} of the {fmt_int(len(passed))} "
                "that pass the alt-test"
                if passed
                else ""
            )
            + "."
        )
    else:
        text += " The leave-one-expert-out κ comparison has no interval to check."
    if not len(si):
        return Finding(
            text + " The stand-in decision needs three experts; it was not made.",
            caveat=caveat,
            weight=7,
        )
    pts = f"{100 * float(si['margin'].iloc[0]):g} accuracy points"
    ni = {str(j) for j, ok in zip(si["judge"], si["non_inferior"], strict=True) if bool(ok)}
    stand = [str(j) for j, ok in zip(si["judge"], si["candidate"], strict=True) if bool(ok)]
    lows = si["ci_low"].astype(float)
    text += (
        f" The decision is a non-inferiority test with a clinical margin of {pts}: the judge's "
        "accuracy minus each left-out expert's, against the other experts' majority "
        f"({one_level(si['level'])} intervals, {method_words(si['ci_method'], markup)}); "
        f"{fmt_int(len(ni))} of {fmt_int(len(si))} {judge_word} are non-inferior within "
        f"{pts} to every expert (weakest lower limits from {fmt_num(lows.min(), 3)} to "
        f"{fmt_num(lows.max(), 3)})."
    )
    if stand:
        text += (
            f" Only {', '.join(markup.strong_data(j) for j in stand)} "
            + ("is" if len(stand) == 1 else "are")
            + f" non-inferior within {pts} with no leave-one-expert-out view against: the "
            "candidate stand-in" + ("" if len(stand) == 1 else "s") + " for an expert."
        )
    elif passed:
        text += (
            f" No judge qualifies as a stand-in at a margin of {pts}: "
            f"{fmt_int(len(passed - ni))} of the {fmt_int(len(passed))} that pass the alt-test "
            f"are not non-inferior within {pts}, a gap the alt-test's margin tolerates."
        )
    else:
        text += f" No judge could stand in for an expert at a margin of {pts} on this evidence."
    return Finding(text, caveat=caveat, weight=7)
