"""DataFrame wrappers: long tables in, tidy tables of estimates out.

* :func:`long_to_wide` turns a long table (one row per verdict: item, rater, value) into the
  ``items x raters`` matrix every coefficient uses (duplicate item/rater pairs are an error,
  never silently dropped).
* :func:`agreement` computes one coefficient from a long table (pingouin-style column names).
* :func:`agreement_table` computes every coefficient suited to the declared measurement level
  and returns one tidy row per coefficient: estimate, se, interval, method, n.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..._validation import check_names
from ..coefficients import COEFFICIENT_TABLE
from ..resampling import Bootstrap
from ..results import Estimate
from .bootstrap import resampling
from .coding import as_ratings, from_rating_matrix, resolve_categories, resolve_level
from .registry import COEFFICIENTS, FUNCTIONS
from .weights import LEVEL_WEIGHTS, weights_name

TABLE_COLUMNS = [
    "coefficient",
    "estimate",
    "se",
    "ci_low",
    "ci_high",
    "ci_method",
    "level",
    "n",
    "measurement",
    "weights",
    "pa",
    "pe",
    "note",
]

# above this many distinct values, weighted kappa-type coefficients (q x q weights) are skipped
MAX_CATEGORIES_FOR_KAPPA = 30


def long_to_wide(
    data: pd.DataFrame,
    *,
    item: str = "item",
    rater: str = "rater",
    value: str = "value",
) -> pd.DataFrame:
    """Pivot a long table to items x raters (NaN = not rated); values must be numeric codes.

    Raises ``ValueError`` naming the first duplicated (item, rater) pair and its rows.
    """
    for col in (item, rater, value):
        if col not in data.columns:
            raise ValueError(f"column {col!r} not found; available columns: {list(data.columns)}")
    dup = data.duplicated([item, rater], keep=False)
    if dup.any():
        rows = data.index[dup].tolist()[:4]
        first = data.loc[dup].iloc[0]
        raise ValueError(
            f"item {first[item]!r} has more than one rating by rater {first[rater]!r} "
            f"(rows {rows}); keep one rating per item and rater (or add a 'run' dimension)"
        )
    vals = pd.to_numeric(data[value], errors="coerce")
    bad = vals.isna() & data[value].notna()
    if bad.any():
        i = data.index[bad][0]
        raise ValueError(
            f"row {i}, column {value!r}: {data.loc[i, value]!r} is not a numeric code; "
            "encode categories first (e.g. Scale.encode)"
        )
    wide = data.assign(**{value: vals}).pivot(index=item, columns=rater, values=value)
    return wide.astype(float)


def agreement(
    data: pd.DataFrame,
    coefficient: str | Callable[..., Estimate],
    *,
    item: str = "item",
    rater: str = "rater",
    value: str = "value",
    **kwargs: Any,
) -> Estimate:
    """One coefficient from a long table, e.g. ``agreement(df, "fleiss_kappa", ci="bootstrap")``.

    ``kwargs`` go to the coefficient (``categories``, ``weights``, ``scale``, ``ci``,
    ``bootstrap``, ``clusters`` …); ``clusters`` must follow the item order of the pivoted table
    (sorted item ids).
    """
    fn = COEFFICIENTS[coefficient] if isinstance(coefficient, str) else coefficient
    X = long_to_wide(data, item=item, rater=rater, value=value)
    return fn(X.to_numpy(), **kwargs)


def not_defined_reason(e: Estimate, A: np.ndarray, measurement: str = "nominal") -> str:
    """Why an estimate of the ratings ``A`` is not defined (``""`` when it is a number).

    A chance-corrected coefficient (kappa, alpha) is ``(pa - pe) / (1 - pe)``: when every
    rating is one category, chance agreement ``pe`` is 1 and the ratio is 0/0.

    >>> from medjudge.stats.agreement.kappa import fleiss_kappa
    >>> A = np.zeros((5, 3))
    >>> not_defined_reason(fleiss_kappa(A, ci=None), A)
    'not defined (one category used: chance agreement is 1)'
    """
    if np.isfinite(e.estimate):
        return ""
    seen = np.unique(A[~np.isnan(A)])
    if seen.size == 1:
        if measurement in ("nominal", "ordinal"):
            return "not defined (one category used: chance agreement is 1)"
        return "not defined (every rating is the same value: no variance)"
    if seen.size == 0:
        return "not defined (no ratings)"
    why = e.extra.get("not_defined")
    if why:
        return str(why).replace("not defined: ", "not defined (", 1) + (
            ")" if ": " in str(why) else ""
        )
    return "not defined (no item rated twice)" if e.n == 0 else "not defined"


def _row(
    e: Estimate, measurement: str, weights: str, A: np.ndarray | None = None
) -> dict[str, Any]:
    return {
        "coefficient": e.name,
        "estimate": e.estimate,
        "se": e.se,
        "ci_low": e.ci_low,
        "ci_high": e.ci_high,
        "ci_method": e.ci_method,
        "level": e.level,
        "n": e.n,
        "measurement": measurement,
        "weights": weights,
        "pa": e.extra.get("pa", e.extra.get("po", np.nan)),
        "pe": e.extra.get("pe", np.nan),
        "note": not_defined_reason(e, A, measurement) if A is not None else "",
    }


def agreement_table(
    X: Any,
    *,
    scale: Any = None,
    categories: Sequence[float] | np.ndarray | None = None,
    values: Sequence[float] | np.ndarray | None = None,
    weights: str | np.ndarray | None = None,
    ci: str | None = "auto",
    confidence_level: float = 0.95,
    bootstrap: Bootstrap | None = None,
    clusters: Any = None,
    coefficients: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Tidy table of the agreement coefficients suited to a measurement ``scale``.

    Parameters
    ----------
    X : array_like, DataFrame or RatingMatrix, shape (n_items, n_raters)
        Ratings, NaN = missing; ``study.matrix(...)`` brings its scale and categories.
    scale : {"nominal", "ordinal", "interval", "ratio"} or Scale
        The measurement level (required unless ``X`` is a study's matrix: it decides the
        weights and Krippendorff's metric).
    categories, values : sequence of float, optional
        Category codes and their numeric values (see ``coding``).
    weights : str or ndarray, optional
        Override the scale's default weights of the kappa family (nominal: identity,
        ordinal: Gwet's ordinal, interval: quadratic, ratio: ratio).
    ci : {"auto", "analytic", "bootstrap", None}, default "auto"
        With ``"bootstrap"`` all coefficients share the same resamples.
    confidence_level : float, default 0.95
    bootstrap : Bootstrap, optional
        Resampling settings (BCa by default).
    clusters : array_like, optional
        One label per item: every interval keeps the clusters (the cluster jackknife for
        ``"auto"``/``"analytic"``, whole clusters for ``"bootstrap"``).
    coefficients : sequence of str, optional
        Subset of names to compute (default: all that apply).

    Returns
    -------
    DataFrame
        One row per coefficient: ``coefficient, estimate, se, ci_low, ci_high, ci_method, level,
        n, measurement, weights, pa, pe, note`` (``level`` is the confidence level; ``note``
        says why an estimate is not defined, e.g. ``not defined (one category used: chance
        agreement is 1)``, and is empty otherwise), and ``warning`` when fewer than 30
        clusters may make an interval under-cover.

    Rows: percent agreement; for two raters Cohen's kappa, Scott's pi and (nominal) PABAK;
    Fleiss, Conger, Brennan–Prediger, Gwet's AC1/AC2 and Krippendorff's alpha; Kendall's W
    (ordinal and above); the six ICCs (interval/ratio). Kappa-type rows are skipped for
    interval/ratio scores with more than :data:`MAX_CATEGORIES_FOR_KAPPA` distinct values.

    References
    ----------
    Each row follows the source cited by its own function: Cohen, J. (1960). A coefficient of
    agreement for nominal scales. EPM 20:37-46. Scott, W. A. (1955). Reliability of content
    analysis: the case of nominal scale coding. Public Opinion Quarterly 19:321-325. Byrt, T.,
    Bishop, J. & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of Clinical
    Epidemiology 46:423-429. Fleiss, J. L. (1971). Psychological Bulletin 76:378-382.
    Conger, A. J. (1980). Psychological Bulletin 88:322-328. Brennan, R. L. & Prediger, D. J.
    (1981). Educational and Psychological Measurement 41:687-699. Gwet, K. L. (2008). British
    Journal of Mathematical and Statistical Psychology 61:29-48. Krippendorff, K. (2011).
    Computing Krippendorff's alpha-reliability. Kendall, M. G. & Babington Smith, B. (1939).
    Annals of Mathematical Statistics 10:275-287. Shrout, P. E. & Fleiss, J. L. (1979).
    Psychological Bulletin 86:420-428. Gwet, K. L. (2014). Handbook of Inter-Rater
    Reliability, 4th ed. (weights, variances). Efron, B. (1987). Better bootstrap confidence
    intervals. JASA 82:171-185 (BCa).

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> X = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])
    >>> t = mj.agreement_table(X, scale='nominal', ci=None)
    >>> t[['coefficient', 'estimate']].round(3).values.tolist()[:3]
    [['percent_agreement', 0.778], ['fleiss_kappa', 0.556], ['conger_kappa', 0.571]]
    """
    kw: dict[str, Any] = {"scale": scale}
    X = from_rating_matrix(X, kw, ("scale",))
    lvl, s_cats, s_vals = resolve_level(kw["scale"], "scale")
    categories = s_cats if categories is None else categories
    values = s_vals if values is None else values
    A = as_ratings(X)
    resampling(bootstrap, clusters, A.shape[0], confidence_level)  # check once, up front
    if coefficients is not None:
        names = [n for c in COEFFICIENT_TABLE for n in (c.name, *c.aliases)]
        allowed = [*COEFFICIENTS, *(n for n in names if n not in COEFFICIENTS)]
        coefficients = check_names(
            "coefficients", coefficients, allowed, "a list of coefficient names"
        )
    wts = LEVEL_WEIGHTS[lvl] if weights is None else weights
    common = {
        "ci": ci, "confidence_level": confidence_level, "bootstrap": bootstrap, "clusters": clusters
    }  # fmt: skip
    want = set(coefficients) if coefficients is not None else None
    cats = resolve_categories(A, categories, values)
    kappa_ok = lvl in ("nominal", "ordinal") or cats.q <= MAX_CATEGORIES_FOR_KAPPA
    # how each kind of row is called (see medjudge.stats.coefficients.Call) and its weights label
    calls: dict[str, tuple[dict[str, Any], str]] = {
        "weighted": ({"weights": wts, "categories": cats.codes, "values": cats.values},
                     weights_name(wts)),
        "unweighted": ({"categories": cats.codes}, "identity"),
        "metric": ({"scale": lvl, **({"categories": cats.codes, "values": cats.values}
                    if lvl in ("nominal", "ordinal") else {})}, f"{lvl} metric"),
        "ranks": ({"ci": None if ci == "analytic" else ci}, "ranks"),
        "forms": ({}, ""),
    }  # fmt: skip
    rows: list[dict[str, Any]] = []
    for c in COEFFICIENT_TABLE:
        if not c.applies(lvl, A.shape[1]) or (c.kappa_type and not kappa_ok):
            continue
        if want is not None and not want & {c.name, *c.aliases}:
            continue
        kwargs, label = calls[c.call]
        result = FUNCTIONS[c.name](A, **{**common, **kwargs})
        for e in result if c.call == "forms" else [result]:
            row = _row(e, lvl, label, A)
            if c.call == "forms":
                row["coefficient"] = e.extra["shrout_fleiss"]
            if "warning" in e.extra:
                row["warning"] = e.extra["warning"]
            rows.append(row)
    # a ``warning`` column (few clusters: the interval may under-cover) only when a row has one
    warned = any("warning" in r for r in rows)
    return pd.DataFrame(rows, columns=[*TABLE_COLUMNS, *(["warning"] if warned else [])])


def agreement_table_long(
    data: pd.DataFrame,
    *,
    item: str = "item",
    rater: str = "rater",
    value: str = "value",
    **kwargs: Any,
) -> pd.DataFrame:
    """:func:`agreement_table` from a long table (one row per item x rater rating)."""
    X = long_to_wide(data, item=item, rater=rater, value=value)
    return agreement_table(X.to_numpy(), **kwargs)
