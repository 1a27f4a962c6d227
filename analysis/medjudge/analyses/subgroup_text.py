"""The subgroup analyses as terminal text: the accuracy per judge x cell, the heterogeneity tests,
the per-judge effect of the attribute and the best judge per cell (what ``medjudge subgroups``
prints; ``--json`` prints the tables themselves)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd

from ._result import frame_text


@contextmanager
def _display() -> Iterator[None]:
    with pd.option_context(
        "display.width", 160, "display.max_rows", 60, "display.float_format", "{:.3f}".format
    ):
        yield


def _commented(text: str) -> str:
    return "\n".join(f"# {line}" for line in text.splitlines())


def breakdown_text(b: Any, *, width: int = 100) -> str:
    """A :class:`~.subgroup_results.SubgroupAccuracy`: its summary, then the cells."""
    cols = ["judge", *b.by, "estimate", "ci_low", "ci_high", "n", "small"]
    with _display():
        return _commented(b.summary()) + "\n" + frame_text(
            b.table("cells")[cols], 60, width=width, index=False
        )  # fmt: skip


def heterogeneity_text(h: Any, *, width: int = 100) -> str:
    """A :class:`~.subgroup_results.Heterogeneity`: its summary, then the tests."""
    cols = ["judge", "dimension", "estimate", "test", "p_value", "p_adjusted", "chi2", "I2"]
    with _display():
        return "\n" + _commented(h.summary()) + "\n" + frame_text(
            h.table("tests")[cols], 80, width=width, index=False
        )  # fmt: skip


def effects_text(effects: pd.DataFrame, attribute: str, *, width: int = 100) -> str:
    """:func:`~.heterogeneity.organ_effect_tests`' table: the test and adjustment, then a row
    per judge (an untested row says why in ``note``, never a bare NaN)."""
    eff = effects.copy()
    words = "; ".join(str(eff[c].iloc[0]) for c in ("test", "adjustment") if len(eff))
    if "note" in eff.columns:
        untested = eff["pvalue"].isna() & eff["note"].astype(str).ne("")
        for c in ("wald_chi2", "pvalue", "p_holm", "flag"):
            if c in eff.columns:
                eff[c] = eff[c].astype(object).where(~untested, "—")
    cols = ["judge", "wald_chi2", "df", "pvalue", "p_holm", "flag"]
    cols += ["note"] if "note" in eff.columns and eff["note"].astype(str).ne("").any() else []
    with _display():
        return f"\n# {attribute} effect per judge ({words})\n" + frame_text(
            eff[cols], 80, width=width, index=False
        )  # fmt: skip


def best_text(best: pd.DataFrame, n_judges: int, *, width: int = 100) -> str:
    """:func:`~.subgroups.best_judge_by_subgroup`' table: the runner-up test and the best-set
    method, then a row per cell (or why no best judge was computed)."""
    if best.empty or "test" not in best.columns:
        return (
            f"\n# best judge per cell: not computed ({n_judges} judge; a best judge needs two "
            "to compare)"
        )
    lines = [
        "\n# best judge per cell; runner-up: " + "; ".join(dict.fromkeys(best["test"].astype(str)))
    ]
    lines += [f"# best set: {m}" for m in dict.fromkeys(best["best_set_method"].astype(str))]
    shown = best.drop(columns=["ci_method", "test", "best_set_method"])
    with _display():
        return "\n".join([*lines, frame_text(shown, 60, width=width, index=False)])
