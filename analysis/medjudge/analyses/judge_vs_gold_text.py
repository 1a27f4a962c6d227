"""The key findings of a :class:`~medjudge.analyses.judge_vs_gold.JudgeGoldResult`, in words.

How many judges beat the best trivial baseline (the constant answer of the majority gold
class), from the paired tests of each judge against it: the test, the adjustment and α the
decisions used, the baseline's own accuracy, and the largest gain with its interval.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ._findings import PLAIN, Finding, Markup, Names, fmt_ci, fmt_level
from ._result import frame_text


def _num(x: float) -> str:
    return "–" if pd.isna(x) else f"{x:.3f}"


def baseline_test_words(tests: pd.DataFrame, markup: Markup = PLAIN) -> str:
    """The test(s) the table ran, as recorded in its rows (e.g. "McNemar mid-p")."""
    names = list(dict.fromkeys(str(t) for t in tests["test"]))
    return " / ".join(markup.data(t) for t in names) + (" tests" if len(names) == 1 else "")


def baseline_findings(
    res: Any, dimension: str, *, names: Names | None = None, markup: Markup = PLAIN
) -> list[Finding]:
    """How many judges beat the best trivial baseline on ``dimension`` and how many are below
    it (Holm over the judges of the dimension, at the α the decisions used), and the largest
    gain; a caveat when none beats it."""
    tests = res.wide("baseline_tests", dimension)
    if tests.empty:
        return []
    judges = markup.role(names, "judge")
    n_beat, n = int(tests["beats_baseline"].sum()), len(tests)
    a = float(res.settings["alpha"])  # the α "beats_baseline" was decided at
    adj = markup.data(res.settings.get("adjustment", ""))
    below = tests[(tests["difference"] < 0) & (tests["p_holm"] < a)]
    own_items = bool(res.settings.get("not_assigned", {}).get(dimension))
    base = tests.loc[tests["baseline_accuracy"].index[0]]
    test = baseline_test_words(tests, markup)
    dim = markup.em_data(dimension)
    where = (
        "each judge scored with it on the items it was given"
        if own_items
        else f"right on {_num(base['baseline_accuracy'])} of the items"
    )
    how = f"({markup.data(base['baseline'])}, {where}; {test}, {adj} over {n} tests, α = {a:g})"
    tail = (
        f"; {len(below)} {'is' if len(below) == 1 else 'are'} significantly "
        f"{markup.em.format('below')} it"
        if len(below)
        else ""
    )
    if n_beat == 0:
        none = markup.strong.format(
            f"No {markup.role(names, 'judge', 1)} is shown to beat the best constant answer"
        )
        return [
            Finding(
                f"{none} on {dim} {how}{tail}.",
                caveat="a leaderboard of judges that do not beat a constant answer ranks noise",
                weight=11,
            )
        ]
    top = tests.loc[tests["difference"].idxmax()]
    lvl = fmt_level(float(res.settings["confidence_level"]))
    text = (
        f"On {dim}, {n_beat} of {n} {judges} beat the best constant answer {how}{tail}; the "
        f"largest gain is {markup.data(top['judge'])}'s +{_num(top['difference'])} "
        f"({lvl} CI {fmt_ci(top['ci_low'], top['ci_high'], 3)})."
    )
    return [Finding(text, weight=4)]


def gold_tables_text(res: Any, *, width: int = 100) -> str:
    """Kappa against gold, ordinal under-/over-calling and the baseline tests of each
    dimension as terminal text (a metric per column, a judge per row)."""
    m = res.metrics
    weights = ", ".join(f"{d} {w}" for d, w in res.settings["kappa_weights"].items())
    out = [f"\njudges against gold (kappa weights: {weights})"]
    for d in res.settings["dimensions"]:
        out.append(f"-- {res.headline[d]}")
        t = m[m["dimension"] == d].pivot_table(
            index="judge", columns="metric", values="estimate", sort=False
        )
        out.append(frame_text(t.round(3), 60, width=width, na_rep="not defined"))
    return "\n".join(out)
