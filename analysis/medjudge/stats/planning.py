"""Label budgets: how many expert labels a judge-assisted estimate, an accuracy test or the
alt-test needs.

Complements :mod:`medjudge.stats.power` (accuracy half-width, kappa half-width, McNemar n and
minimum detectable difference), which ``medjudge plan`` also calls.

- **PPI from a pilot.** With gold standard deviation ``sigma``, judge–gold correlation ``rho``
  and ``N`` unlabelled items, the variance of the power-tuned PPI++ mean with ``n`` labels is
  (Angelopoulos, Duchi & Zrnic 2023, Sec. 2, at the optimal ``lam``)::

      Var_PPI++(n) = sigma^2 / n * (1 - rho^2 N / (N + n))

  so the *effective* number of expert labels is ``n / (1 - rho^2 N/(N + n))``; PPI with
  ``lam = 1`` has ``Var = sigma_r^2 / n + sigma_f^2 / N`` with ``sigma_r^2 = Var(Y - f)``.
  The number of labels for a target variance ``V* = (h / z)^2`` (half-width ``h``) or
  ``V* = (delta / (z_{1-alpha/2} + z_{power}))^2`` (power to detect ``delta``) solves
  ``Var(n) = V*``; for PPI++ that is the positive root of
  ``V* n^2 + (V* N - sigma^2) n - sigma^2 N (1 - rho^2) = 0``.
- **Accuracy against a benchmark.** One-sample test of ``H0: p = p0`` against ``p1``
  (Chow, Shao & Wang 2008, Sec. 4.1)::

      n = (z_{1-alpha/2} sqrt(p0 (1-p0)) + z_{power} sqrt(p1 (1-p1)))^2 / (p1 - p0)^2

- **Alt-test.** No closed form: the pass probability of the alternative annotator test is
  simulated as in Calderon, Reichart & Dror (2025, Appendix C and the simulation section of
  their ``alt_test_example.ipynb``): per replication a category prior ``~ Dirichlet(1)``, gold
  labels from it, and each annotator (and the judge) reporting the gold label with probability
  ``1 - noise`` and otherwise a draw from the prior; then :func:`~medjudge.stats.
  judge_vs_experts.alt_test` is run on the first ``n`` items.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.special import ndtri

from medjudge._validation import IntRange, RealRange
from medjudge.stats.judge_vs_experts import alt_test

from .._validation import check_numbers

__all__ = [
    "units_to_decide",
    "ppi_pilot",
    "ppi_variance",
    "labels_for_ppi",
    "plan_ppi",
    "items_for_accuracy_power",
    "alt_test_simulation",
]

PPIMethod = Literal["classical", "ppi", "ppi++"]


def _float(x: Any) -> float:
    """``float(x)`` for a real number (bools and strings are not numbers here); NaN otherwise."""
    if isinstance(x, (bool, str, bytes)):
        return math.nan
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _pos(x: Any, name: str, *, allow_inf: bool = False) -> float:
    v = _float(x)
    if not (v > 0 and (math.isfinite(v) or (allow_inf and v == math.inf))):
        raise ValueError(f"{name} must be a positive number, got {x!r}")
    return v


#: argument ranges of the simulations (the alt-test leaves one annotator out and needs two others)
_ANNOTATORS = IntRange(3, 1_000_000, what="annotators per item (one left out, two others)")
_CATEGORIES = IntRange(2, 1_000_000, what="number of categories")
_REPLICATIONS = IntRange(1, 100_000_000, what="number of replications")
_TESTS = IntRange(1, 2**63 - 1, what="number of tests")
_NOISE = RealRange(0.0, 1.0, open_low=False, open_high=False, what="a probability")


def _prob(x: Any, name: str) -> float:
    v = _float(x)
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1), got {x!r}")
    return v


def _target_variance(
    halfwidth: float | None,
    delta: float | None,
    confidence_level: float,
    alpha: float,
    power: float,
) -> float:
    if (halfwidth is None) == (delta is None):
        raise ValueError("give exactly one of halfwidth (precision) or delta (power)")
    if halfwidth is not None:
        z = float(ndtri(0.5 + _prob(confidence_level, "confidence_level") / 2))
        return (_pos(halfwidth, "halfwidth") / z) ** 2
    zz = float(ndtri(1 - _prob(alpha, "alpha") / 2) + ndtri(_prob(power, "power")))
    return (_pos(abs(delta), "delta") / zz) ** 2


def _check_pilot(pilot: Any) -> None:
    """``pilot`` must be a mapping with finite ``sd_gold``/``sd_judge`` >= 0 and a
    ``correlation`` in [-1, 1]: else one line naming the argument and the key."""

    keys = ("sd_gold", "sd_judge", "correlation")
    if not hasattr(pilot, "keys") or not all(k in pilot for k in keys):
        shown = "a dict" if hasattr(pilot, "keys") else repr(pilot)[:40]
        raise ValueError(
            f"pilot: {shown} is not allowed (a dict with sd_gold, sd_judge and correlation, "
            "as ppi_pilot returns)"
        )
    sd = RealRange(0.0, float("inf"), open_low=False, what="a standard deviation")
    sd.check("pilot['sd_gold']", pilot["sd_gold"])
    sd.check("pilot['sd_judge']", pilot["sd_judge"])
    RealRange(-1.0, 1.0, False, False, "a correlation").check(
        "pilot['correlation']", pilot["correlation"]
    )


def ppi_pilot(y: Any, yhat: Any) -> dict[str, float]:
    """Quantities a PPI plan needs, from a labelled pilot: ``n``, means, standard deviations
    (ddof 1) of gold and judge, their correlation, and ``sd_residual = sd(Y - f)``.

    Parameters
    ----------
    y : array-like
        The gold value of each pilot item (e.g. 1 when the gold label is the category whose rate
        is planned, else 0).
    yhat : array-like
        The judge's value on the same items (same length). Items where either is NaN are
        dropped and counted.

    Returns
    -------
    dict
        ``n``, ``dropped``, ``mean_gold``, ``mean_judge``, ``sd_gold``, ``sd_judge``,
        ``correlation`` (Pearson; 0 when either is constant) and ``sd_residual``: the input of
        :func:`plan_ppi`.

    References
    ----------
    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered
    inference. arXiv:2311.01453 (the variance of PPI++ depends on these moments only).

    Examples
    --------
    >>> import medjudge as mj
    >>> d = mj.ppi_pilot([1, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0, 1])
    >>> round(d["correlation"], 4), d["n"]
    (0.7071, 6)
    """

    y = check_numbers("y", y, "a 1-d array of numbers, NaN for missing")
    f = check_numbers("yhat", yhat, "a 1-d array of numbers, NaN for missing")
    if y.ndim != 1 or y.shape != f.shape:
        raise ValueError(f"y and yhat must be 1-d of equal length, got {y.shape} and {f.shape}")
    ok = np.isfinite(y) & np.isfinite(f)
    y, f = y[ok], f[ok]
    if y.size < 3:
        raise ValueError(
            f"a pilot needs at least 3 labelled items with a judge verdict, got {y.size}"
        )
    sy, sf = float(np.std(y, ddof=1)), float(np.std(f, ddof=1))
    rho = float(np.corrcoef(y, f)[0, 1]) if sy > 0 and sf > 0 else 0.0
    return {
        "n": int(y.size),
        "dropped": int((~ok).sum()),
        "mean_gold": float(y.mean()),
        "mean_judge": float(f.mean()),
        "sd_gold": sy,
        "sd_judge": sf,
        "correlation": rho,
        "sd_residual": float(np.std(y - f, ddof=1)),
    }


def ppi_variance(
    n: Any,
    sd_gold: float,
    correlation: float,
    *,
    n_unlabeled: float = math.inf,
    sd_judge: float | None = None,
    method: PPIMethod = "ppi++",
) -> np.ndarray:
    """Large-sample variance of the mean estimate with ``n`` expert labels.

    ``classical``: ``sigma^2/n``; ``ppi++``: ``sigma^2/n (1 - rho^2 N/(N+n))``; ``ppi``
    (``lam = 1``): ``(sigma^2 + sigma_f^2 - 2 rho sigma sigma_f)/n + sigma_f^2/N``.

    Examples
    --------
    >>> round(float(ppi_variance(100, 0.5, 0.6, n_unlabeled=900)), 8)
    0.00169
    """
    n = np.asarray(n, dtype=float)
    s2 = _pos(sd_gold, "sd_gold") ** 2
    rho = float(correlation)
    if not -1 <= rho <= 1:
        raise ValueError(f"correlation must be in [-1, 1], got {correlation!r}")
    N = _pos(n_unlabeled, "n_unlabeled", allow_inf=True)
    if method == "classical":
        return s2 / n
    if method == "ppi++":
        share = 1.0 if N == math.inf else N / (N + n)
        return s2 / n * (1 - rho * rho * share)
    if method == "ppi":
        if sd_judge is None:
            raise ValueError("method='ppi' (lam = 1) needs sd_judge")
        sf = _pos(sd_judge, "sd_judge")
        sr2 = s2 + sf * sf - 2 * rho * math.sqrt(s2) * sf
        return sr2 / n + (0.0 if N == math.inf else sf * sf / N)
    raise ValueError(f"method must be 'classical', 'ppi' or 'ppi++', got {method!r}")


def labels_for_ppi(
    sd_gold: float,
    correlation: float,
    *,
    halfwidth: float | None = None,
    delta: float | None = None,
    n_unlabeled: float = math.inf,
    sd_judge: float | None = None,
    method: PPIMethod = "ppi++",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
    design_effect: float = 1.0,
) -> float:
    """Expert labels needed for a target half-width (or power to detect ``delta``).

    Solves ``Var(n) = V*`` for :func:`ppi_variance` in closed form (module docstring) and
    multiplies by the clustering design effect ``deff`` (Kish 1965). Returns ``inf`` when the
    unlabelled items alone cannot reach the target (PPI with ``lam = 1`` and
    ``sigma_f^2/N >= V*``).

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), arXiv:2311.01453, Sec. 2; Broska, Howes & van Loon
    (2024), "The mixed subjects design", Sociological Methods & Research (effective sample size).

    Examples
    --------
    >>> labels_for_ppi(0.5, 0.0, halfwidth=0.05)        # = classical: 1.96^2 * 0.25 / 0.05^2
    385.0
    >>> labels_for_ppi(0.5, 0.8, halfwidth=0.05)        # (1 - 0.64) of it with N = infinity
    139.0
    """
    v = _target_variance(halfwidth, delta, confidence_level, alpha, power)
    s2 = _pos(sd_gold, "sd_gold") ** 2 * _pos(design_effect, "design_effect")
    rho = float(correlation)
    if not -1 <= rho <= 1:
        raise ValueError(f"correlation must be in [-1, 1], got {correlation!r}")
    N = _pos(n_unlabeled, "n_unlabeled", allow_inf=True)
    if method == "classical":
        n = s2 / v
    elif method == "ppi++":
        if N == math.inf:
            n = s2 * (1 - rho * rho) / v
        else:
            b = v * N - s2
            c = -s2 * N * (1 - rho * rho)
            n = (-b + math.sqrt(b * b - 4 * v * c)) / (2 * v)
    elif method == "ppi":
        if sd_judge is None:
            raise ValueError("method='ppi' (lam = 1) needs sd_judge")
        sf = _pos(sd_judge, "sd_judge")
        sy = _pos(sd_gold, "sd_gold")
        sr2 = (sy * sy + sf * sf - 2 * rho * sy * sf) * float(design_effect)
        room = v - (0.0 if N == math.inf else sf * sf / N)
        n = sr2 / room if room > 0 else math.inf
    else:
        raise ValueError(f"method must be 'classical', 'ppi' or 'ppi++', got {method!r}")
    return float(math.ceil(n - 1e-9)) if math.isfinite(n) else math.inf


def plan_ppi(
    pilot: dict[str, float],
    *,
    halfwidth: float | None = None,
    delta: float | None = None,
    n_unlabeled: float = math.inf,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
    design_effect: float = 1.0,
) -> pd.DataFrame:
    """Labels needed with and without the judge, from a pilot (:func:`ppi_pilot`).

    For each method the large-sample variance of the estimated rate with ``n`` expert labels
    (``classical``: ``sigma^2/n``; ``ppi++``: ``sigma^2/n (1 - rho^2 N/(N+n))``; ``ppi``, i.e.
    ``lam = 1``: ``(sigma^2 + sigma_f^2 - 2 rho sigma sigma_f)/n + sigma_f^2/N``) is set equal
    to the target and solved for ``n`` (:func:`labels_for_ppi`), times the design effect.

    Parameters
    ----------
    pilot : dict
        ``sd_gold``, ``sd_judge`` and ``correlation``, as :func:`ppi_pilot` returns them.
    halfwidth : float, optional
        Target half-width of the interval (give this or ``delta``).
    delta : float, optional
        Difference to detect with ``power`` at two-sided level ``alpha``.
    n_unlabeled : float, default inf
        Items with a judge verdict and no expert label (``N``).
    confidence_level : float, default 0.95
        Coverage of the interval whose half-width is planned.
    alpha, power : float
        Test level and power when planning for ``delta``.
    design_effect : float, default 1
        Variance inflation from clustering (Kish 1965), e.g. ``1 + (m - 1) ICC``.

    Returns
    -------
    DataFrame
        One row per method (``classical``, ``ppi``, ``ppi++``) with ``n_labels``, the share of
        the classical budget (``label_ratio``) and the effective number of expert labels at
        that ``n`` (``effective_n``).

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, T. (2023).
    Prediction-powered inference. Science 382:669-674.
    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered
    inference. arXiv:2311.01453, Sec. 2.
    Kish, L. (1965). Survey Sampling. Wiley (design effect).

    Examples
    --------
    >>> import medjudge as mj
    >>> pilot = {"sd_gold": 0.5, "sd_judge": 0.5, "correlation": 0.8}
    >>> mj.plan_ppi(pilot, halfwidth=0.05)["n_labels"].tolist()
    [385.0, 154.0, 139.0]
    """
    _check_pilot(pilot)
    rows = []
    base = labels_for_ppi(
        pilot["sd_gold"],
        pilot["correlation"],
        halfwidth=halfwidth,
        delta=delta,
        method="classical",
        confidence_level=confidence_level,
        alpha=alpha,
        power=power,
        design_effect=design_effect,
    )
    if base < 1:  # a target so loose that no label is needed: there is nothing to plan
        name, value = ("halfwidth", halfwidth) if halfwidth is not None else ("delta", delta)
        raise ValueError(
            f"{name}: {value!r} is not allowed (so large that no expert label is needed; "
            "give a smaller target)"
        )
    for m in ("classical", "ppi", "ppi++"):
        n = labels_for_ppi(
            pilot["sd_gold"],
            pilot["correlation"],
            halfwidth=halfwidth,
            delta=delta,
            n_unlabeled=n_unlabeled,
            sd_judge=pilot.get("sd_judge"),
            method=m,  # type: ignore[arg-type]
            confidence_level=confidence_level,
            alpha=alpha,
            power=power,
            design_effect=design_effect,
        )
        var = (
            float(
                ppi_variance(
                    n,
                    pilot["sd_gold"],
                    pilot["correlation"],
                    n_unlabeled=n_unlabeled,
                    sd_judge=pilot.get("sd_judge"),
                    method=m,  # type: ignore[arg-type]
                )
            )
            if math.isfinite(n)
            else math.nan
        )
        rows.append(
            {
                "method": m,
                "n_labels": n,
                "label_ratio": n / base if math.isfinite(n) else math.inf,
                "effective_n": pilot["sd_gold"] ** 2 / var if var > 0 else math.nan,
            }
        )
    return pd.DataFrame(rows)


def items_for_accuracy_power(
    p0: float,
    p1: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    design_effect: float = 1.0,
) -> float:
    """Items to show that a judge's accuracy ``p1`` differs from a benchmark ``p0`` (two-sided).

    ``n = (z_{1-alpha/2} sqrt(p0 q0) + z_{power} sqrt(p1 q1))^2 / (p1 - p0)^2`` times the
    design effect (Chow, Shao & Wang 2008, *Sample Size Calculations in Clinical Research*,
    2nd ed., Sec. 4.1.1, eq. 4.1.2 with the variance under H0 in the first term).

    Examples
    --------
    >>> items_for_accuracy_power(0.7, 0.8)
    153.0
    """
    p0, p1 = _prob(p0, "p0"), _prob(p1, "p1")
    if p0 == p1:
        raise ValueError("p1 must differ from p0")
    za = float(ndtri(1 - _prob(alpha, "alpha") / 2))
    zb = float(ndtri(_prob(power, "power")))
    n = (za * math.sqrt(p0 * (1 - p0)) + zb * math.sqrt(p1 * (1 - p1))) ** 2 / (p1 - p0) ** 2
    return float(math.ceil(n * _pos(design_effect, "design_effect") - 1e-9))


def alt_test_simulation(
    n_items: Any,
    *,
    n_annotators: int = 3,
    n_categories: int = 4,
    noise_annotators: float = 0.3,
    noise_judge: float = 0.3,
    epsilon: float = 0.1,
    q: float = 0.05,
    n_replications: int = 200,
    seed: int = 0,
) -> pd.DataFrame:
    """Simulated pass probability of the alt-test for each number of items.

    Generative model of Calderon, Reichart & Dror (2025, Appendix C): per replication a prior
    ``pi ~ Dirichlet(1, ..., 1)`` over ``n_categories``, gold labels ``~ pi``, and every
    annotator and the judge report the label drawn from ``noise * pi + (1 - noise) e_gold``.
    The same replication's first ``n`` items are used for every ``n`` (nested designs, so the
    curve is smooth). Columns: ``n_items``, ``pass_probability`` (share of replications with
    winning rate >= 0.5) and its Monte Carlo ``mc_se``, ``mean_winning_rate``, and
    ``mean_advantage_probability``.

    References
    ----------
    Calderon, Reichart & Dror (2025). The alternative annotator test for LLM-as-a-judge: how to
    statistically justify replacing human annotators with LLMs. ACL 2025 (Appendix C).

    Examples
    --------
    >>> t = alt_test_simulation([40, 120], noise_judge=0.1, n_replications=20, seed=1)
    >>> bool(t["pass_probability"].iloc[1] >= t["pass_probability"].iloc[0])
    True
    """
    sizes = sorted({int(v) for v in np.atleast_1d(n_items)})
    if not sizes or sizes[0] < 2:
        raise ValueError(f"n_items must be integers >= 2, got {n_items!r}")
    n_annotators = _ANNOTATORS.check("n_annotators", n_annotators)
    n_categories = _CATEGORIES.check("n_categories", n_categories)
    _NOISE.check("noise_annotators", noise_annotators)
    _NOISE.check("noise_judge", noise_judge)
    n_replications = _REPLICATIONS.check("n_replications", n_replications)
    rng = np.random.default_rng(seed)
    K, m, nmax = int(n_categories), int(n_annotators), sizes[-1]
    passed = np.zeros((n_replications, len(sizes)))
    wr = np.full((n_replications, len(sizes)), np.nan)
    ap = np.full((n_replications, len(sizes)), np.nan)

    def draw(gold: np.ndarray, pi: np.ndarray, noise: float) -> np.ndarray:
        keep = rng.random(gold.size) >= noise
        other = rng.choice(K, size=gold.size, p=pi)
        return np.where(keep, gold, other).astype(float)

    for r in range(n_replications):
        pi = rng.dirichlet(np.ones(K))
        gold = rng.choice(K, size=nmax, p=pi)
        H = np.column_stack([draw(gold, pi, float(noise_annotators)) for _ in range(m)])
        f = draw(gold, pi, float(noise_judge))
        for k, n in enumerate(sizes):
            res = alt_test(f[:n], H[:n], epsilon=epsilon, q=q, min_items_per_annotator=min(30, n))
            passed[r, k] = float(res.passed)
            wr[r, k] = res.winning_rate
            ap[r, k] = res.advantage_probability
    p = passed.mean(axis=0)
    return pd.DataFrame(
        {
            "n_items": sizes,
            "pass_probability": p,
            "mc_se": np.sqrt(p * (1 - p) / n_replications),
            "mean_winning_rate": np.nanmean(wr, axis=0),
            "mean_advantage_probability": np.nanmean(ap, axis=0),
        }
    )


#: the test behind each count of :func:`units_to_decide`, and the adjustment it assumes
DECIDE_TESTS = {
    "clusters": "clustered McNemar (Durkalski)",
    "items_midp": "McNemar mid-p",
    "items_exact": "McNemar exact",
}
DECIDE_ADJUSTMENT = "Holm"


def units_to_decide(n_tests: int, alpha: float = 0.05) -> dict[str, int]:
    """Fewest clusters (clustered McNemar) or items (mid-p McNemar) with which a pairwise
    decision is *possible* after Holm over ``n_tests`` tests.

    The clustered McNemar statistic of Durkalski et al. (2003) cannot exceed the number of
    clusters ``G`` holding discordant items (Cauchy-Schwarz), so its smallest p-value is
    ``chi²_1.sf(G)``; the mid-p McNemar test's smallest p-value with ``n`` common items is
    ``0.5^n`` (every item discordant one way; exact test: ``2 * 0.5^n``). The first Holm step
    multiplies by ``n_tests``. The answer is the smallest ``G`` (or ``n``) with
    ``n_tests * p_min < alpha`` — a necessary condition, not power: with fewer, no data can
    give a significant pair (see ``min_attainable_p`` in :func:`medjudge.all_pairs`).

    Examples
    --------
    >>> units_to_decide(6)   # 4 judges, one family of 6 pairs
    {'clusters': 7, 'items_midp': 7, 'items_exact': 8, 'n_tests': 6}
    """
    from scipy.special import chdtrc

    n_tests = _TESTS.check("n_tests", n_tests)
    _prob(alpha, "alpha")
    g = 1
    while n_tests * chdtrc(1, g) >= alpha:
        g += 1
    midp = math.ceil(math.log2(n_tests / alpha) + 1e-12)
    while n_tests * 0.5**midp >= alpha:
        midp += 1
    exact = midp
    while n_tests * 2 * 0.5**exact >= alpha:
        exact += 1
    return {"clusters": g, "items_midp": midp, "items_exact": exact, "n_tests": int(n_tests)}
