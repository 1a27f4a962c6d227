"""Judge calibration: does a judge's stated confidence match how often it is right?

:func:`judge_calibration` pairs each judge's stated confidence (mapping key ``confidence``; the
``confidence`` column of the ratings) with the correctness of the same verdict against gold,
per judge and categorical dimension, and runs :func:`medjudge.stats.calibration.
calibration_statistics` on them: ECE, Brier score and confidence gap with cluster-bootstrap
intervals, the consistency-resampling test of calibration (Holm over every judge ×
dimension), and the reliability bins. A judge is *flagged* when its Holm-adjusted p-value is
below ``alpha``: over-confident when the gap's interval lies above 0, under-confident when
below, else miscalibrated (both ways). A verdict without a usable value (invalid or missing)
is right or wrong under no rule, so it is left out whatever the invalid-verdict policy, as is a
verdict without a stated confidence; ``excluded`` counts the items left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..data.model import Study
from ..stats.calibration import calibration_statistics
from ..stats.resampling import Bootstrap, as_bootstrap
from ._arguments import check_dimensions
from ._findings import PLAIN, Finding, Markup, Names, fmt_int, fmt_level, fmt_num, fmt_p
from ._result import Quantity, Result, long_table
from ._tables import TablesToDict, with_adjusted
from .design import resolve_clusters

__all__ = ["CalibrationResult", "judge_calibration", "has_confidence", "why_no_calibration"]

_COLS = [
    "dimension", "judge", "ece", "ece_low", "ece_high", "brier", "brier_low", "brier_high",
    "gap", "gap_low", "gap_high", "mean_confidence", "accuracy", "ece_null", "p_value",
    "p_holm", "flag", "n", "n_clusters", "excluded", "ci_method", "mean_ci_method", "test",
]  # fmt: skip


def has_confidence(study: Study) -> list[str]:
    """The judges with at least one stated confidence (in the study's judge order)."""
    r = getattr(study, "ratings", None)  # a study read on the columnar path has none
    if r is None or "confidence" not in r.columns:
        return []
    given = r.loc[(r["role"] == "judge") & r["confidence"].notna(), "rater"]
    seen = set(given.astype(str))
    return [j for j in study.judges if j in seen]


def why_no_calibration(study: Study) -> str | None:
    """``None`` when calibration applies, else why not (one sentence, from the design)."""
    if not study.judges:
        return "the study has no judges"
    if not any(study.scales[d].is_categorical for d in study.dimensions):
        return "calibration needs a categorical dimension (a verdict that is right or wrong)"
    if not has_confidence(study):
        return (
            "no judge states a confidence with its verdicts (a table names that column with "
            "the mapping key confidence)"
        )
    return None


def _confidence_matrix(study: Study, dimension: str, items: list[str], judges: list[str],
                       orders: tuple[str | None, ...]) -> np.ndarray:  # fmt: skip
    """``items × judges`` stated confidence of the verdict each judge's outcome comes from
    (its evaluation order when it has one; the mean over repeated runs)."""
    r = study.ratings
    r = r[(r["role"] == "judge") & (r["dimension"] == dimension)]
    out = np.full((len(items), len(judges)), np.nan)
    for k, j in enumerate(judges):
        rj = r[r["rater"] == j]
        o = orders[k] if orders else None
        if o is not None:
            rj = rj[rj["order"] == o]
        s = rj.groupby("item")["confidence"].mean()
        out[:, k] = s.reindex(items).to_numpy(dtype=float)
    return out


@dataclass(frozen=True, repr=False)
class CalibrationResult(TablesToDict, Result):
    """Calibration of every judge with stated confidences (:func:`judge_calibration`).

    ``calibration`` has one row per judge × dimension (ECE, Brier score, gap with intervals,
    the calibration test and its ``flag``); ``reliability`` one row per judge × dimension ×
    confidence bin. ``table("calibration")`` / ``table("reliability")`` give them in the
    tidy contract; ``plot("reliability")`` draws the reliability diagram (one dimension).
    """

    TABLES = ("calibration", "reliability")
    PLOTS = {"reliability": ("reliability_diagram", "reliability", {})}
    DICT_KEYS = ("settings", *TABLES)

    calibration: pd.DataFrame
    reliability: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def _table(self, name: str) -> pd.DataFrame:
        s = self.settings
        if name == "reliability":
            f = self.reliability.assign(ci_method="none (no interval computed)", n_unit="items")
            return long_table(
                f, ["dimension", "judge", "bin"],
                [Quantity("observed accuracy", "observed", ci_low=None, ci_high=None)],
                confidence_level=s["confidence_level"],
                extra=["confidence", "observed", "bin_low", "bin_high"],
            )  # fmt: skip
        f = self.calibration.assign(n_unit="items")
        return long_table(
            f, ["dimension", "judge"],
            [
                Quantity("ECE", "ece", "ece_low", "ece_high", test="test", p_value="p_value",
                         p_adjusted="p_holm"),
                Quantity("Brier score", "brier", "brier_low", "brier_high",
                         ci_method="mean_ci_method"),
                Quantity("confidence gap", "gap", "gap_low", "gap_high",
                         ci_method="mean_ci_method"),
            ],
            confidence_level=s["confidence_level"], alpha=s["alpha"],
            family="Holm over every judge × dimension", extra=["ece_null", "flag"],
        )  # fmt: skip

    def _plot_options(self, kind: str, data: pd.DataFrame, options: Any) -> dict[str, Any]:
        if data["dimension"].nunique() > 1:
            raise ValueError(
                "plot('reliability') draws one dimension: pass where={'dimension': ...} (one of "
                + ", ".join(map(str, dict.fromkeys(data["dimension"]))) + ")"
            )  # fmt: skip
        return dict(options)

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """Per dimension (``dimension`` only, else every one): how many judges with stated
        confidences are miscalibrated (the ECE test, at α, with its adjustment), each flagged
        judge with its ECE, interval and adjusted p."""
        s, c = self.settings, self.calibration
        dims = [dimension] if dimension is not None else list(dict.fromkeys(c["dimension"]))
        adj, lvl = markup.data(s["adjustment"]), fmt_level(float(s["confidence_level"]))
        out = []
        for d in dims:
            t = c[c["dimension"] == d]
            flagged = t[t["flag"] != "no evidence of miscalibration"]
            words = "; ".join(
                f"{markup.data(r['judge'])}: {markup.data(r['flag'])} (ECE {fmt_num(r['ece'], 3)}, "
                f"{lvl} CI {fmt_num(r['ece_low'], 3)}–{fmt_num(r['ece_high'], 3)}, {adj} p "
                f"{fmt_p(r['p_holm'])})"
                for _, r in flagged.iterrows()
            )
            out.append(
                Finding(
                    f"{fmt_int(len(flagged))} of {fmt_int(len(t))} {markup.role(names, 'judge')} "
                    f"with stated confidences are miscalibrated on {markup.em_data(d)} "
                    f"(α = {s['alpha']:g}, {adj})" + (f": {words}." if words else "."),
                    weight=1.5,
                )
            )
        return out

    def judge_lines(self) -> list[str]:
        """One sentence per judge × dimension, from the calibration table."""
        s, out = self.settings, []
        pct = f"{s['confidence_level']:.0%}"
        for _, r in self.calibration.iterrows():
            out.append(
                f"{r['judge']} on {r['dimension']}: ECE {r['ece']:.3f} ({pct} CI "
                f"{r['ece_low']:.3f}–{r['ece_high']:.3f}; {r['ece_null']:.3f} expected of a "
                f"calibrated judge with these confidences), Brier {r['brier']:.3f}, mean "
                f"confidence {r['mean_confidence']:.3f} vs accuracy {r['accuracy']:.3f}; "
                f"{r['flag']} (Holm p = {r['p_holm']:.3g}, α = {s['alpha']:g}, n = {r['n']})."
            )
        return out

    def summary(self) -> str:
        """The terminal text: the ``repr``, the table, the judges without confidences, the
        findings, then one sentence per judge."""
        c = self.calibration
        lines = [repr(self)]
        if len(c):
            show = pd.DataFrame({
                "dimension": c["dimension"], "judge": c["judge"],
                "ECE": [f"{a:.3f} [{b:.3f}, {d:.3f}]" for a, b, d in
                        zip(c["ece"], c["ece_low"], c["ece_high"], strict=True)],
                "ECE if calibrated": c["ece_null"].map("{:.3f}".format),
                "Brier": [f"{a:.3f} [{b:.3f}, {d:.3f}]" for a, b, d in
                          zip(c["brier"], c["brier_low"], c["brier_high"], strict=True)],
                "conf - acc": [f"{a:+.3f} [{b:+.3f}, {d:+.3f}]" for a, b, d in
                               zip(c["gap"], c["gap_low"], c["gap_high"], strict=True)],
                "p (Holm)": c["p_holm"].map("{:.3g}".format),
                "calibration": c["flag"], "n": c["n"],
            })  # fmt: skip
            lines.append(show.to_string(index=False))
        s = self.settings
        lines.append(
            f"intervals ({s['confidence_level']:.0%}): ECE {s['ci_method']}, Brier and "
            f"conf - acc {s['mean_ci_method']}; test: {s['test']}, "
            f"Holm over {len(c)} judge x dimension tests at alpha {s['alpha']:g}; "
            f"{s['n_bins']} equal-width bins"
        )
        if s.get("no_confidence"):
            lines.append("no stated confidence: " + ", ".join(s["no_confidence"]))
        if s.get("no_usable_pair"):
            lines.append(
                "no item with both a stated confidence and a usable verdict against gold: "
                + ", ".join(s["no_usable_pair"])
            )
        return "\n".join([*lines, *self.findings(), *self.judge_lines()])

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"CalibrationResult({len(s.get('judges', []))} judges x "
            f"{len(s.get('dimensions', []))} dimensions, {s.get('n_bins')} bins, "
            f"B={s.get('n_resamples')}, level={s.get('confidence_level')})"
        )


def judge_calibration(
    study: Study,
    *,
    dimensions: list[str] | None = None,
    gold: str = "auto",
    order: str | None = None,
    cluster: str | None = "auto",
    bootstrap: Bootstrap | None = None,
    n_bins: int = 10,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
) -> CalibrationResult:
    """Calibration of each judge's stated confidence against its correctness (module docstring).

    Parameters
    ----------
    study : Study
        Judges with a ``confidence`` column in the ratings (mapping key ``confidence``).
    dimensions : list of str, optional
        Categorical dimensions (default: every categorical one).
    gold, order, cluster
        As in :func:`medjudge.analyses.evaluation.evaluate_judges`.
    bootstrap : Bootstrap, optional
        Cluster bootstrap (percentile) and consistency resampling settings.
    n_bins : int, default 10
        Equal-width confidence bins.
    confidence_level, alpha : float
        Interval coverage; threshold of the Holm-adjusted calibration test.

    Returns
    -------
    CalibrationResult

    Raises
    ------
    ValueError
        When calibration does not apply (:func:`why_no_calibration` says why).

    References
    ----------
    Guo, C. et al. (2017). On calibration of modern neural networks. ICML 2017.
    Bröcker, J. & Smith, L. A. (2007). Increasing the reliability of reliability diagrams.
    Weather and Forecasting 22:651-661.

    Examples
    --------
    >>> import medjudge as mj
    >>> from medjudge.analyses.calibration import judge_calibration
    >>> from medjudge.data.synthetic_calibration import calibration_study
    >>> res = judge_calibration(calibration_study(seed=1), bootstrap=mj.Bootstrap(200))
    >>> res.calibration.set_index("judge")["flag"].to_dict()
    {'calibrated': 'no evidence of miscalibration', 'overconfident': 'over-confident'}
    """
    from .._validation import ALPHA, CONFIDENCE_LEVEL

    why = why_no_calibration(study)
    if why:
        raise ValueError(f"calibration does not apply: {why}")
    level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    alpha = ALPHA.check("alpha", alpha)
    if not isinstance(n_bins, int) or not 2 <= n_bins <= 100:
        raise ValueError(f"n_bins must be an integer from 2 to 100, got {n_bins!r}")
    boot = as_bootstrap(bootstrap)
    boot.interval("percentile", allowed=("percentile",))
    dims = [d for d in check_dimensions(study, dimensions) if study.scales[d].is_categorical]
    judges = has_confidence(study)
    clusters = resolve_clusters(study, cluster)
    cluster_of = (
        None if clusters.labels is None else pd.Series(clusters.labels, index=study.item_ids)
    )
    rows, bins, unusable = [], [], []
    for d in dims:
        o = study.outcomes(d, gold=study.gold(d, gold), judges=judges, order=order)
        conf = _confidence_matrix(study, d, o.items, judges, o.orders)
        cl = None if cluster_of is None else cluster_of.loc[o.items].to_numpy()
        for k, j in enumerate(judges):
            y = np.where(np.isinf(o.outcome[:, k]), np.nan, o.outcome[:, k])
            if not (np.isfinite(y) & np.isfinite(conf[:, k])).any():
                unusable.append(f"{j} on {d}")  # said in the settings, summary and report
                continue
            r = calibration_statistics(conf[:, k], y, clusters=cl, n_bins=n_bins,
                                       bootstrap=boot, confidence_level=level)  # fmt: skip
            b = r.pop("bins")
            bins.append(b.assign(dimension=d, judge=j))
            rows.append({"dimension": d, "judge": j, **r})
    table = pd.DataFrame(rows)
    if len(table):
        with_adjusted(table, pvalue="p_value", p_holm="holm")
        table["flag"] = [
            "no evidence of miscalibration" if p >= alpha
            else "over-confident" if lo > 0 else "under-confident" if hi < 0
            else "miscalibrated"
            for p, lo, hi in zip(table["p_holm"], table["gap_low"], table["gap_high"], strict=True)
        ]  # fmt: skip
    table = table.reindex(columns=_COLS)
    rel = pd.concat(bins, ignore_index=True) if bins else pd.DataFrame()
    rel = rel.reindex(columns=["dimension", "judge", "bin", "bin_low", "bin_high", "n",
                               "confidence", "observed"])  # fmt: skip
    settings = {
        "dimensions": dims, "judges": judges,
        "no_confidence": [j for j in study.judges if j not in judges],
        "no_usable_pair": unusable,
        "n_bins": n_bins, "n_resamples": boot.n_resamples, "seed": boot.seed,
        "confidence_level": level, "alpha": alpha, "adjustment": "Holm",  # of p_holm
        "ci_method": str(table["ci_method"].iloc[0]) if len(table) else "",
        "mean_ci_method": str(table["mean_ci_method"].iloc[0]) if len(table) else "",
        "test": str(table["test"].iloc[0]) if len(table) else "",
        "cluster": clusters.column, "gold": gold,
    }  # fmt: skip
    return CalibrationResult(table, rel, settings)
