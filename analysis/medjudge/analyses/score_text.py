"""The key finding of a :class:`~medjudge.analyses.score_study.ScoreStudyResult`, in words:
the judge whose scores are closest to the reference on a dimension (smallest mean absolute
error), with its MAE, CCC and bias and their intervals, beside the better constant baseline."""

from __future__ import annotations

from typing import Any

from ._findings import PLAIN, Finding, Markup, Names, fmt_ci, fmt_level, fmt_num
from ._result import frame_text


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


#: a dimension's judge pairs are listed up to this many rows (else the sentence, and --json)
PAIR_ROWS_SHOWN = 30


def score_tables_text(res: Any, *, width: int = 100) -> str:
    """Each score dimension as terminal text: judges and experts against the reference, the
    reliability within roles, the pair sentence and (up to :data:`PAIR_ROWS_SHOWN`) the pairs;
    then what did not run and why."""
    out = []
    for d in res.settings["dimensions"]:
        out += [f"\n== {d} (scores; intervals {res.settings['interval']})", res.headline[d]]
        t = res.wide("metrics", d)
        if len(t):
            wide = t.pivot_table(
                index=["role", "rater"], columns="metric", values="estimate", sort=False
            )
            out.append(frame_text(wide.round(3), 60, width=width, na_rep="not defined"))
        r = res.wide("reliability", d)
        if len(r):
            cols = ["role", "form", "estimate", "ci_low", "ci_high", "n"]
            out.append(frame_text(r[cols].round(3), 60, width=width, index=False,
                                  na_rep="not defined"))  # fmt: skip
        out += res.pair_findings(d)
        p = res.wide("pairs", d)
        if 0 < len(p) <= PAIR_ROWS_SHOWN:
            cols = ["judge_a", "judge_b", "metric", "difference", "ci_low", "ci_high",
                    "p_value", "p_holm"]  # fmt: skip
            out.append(frame_text(p[cols].round(4), 60, width=width, index=False,
                                  na_rep="not defined"))  # fmt: skip
    out += [f"not computed: {part}: {why}" for part, why in res.not_applicable.items()]
    return "\n".join(out)
