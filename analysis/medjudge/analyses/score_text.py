"""The key finding of a :class:`~medjudge.analyses.score_study.ScoreStudyResult`, in words:
the judge whose scores are closest to the reference on a dimension (smallest mean absolute
error), with its MAE, CCC and bias and their intervals, beside the better constant baseline."""

from __future__ import annotations

from typing import Any

from ._findings import PLAIN, Finding, Markup, Names, fmt_ci, fmt_level, fmt_num


def closest_judge_finding(
    res: Any, dimension: str, *, names: Names | None = None, markup: Markup = PLAIN
) -> list[Finding]:
    """The judge closest to the reference on ``dimension`` (smallest MAE; ties by name) with
    its MAE, CCC and bias and their intervals, and the better constant baseline's MAE on the
    same items; the analysis' headline sentence when no judge has an MAE."""
    m = res.wide("metrics", dimension)
    j = m[m["role"] == "judge"]
    mae = j[j["metric"] == "mae"].sort_values(["estimate", "rater"])
    if mae.empty:
        return [Finding(markup.note(res.headline[dimension]), weight=5)]
    best = mae.iloc[0]
    row = {r.metric: r for r in j[j["rater"] == best["rater"]].itertuples()}
    lvl = fmt_level(float(res.settings.get("confidence_level", 0.95)))
    parts = [
        f"MAE {fmt_num(best['estimate'], 2)} ({lvl} CI {fmt_ci(best['ci_low'], best['ci_high'], 2)})"
    ]
    for key, name in (("ccc", "CCC"), ("bias", "bias")):
        if key in row:
            r = row[key]
            parts.append(f"{name} {fmt_num(r.estimate, 2)} {fmt_ci(r.ci_low, r.ci_high, 2)}")
    base = m[(m["role"] == "baseline") & (m["metric"] == "mae")].sort_values(["estimate", "rater"])
    if len(base):
        b = base.iloc[0]
        parts.append(
            f"the better constant baseline ({markup.note(b['rater'])}) has MAE "
            f"{fmt_num(b['estimate'], 2)} {fmt_ci(b['ci_low'], b['ci_high'], 2)}"
        )
    rule = (res.settings.get("gold") or {}).get(dimension)
    ref = markup.note(rule) if rule else "the reference"
    text = (
        f"On {markup.em_data(dimension)} the {markup.role(names, 'judge', 1)} closest to the "
        f"reference ({ref}) is {markup.strong_data(best['rater'])}: " + "; ".join(parts) + "."
    )
    return [Finding(text, weight=5)]
