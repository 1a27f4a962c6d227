"""Reporting checklists (TRIPOD-LLM 2025, STARD 2015) filled from a study and its report.

The items and their wording are data: ``report/assets/checklist-<name>.toml``, each with the
guideline's citation; nothing here adds an item or rewords one. :func:`fill_checklist` answers
the items that the study's own design and results answer — with the report section that shows
it and a sentence built from the study — and marks every other item for the authors to
supply. An item is *answered* when the report holds everything it asks, *partly* when it
holds the numbers but the item also asks for something only the authors know (who the experts
are, why a sample size was chosen, the prompts), and *authors* otherwise.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from ..analyses.design import resolve_clusters
from .tables import fmt_int

__all__ = ["CHECKLISTS", "Checklist", "load_checklist", "fill_checklist"]

#: ``--checklist`` names and their data files (``report/assets/checklist-<name>.toml``)
CHECKLISTS = ("tripod-llm", "stard")

STATUS = {"answered": "answered here", "partly": "partly answered here", "authors": "authors"}


@dataclass(frozen=True)
class Checklist:
    """A guideline's items (``id, section, text`` and any applicability codes) and citation."""

    key: str
    name: str
    citation: str
    reading: str
    items: pd.DataFrame


def load_checklist(name: str) -> Checklist:
    """The checklist ``name`` (one of :data:`CHECKLISTS`) from its data file.

    >>> c = load_checklist("stard")
    >>> c.name, len(c.items), c.items.iloc[0]["id"]
    ('STARD 2015', 34, '1')
    """
    if name not in CHECKLISTS:
        raise ValueError(f"checklist must be one of {', '.join(CHECKLISTS)}, not {name!r}")
    path = resources.files("medjudge.report") / "assets" / f"checklist-{name}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return Checklist(name, data["name"], data["citation"], data["reading"],
                     pd.DataFrame(data["item"]).fillna(""))  # fmt: skip


class _Facts:
    """What the study and the built sections say, read once for every item."""

    def __init__(self, ctx: Any, sections: Sequence[Any]) -> None:
        self.ctx, s = ctx, ctx.study
        # Methods is built last (from the others) and is in every report
        self.applied = {x.key: x.title for x in sections if x.applies} | {"methods": "Methods"}
        self.study = s
        self.head = ctx.headline
        self.n_items = len(s.item_ids)
        self.judges, self.experts = list(s.judges), list(s.experts)
        scale = s.scales[self.head]
        self.categories = list(scale.categories) if scale.is_categorical else None
        self.scale_words = (
            f"categories {', '.join(map(str, self.categories))}"
            if self.categories
            else f"scores from {scale.low:g} to {scale.high:g}"
        )
        try:
            g = s.gold(self.head)
            self.gold = (
                f"{g.rule}; {fmt_int(g.n_with_gold)} of {fmt_int(self.n_items)} items have one"
            )
            self.no_gold = self.n_items - g.n_with_gold
        except ValueError as exc:  # no gold rule applies to this study
            self.gold, self.no_gold = None, None
            self.gold_why = str(exc)
        self.multi = None
        if self.experts:
            m = s.matrix(self.head, role="expert").values
            self.multi = int((np.isfinite(m).sum(1) >= 2).sum())
        r = s.ratings
        judge_rows = r[(r["role"] == "judge") & (r["dimension"] == self.head)]
        self.unusable = int(judge_rows["status"].isin(["invalid", "missing"]).sum())
        self.n_verdicts = len(judge_rows)

        c = resolve_clusters(s, "auto")
        self.clusters = None if c.labels is None else (c.column, int(pd.unique(c.labels).size))

    def at(self, *keys: str) -> str | None:
        """``section 'Title'`` of the first of ``keys`` this report shows, else None."""
        for k in keys:
            if k in self.applied:
                return f"section '{self.applied[k]}'"
        return None

    def design(self) -> str:
        j, e = len(self.judges), len(self.experts)
        words = (
            f"{fmt_int(self.n_items)} items, {fmt_int(j)} {self.ctx.names_of('judge', j)} and "
            f"{fmt_int(e)} {self.ctx.names_of('expert', e)}; headline dimension "
            f"'{self.head}' with {self.scale_words}"
        )
        if self.clusters:
            words += f"; items in {fmt_int(self.clusters[1])} clusters ('{self.clusters[0]}')"
        return words

    def annotation(self) -> str | None:
        if not self.experts or self.multi is None:
            return None
        return (
            f"{fmt_int(len(self.experts))} {self.ctx.names_of('expert', len(self.experts))}; "
            f"{fmt_int(self.multi)} of {fmt_int(self.n_items)} items labelled by two or more"
        )

    def handling(self) -> str:
        return (
            f"{self.ctx.unusable_rule()}; {fmt_int(self.unusable)} of "
            f"{fmt_int(self.n_verdicts)} verdicts on '{self.head}' unusable"
            + (
                f"; {fmt_int(self.no_gold)} items without a gold label left out"
                if self.no_gold
                else ""
            )  # fmt: skip
        )


Answer = Callable[[_Facts], "tuple[str, str] | None"]


def _with(status: str, where: str | None, what: str | None) -> tuple[str, str] | None:
    if what is None:
        return None
    return status, (f"{where}: {what}" if where else what)


def _tripod(f: _Facts) -> dict[str, Answer]:
    cal = f.at("calibration")
    return {
        "5b": lambda f: _with("answered", f.at("data"), f.design()),
        "5e": lambda f: _with("answered", f.at("sensitivity", "data"), f.handling()),
        "6d": lambda f: _with("partly", f.at("data"), "verdicts parsed to "
                              f"{f.scale_words}; unparseable outputs counted as unusable"),
        "6e": lambda f: _with("partly", cal, "calibration of the stated confidences")
        if cal else None,
        "7a": lambda f: _with("answered", f.at("leaderboard", "scores"),
                              f"accuracy against the gold label ({f.gold}), with intervals")
        if f.gold else None,
        "7c": lambda f: _with("partly", f.at("methods"), "outcome = agreement with the gold "
                              f"label ({f.gold}); metrics and intervals as listed")
        if f.gold else None,
        "7d": lambda f: _with("partly", f.at("reliability", "annotators", "data"),
                              f.annotation()),
        "7e": lambda f: _with("answered", f.at("pairwise", "leaderboard", "judge-vs-experts"),
                              "pairwise tests between judges and the comparison with the "
                              "experts"),
        "8b": lambda f: _with("answered", f.at("reliability", "data"), f.annotation()),
        "16a": lambda f: _with("partly", f.at("data"), f.design() + "; " + f.handling()),
        "17": lambda f: _with("answered", f.at("leaderboard", "scores", "judge-vs-experts"),
                              "performance with intervals for every judge"),
        "19b": lambda f: _with("partly", f.at("methods"), "statistical uncertainty: every "
                               f"estimate has a {f.ctx.level} interval"),
    }  # fmt: skip


def _stard(f: _Facts) -> dict[str, Answer]:
    return {
        "10a": lambda f: _with("partly", f.at("data"), f"{fmt_int(len(f.judges))} judges "
                               "and their presentation design (prompts: the authors)")
        if f.judges else None,
        "10b": lambda f: _with("partly", f.at("methods", "data"), f.gold) if f.gold else None,
        "12a": lambda f: _with("partly", f.at("data"), f"result categories: {f.scale_words}"),
        "12b": lambda f: _with("partly", f.at("data"), f"result categories: {f.scale_words}"),
        "14": lambda f: _with("answered", f.at("methods"), "accuracy, kappa and their "
                              "intervals and tests as listed in Methods"),
        "15": lambda f: _with("answered", f.at("sensitivity", "data"), f.handling()),
        "16": lambda f: _with("answered", f.at("data"), f.handling()),
        "17": lambda f: _with("partly", f.at("subgroups", "heterogeneity",
                                             "subgroup-reliability"),
                              "accuracy by subgroup (pre-specified or exploratory: the "
                              "authors)") if f.at("subgroups", "heterogeneity",
                                                  "subgroup-reliability") else None,
        "18": lambda f: _with("partly", f.at("data"), f"{fmt_int(f.n_items)} items analysed "
                              "(how the size was chosen: the authors)"),
        "19": lambda f: _with("partly", f.at("data"), f.design() + "; " + f.handling()),
        "23": lambda f: _with("answered", f.at("judge-vs-gold"), "confusion matrices of the "
                              "verdicts against the gold label") if f.at("judge-vs-gold") else None,
        "24": lambda f: _with("answered", f.at("leaderboard", "judge-vs-experts"),
                              f"accuracy with {f.ctx.level} intervals")
        if f.at("leaderboard", "judge-vs-experts") else None,
        "26": lambda f: _with("partly", f.at("methods"), "statistical uncertainty: every "
                              f"estimate has a {f.ctx.level} interval"),
    }  # fmt: skip


def fill_checklist(name: str, ctx: Any, sections: Sequence[Any]) -> pd.DataFrame:
    """Every item of checklist ``name`` with ``status`` (answered / partly / authors) and
    ``where`` (the report section and what it gives; empty for the authors' items).

    ``ctx`` is the report's :class:`~medjudge.report.context.ReportContext` and ``sections``
    the sections built for it (a pointer names only a section this report shows).
    """
    c = load_checklist(name)
    facts = _Facts(ctx, sections)
    answers = (_tripod if name == "tripod-llm" else _stard)(facts)
    status, where = [], []
    for item in c.items["id"]:
        got = answers[item](facts) if item in answers else None
        status.append(got[0] if got else "authors")
        where.append(got[1] if got else "")
    return c.items.assign(status=status, where=where)
