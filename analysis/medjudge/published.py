"""Rerunning published analyses on public data: ``mj.published``.

Helpers the self-checking notebooks in ``notebooks/`` use to set a published number beside the
one medjudge reproduces, and to read upstream files in their own formats. No statistic lives
here: estimates, intervals and tests come from the front door (``import medjudge as mj``).

* :func:`check_published` prints a *published vs reproduced* table and raises
  ``AssertionError`` when any reproduced value drifts from its published (or independently
  computed) value by more than the stated tolerance, so a notebook run fails.
* :func:`fmt_ci` writes ``'0.712 [0.684, 0.739]'`` for tables read by people.
* :func:`parse_pct` reads upstream ``"k / n = p%"`` strings (LLMBar ``statistics.json``).
* :func:`parse_choices` reads a model's raw multiple-choice answers (MedPAIR's GPT-4o answers)
  into option letters, counting every status.
* :func:`reference_rule_parse` / :func:`reference_rule_table` replay the Med-RewardBench
  reference evaluation rule exactly as its released code applies it (its parser, with its
  known faults, and ``correct / total`` over every ground-truth item, unparseable = wrong,
  rounded to 4 decimals). They exist only to reproduce the published procedure; the library's
  own parser (``mj.load``) does not repeat those faults.

Examples
--------
>>> import medjudge as mj
>>> mj.published.fmt_ci(0.7123, 0.6841, 0.7392)
'0.712 [0.684, 0.739]'
>>> mj.published.parse_pct("48 / 100 = 48.0%")
(48, 100, 0.48)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from medjudge.data.parse_choice import parse_choices
from medjudge.data.scale import MEDREWARDBENCH_DIMENSIONS

__all__ = [
    "check_published",
    "fmt_ci",
    "parse_choices",
    "parse_pct",
    "reference_rule_parse",
    "reference_rule_table",
]

TABLE_COLUMNS = ["quantity", "published", "reproduced", "tolerance", "source"]


def check_published(table: pd.DataFrame | Iterable[dict], *, show: bool = True) -> pd.DataFrame:
    """Compare published with reproduced values; raise ``AssertionError`` on drift.

    A row passes when ``|reproduced - published| <= tolerance`` (plus ``1e-12`` so that a
    tolerance written in decimals is not defeated by float rounding); a NaN on either side
    fails.

    Parameters
    ----------
    table : DataFrame or iterable of dict
        One row per checked number with columns ``quantity``, ``published``, ``reproduced``,
        ``tolerance`` (absolute) and ``source`` (where the published value comes from — say
        "SOURCE.md's own computation" when it is not a published number).
    show : bool, default True
        Print the table (and the count of values within tolerance).

    Returns
    -------
    DataFrame
        ``table`` with the columns ``abs_diff`` and ``ok``.

    Raises
    ------
    AssertionError
        When any row drifts beyond its tolerance (every such row is named).
    ValueError
        When ``table`` lacks one of the five columns.

    References
    ----------
    Peng, R. D. (2011). Reproducible research in computational science. Science 334:1226-1227.

    Examples
    --------
    >>> import medjudge as mj
    >>> t = mj.published.check_published([{"quantity": "kappa", "published": 0.85,
    ...     "reproduced": 0.8524, "tolerance": 0.005, "source": "README"}], show=False)
    all 1 values within tolerance
    >>> bool(t["ok"].all())
    True
    >>> mj.published.check_published([{"quantity": "kappa", "published": 0.85,
    ...     "reproduced": 0.86, "tolerance": 0.005, "source": "README"}], show=False)
    Traceback (most recent call last):
    ...
    AssertionError: 1 of 1 values drift beyond tolerance:
      kappa: published 0.85, reproduced 0.86, tolerance 0.005
    """
    t = pd.DataFrame(list(table) if not isinstance(table, pd.DataFrame) else table).copy()
    missing = [c for c in TABLE_COLUMNS if c not in t.columns]
    if missing:
        raise ValueError(f"check_published: table lacks columns {missing}")
    pub = pd.to_numeric(t["published"], errors="coerce").to_numpy(float)
    rep = pd.to_numeric(t["reproduced"], errors="coerce").to_numpy(float)
    tol = pd.to_numeric(t["tolerance"], errors="coerce").to_numpy(float)
    diff = np.abs(rep - pub)
    t["abs_diff"] = diff
    # a tiny slack so that e.g. |0.85 - 0.8524| <= 0.005 is not defeated by float rounding
    t["ok"] = np.isfinite(diff) & (diff <= tol + 1e-12)
    if show:
        with pd.option_context(
            "display.max_rows", 200, "display.width", 200, "display.max_colwidth", 60
        ):
            print(t[[*TABLE_COLUMNS, "abs_diff", "ok"]].to_string(index=False))
    bad = t[~t["ok"]]
    if len(bad):
        lines = [
            f"  {r.quantity}: published {r.published}, reproduced {r.reproduced}, tolerance {r.tolerance}"
            for r in bad.itertuples()
        ]
        raise AssertionError(
            f"{len(bad)} of {len(t)} values drift beyond tolerance:\n" + "\n".join(lines)
        )
    print(f"all {len(t)} values within tolerance")
    return t


_PCT = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*=\s*([-\d.]+)%\s*$")


def parse_pct(s: str) -> tuple[int, int, float]:
    """Parse an upstream ``"k / n = p%"`` string into ``(k, n, p/100)``.

    Parameters
    ----------
    s : str
        A count, its denominator and the rounded percentage, as LLMBar's ``statistics.json``
        stores them (``"48 / 100 = 48.0%"``).

    Returns
    -------
    tuple of (int, int, float)
        ``k``, ``n`` and the printed percentage divided by 100 (not ``k / n``: the rounding of
        the published string is kept, so that it can be compared with a reproduced rate).

    References
    ----------
    Zeng, Z. et al. (2024). Evaluating large language models at evaluating instruction
    following (LLMBar). ICLR 2024, arXiv:2310.07641.

    Examples
    --------
    >>> import medjudge as mj
    >>> mj.published.parse_pct("48 / 100 = 48.0%")
    (48, 100, 0.48)
    """
    m = _PCT.match(str(s))
    if not m:
        raise ValueError(f"not a 'k / n = p%' string: {s!r}")
    return int(m.group(1)), int(m.group(2)), float(m.group(3)) / 100.0


# ---------------------------------------------------------------------------------------------
# Med-RewardBench reference evaluation rule (protocol note §1.4), replayed for reproduction
# ---------------------------------------------------------------------------------------------
def reference_rule_parse(
    answer: object, dimensions: tuple[str, ...] = tuple(MEDREWARDBENCH_DIMENSIONS)
) -> dict | None:
    """The Med-RewardBench reference ``normalize_chosen_answer`` rule, faults included.

    1. JSON between the first ``{`` and the last ``}``: accepted only if every dimension is A/B.
    2. Else the first ``"?dim"?\\s*:\\s*"?([AB])"?`` per dimension (case-insensitive, no word
       boundary, so "Both" reads as B); all six must match.
    3. Else a ``[[A]]``/``[[B]]`` anywhere is copied to all six dimensions.
    4. Else exactly one standalone ``\\b[AB]\\b`` (case-insensitive: the article "a" counts)
       is copied to all six.
    5. Else the whole string ``A``/``B``; otherwise ``None`` (dropped, hence scored wrong).

    Parameters
    ----------
    answer : str or dict
        A judge's raw output (a dict is read as its JSON text).
    dimensions : tuple of str
        The six Med-RewardBench dimensions, in their order.

    Returns
    -------
    dict or None
        Dimension -> ``"A"``/``"B"``, or ``None`` when the rule finds no verdict.

    References
    ----------
    The Med-RewardBench release's evaluation code (``normalize_chosen_answer``); its faults are
    listed in :mod:`medjudge.data.parse`, the parser medjudge uses instead.

    Examples
    --------
    >>> import medjudge as mj
    >>> mj.published.reference_rule_parse("Both answers are equally good; it is a tie.")["overall"]
    'A'
    """
    if isinstance(answer, dict):
        answer = json.dumps(answer)
    s = str(answer).strip().strip('"')
    cand = s[s.find("{") : s.rfind("}") + 1] if ("{" in s and "}" in s) else s
    try:
        obj = json.loads(cand)
    except (ValueError, TypeError):
        obj = None
    if isinstance(obj, dict):
        vals = {d: str(obj.get(d, "")).strip().upper() for d in dimensions}
        if all(v in ("A", "B") for v in vals.values()):
            return vals
    found = {}
    for d in dimensions:
        m = re.search(rf'"?{d}"?\s*:\s*"?([AB])"?', s, flags=re.IGNORECASE)
        if m:
            found[d] = m.group(1).upper()
    if len(found) == len(dimensions):
        return found
    m = re.search(r"\[\[([AB])\]\]", s, flags=re.IGNORECASE)
    if m:
        return dict.fromkeys(dimensions, m.group(1).upper())
    lone = re.findall(r"\b([AB])\b", s, flags=re.IGNORECASE)
    if len(lone) == 1:
        return dict.fromkeys(dimensions, lone[0].upper())
    if s.upper() in ("A", "B"):
        return dict.fromkeys(dimensions, s.upper())
    return None


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def reference_rule_table(bundle: str | Path, judge_files: dict[str, str | Path]) -> pd.DataFrame:
    """Per organ x judge accuracies exactly as the reference ``evaluate_accuracy`` computes them.

    For each organ file ``pair_gt_all/<organ>.jsonl`` and each judge: ``total`` counts every
    ground-truth item, ``correct`` counts items whose prediction, parsed by
    :func:`reference_rule_parse`, equals ``human_answer[dim]``; unparseable or missing
    predictions are wrong; ``round(correct / total, 4)``.

    Parameters
    ----------
    bundle : str or Path
        A Med-RewardBench bundle (the folder holding ``pair_gt_all/``).
    judge_files : dict
        Judge name -> its predictions file (``predictions/pair_<judge>.jsonl``).

    Returns
    -------
    DataFrame
        One row per (organ, judge): ``modality``, ``model``, ``<dim>_acc`` per dimension, and
        the counts ``n_items`` and ``n_unparseable`` (the reference prints the latter and never
        tabulates it).

    References
    ----------
    The Med-RewardBench release's evaluation code (``evaluate_accuracy``).

    Examples
    --------
    >>> import medjudge as mj
    >>> folder = mj.datasets.demo_path()
    >>> t = mj.published.reference_rule_table(
    ...     folder, {"sim-general-8b": folder / "predictions" / "pair_sim-general-8b.jsonl"})
    >>> len(t), int(t["n_items"].sum())
    (13, 1026)
    """
    bundle = Path(bundle)
    dims = tuple(MEDREWARDBENCH_DIMENSIONS)
    preds: dict[str, dict[str, dict | None]] = {}
    for judge, f in judge_files.items():
        preds[judge] = {
            r["question_id"]: reference_rule_parse(r["chosen_answer"]) for r in _read_jsonl(Path(f))
        }
    rows = []
    for gt_file in sorted((bundle / "pair_gt_all").glob("*.jsonl")):
        gt = {r["question_id"]: r["human_answer"] for r in _read_jsonl(gt_file)}
        for judge, pj in preds.items():
            row: dict[str, object] = {"modality": gt_file.stem, "model": judge}
            for d in dims:
                correct = sum(
                    1 for q, h in gt.items() if isinstance(pj.get(q), dict) and pj[q].get(d) == h[d]
                )
                row[f"{d}_acc"] = round(correct / len(gt), 4) if gt else 0
            row["n_items"] = len(gt)
            row["n_unparseable"] = sum(1 for q in gt if pj.get(q) is None)
            rows.append(row)
    return pd.DataFrame(rows)


def fmt_ci(est: float, lo: float, hi: float, digits: int = 3) -> str:
    """``'0.712 [0.684, 0.739]'``: an estimate and its interval, for tables read by people.

    Parameters
    ----------
    est, lo, hi : float
        The estimate and the interval's limits.
    digits : int, default 3
        Decimals shown.

    Returns
    -------
    str
        ``"est [lo, hi]"``, or ``"nan"`` when the estimate is not finite.

    References
    ----------
    Altman, D. G. et al. (2000). Statistics with Confidence, 2nd ed., BMJ Books (an estimate
    reported with its interval).

    Examples
    --------
    >>> import medjudge as mj
    >>> mj.published.fmt_ci(0.7123, 0.6841, 0.7392)
    '0.712 [0.684, 0.739]'
    >>> mj.published.fmt_ci(0.7123, 0.6841, 0.7392, digits=2)
    '0.71 [0.68, 0.74]'
    """
    if not math.isfinite(est):
        return "nan"
    return f"{est:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
