"""The key findings of a :class:`~medjudge.analyses.evaluation.JudgeEvaluation`, in words.

One source for the report (leaderboard and pairwise sections, executive summary) and the
command line: every number, the interval's level, the tests, the multiplicity family and α come
from the evaluation's own tables and settings; the medium only chooses the
:class:`~medjudge.analyses._findings.Markup` and the study's words for its roles.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ._findings import PLAIN, Finding, Markup, Names, fmt_ci, fmt_int, fmt_level, fmt_num, fmt_p


def board(ev: Any, dimension: str) -> pd.DataFrame:
    """One dimension's leaderboard, best first (rank, then judge)."""
    lb = ev.leaderboard
    return lb[lb["dimension"] == dimension].sort_values(["rank", "judge"]).reset_index(drop=True)


def tests_words(pairs: pd.DataFrame, markup: Markup = PLAIN) -> str:
    """The pairwise tests that ran (``McNemar mid-p / …``), as the pairs table records them."""
    return " / ".join(markup.data(t) for t in dict.fromkeys(pairs["test"].astype(str)))


def decision_words(lb: pd.DataFrame, pairs: pd.DataFrame, markup: Markup = PLAIN) -> str:
    """``"McNemar mid-p; Holm over all 36 pairwise tests …; α = 0.05"``: the tests, family and
    threshold of a leaderboard's decisions, read from its own columns."""
    fam = markup.data(str(lb["family"].iloc[0]))
    return f"{tests_words(pairs, markup)}; {fam}; α = {float(lb['alpha'].iloc[0]):g}"


def leader_finding(
    ev: Any,
    dimension: str,
    *,
    names: Names | None = None,
    markup: Markup = PLAIN,
    order_note: str = "",
) -> Finding:
    """The most accurate judge on ``dimension`` with its interval and rank set, its lead over
    the second, and how many others the pairwise decisions cannot tell apart from it (the
    leader's ``n_indistinguishable``), with the tests, family and α those decisions used.
    ``order_note`` (already in ``markup``) says which presentation order the verdicts were
    scored in, where the study's design has several."""
    lb = board(ev, dimension)
    lvl = fmt_level(float(ev.settings["level"]))
    judge, dim = markup.role(names, "judge", 1), markup.em_data(dimension)
    best = lb.iloc[0]
    ci = fmt_ci(best["ci_low"], best["ci_high"], 3)
    if len(lb) == 1:
        return Finding(
            f"The single {judge} {markup.strong_data(best['judge'])} reaches accuracy "
            f"{fmt_num(best['accuracy'], 3)} ({lvl} CI {ci}{order_note}) on {dim}.",
            weight=10,
        )
    n_tied = int(best["n_indistinguishable"])
    second = lb.iloc[1]
    text = (
        f"On {dim} the most accurate {judge} is {markup.strong_data(best['judge'])} with "
        f"accuracy {fmt_num(best['accuracy'], 3)} ({lvl} CI {ci}; rank set "
        f"{int(best['rank_low'])}–{int(best['rank_high'])}{order_note}), "
        f"{fmt_num(best['accuracy'] - second['accuracy'], 3)} ahead of "
        f"{markup.data(second['judge'])}; "
    )
    pairs = ev.pairs[ev.pairs["dimension"] == dimension]
    how = f"({decision_words(lb, pairs, markup)})"
    if n_tied == 0:
        text += f"every other {judge} is significantly less accurate {how}."
    else:
        text += (
            f"{fmt_int(n_tied)} other {markup.role(names, 'judge', n_tied)} cannot be "
            f"distinguished from it {how}."
        )
    return Finding(text, weight=10)


def significant_pairs(ev: Any, dimension: str) -> pd.DataFrame:
    """The pairs of ``dimension`` whose Holm-adjusted p-value is below the evaluation's α."""
    a = float(ev.settings["alpha"])
    p = ev.pairs
    return p[(p["dimension"] == dimension) & (p["p_holm"] < a)]


def pairs_finding(
    ev: Any, dimension: str, *, names: Names | None = None, markup: Markup = PLAIN
) -> Finding:
    """How many of the pairs tested on ``dimension`` differ significantly at the evaluation's α
    in its multiplicity family (with the one p-value when there is a single pair)."""
    a = float(ev.settings["alpha"])
    pairs = ev.pairs[ev.pairs["dimension"] == dimension]
    m = int(pd.to_numeric(pairs["pvalue"], errors="coerce").notna().sum()) if len(pairs) else 0
    n_sig = len(significant_pairs(ev, dimension))
    fam = markup.data(str((ev.settings.get("multiplicity") or {}).get("description", "")))
    test, judges, dim = (
        tests_words(pairs, markup),
        markup.role(names, "judge"),
        markup.em_data(dimension),
    )
    if m == 1:
        one = pairs.iloc[0]
        p_one = "" if "p_holm" not in one else f", p = {fmt_p(one['p_holm'])}"
        text = (
            f"The two {judges} "
            + ("differ" if n_sig else "do not differ")
            + f" significantly on {dim} ({test}{p_one}, α = {a:g})."
        )
    else:
        text = (
            f"{fmt_int(n_sig)} of the {fmt_int(m)} pairs of {judges} differ significantly on "
            f"{dim} ({test}; {fam}; α = {a:g})."
        )
    return Finding(text, weight=4)


def policy_finding(ev: Any, dimension: str, *, markup: Markup = PLAIN) -> list[Finding]:
    """The judge whose accuracy on ``dimension`` moves most between the invalid-verdict policies
    (counting an unusable verdict wrong, excluding it, counting it half), when that shift is
    at least 0.01; its weight grows with the shift."""
    s = ev.sensitivity[ev.sensitivity["dimension"] == dimension]
    if s.empty:
        return []
    top = s.sort_values(["max_shift", "judge"], ascending=[False, True]).iloc[0]
    if not float(top["max_shift"]) >= 0.01:
        return []
    return [
        Finding(
            f"The invalid-verdict policy matters: {markup.strong_data(top['judge'])} "
            f"({fmt_int(top['n_invalid'])} unusable verdicts) moves by up to "
            f"{fmt_num(top['max_shift'], 3)} between counting them wrong, excluding "
            "them or counting them half.",
            caveat="rankings that change between policies depend on the policy",
            weight=2 + float(top["max_shift"]) * 10,
        )
    ]


def evaluation_findings(
    ev: Any, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
) -> list[Finding]:
    """Per dimension (``dimension`` only, else every one): the leader, the pairwise count and
    the invalid-verdict policy's largest effect."""
    dims = [dimension] if dimension is not None else list(ev.settings.get("dimensions", []))
    out = []
    for d in dims:
        lb = board(ev, d)
        if lb.empty or pd.isna(lb["rank"].iloc[0]):
            continue  # no judge has a verdict here
        out.append(leader_finding(ev, d, names=names, markup=markup))
        if len(lb) > 1 and len(ev.pairs):
            out.append(pairs_finding(ev, d, names=names, markup=markup))
        out += policy_finding(ev, d, markup=markup)
    return out
