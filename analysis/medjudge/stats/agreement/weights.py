"""Agreement weight matrices, applied by category *value* (Gwet 2014, ch. 3).

``w_kl`` is the credit given when one rater says category ``k`` and another ``l``
(``w_kk = 1``; ``0 <= w_kl <= 1``). With sorted category values ``x_1 < … < x_q`` and
``R = x_q - x_1``:

* identity:  ``w_kl = 1[k = l]`` (nominal data; unweighted coefficients)
* linear:    ``1 - |x_k - x_l| / R``
* quadratic: ``1 - (x_k - x_l)^2 / R^2``  (Fleiss & Cohen 1973: weighted kappa ~ ICC)
* ordinal:   ``1 - M_kl / max M`` with ``M_kl = C(|k - l| + 1, 2)`` on the *ranks* ``k, l``
  (only the order matters for ordinal data)
* radical:   ``1 - sqrt|x_k - x_l| / sqrt R``
* ratio:     ``1 - ((x_k - x_l)/(x_k + x_l))^2 / ((x_q - x_1)/(x_q + x_1))^2``
* circular:  ``1 - sin^2(pi (x_k - x_l) / U) / max``, ``U = R + 1``
* bipolar:   ``1 - (x_k - x_l)^2 / ((x_k + x_l - 2 x_1)(2 x_q - x_k - x_l)) / max``

Because weights use values, categories ``[1, 2, 4]`` are *not* treated like ``[1, 2, 3]``.
A user-supplied ``q x q`` matrix is used as given (rows/columns in the sorted category order).

Reference: Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed., ch. 3; the same
definitions as the irrCAC R package (``weights.gen.r``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

WEIGHT_KINDS = (
    "identity",
    "linear",
    "quadratic",
    "ordinal",
    "radical",
    "ratio",
    "circular",
    "bipolar",
)

# default weights of the Gwet-family coefficients for each measurement level
LEVEL_WEIGHTS = {
    "nominal": "identity",
    "ordinal": "ordinal",
    "interval": "quadratic",
    "ratio": "ratio",
}


def weight_matrix(values: np.ndarray, kind: str | np.ndarray | Any = "identity") -> np.ndarray:
    """Return the ``q x q`` weight matrix for sorted category ``values``.

    ``kind`` is one of :data:`WEIGHT_KINDS` (``"unweighted"`` is an alias of identity) or an
    explicit matrix.
    """
    x = np.asarray(values, dtype=float)
    q = x.size
    if not isinstance(kind, str):
        m = np.asarray(kind, dtype=float)
        if m.shape != (q, q):
            raise ValueError(f"weight matrix must be {q}x{q} for {q} categories, got {m.shape}")
        return m
    kind = "identity" if kind in ("unweighted", "nominal") else kind
    if kind == "identity" or q < 2:
        return np.eye(q)
    d = x[:, None] - x[None, :]
    span = x.max() - x.min()
    if kind == "linear":
        return 1.0 - np.abs(d) / span
    if kind == "quadratic":
        return 1.0 - d**2 / span**2
    if kind == "radical":
        return 1.0 - np.sqrt(np.abs(d)) / np.sqrt(span)
    if kind == "ordinal":
        k = np.arange(q)
        nkl = np.abs(k[:, None] - k[None, :]) + 1
        m = nkl * (nkl - 1) / 2.0
        return 1.0 - m / m.max()
    if kind == "ratio":
        s = x[:, None] + x[None, :]
        if (x < 0).any():
            raise ValueError("ratio weights need non-negative category values")
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(s == 0, 0.0, d / np.where(s == 0, 1.0, s)) ** 2
        return 1.0 - r / ((x.max() - x.min()) / (x.max() + x.min())) ** 2
    if kind == "circular":
        u = span + 1.0
        m = np.sin(np.pi * d / u) ** 2
        return 1.0 - m / m.max()
    if kind == "bipolar":
        s = x[:, None] + x[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            m = d**2 / ((s - 2 * x.min()) * (2 * x.max() - s))
        m = np.where(np.eye(q, dtype=bool), 0.0, np.nan_to_num(m, nan=0.0, posinf=0.0))
        return 1.0 - m / m.max()
    raise ValueError(f"unknown weights {kind!r}; use one of {WEIGHT_KINDS} or a q x q matrix")


def weights_name(kind: str | np.ndarray | Any) -> str:
    """Readable name of a weights argument (for result objects)."""
    if isinstance(kind, str):
        return "identity" if kind in ("unweighted", "nominal") else kind
    return "custom"
