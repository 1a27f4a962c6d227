"""Variance components of judge verdicts across items, prompt variants and repeated runs.

Data: ``y[i, p, r]`` for item ``i = 1..a``, prompt variant ``p = 1..b`` and run ``r = 1..n``
(balanced; items with any missing cell are excluded and counted by the caller) — e.g. a judge's
correctness (0/1) under 15 prompting strategies (LLMBar) or its score over repeated runs.

Two-way crossed random-effects model with replication (Searle, Casella & McCulloch 1992,
*Variance Components*, Sec. 4.5; Montgomery, *Design and Analysis of Experiments*, Sec. 13.3)::

    y_ipr = mu + item_i + prompt_p + (item x prompt)_ip + run-noise_ipr

ANOVA (expected-mean-squares) estimators, unbiased and possibly negative::

    var_run    = MS_E                              (needs n >= 2)
    var_ip     = (MS_AB - MS_E) / n                (with n = 1: var_ip + var_run = MS_AB)
    var_item   = (MS_A - MS_AB) / (b n)
    var_prompt = (MS_B - MS_AB) / (a n)

The flip shares are the share of items whose verdicts are not all identical across prompts
(first run) and the share of item x prompt cells whose verdicts differ across runs.

Everything is a weighted sum over items, so :func:`variance_components` evaluates all bootstrap
resamples of items (cluster bootstrap, prompts and runs fixed) at once from a weight matrix.
"""

from __future__ import annotations

import numpy as np

from .resampling import as_weights as _weights

__all__ = ["COMPONENTS", "variance_components", "flip_shares"]

COMPONENTS = ("item", "prompt", "item_x_prompt", "run")


def variance_components(y: np.ndarray, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """ANOVA variance components of a balanced ``items x prompts x runs`` array.

    Parameters
    ----------
    y : ``(a, b, n)`` array without NaN (``(a, b)`` is read as ``n = 1``).
    weights : ``(R, a)`` item weights (bootstrap counts); None = one row of ones.

    Returns
    -------
    dict of ``(R,)`` arrays (scalars when ``weights`` is None): ``item``, ``prompt``,
    ``item_x_prompt`` (NaN when ``n = 1``), ``run`` (NaN when ``n = 1``), ``residual``
    (``item_x_prompt + run``), ``total`` (sum of the non-negative parts), and the mean squares
    ``ms_item``, ``ms_prompt``, ``ms_interaction``, ``ms_error``.

    References
    ----------
    Searle, S. R., Casella, G. & McCulloch, C. E. (1992). Variance Components. Wiley,
    Sec. 4.5 (two-way crossed classification with interaction, balanced data), Table 4.8.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([[[1., 1], [0, 1]], [[0, 0], [0, 1]], [[1, 1], [1, 1]]])
    >>> vc = variance_components(y)
    >>> round(float(vc["run"]), 4), round(float(vc["item"]), 4)
    (0.1667, 0.0833)
    """
    y = np.asarray(y, dtype=float)
    if y.ndim == 2:
        y = y[:, :, None]
    if y.ndim != 3:
        raise ValueError(f"y must be items x prompts (x runs), got shape {y.shape}")
    if np.isnan(y).any():
        raise ValueError("y has missing cells; keep only complete items (and count the rest)")
    a, b, n = y.shape
    if a < 2 or b < 2:
        raise ValueError(f"need at least 2 items and 2 prompt variants, got {a} x {b}")
    single = weights is None
    w = np.ones((1, a)) if single else _weights(weights)
    if len(w.shape) != 2 or w.shape[1] != a:
        raise ValueError(f"weights must have shape (R, {a}), got {w.shape}")
    cell = y.mean(2)  # (a, b)
    item = cell.mean(1)  # (a,)
    q = ((cell - item[:, None]) ** 2).sum(1)
    e = ((y - cell[:, :, None]) ** 2).sum((1, 2))
    ws = w.sum(1)
    grand = (w @ item) / ws
    pm = (w @ cell) / ws[:, None]  # prompt means (R, b)
    ss_b_core = ((pm - grand[:, None]) ** 2).sum(1)
    ss_a = b * n * (w @ item**2 - ws * grand**2)
    ss_b = n * ws * ss_b_core
    ss_ab = n * (w @ q - ws * ss_b_core)
    ss_e = w @ e
    ms_a = ss_a / (ws - 1)
    ms_b = ss_b / (b - 1)
    ms_ab = ss_ab / ((ws - 1) * (b - 1))
    nan = np.full_like(ws, np.nan)
    ms_e = ss_e / (ws * b * (n - 1)) if n > 1 else nan
    v_item = (ms_a - ms_ab) / (b * n)
    v_prompt = (ms_b - ms_ab) / (ws * n)
    if n > 1:
        v_ip = (ms_ab - ms_e) / n
        v_run = ms_e
        resid = v_ip + v_run
        total = np.maximum(v_item, 0) + np.maximum(v_prompt, 0) + np.maximum(v_ip, 0) + v_run
    else:
        v_ip, v_run = nan, nan
        resid = ms_ab
        total = np.maximum(v_item, 0) + np.maximum(v_prompt, 0) + resid
    out = {
        "item": v_item,
        "prompt": v_prompt,
        "item_x_prompt": v_ip,
        "run": v_run,
        "residual": resid,
        "total": total,
        "ms_item": ms_a,
        "ms_prompt": ms_b,
        "ms_interaction": ms_ab,
        "ms_error": ms_e,
    }
    if single:
        return {k: v[0] for k, v in out.items()}
    return out


def flip_shares(y: np.ndarray, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Share of items whose verdicts differ across prompts (run 1), and of item x prompt cells
    whose verdicts differ across runs (NaN with one run). Weighted like
    :func:`variance_components`.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([[[1., 1], [0, 1]], [[0, 0], [0, 0]], [[1, 1], [1, 1]]])
    >>> {k: round(float(v), 4) for k, v in flip_shares(y).items()}
    {'across_prompts': 0.3333, 'across_runs': 0.1667}
    """
    y = np.asarray(y, dtype=float)
    if y.ndim == 2:
        y = y[:, :, None]
    if y.ndim != 3 or np.isnan(y).any():
        raise ValueError("y must be a complete items x prompts (x runs) array")
    a, b, n = y.shape
    single = weights is None
    w = np.ones((1, a)) if single else _weights(weights)
    ws = w.sum(1)
    fp = (y[:, :, 0] != y[:, :1, 0]).any(1).astype(float)
    out = {"across_prompts": (w @ fp) / ws}
    if n > 1:
        fr = (y != y[:, :, :1]).any(2).mean(1)
        out["across_runs"] = (w @ fr) / ws
    else:
        out["across_runs"] = np.full_like(ws, np.nan)
    if single:
        return {k: v[0] for k, v in out.items()}
    return out
