"""``run``'s tables of judges against gold (categorical dimensions) and of score dimensions.

Written into ``--out`` beside ``accuracy.csv``:

* ``judge_vs_gold.csv`` — accuracy, Cohen's (weighted) kappa and, on ordinal dimensions, the
  rates of calling too low / too high, for every judge *and* the trivial baselines;
* ``per_class.csv`` — per-class recall and precision with intervals;
* ``confusion.csv`` — the confusion matrices (long: gold × predicted counts);
* ``baseline_tests.csv`` — each judge against the best trivial baseline (paired);
* ``scores.csv`` / ``score_reliability.csv`` — score dimensions: error, correlations, CCC, ICC
  and Bland–Altman limits against gold (and each expert against the others), ICC within roles.

Each part that does not apply to the study is named with the reason on standard output.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from medjudge.stats.resampling import Bootstrap

from ..analyses.judge_vs_gold import judge_vs_gold
from ..data.model import Study
from ..report.escape import write_csv

if TYPE_CHECKING:
    from ..analyses.judge_vs_gold import JudgeGoldResult
    from ..analyses.score_study import ScoreStudyResult


@dataclass
class GoldTables:
    """What :func:`compute_gold_tables` found, for :func:`write_gold_tables`."""

    judges: JudgeGoldResult | None = None  # None: no categorical dimension, or see ``why``
    why_not: str | None = None  # why the judges were not compared with gold
    scores: ScoreStudyResult | None = None  # None: no score dimension


def compute_gold_tables(
    study: Study,
    *,
    seed: int,
    n_resamples: int,
    confidence_level: float = 0.95,
    policy: str = "wrong",
    gold: str = "auto",
    cluster: str | None = "auto",
) -> GoldTables:
    """Judges against gold on the categorical dimensions and the score tables (nothing
    printed or written; :func:`write_gold_tables` does that)."""
    parts = GoldTables()
    cat = [d for d in study.dimensions if study.scales[d].is_categorical]
    num = [d for d in study.dimensions if not study.scales[d].is_categorical]
    if cat and study.judges:
        try:
            parts.judges = judge_vs_gold(
                study, dimensions=cat, bootstrap=Bootstrap(n_resamples, seed),
                confidence_level=confidence_level, policy=policy, gold=gold, cluster=cluster,
            )  # fmt: skip
        except ValueError as exc:  # e.g. no gold can be derived
            parts.why_not = str(exc)
    elif cat:
        parts.why_not = "the study has no judges"
    if num:
        from ..analyses.score_study import score_study  # scipy.stats: 0.6 s, scores only

        parts.scores = score_study(
            study, dimensions=num, bootstrap=Bootstrap(n_resamples, seed),
            confidence_level=confidence_level, gold=gold, cluster=cluster,
        )  # fmt: skip
    return parts


def write_gold_tables(parts: GoldTables, out: Path) -> list[Path]:
    """Write the tables above into ``out``; print the headlines. Returns the files written."""
    written: list[Path] = []
    jg = parts.judges
    if parts.why_not is not None:
        print(f"\njudges against gold: not computed ({parts.why_not})")
    elif jg is not None:
        print("\njudges against gold and the trivial baselines:")
        for d in jg.settings["dimensions"]:
            print(f"  {jg.headline[d]}")
        for name, fname in (
            ("metrics", "judge_vs_gold.csv"),
            ("classes", "per_class.csv"),
            ("confusion", "confusion.csv"),
            ("baseline_tests", "baseline_tests.csv"),
        ):
            write_csv(jg.wide(name), out / fname, decimals=6)
            written.append(out / fname)
    sc = parts.scores
    if sc is not None:
        print("\nscore dimensions:")
        for d in sc.settings["dimensions"]:
            print(f"  {sc.headline[d]}")
        for part, why in sc.not_applicable.items():
            print(f"  not computed: {part}: {why}")
        for name, fname in (("metrics", "scores.csv"), ("reliability", "score_reliability.csv")):
            write_csv(sc.wide(name), out / fname, decimals=6)
            written.append(out / fname)
    return written
