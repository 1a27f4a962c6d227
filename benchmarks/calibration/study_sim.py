"""Realistic judge-study data for the interval calibrations (accuracy, agreement, differences).

Generative model (one ``numpy.random.Generator``; replicates are the last axis so that a whole
Monte Carlo run is a few array operations):

- **Clusters.** ``n_clusters`` images/cases, each holding a *variable* number of items
  (1 + Poisson(mean_size - 1), so clusters are unbalanced) — the design is drawn once per
  scenario and kept fixed across replicates (fixed design, random outcomes).
- **Item difficulty shared by all judges.** ``d_i = u_c + e_i`` with an image effect
  ``u_c ~ N(0, sd_cluster^2)`` and an item effect ``e_i ~ N(0, sd_item^2)``, redrawn every
  replicate.
- **Judges.** Judge ``j`` is correct on item ``i`` with probability ``expit(a_j + d_i)``,
  independently given the difficulty; ``a_j`` is chosen so that the judge's *population*
  accuracy ``E expit(a_j + d)`` equals the target (Gauss-Hermite quadrature, exact to 1e-10).
  Judges share ``d_i``, so their outcomes are positively correlated, as in real benchmarks.
- **Labels** (for the agreement coefficients): a latent true class with unbalanced prevalence;
  each rater reports it correctly with probability ``expit(a_r + d_i)`` and otherwise a
  uniformly drawn other class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(80)
_GH_W = _GH_W / _GH_W.sum()


def population_accuracy(a: float, sd: float) -> float:
    """``E expit(a + d)`` with ``d ~ N(0, sd^2)`` (Gauss-Hermite, 80 nodes)."""
    return float(np.sum(_GH_W * expit(a + sd * _GH_X)))


def intercept_for(accuracy: float, sd: float) -> float:
    """The ``a`` with ``population_accuracy(a, sd) = accuracy``."""
    return brentq(lambda a: population_accuracy(a, sd) - accuracy, -30, 30, xtol=1e-12)


@dataclass(frozen=True)
class Design:
    """A fixed clustered design: cluster id of every item."""

    clusters: np.ndarray  # (n_items,) int codes
    n_clusters: int

    @property
    def n_items(self) -> int:
        return int(self.clusters.size)


def make_design(rng: np.random.Generator, n_clusters: int, mean_size: float) -> Design:
    """``n_clusters`` clusters of 1 + Poisson(mean_size - 1) items (all size 1 if mean_size = 1)."""
    sizes = 1 + (
        rng.poisson(mean_size - 1, n_clusters) if mean_size > 1 else np.zeros(n_clusters, int)
    )
    return Design(np.repeat(np.arange(n_clusters), sizes), n_clusters)


def difficulty(
    rng: np.random.Generator, design: Design, reps: int, sd_cluster: float, sd_item: float
) -> np.ndarray:
    """Shared item difficulty ``(n_items, reps)``."""
    u = rng.normal(0, sd_cluster, (design.n_clusters, reps))[design.clusters]
    return u + rng.normal(0, sd_item, (design.n_items, reps))


def judge_outcomes(
    rng: np.random.Generator, d: np.ndarray, accuracies: list[float], sd_total: float
) -> np.ndarray:
    """Correctness ``(n_judges, n_items, reps)`` of judges with the given population accuracies."""
    out = []
    for acc in accuracies:
        a = intercept_for(acc, sd_total)
        out.append((rng.random(d.shape) < expit(a + d)).astype(float))
    return np.stack(out)


def rater_labels(
    rng: np.random.Generator,
    d: np.ndarray,
    prevalence: np.ndarray,
    accuracies: list[float],
    sd_total: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Labels ``(n_raters, n_items, reps)`` and the true classes ``(n_items, reps)``."""
    q = len(prevalence)
    truth = (rng.random(d.shape)[..., None] > np.cumsum(prevalence)[:-1]).sum(-1)
    labels = []
    for acc in accuracies:
        a = intercept_for(acc, sd_total)
        right = rng.random(d.shape) < expit(a + d)
        other = (truth + rng.integers(1, q, d.shape)) % q
        labels.append(np.where(right, truth, other).astype(float))
    return np.stack(labels), truth


def mc_se(p: float, reps: int) -> float:
    """Monte Carlo SE of a proportion estimated from ``reps`` replicates."""
    return float(np.sqrt(max(p * (1 - p), 1e-12) / reps))


def verdict(cov: float, se: float, nominal: float = 0.95) -> str:
    """'yes' if within 2 MC SE of nominal (or above), 'conservative' if above +2 SE+1pt, 'no' if below."""
    if cov < nominal - 2 * se:
        return "**no**"
    if cov > nominal + 2 * se + 0.01:
        return "conservative"
    return "yes"


def make_study(
    rng: np.random.Generator,
    design: Design,
    *,
    judge_accuracies: list[float],
    expert_accuracies: tuple[float, ...] = (0.9, 0.85, 0.8),
    dimensions: tuple[str, ...] = ("overall", "safety"),
    missing_expert_share: dict[str, float] | None = None,
    prevalence_a: float = 0.7,
    sd_cluster: float = 1.0,
    sd_item: float = 0.7,
    sd_judge_image: float = 0.8,
):
    """A :class:`medjudge.data.model.Study` of binary A/B verdicts on a clustered design.

    Experts and judges answer each dimension's latent truth (prevalence of A =
    ``prevalence_a``) correctly with probability ``expit(a_r + d_i + v_rc)`` — one shared
    difficulty ``d_i`` per item and dimension, plus a rater-by-image effect
    ``v_rc ~ N(0, sd_judge_image^2)`` (a judge is better on some images than on others, which is
    what makes the *differences* between judges clustered). ``missing_expert_share[dim]``: share of items whose expert labels for
    that dimension are dropped, so those items have no majority gold *in that dimension only*
    (gold item sets then differ between dimensions).
    """
    import pandas as pd
    from medjudge.data.model import Study
    from medjudge.data.scale import Scale

    n = design.n_items
    items = [f"i{i:04d}" for i in range(n)]
    rows = []
    sd_total = float(np.sqrt(sd_cluster**2 + sd_item**2 + sd_judge_image**2))
    for dim in dimensions:
        d = difficulty(rng, design, 1, sd_cluster, sd_item)[:, 0]
        truth = np.where(rng.random(n) < prevalence_a, "A", "B")
        drop = rng.random(n) < (missing_expert_share or {}).get(dim, 0.0)
        for role, accs, prefix in (
            ("expert", expert_accuracies, "expert"),
            ("judge", judge_accuracies, "judge"),
        ):
            for r, acc in enumerate(accs):
                a = intercept_for(acc, sd_total)
                v = rng.normal(0, sd_judge_image, design.n_clusters)[design.clusters]
                right = rng.random(n) < expit(a + d + v)
                val = np.where(right, truth, np.where(truth == "A", "B", "A"))
                for i in range(n):
                    if role == "expert" and drop[i]:
                        continue
                    rows.append((items[i], f"{prefix}_{r}", role, dim, val[i]))
    ratings = pd.DataFrame(rows, columns=["item", "rater", "role", "dimension", "value"])
    item_table = pd.DataFrame({"item": items, "image_id": [f"img{c}" for c in design.clusters]})
    scales = {dim: Scale("nominal", ("A", "B")) for dim in dimensions}
    return Study(ratings, item_table, scales)
