"""The key findings of an :class:`~medjudge.analyses.audit.AuditReport`, in words.

The reliability sentences of the audit report (and of ``AuditReport.findings()``) are built
here from the reliability table's own columns: the coefficient that ranks a dimension, its
weights, estimate, interval and level, the items it used, and the disputed items.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ._findings import PLAIN, Finding, Markup, Names, fmt_ci, fmt_int, fmt_level, fmt_num
from ._findings import role_names as _role_names
from .audit_tables import coefficient_label

#: Subgroups (and annotators, in findings) with fewer items than this are flagged as too small.
MIN_ITEMS = 10


def one_level(levels: Iterable[Any]) -> str:
    """The confidence level of a set of intervals as text (``"95%"``); all must be equal."""
    vals = sorted({round(float(v), 12) for v in levels if v is not None and np.isfinite(float(v))})
    if len(vals) != 1:
        raise ValueError(f"intervals with different confidence levels {vals} under one header")
    return fmt_level(vals[0])


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def method_words(values: Iterable[Any], markup: Markup = PLAIN) -> str:
    """The distinct interval methods of a set of rows, in order of first appearance; methods
    that differ only in whole numbers (the clusters of each subgroup) are named once with the
    range: ``cluster jackknife (19–185 clusters, t df=18–184)``."""
    seen = [str(v) for v in dict.fromkeys(values) if isinstance(v, str) and v]
    groups: dict[str, list[str]] = {}
    for v in seen:
        whole = all("." not in x for x in _NUMBER.findall(v))
        groups.setdefault(_NUMBER.sub("\0", v) if whole else v, []).append(v)
    out = []
    for key, members in groups.items():
        if len(members) == 1:
            out.append(members[0])
            continue
        cols = zip(*(_NUMBER.findall(m) for m in members), strict=True)
        spans = [f"{min(c, key=int)}–{max(c, key=int)}" if len(set(c)) > 1 else c[0] for c in cols]
        parts = key.split("\0")
        out.append(parts[0] + "".join(n + p for n, p in zip(spans, parts[1:], strict=True)))
    return "; ".join(markup.data(v) for v in out) if out else "no interval"


def n_items(n: Any, unit: str = "items") -> str:
    """``"n = 827 items"``, flagged when below :data:`MIN_ITEMS` (too few to read much into).

    >>> n_items(827), n_items(1), n_items(4, "items with at least two labels")
    ('n = 827 items', 'n = 1 item, fewer than 10: too few to judge', \
'n = 4 items with at least two labels, fewer than 10: too few to judge')
    """
    k = int(n)
    head, _, rest = unit.partition(" ")
    word = " ".join(filter(None, [head[:-1] if k == 1 and head.endswith("s") else head, rest]))
    text = f"n = {fmt_int(k)} {word}"
    return text + (f", fewer than {MIN_ITEMS}: too few to judge" if k < MIN_ITEMS else "")


def primary(rel: pd.DataFrame, dimension: str) -> pd.Series | None:
    """The chance-corrected coefficient that ranks a dimension: Fleiss' κ for labels (nominal,
    ordinal), Krippendorff's α with its metric for scores (interval, ratio)."""
    rows = rel[rel["dimension"] == dimension]
    level = str(rows["measurement"].iloc[0]) if len(rows) and "measurement" in rows else ""
    order = ("krippendorff_alpha",) if level in ("interval", "ratio") else ("fleiss_kappa",)
    for coef in (*order, "fleiss_kappa", "krippendorff_alpha"):
        r = rel[(rel["dimension"] == dimension) & (rel["coefficient"] == coef)]
        if len(r) and np.isfinite(float(r.iloc[0]["estimate"])):
            return r.iloc[0]
    return None


def worst_and_best(rel: pd.DataFrame) -> tuple[pd.Series, pd.Series] | None:
    """The rows of the lowest and highest agreeing dimension (by :func:`primary`); None with
    fewer than two dimensions or when the dimensions use different coefficients."""
    rows = [r for d in dict.fromkeys(rel["dimension"]) if (r := primary(rel, d)) is not None]
    if len(rows) < 2 or len({r["coefficient"] for r in rows}) > 1:
        return None
    rows.sort(key=lambda r: (float(r["estimate"]), str(r["dimension"])))
    return rows[0], rows[-1]


def _n_used(r: pd.Series) -> str:
    """The n the coefficient used: items with at least two labels (said so when some items
    have one label only, which the coefficient cannot use)."""
    n, used = int(r["n"]), int(r.get("n_pairable", r["n"]))
    return n_items(used) if used == n else n_items(used, "items with at least two labels")


def _coefficient(r: pd.Series, lvl: str, what: str, markup: Markup) -> str:
    return (
        f"{coefficient_label(r['coefficient'], r['weights'])} = {fmt_num(r['estimate'], 3)} "
        f"({lvl} CI {fmt_ci(r['ci_low'], r['ci_high'], 3)}, {_n_used(r)}) "
        f"on {markup.em_data(r['dimension'])}{what}"
    )


def reliability_findings(
    au: Any, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
) -> list[Finding]:
    """How well the experts agree on ``dimension`` (default: the audit's headline) by the
    coefficient that ranks it, with the disputed items and a caveat below 0.6; then, with
    several dimensions on one coefficient, the least and the most agreed-on dimension and
    whether their intervals overlap."""
    rel = au.reliability
    if rel.empty or "level" not in rel:
        return []
    head = dimension if dimension is not None else au.settings.get("headline")
    if head is None:
        head = str(rel["dimension"].iloc[0])
    lvl = one_level(rel["level"])
    experts = markup.role(names, "expert")
    raw = names or _role_names
    out = []
    r = primary(rel, head)
    if r is not None:
        n_disp = au.dimensions.get(head, {}).get("n_disputed")
        tail = (
            f"; {fmt_int(n_disp)} items have at least one dissenting label."
            if n_disp is not None
            else "."
        )
        scores = str(r.get("measurement")) in ("interval", "ratio")
        caveat = (
            f"{raw('expert', 1)} agreement below 0.6 limits how well any {raw('judge', 1)} can "
            "be measured against their " + ("scores" if scores else "labels")
            if float(r["estimate"]) < 0.6
            else None
        )
        text = f"The {experts} agree with " + _coefficient(r, lvl, tail, markup)
        out.append(Finding(text, caveat=caveat, weight=8))
    wb = worst_and_best(rel)
    if wb is not None:
        worst, best = wb
        n_dims = len(dict.fromkeys(rel["dimension"]))
        apart = float(worst["ci_high"]) < float(best["ci_low"])
        out.append(
            Finding(
                f"Across the {fmt_int(n_dims)} dimensions, the {experts} agree least with "
                + _coefficient(worst, lvl, "", markup)
                + " and most with "
                + _coefficient(best, lvl, ".", markup)
                + (
                    " The two intervals do not overlap." if apart else " The two intervals overlap."
                ),
                weight=7.5,
            )
        )
    return out


def least_in_line(au: Any) -> tuple[pd.Series | None, int, list[pd.Series]] | None:
    """The annotator x dimension row with the lowest κ against the others' majority, among rows
    resting on at least :data:`MIN_ITEMS` items whose κ is informative; how many rows had fewer
    items; and the rows whose κ is *degenerate* (a zero-width interval: every resample gives
    the same κ, as when the others' majority or the annotator's labels hardly vary — the
    prevalence paradox, κ near 0 at high raw agreement). A degenerate κ says nothing about
    who is out of line, so those rows are listed, not ranked."""
    rows, small, flat = [], 0, []
    for dim, d in au.dimensions.items():
        a = d.get("annotators")
        if a is None or len(a) < 2:
            continue
        k = a["kappa"].astype(float)
        width = a["kappa_high"].astype(float) - a["kappa_low"].astype(float)
        big = a["n"] >= MIN_ITEMS
        small += int((~big).sum())
        ok = a[big & np.isfinite(k) & (width > 0)]
        degenerate = a[big & np.isfinite(k) & ~(width > 0)]
        rows += [pd.concat([r, pd.Series({"dimension": dim})]) for _, r in ok.iterrows()]
        flat += [pd.concat([r, pd.Series({"dimension": dim})]) for _, r in degenerate.iterrows()]
    if not rows and not flat:
        return None
    rows.sort(key=lambda r: (float(r["kappa"]), str(r["dimension"]), str(r["rater"])))
    return (rows[0] if rows else None), small, flat


def annotator_findings(
    au: Any, *, names: Names | None = None, markup: Markup = PLAIN
) -> list[Finding]:
    """The annotator least in line with the others' majority (Cohen's κ with interval, n and
    method; raw agreement), the rows whose κ is not informative (zero-width interval) and how
    many rows rest on too few items to be ranked (:func:`least_in_line`)."""
    low = least_in_line(au)
    if low is None:
        return []
    r, small, flat = low
    expert = markup.role(names, "expert", 1)
    text = ""
    if r is not None:
        text = (
            f"The {expert} least in line with the others is {markup.strong_data(r['rater'])} on "
            f"{markup.em_data(r['dimension'])}: Cohen's κ with the others' majority "
            f"{fmt_num(r['kappa'], 3)} ({one_level([r['level']])} CI "
            f"{fmt_ci(r['kappa_low'], r['kappa_high'], 3)}, {n_items(r['n'])}; "
            f"{markup.data(r['kappa_ci_method'])}); raw agreement {fmt_num(r['agreement'], 3)}."
        )
    if flat:
        who = ", ".join(
            f"{markup.data(f['rater'])} ({markup.data(f['dimension'])})" for f in flat[:5]
        )
        agree = [float(f["agreement"]) for f in flat]
        text += (
            f" κ is not informative for {fmt_int(len(flat))} {expert} × dimension "
            f"row{'s' if len(flat) != 1 else ''} ({who}{', …' if len(flat) > 5 else ''}): "
            "its interval has zero width, as when the others' majority or the "
            f"{expert}'s labels hardly vary (raw agreement "
            f"{fmt_num(min(agree), 3)}–{fmt_num(max(agree), 3)}); "
            + ("they are not ranked." if r is not None else "no one is named least in line.")
        )
    if small:
        text += (
            f" {fmt_int(small)} {expert} × dimension rows rest on fewer than "
            f"{MIN_ITEMS} items and were not ranked."
        )
    return [Finding(text.strip(), weight=4)]
