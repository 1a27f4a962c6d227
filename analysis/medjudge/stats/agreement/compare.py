"""Difference of two agreement coefficients on the same items, from paired resamples.

Typical use: is judge X closer to the expert gold label than judge Y?

>>> import numpy as np
>>> from medjudge.stats.resampling import ResamplePlan
>>> rng = np.random.default_rng(0)
>>> gold = rng.integers(0, 2, 60).astype(float)
>>> judge_x = np.where(rng.random(60) < 0.9, gold, 1 - gold)
>>> judge_y = np.where(rng.random(60) < 0.7, gold, 1 - gold)
>>> case_id = np.repeat(np.arange(20), 3)
>>> d = agreement_difference(np.c_[judge_x, gold], np.c_[judge_y, gold], "cohen_kappa",
...                          plan=ResamplePlan(n_items=len(gold), clusters=case_id))
>>> bool(d.estimate > 0)
True

Both coefficients are evaluated on the *same* bootstrap weight matrix from the shared engine
(``paired_difference``), so the interval accounts for their correlation (both share the gold
labels and the items); item-, cluster- and stratum-level resampling come from the plan. The
two rating matrices may have different raters but must have the same rows (items).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..resampling import ResamplePlan
from ..results import Estimate
from .bootstrap import BootMethod, paired_difference
from .coding import as_ratings
from .registry import CORES


def agreement_difference(
    X_a: Any,
    X_b: Any,
    coefficient: str | Callable[..., Any] = "cohen_kappa",
    *,
    plan: ResamplePlan | None = None,
    confidence_level: float = 0.95,
    method: BootMethod = "bca",
    **kwargs: Any,
) -> Estimate:
    """Paired-bootstrap estimate and interval of ``coef(X_a) - coef(X_b)`` on the same items.

    ``kwargs`` go to the core (``categories``, ``weights``, ``level`` for alpha, ``form`` for
    ICC). ``extra`` holds both estimates and a bootstrap two-sided p-value (``p_two_sided``).
    """
    core = CORES[coefficient] if isinstance(coefficient, str) else coefficient
    A, B = as_ratings(X_a), as_ratings(X_b)
    if A.shape[0] != B.shape[0]:
        raise ValueError(
            f"both rating matrices must have the same items (rows): {A.shape[0]} vs {B.shape[0]}"
        )
    fa = partial(core, A, **kwargs)
    fb = partial(core, B, **kwargs)
    name = coefficient if isinstance(coefficient, str) else getattr(core, "__name__", "coefficient")
    return paired_difference(
        lambda W: np.asarray(fa(w=W)),
        lambda W: np.asarray(fb(w=W)),
        A.shape[0],
        plan=plan,
        confidence_level=confidence_level,
        method=method,
        name=f"{name}_difference",
    )
