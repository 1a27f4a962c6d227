"""Data and parse accounting: what was read, parse status per rater, why rows were unusable,
how gold was derived."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...data.accounting import parse_status, unusable_reasons
from ...data.model import Study
from ...plots.parse_status import parse_status_bars
from ..context import ReportContext
from ..layout import at_page_width
from ..tables import fmt_int, fmt_num
from . import Finding, Section, md
from ._results import headline_board, why_no_judge_evaluation

KEY = "data"
TITLE = "Data and parse accounting"


def summary_table(summary: Mapping[str, Any], ctx: ReportContext | None = None) -> pd.DataFrame:
    """``quantity, value`` rows of :meth:`Study.summary` for display."""
    name = ctx.names_of if ctx is not None else (lambda r, n=None: r + "s")
    roles = summary.get("roles", {})
    per_role = summary.get("ratings_per_role", {})
    status = summary.get("status", {})
    rows = [
        ("items", fmt_int(summary["n_items"])),
        ("dimensions", ", ".join(map(str, summary["dimensions"]))),
        (
            name("expert"),
            f"{roles.get('expert', 0)} ({fmt_int(per_role.get('expert', 0))} ratings)",
        ),
        (name("judge"), f"{roles.get('judge', 0)} ({fmt_int(per_role.get('judge', 0))} verdicts)"),
        ("presentation orders", ", ".join(map(str, summary.get("orders", []))) or "–"),
        ("rating rows", fmt_int(summary["n_ratings"])),
        ("rows by parse status", ", ".join(f"{k} {fmt_int(v)}" for k, v in status.items())),
        ("rows without a usable value", fmt_int(summary["verdicts_without_value"])),
        ("duplicate rows", fmt_int(summary.get("duplicates", 0))),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"])


def _in_order(frame: pd.DataFrame, order: list[str] | None) -> pd.DataFrame:
    """Rows of ``frame`` with judges in the report's one order (the leaderboard's)."""
    if not order:
        return frame
    rank = {j: i for i, j in enumerate(order)}
    key = frame["judge"].astype(str).map(lambda j: rank.get(j, len(rank)))
    return frame.assign(_o=key).sort_values("_o", kind="stable").drop(columns="_o")


def parse_status_table(study: Study, order: list[str] | None = None) -> pd.DataFrame:
    """Rows per rater and parse status, with the share of rows without a usable value.

    A ``partial`` row may still carry a value (the dimensions that parsed), so the share is
    computed from the rows *without a value*, as in :func:`unusable_reasons_table`.
    """
    t = study.rater_table().copy()
    no_value = study.ratings.groupby("rater")["value"].apply(lambda v: int(v.isna().sum()))
    t["no usable value"] = t["rater"].map(no_value).fillna(0).astype(int)
    t["share unusable"] = [
        fmt_num(k / n, 3) if n else "–"
        for k, n in zip(t["no usable value"], t["total"], strict=True)
    ]
    t = t.drop(columns=[c for c in ("broadcast", "missing") if c in t and not t[c].any()])
    if order:
        rank = {j: i for i, j in enumerate(order)}
        t["_o"] = [
            (0 if r == "expert" else 1, rank.get(n, len(rank)))
            for r, n in zip(t["role"], t["rater"], strict=True)
        ]
        t = t.sort_values("_o", kind="stable").drop(columns="_o")
    for c in t.columns:
        if c not in ("role", "rater", "share unusable"):
            t[c] = [fmt_int(v) for v in t[c]]
    return t.reset_index(drop=True)


def unusable_reasons_table(study: Study) -> pd.DataFrame:
    """Display rows of :func:`medjudge.data.accounting.unusable_reasons`, with the total."""
    t = unusable_reasons(study)
    if t.empty:
        return pd.DataFrame({"reason": ["(none: every row has a usable value)"], "rows": ["0"]})
    rows = [(k, fmt_int(v)) for k, v in zip(t["reason"], t["rows"], strict=True)]
    rows.append(("total", fmt_int(int(t["rows"].sum()))))
    return pd.DataFrame(rows, columns=["reason", "rows"])


def gold_table(summary: Mapping[str, Any]) -> pd.DataFrame:
    """Gold-label method and counts per dimension, from :meth:`Study.summary`."""
    rows = []
    mism = summary.get("supplied_vs_majority_mismatch", {})
    for dim, g in summary.get("gold", {}).items():
        row = {"dimension": dim, "method": g.get("method", "none")}
        row["items with gold"] = fmt_int(g.get("with_gold", 0))
        row["items without gold"] = fmt_int(g.get("no_gold", 0))
        if mism:
            row["supplied ≠ expert majority"] = fmt_int(mism.get(dim, 0))
        rows.append(row)
    return pd.DataFrame(rows)


def not_run(study: Study, dimension: str) -> dict[str, int]:
    """Items on which a judge has no verdict row at all on ``dimension`` (it was not run on
    them), per judge with at least one such item."""
    r = study.ratings
    sub = r[(r["role"] == "judge") & (r["dimension"] == dimension)]
    have = sub.groupby("rater")["item"].nunique()
    n = len(study.items)
    return {j: n - int(have.get(j, 0)) for j in study.judges if n - int(have.get(j, 0)) > 0}


def coverage_findings(ctx: ReportContext) -> list[Finding]:
    """A caveat when judges were not run on every item: those items are left out of their
    estimates (not assigned), so judges given different items are ranked on different items."""
    study, head = ctx.study, ctx.headline
    lacking = not_run(study, head)
    if not lacking or len(study.judges) < 2:
        return []
    worst = max(lacking, key=lambda j: (lacking[j], j))
    judges = ctx.names_of("judge")
    text = (
        f"**{fmt_int(len(lacking))} of {fmt_int(len(study.judges))} {md(judges)} were not run on "
        f"every item**: they have no verdict at all on up to {fmt_int(lacking[worst])} of the "
        f"{fmt_int(len(study.items))} items of *{md(head)}* (e.g. {md(worst)}). An item a "
        f"{md(ctx.name('judge'))} was not given is neither wrong nor invalid: it is left out of "
        "that judge's accuracy under every invalid-verdict policy (counted as *not assigned*), "
        "two judges are compared on the items both were given, and each is compared with the "
        "trivial baseline on its own items; ranks across judges given different items compare "
        "accuracies on different items."
    )
    return [Finding(text, caveat="judges differ in the items they were run on", weight=12)]


def build(ctx: ReportContext) -> Section:
    study = ctx.study
    summary = study.summary()
    sec = Section(KEY, TITLE)
    n_bad = int(summary["verdicts_without_value"])
    n_rows = int(summary["n_ratings"])
    gold = gold_table(summary)
    gold_text = (
        " @tbl-data-gold states how the gold label was derived in each dimension and how many "
        "items have none."
        if len(gold)
        else " No gold label could be derived in any dimension."
    )
    sec.text(
        "@tbl-data-summary counts what was read. Every output was parsed into a verdict or given "
        "a status that says why it could not be (@tbl-data-status; the reasons in "
        "@tbl-data-reasons); nothing was dropped. Rows without a usable value: "
        f"{md(ctx.unusable_rule())}." + gold_text
    )
    sec.table("tbl-data-summary", "What was read.", summary_table(summary, ctx))
    order = None
    if study.judges:
        if why_no_judge_evaluation(ctx) is None:
            order = [str(j) for j in headline_board(ctx)["judge"]]
    if study.judges and len(study.judges) <= 40:
        sec.text("@fig-data-status shows the parse status of each judge's rows as shares.")
        sec.figure(
            "fig-data-status",
            f"Parse status of the verdict rows (share of rows per {md(ctx.name('judge'))}).",
            lambda: at_page_width(parse_status_bars(_in_order(parse_status(study), order))),
        )
    sec.table(
        "tbl-data-status",
        "Rating rows per rater and parse status; *no usable value* counts rows without a "
        "verdict (a *partial* row keeps the dimensions that parsed).",
        parse_status_table(study, order),
    )
    sec.table(
        "tbl-data-reasons",
        f"Why rows have no usable value (each row counted once; total {fmt_int(n_bad)}).",
        unusable_reasons_table(study),
    )
    if len(gold):
        sec.table(
            "tbl-data-gold",
            "Gold label per dimension; items without gold are left out of every comparison with gold "
            "and counted.",
            gold,
        )
    if n_bad:
        share = n_bad / n_rows if n_rows else 0.0
        sec.findings.append(
            Finding(
                f"{fmt_int(n_bad)} of {fmt_int(n_rows)} rating rows ({fmt_num(100 * share, 1)}%) "
                f"had no usable value ({md(ctx.unusable_rule())}).",
                weight=0.5 + share,
            )
        )
    sec.findings.extend(coverage_findings(ctx))
    sec.methods.append(
        "Judge outputs were parsed into verdicts with a status per row (ok, partial, broadcast, "
        f"invalid, missing); the {fmt_int(n_bad)} rows without a usable value were kept "
        f"({md(ctx.unusable_rule())})."
    )
    return sec
