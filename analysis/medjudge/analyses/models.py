"""Answer-model rankings from pairwise verdicts: experts' and each judge's Bradley–Terry fit.

When every item compares the answers of two models (item columns such as ``model_1`` and
``model_2``), each *source* of verdicts induces a ranking of the answer models:

* ``experts`` — the gold label per item (derived as in :meth:`Study.gold`, usually the strict
  expert majority; items without gold are counted),
* each judge — its verdict per item (invalid or missing verdicts are left out and counted).

For each source: Bradley–Terry strengths (:mod:`medjudge.stats.bradley_terry`; ties half a
win by default, Davidson optional) on the log scale centred to mean 0, the Elo-style scale,
win probabilities, and simultaneous rank confidence sets (:mod:`medjudge.stats.rank_sets`).
All sources share one cluster bootstrap (items, or clusters of items, resampled by the
project's engine :mod:`medjudge.stats.resampling`), so the judge-versus-expert comparisons —
Kendall's tau-b and Spearman's rho between the rankings, swapped pairs — are paired.
Intervals are bootstrap percentile intervals.

"Which judge best reproduces the expert ranking?" is a selection among judges: the table gives
each judge's share of resamples in which it has the highest tau (``p_best``) and intervals
simultaneous over judges (Bonferroni), so the selected judge's interval keeps its coverage.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from medjudge.analyses._findings import PLAIN, Finding, Markup, Names
from medjudge.analyses._result import Result
from medjudge.analyses._tables import TablesToDict
from medjudge.analyses.bias import verdict_matrix
from medjudge.analyses.design import resolve_clusters
from medjudge.analyses.models_tables import ranking_table
from medjudge.data.model import Study
from medjudge.stats.bradley_terry import (
    Ties,
    bradley_terry,
    comparison_counts,
    to_elo,
    win_probability,
)
from medjudge.stats.rank_sets import rank_confidence_sets, rank_correlation
from medjudge.stats.resampling import Bootstrap, ResamplePlan, as_bootstrap, bootstrap_interval

from .models_text import closest_finding, ranking_tables_text

__all__ = ["ModelRankingResult", "answer_model_ranking", "pairwise_outcomes", "EXPERTS"]

EXPERTS = "experts"


@dataclass(frozen=True, repr=False)
class ModelRankingResult(TablesToDict, Result):
    """Answer-model rankings per source (experts' gold, each judge) with bootstrap intervals.

    Wide tables (attributes; ``.table(name)`` gives each as a tidy long table of the result
    contract, with ``elo`` apart from ``strengths``; ``.plot()`` draws the strengths, a panel
    per source): ``strengths`` (one row per source x model: ``strength``, ``se``,
    ``ci_low``, ``ci_high``, ``level``, ``elo`` …, ``rank``, ``rank_low``, ``rank_high``),
    ``win_probabilities`` (source x ordered model pair), ``correlations`` (judge vs experts:
    ``kendall_tau``/``spearman_rho`` with intervals, swapped pairs, ``p_best``), ``counts``
    (per source: comparisons used and excluded, by reason).
    """

    TABLES = ("strengths", "elo", "win_probabilities", "correlations", "counts")
    PLOTS = {"strengths": ("forest_plot", "strengths", {
        "row": "model", "panel": "source", "xlabel": "log strength (Bradley-Terry)"})}  # fmt: skip
    DICT_KEYS = ("settings", "strengths", "win_probabilities", "correlations", "counts")

    strengths: pd.DataFrame
    win_probabilities: pd.DataFrame
    correlations: pd.DataFrame
    counts: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def _table(self, name: str) -> pd.DataFrame:

        return ranking_table(self, name)

    def findings(
        self, dimension: str | None = None, *, names: Names | None = None, markup: Markup = PLAIN
    ) -> list[Finding]:
        """The judge whose ranking of the models is closest to the experts'
        (:func:`medjudge.analyses.models_text.closest_finding`; one dimension is ranked)."""
        return closest_finding(self, names=names, markup=markup)

    def summary(self) -> str:
        """The one-line ``repr``, the findings, then each model's strength and rank set."""
        return "\n".join([repr(self), *self.findings(), *self.strength_lines()])

    def tables_text(self, *, width: int = 100) -> str:
        """The ranking's tables as terminal text (what ``medjudge models`` prints)."""
        return ranking_tables_text(self, width=width)

    def strength_lines(self) -> list[str]:
        """Each model's strength and rank set by the experts' gold (else the first source)."""
        if self.strengths.empty:
            return []
        t = self.strengths[self.strengths["source"] == EXPERTS]
        if t.empty:
            t = self.strengths[self.strengths["source"] == self.strengths["source"].iloc[0]]
        level = f"{100 * float(self.settings.get('confidence_level', 0.95)):g}%"
        return [
            f"{r.source}: {r.model} log strength {r.strength:+.3f} ({level} CI "
            f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]), rank {r.rank} (rank set {r.rank_low}-"
            f"{r.rank_high})"
            for r in t.sort_values("rank").itertuples()
        ]

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"ModelRankingResult({len(s.get('models', []))} models, sources={s.get('sources')}, "
            f"ties={s.get('ties')!r}, B={s.get('n_resamples')}, "
            f"confidence_level={s.get('confidence_level')})"
        )


def pairwise_outcomes(
    study: Study, dimension: str, sources: Sequence[str], *, order: str = "AB"
) -> tuple[list[str], np.ndarray, dict[str, dict[str, int]]]:
    """Outcome per item (rows in ``study.item_ids`` order) for each source.

    1 = answer 1 preferred, 0 = answer 2, 0.5 = tie, NaN = no usable verdict. The scale must be
    categorical with two non-tie categories (answer 1 first) and optionally a tie category.
    Returns ``(sources, outcomes (n_items, S), excluded counts per source)``.
    """

    scale = study.scales[dimension]
    cats = list(scale.categories) if scale.is_categorical else []
    non_tie = [c for c in cats if c != scale.tie]
    extra = [c for c in cats if c not in non_tie[:2] and c != scale.tie]
    if len(non_tie) != 2 or extra:
        raise ValueError(
            f"dimension {dimension!r}: pairwise rankings need a categorical scale with two "
            f"preference categories (answer 1, answer 2) and optionally a tie; got {cats}"
        )
    tie_code = cats.index(scale.tie) if scale.tie is not None else -1
    codes_to_y = np.full(len(cats), np.nan)
    codes_to_y[cats.index(non_tie[0])] = 1.0
    codes_to_y[cats.index(non_tie[1])] = 0.0
    if tie_code >= 0:
        codes_to_y[tie_code] = 0.5

    def to_y(codes: np.ndarray) -> np.ndarray:
        out = np.full(codes.shape, np.nan)
        ok = np.isfinite(codes)
        out[ok] = codes_to_y[codes[ok].astype(int)]
        return out

    wide = verdict_matrix(study, dimension, order)
    cols, excluded = [], {}
    for src in sources:
        if src == EXPERTS:
            g = study.gold(dimension)
            y = to_y(g.codes)
            excluded[src] = {"no_gold": int(np.isnan(y).sum()), "gold_method": g.method}
        else:
            if src not in wide.columns:
                raise ValueError(f"source {src!r} has no verdicts on {dimension!r}")
            y = to_y(wide[src].to_numpy(dtype=float))
            st = study.ratings
            st = st[(st["rater"] == src) & (st["dimension"] == dimension)]
            st = st[st["order"].isin([order, ""])]
            has_row = set(st["item"])
            excluded[src] = {
                "no_usable_verdict": int(np.isnan(y).sum()),
                "invalid": int((st["status"] == "invalid").sum()),
                "missing": int((st["status"] == "missing").sum())
                + int(len(set(study.item_ids) - has_row)),
            }
        cols.append(y)
    return list(sources), np.column_stack(cols), excluded


def _check(name: str, value: Any, ok: bool, allowed: str) -> None:
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed; {allowed}")


def answer_model_ranking(
    study: Study,
    models: Sequence[str] | None = None,
    *,
    dimension: str | None = None,
    judges: Sequence[str] | None = None,
    include_experts: bool = True,
    ties: Ties = "half",
    cluster: str | None = "auto",
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
    simultaneous: bool = True,
    order: str = "AB",
) -> ModelRankingResult:
    """Rank the answer models by each source of verdicts (see the module docstring).

    Parameters
    ----------
    study : a pairwise study whose items name the two answer models.
    models : the two item columns naming the models of answer 1 and answer 2; default the
        study's ``answer_models`` (mapping key ``models``).
    dimension : which dimension's verdicts (default: the only one, else the first).
    judges : judges to rank by (default all); ``include_experts`` adds the experts' gold.
    ties : ``"half"`` (a tie is half a win each) or ``"davidson"``.
    cluster : item attribute whose values are resampled together (e.g. instruction id).
        ``"auto"`` (default): the cluster the study declares, else image_id, case_id,
        patient_id or cluster when the items have one; ``None``: items resampled alone.
    bootstrap : Bootstrap, optional
        The cluster bootstrap (replicates, seed).
    confidence_level : coverage of every interval and rank set.
    simultaneous : rank confidence sets jointly over all models (True) or per model.
    order : presentation order whose judge verdicts are used when a judge has both.

    Returns
    -------
    ModelRankingResult

    References
    ----------
    Bradley & Terry (1952), Biometrika 39:324–345; Davidson (1970), JASA 65:317–328;
    Mogstad, Romano, Shaikh & Wilhelm (2024), Rev. Econ. Stud. 91:476–518 (rank sets);
    Chiang et al. (2024), "Chatbot Arena", ICML (Elo scale, bootstrap of BT strengths).

    Examples
    --------
    >>> import medjudge as mj
    >>> import medjudge.data.tables as t
    >>> s = t.load_any("data/external/pandalm_testset/verdicts_wide.csv",
    ...                "data/mappings/pandalm_wide.toml")            # doctest: +SKIP
    >>> res = answer_model_ranking(s, bootstrap=mj.Bootstrap(200))               # doctest: +SKIP
    >>> res.table("strengths").columns[:4].tolist()                  # doctest: +SKIP
    ['source', 'model', 'strength', 'se']
    """
    boot = Bootstrap() if bootstrap is None else as_bootstrap(bootstrap)
    n_resamples, seed = boot.n_resamples, boot.seed
    models = tuple(models) if models is not None else tuple(study.answer_models)
    if len(models) != 2:
        raise ValueError(
            "models must name the two item columns holding the answer models "
            "(e.g. --models model_1,model_2, or models = [...] in the mapping)"
        )
    for c in models:
        if c not in study.items.columns:
            raise ValueError(
                f"models column {c!r} is not an item attribute; have {list(study.items.columns)}"
            )
    if dimension is None:
        dimension = study.dimensions[0]
    _check("dimension", dimension, dimension in study.scales, f"have {list(study.scales)}")
    _check("ties", ties, ties in ("half", "davidson"), "use 'half' or 'davidson'")
    _check(
        "n_resamples",
        n_resamples,
        isinstance(n_resamples, int | np.integer) and n_resamples >= 50,
        "need an integer >= 50",
    )
    _check(
        "confidence_level",
        confidence_level,
        isinstance(confidence_level, float | int) and 0.5 <= confidence_level < 1,
        "use a value in [0.5, 1)",
    )
    resolved = resolve_clusters(study, cluster)  # "auto": declared, else detected
    cluster = resolved.column if resolved.labels is not None else None
    all_judges = study.judges
    judges = list(judges) if judges is not None else all_judges
    for j in judges:
        _check("judges", j, j in all_judges, f"judges are {all_judges}")
    sources = (
        [EXPERTS] if include_experts and (study.experts or study.gold_table is not None) else []
    )
    sources += judges
    if not sources:
        raise ValueError("no source of verdicts: the study has neither experts/gold nor judges")

    names, y, excluded = pairwise_outcomes(study, dimension, sources, order=order)
    comp = _comparisons(study, models, y, cluster)
    # W @ X without the (B x comparisons) matrix
    plan = ResamplePlan(len(comp["y"]), n_resamples, seed, clusters=comp["clusters"])
    level = float(confidence_level)
    tables = _fit_sources(names, excluded, comp, plan, ties, level, simultaneous)
    settings = {
        "dimension": dimension,
        "models": comp["models"],
        "model_columns": list(models),
        "sources": list(names),
        "ties": ties,
        "tie_rule": "a tie counts as half a win for each model"
        if ties == "half"
        else "Davidson (1970) tie model",
        "cluster": cluster,
        "n_resamples": int(n_resamples),
        "seed": int(seed),
        "confidence_level": level,
        "interval": "cluster bootstrap percentile",
        "resampling": "bootstrap",
        # the joint interval of each judge's τ with the experts' ranking (_correlations)
        "joint": "simultaneous",
        "joint_method": "Bonferroni-simultaneous",
        "rank_sets": "simultaneous max-t (Mogstad et al. 2024)"
        if simultaneous
        else "marginal max-t (Mogstad et al. 2024)",
        "gold_method": excluded.get(EXPERTS, {}).get("gold_method"),
        "order": order,
        "scale": "log strength centred to mean 0; elo = 1000 + 400 strength / ln 10",
    }
    return ModelRankingResult(*tables, settings)


def _fit_sources(
    names: list[str],
    excluded: dict[str, dict[str, Any]],
    comp: dict[str, Any],
    plan: ResamplePlan,
    ties: Ties,
    level: float,
    simultaneous: bool,
) -> tuple[pd.DataFrame, ...]:
    """Every source's fit (:func:`_source_fit`) on the shared resamples, as the result's
    ``strengths``, ``win_probabilities``, ``correlations`` (judges against the experts) and
    ``counts`` tables."""
    strength_rows, win_rows, count_rows = [], [], []
    est: dict[str, np.ndarray] = {}
    boots: dict[str, np.ndarray] = {}
    sets: dict[str, dict[str, np.ndarray]] = {}
    for s_i, src in enumerate(names):
        fit = _source_fit(comp, comp["y"][:, s_i], plan, ties, level, simultaneous)
        count_rows.append(
            {
                "source": src,
                **fit["counts"],
                **{f"excluded_{kk}": v for kk, v in excluded[src].items() if kk != "gold_method"},
                **fit["mle"],
            }
        )
        if "strength" not in fit:
            continue
        est[src], boots[src], sets[src] = fit["strength"], fit["boot"], fit["rank_sets"]
        strength_rows += [{"source": src, **row} for row in fit["strengths"]]
        win_rows += [{"source": src, **row} for row in fit["win_probabilities"]]
    corr = _correlations(est, boots, sets, comp["models"], level)
    counts = pd.DataFrame(count_rows)
    for c in counts.columns:
        if c.startswith("excluded_"):
            counts[c] = counts[c].fillna(0).astype(int)
    return pd.DataFrame(strength_rows), pd.DataFrame(win_rows), corr, counts


def _comparisons(
    study: Study, models: tuple[str, ...], y: np.ndarray, cluster: str | None
) -> dict[str, Any]:
    """The comparisons to rank from: per usable item (sorted by id, so the result does not
    depend on the row order) the two models' indices ``a``, ``b`` into the sorted ``models``,
    the sources' outcomes ``y`` and the resampling clusters; ``n_bad_pair`` items are left out
    for a missing model name or a model compared with itself."""
    items = study.items.set_index("item").loc[study.item_ids]
    m1 = items[models[0]].astype("string").fillna("").to_numpy(dtype=str)
    m2 = items[models[1]].astype("string").fillna("").to_numpy(dtype=str)
    bad_pair = (m1 == "") | (m2 == "") | (m1 == m2)
    # deterministic whatever the row order: items sorted by id before resampling
    order_idx = np.argsort(np.asarray(study.item_ids, dtype=str), kind="stable")
    keep = order_idx[~bad_pair[order_idx]]
    m1, m2 = m1[keep], m2[keep]
    model_names = sorted(set(m1) | set(m2))
    if len(model_names) < 2:
        raise ValueError("fewer than two answer models: nothing to rank")
    idx = {m: i for i, m in enumerate(model_names)}
    return {
        "models": model_names,
        "a": np.array([idx[m] for m in m1], dtype=int),
        "b": np.array([idx[m] for m in m2], dtype=int),
        "y": y[keep],
        "clusters": (
            items[cluster].astype(str).to_numpy()[keep]
            if cluster is not None
            else np.asarray(study.item_ids, dtype=str)[keep]
        ),
        "n_bad_pair": int(bad_pair.sum()),
    }


def _source_fit(
    comp: dict[str, Any],
    ys: np.ndarray,
    plan: ResamplePlan,
    ties: Ties,
    level: float,
    simultaneous: bool,
) -> dict[str, Any]:
    """One source's Bradley-Terry fit on the comparisons ``comp`` (outcomes ``ys``) and on every
    resample of ``plan``: strengths with percentile intervals, Elo scale and rank sets, win
    probabilities, and the counts; without a maximum-likelihood estimate only the counts."""
    a, b, model_names = comp["a"], comp["b"], comp["models"]
    k = len(model_names)
    wins, tie_t = comparison_counts(a, b, ys, k)
    fit = bradley_terry(wins, tie_t, method=ties)
    bw, bt = comparison_counts(a, b, ys, k, plan)
    bfit = bradley_terry(bw, bt, method=ties)
    out: dict[str, Any] = {
        "counts": {"comparisons": int((~np.isnan(ys)).sum()), "ties": int((ys == 0.5).sum()),
                   "excluded_model_pair": comp["n_bad_pair"]},
        "mle": {"mle_exists": bool(fit.converged),
                "resamples_without_mle": int((~bfit.converged).sum())},
    }  # fmt: skip
    if not fit.converged:
        return out
    theta, boot = fit.strength, bfit.strength
    lo, hi = bootstrap_interval(theta, boot, confidence_level=level, method="percentile")
    se = np.nanstd(boot, axis=0, ddof=1)
    rs = rank_confidence_sets(theta, boot, confidence_level=level, simultaneous=simultaneous)
    n_games = (wins + wins.T + tie_t).sum(1)
    out.update(strength=theta, boot=boot, rank_sets=rs)
    out["strengths"] = [
        {"model": m, "strength": float(theta[i]), "se": float(se[i]), "ci_low": float(lo[i]),
         "ci_high": float(hi[i]), "level": level, "elo": float(to_elo(theta[i])),
         "elo_ci_low": float(to_elo(lo[i])), "elo_ci_high": float(to_elo(hi[i])),
         "rank": int(rs["rank"][i]), "rank_low": int(rs["rank_low"][i]),
         "rank_high": int(rs["rank_high"][i]), "comparisons": float(n_games[i]),
         "tie_parameter": float(fit.tie_parameter)}
        for i, m in enumerate(model_names)
    ]  # fmt: skip
    pw = win_probability(theta, fit.tie_parameter if ties == "davidson" else None)
    pwb = win_probability(boot, bfit.tie_parameter if ties == "davidson" else None)
    plo, phi = bootstrap_interval(pw, pwb, confidence_level=level, method="percentile")
    out["win_probabilities"] = [
        {"model": model_names[i], "opponent": model_names[j], "p_win": float(pw[i, j]),
         "ci_low": float(plo[i, j]), "ci_high": float(phi[i, j]), "level": level,
         "observed_wins": float(wins[i, j] + 0.5 * tie_t[i, j]),
         "comparisons": float(wins[i, j] + wins[j, i] + tie_t[i, j])}
        for i, j in itertools.permutations(range(k), 2)
    ]  # fmt: skip
    return out


def _correlations(
    est: dict[str, np.ndarray],
    boots: dict[str, np.ndarray],
    sets: dict[str, dict[str, np.ndarray]],
    model_names: list[str],
    confidence_level: float,
) -> pd.DataFrame:
    if EXPERTS not in est:
        return pd.DataFrame()
    judges = [s for s in est if s != EXPERTS]
    if not judges:
        return pd.DataFrame()
    ref, ref_b = est[EXPERTS], boots[EXPERTS]
    j = len(judges)
    sim_level = 1 - (1 - confidence_level) / j
    taus_b = np.column_stack([rank_correlation(boots[s], ref_b, "kendall") for s in judges])
    # selection: the judge with the highest tau in each resample (ties shared)
    tb = np.where(np.isnan(taus_b), -np.inf, taus_b)
    top = tb == tb.max(1, keepdims=True)
    p_best = (top / top.sum(1, keepdims=True)).mean(0)
    rows = []
    k = len(model_names)
    for n_j, s in enumerate(judges):
        row: dict[str, Any] = {"judge": s, "reference": EXPERTS, "n_models": k}
        for meth, col in (("kendall", "kendall_tau"), ("spearman", "spearman_rho")):
            point = float(rank_correlation(est[s], ref, meth))
            bb = taus_b[:, n_j] if meth == "kendall" else rank_correlation(boots[s], ref_b, meth)
            lo, hi = bootstrap_interval(
                point, bb, confidence_level=confidence_level, method="percentile"
            )
            slo, shi = bootstrap_interval(
                point, bb, confidence_level=sim_level, method="percentile"
            )
            prefix = "" if meth == "kendall" else "rho_"
            row[col] = point
            row[f"{prefix}ci_low"] = float(lo)
            row[f"{prefix}ci_high"] = float(hi)
            row[f"{prefix}simultaneous_ci_low"] = float(slo)
            row[f"{prefix}simultaneous_ci_high"] = float(shi)
        row["level"] = confidence_level
        d_j = np.sign(est[s][:, None] - est[s][None, :])
        d_e = np.sign(ref[:, None] - ref[None, :])
        iu = np.triu_indices(k, 1)
        swapped = (d_j * d_e)[iu] < 0
        sig = (sets[s]["better"] & sets[EXPERTS]["better"].T) | (
            sets[s]["better"].T & sets[EXPERTS]["better"]
        )
        row["pairs"] = int(iu[0].size)
        row["swapped_pairs"] = int(swapped.sum())
        row["swapped_significant"] = int(sig[iu].sum())
        row["p_best"] = float(p_best[n_j])
        rows.append(row)
    t = pd.DataFrame(rows)
    t["best"] = t["kendall_tau"] == t["kendall_tau"].max()
    return t
