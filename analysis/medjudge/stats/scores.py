"""Score-valued judges (Likert or numeric) and probability outputs.

Rank correlation with the expert mean
    Spearman's rho (Pearson correlation of mid-ranks) and Kendall's tau-b (Kendall 1945:
    ``(C - D) / sqrt((n0 - n1)(n0 - n2))`` with ``n0 = N(N-1)/2`` and ``n1``, ``n2`` the tied
    pairs of each variable) with bootstrap intervals from the shared engine. A bootstrap
    resample is an integer count per item, so both statistics are computed *exactly* on the
    resampled data from the weighted ``Kx x Ky`` contingency table of the two variables' distinct
    values (``T_b = W_b @ onehot``): copies of an item are tied pairs, as in the expanded
    sample. Scores with many distinct values (``Kx*Ky > max_cells``) fall back to expanding each
    resample's integer counts into indices and calling scipy (slower, same numbers).

Pairwise accuracy from scores
    Within a group of items answering the same prompt (HANNA: the 11 systems' stories for one
    writing prompt), every pair with a strict reference preference is a pairwise verdict; the
    judge is right when its scores order the pair the same way. **Tie rule:** a judge tie counts
    0.5 (neither right nor wrong); pairs tied in the reference are excluded and counted; pairs
    with a missing judge score are excluded and counted. Bootstrap over groups (clusters).

Calibration (probability outputs)
    Equal-width bins on [0, 1]; reliability table (per bin: n, mean confidence, observed
    frequency) and the expected calibration error ``ECE = sum_b |sum_{i in b} (y_i - p_i)| / N``
    (Naeini et al. 2015; Guo et al. 2017) with a bootstrap interval. ECE is biased upwards in
    small samples (a perfectly calibrated judge has ECE > 0); read it with its interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from medjudge.stats.resampling import (
    Bootstrap,
    ResamplePlan,
    as_bootstrap,
    bootstrap_interval,
    bootstrap_se,
    weighted_bootstrap,
)

__all__ = [
    "table_rank_correlations",
    "rank_correlations",
    "pairwise_accuracy_from_scores",
    "calibration",
]

BootKind = Literal["percentile", "basic", "bca"]


def _codes(v: np.ndarray) -> tuple[np.ndarray, int]:
    _, c = np.unique(v, return_inverse=True)
    return c.ravel(), int(c.max()) + 1 if c.size else 0


def table_rank_correlations(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Spearman rho and Kendall tau-b from weighted contingency tables ``t`` of shape ``(B, Kx, Ky)``.

    Rows/columns are the ordered distinct values of x/y; ``t[b, i, j]`` the (integer) count of
    items with ``x = value_i`` and ``y = value_j`` in resample ``b``.
    """
    t = np.asarray(t, dtype=float)
    n = t.sum((1, 2))
    r, c = t.sum(2), t.sum(1)
    # every sum below is of whole numbers (counts, mid-ranks are halves): exact in any order
    # mid-ranks of each row/column value: cumulative count before + (count + 1)/2
    rr = np.cumsum(r, 1) - r + (r + 1) / 2
    cr = np.cumsum(c, 1) - c + (c + 1) / 2
    mean = (n + 1) / 2
    dx, dy = rr - mean[:, None], cr - mean[:, None]
    cov = (np.matmul(t, dy[:, :, None])[:, :, 0] * dx).sum(1)
    vx, vy = (r * dx**2).sum(1), (c * dy**2).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = cov / np.sqrt(vx * vy)
    # Kendall: S = sum_ij t_ij (#{i'>i, j'>j} - #{i'>i, j'<j}); with b_ij = sum_{i'>i} t_i'j
    # and its running sum over j, u_ij = sum_{j'<=j} b_ij', the bracket is
    # (u_i,last - u_ij) - (u_ij - b_ij)
    below = c[:, None, :] - np.cumsum(t, 1)  # sum over i' > i
    u = np.cumsum(below, 2)
    below += u[:, :, -1:]
    below -= 2 * u
    s = (t * below).sum((1, 2))
    n0 = n * (n - 1) / 2
    n1 = (r * (r - 1) / 2).sum(1)
    n2 = (c * (c - 1) / 2).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = s / np.sqrt((n0 - n1) * (n0 - n2))
    return rho, tau


def _rank_stat(x: np.ndarray, y: np.ndarray, max_cells: int):
    """Statistic ``W (k, n) -> (k, 2)`` [rho, tau_b] on the items where both x and y exist."""
    ok = ~(np.isnan(x) | np.isnan(y))
    xc, kx = _codes(x[ok])
    yc, ky = _codes(y[ok])
    idx = np.flatnonzero(ok)
    if kx * ky <= max_cells:
        # the weighted table is a sum of item weights per cell: items sorted by cell, summed
        # over each run (O(k n), where a one-hot product costs O(k n kx ky)); exact for the
        # whole-number weights of a resample
        cell = xc * ky + yc
        order = np.argsort(cell, kind="stable")
        cells, starts = np.unique(cell[order], return_index=True)
        cols = idx[order]

        def stat(w: np.ndarray) -> np.ndarray:
            w = np.asarray(w)
            t = np.zeros((w.shape[0], kx * ky))
            t[:, cells] = np.add.reduceat(w[:, cols], starts, axis=1)
            rho, tau = table_rank_correlations(t.reshape(-1, kx, ky))
            return np.column_stack([rho, tau])

        return stat

    xs, ys = x[ok], y[ok]

    def stat_slow(w: np.ndarray) -> np.ndarray:
        out = np.empty((w.shape[0], 2))
        for b, wb in enumerate(np.asarray(w)[:, idx]):
            rep = np.repeat(np.arange(idx.size), np.rint(wb).astype(int))
            out[b, 0] = stats.spearmanr(xs[rep], ys[rep]).statistic
            out[b, 1] = stats.kendalltau(xs[rep], ys[rep], variant="b").statistic
        return out

    return stat_slow


def _rank_cells(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The items where both scores exist, their cell in the ``kx x ky`` table of the two
    variables' distinct values (``xc * ky + yc``), ``kx`` and ``ky``."""
    ok = ~(np.isnan(x) | np.isnan(y))
    xc, kx = _codes(x[ok])
    yc, ky = _codes(y[ok])
    return np.flatnonzero(ok), xc * ky + yc, kx, ky


def _running_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """``np.cumsum(x, axis)`` for a short ``axis`` (0 or 1) of a replicate-contiguous array: one
    vectorised addition per step (numpy's cumsum walks such an axis element by element,
    several times slower); the same numbers for the whole numbers added here."""
    out = np.empty_like(x)
    first = (slice(None),) * axis
    out[(*first, 0)] = x[(*first, 0)]
    for a in range(1, x.shape[axis]):
        np.add(out[(*first, a - 1)], x[(*first, a)], out=out[(*first, a)])
    return out


def _tables_rank_correlations(t: np.ndarray) -> np.ndarray:
    """``[rho, tau_b]`` of each weighted table ``t[:, :, b]`` (``(kx, ky, k)``: the layout of
    :func:`table_rank_correlations` transposed, so that every pass runs along the contiguous
    replicates). The sums are of whole numbers and halves, exact in any order: the same numbers
    as :func:`table_rank_correlations`, bit for bit. Shape ``(k, 2)``."""
    t = np.asarray(t, dtype=float)
    if t.shape[0] * t.shape[1] == 0:
        return np.full((t.shape[2], 2), np.nan)
    r, c = t.sum(1), t.sum(0)
    n = r.sum(0)
    mean = (n + 1) / 2
    dx = _running_sum(r, 0) - r + (r + 1) / 2 - mean
    dy = _running_sum(c, 0) - c + (c + 1) / 2 - mean
    cov = (np.einsum("abk,bk->ak", t, dy) * dx).sum(0)
    vx, vy = (r * dx**2).sum(0), (c * dy**2).sum(0)
    below = c[None] - _running_sum(t, 0)  # sum over rows below, as in table_rank_correlations
    u = _running_sum(below, 1)
    below += u[:, -1:]
    below -= u
    below -= u
    s = np.einsum("abk,abk->k", t, below)
    n0 = n * (n - 1) / 2
    n1 = (r * (r - 1) / 2).sum(0)
    n2 = (c * (c - 1) / 2).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.column_stack([cov / np.sqrt(vx * vy), s / np.sqrt((n0 - n1) * (n0 - n2))])


def _plan_tables(plan: ResamplePlan, H) -> np.ndarray:  # noqa: ANN001 - a scipy sparse matrix
    """``(W @ H).T`` for the plan's weights ``W`` and a sparse ``(n, cells)`` one-hot ``H``:
    ``(cells, B)``, from the plan's kept counts when it keeps them
    (:class:`~medjudge.stats.score_agreement.SharedDraws`)."""
    counts_t = getattr(plan, "transposed_counts", lambda: None)()
    if counts_t is None:
        return np.ascontiguousarray((plan @ H).T)
    return plan.cluster_sums(H).T.tocsr() @ counts_t


def rank_replicates(
    x: np.ndarray,
    Y: np.ndarray,
    plan: ResamplePlan,
    *,
    confidence_level: float = 0.95,
    method: BootKind = "percentile",
    max_cells: int = 40_000,
) -> dict[str, np.ndarray]:
    """Spearman's rho and Kendall's tau-b of every column of ``Y`` with ``x`` on the resamples
    of ``plan``: ``estimate``, ``se``, ``low`` and ``high``, each ``(columns, 2)``.

    A resample's weighted table of a column is ``W @ H`` with ``H`` the one-hot ``(n, kx ky)``
    cells of its items, so the tables of many columns come from one product with the plan (and
    one with the jackknife weights for BCa) instead of a pass over ``W`` per column; the sums
    are whole numbers, so the tables — and every coefficient — are those of
    :func:`table_rank_correlations` on the expanded resamples, bit for bit. Columns with more
    than ``max_cells`` cells expand each resample and call scipy (:func:`_rank_stat`).
    """
    from scipy.sparse import csr_matrix

    from .resampling import BLOCK_BYTES

    m, n = Y.shape[1], x.size
    B = plan.n_resamples
    full = np.full((m, 2), np.nan)
    boot = np.full((B, m, 2), np.nan)
    jack = None
    if method == "bca":
        jack = np.full((plan.cluster_jackknife().n_clusters, m, 2), np.nan)
    cells = [_rank_cells(x, Y[:, j]) for j in range(m)]
    fast = [j for j in range(m) if cells[j][2] * cells[j][3] <= max_cells]
    width = max(1, BLOCK_BYTES // (8 * max(B, 1)))  # table columns of one product
    while fast:
        chunk, total = [], 0
        while fast and (not chunk or total + cells[fast[0]][2] * cells[fast[0]][3] <= width):
            j = fast.pop(0)
            chunk.append((j, total))
            total += cells[j][2] * cells[j][3]
        rows = np.concatenate([cells[j][0] for j, _ in chunk])
        cols = np.concatenate([cells[j][1] + off for j, off in chunk])
        H = csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, total))
        T = _plan_tables(plan, H)
        J = None if jack is None else np.ascontiguousarray((plan.cluster_jackknife() @ H).T)
        for j, off in chunk:
            _, cell, kx, ky = cells[j]
            sl = slice(off, off + kx * ky)
            one = np.bincount(cell, minlength=kx * ky).astype(float)
            full[j] = _tables_rank_correlations(one.reshape(kx, ky, 1))[0]
            boot[:, j] = _tables_rank_correlations(T[sl].reshape(kx, ky, -1))
            if jack is not None:
                jack[:, j] = _tables_rank_correlations(J[sl].reshape(kx, ky, -1))
    for j in (j for j in range(m) if cells[j][2] * cells[j][3] > max_cells):
        stat = _rank_stat(x, Y[:, j], max_cells)
        full[j] = stat(np.ones((1, n)))[0]
        boot[:, j] = plan.apply(stat)
        if jack is not None:
            jack[:, j] = plan.jackknife_apply(stat)
    low, high = bootstrap_interval(
        full, boot, confidence_level=confidence_level, method=method, jack=jack
    )
    return {"estimate": full, "se": bootstrap_se(boot), "low": low, "high": high}


def rank_correlations(
    reference: np.ndarray,
    scores: np.ndarray,
    judges: Sequence[str] | None = None,
    *,
    bootstrap: Bootstrap | None = None,
    clusters: np.ndarray | None = None,
    confidence_level: float = 0.95,
    max_cells: int = 40_000,
) -> pd.DataFrame:
    """Spearman and Kendall tau-b of each judge's scores (columns) with ``reference`` (e.g. the
    expert mean), with bootstrap intervals; all judges share one resample matrix.

    Both coefficients are evaluated exactly under each resample's item weights (weighted
    mid-ranks for Spearman's rho; weighted concordant, discordant and tied pair counts for
    Kendall's tau-b, ``(C - D) / sqrt((n0 - n1)(n0 - n2))``). NaN scores are excluded per judge
    (counted in ``n_missing``).

    Parameters
    ----------
    reference : array-like, shape (n_items,)
        The reference score of each item (e.g. the mean of the experts' scores).
    scores : array-like, shape (n_items,) or (n_items, n_judges)
        Each judge's score of each item (NaN = none).
    judges : sequence of str, optional
        Judge names (default ``judge_0``, ``judge_1``, ...).
    bootstrap : Bootstrap, optional
        Replicates, seed and interval method of the bootstrap (default ``Bootstrap()``: 2,000
        replicates, seed 0; the interval ``bootstrap.method`` or percentile).
    clusters : array-like, optional
        One label per item: whole clusters are resampled.
    confidence_level : float, default 0.95
        Coverage of the intervals.
    max_cells : int
        Size limit of the weighted pair-count table (larger problems use a slower exact path).

    Returns
    -------
    DataFrame
        One row per judge and coefficient (``spearman``, ``kendall_tau_b``): ``estimate``,
        ``se``, ``ci_low``, ``ci_high``, ``ci_method``, ``n`` and ``n_missing``.

    References
    ----------
    Spearman, C. (1904). The proof and measurement of association between two things. Am. J.
    Psychol. 15:72-101.
    Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika 33:239-251.
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> import numpy as np
    >>> import medjudge as mj
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=80)
    >>> s = np.column_stack([x + rng.normal(size=80), rng.normal(size=80)])
    >>> t = mj.rank_correlations(x, s, ["close", "noise"], bootstrap=mj.Bootstrap(200, seed=1))
    >>> t[["judge", "coefficient", "estimate", "n"]].round(2).to_string(index=False)
    '...close ...spearman ...0.68 ...80...'
    """
    from .._validation import CONFIDENCE_LEVEL, IntRange

    boot = as_bootstrap(bootstrap)
    n_resamples, seed = boot.n_resamples, boot.seed
    method = boot.interval("percentile", ("percentile", "basic", "bca"))
    confidence_level = CONFIDENCE_LEVEL.check("confidence_level", confidence_level)
    max_cells = IntRange(1, 2**31 - 1, what="count").check("max_cells", max_cells)
    from .._validation import check_numbers

    x = check_numbers("reference", reference, "a 1-d array of scores, NaN for none")
    y = check_numbers("scores", scores, "an items x judges array of scores, NaN for none")
    y = y[:, None] if y.ndim == 1 else y
    if clusters is not None:
        from .._validation import check_labels

        check_labels("clusters", clusters, x.size)
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(y.shape[1])]
    plan = ResamplePlan(x.size, n_resamples, seed, clusters=clusters)
    # every judge on the same resamples
    res = rank_replicates(
        x, y, plan, confidence_level=confidence_level, method=method, max_cells=max_cells
    )
    rows = []
    for j, name in enumerate(judges):
        n = int((~(np.isnan(x) | np.isnan(y[:, j]))).sum())
        for k, coef in enumerate(("spearman", "kendall_tau_b")):
            rows.append(
                {
                    "judge": name,
                    "coefficient": coef,
                    "estimate": float(res["estimate"][j, k]),
                    "se": float(res["se"][j, k]),
                    "ci_low": float(res["low"][j, k]),
                    "ci_high": float(res["high"][j, k]),
                    "ci_method": f"{'cluster ' if clusters is not None else ''}bootstrap {method} "
                    f"(B={n_resamples}, seed={seed})",
                    "n": n,
                    "n_missing": int(x.size - n),
                }
            )
    return pd.DataFrame(rows)


def pairwise_accuracy_from_scores(
    reference: np.ndarray,
    scores: np.ndarray,
    groups: np.ndarray,
    judges: Sequence[str] | None = None,
    *,
    bootstrap: Bootstrap | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Pairwise accuracy of score-valued judges within groups (tie rule in the module docstring).

    Per group ``g`` and judge: ``S_g`` = sum of pair scores (1 right, 0.5 judge tie, 0 wrong),
    ``N_g`` = pairs counted; accuracy ``sum S_g / sum N_g``; bootstrap over groups (percentile;
    ``bootstrap``: replicates and seed, default ``Bootstrap()``).
    """
    boot = as_bootstrap(bootstrap)
    boot.interval("percentile", ("percentile",))
    n_resamples, seed = boot.n_resamples, boot.seed
    x = np.asarray(reference, dtype=float)
    y = np.asarray(scores, dtype=float)
    y = y[:, None] if y.ndim == 1 else y
    judges = list(judges) if judges is not None else [f"judge_{i}" for i in range(y.shape[1])]
    gcodes, labels = pd.factorize(pd.Series(groups), sort=True)
    G, J = labels.size, y.shape[1]
    s, npairs = np.zeros((G, J)), np.zeros((G, J))
    ref_ties, missing = 0, np.zeros(J, dtype=int)
    for g in range(G):
        idx = np.flatnonzero(gcodes == g)
        i, k = np.triu_indices(idx.size, 1)
        dx = np.sign(x[idx[i]] - x[idx[k]])
        ok_ref = (dx != 0) & ~np.isnan(dx)
        ref_ties += int((~ok_ref).sum())
        dy = np.sign(y[idx[i]] - y[idx[k]])  # (pairs, J)
        okj = ok_ref[:, None] & ~np.isnan(dy)
        missing += (ok_ref[:, None] & np.isnan(dy)).sum(0)
        score = np.where(dy == 0, 0.5, (dy == dx[:, None]).astype(float))
        s[g] = np.where(okj, score, 0.0).sum(0)
        npairs[g] = okj.sum(0)
    w = ResamplePlan(G, n_resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = s.sum(0) / npairs.sum(0)
        boot = (w @ s) / (w @ npairs)
    a = (1 - confidence_level) / 2
    lo, hi = np.nanquantile(boot, a, axis=0), np.nanquantile(boot, 1 - a, axis=0)
    return pd.DataFrame(
        {
            "judge": judges,
            "pairwise_accuracy": acc,
            "ci_low": lo,
            "ci_high": hi,
            "ci_method": f"cluster bootstrap percentile over groups (B={n_resamples}, seed={seed})",
            "n_pairs": npairs.sum(0).astype(int),
            "n_groups": G,
            "excluded_reference_ties": ref_ties,
            "excluded_missing_score": missing,
            "tie_rule": "judge tie = 0.5; reference ties and missing scores excluded",
        }
    )


def calibration(
    prob: np.ndarray,
    outcome: np.ndarray,
    *,
    n_bins: int = 10,
    bootstrap: Bootstrap | None = None,
    clusters: np.ndarray | None = None,
    confidence_level: float = 0.95,
) -> dict[str, object]:
    """Reliability table and ECE (bootstrap percentile interval) of probabilities ``prob`` for
    binary ``outcome`` (1 = the event the probability is about). NaN pairs are excluded.

    Bins are ``[0, 1/n_bins), …, [(n_bins-1)/n_bins, 1]``; ``bootstrap``: replicates and seed
    of the interval (default ``Bootstrap()``: 2,000, seed 0).
    """
    boot = as_bootstrap(bootstrap)
    boot.interval("percentile", ("percentile",))
    n_resamples, seed = boot.n_resamples, boot.seed
    p = np.asarray(prob, dtype=float)
    y = np.asarray(outcome, dtype=float)
    ok = ~(np.isnan(p) | np.isnan(y))
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise ValueError("probabilities must lie in [0, 1]")
    b = np.minimum(
        (p * n_bins).astype(int, copy=False)
        if ok.all()
        else np.where(ok, p * n_bins, 0).astype(int),
        n_bins - 1,
    )
    onehot = np.zeros((p.size, n_bins))
    onehot[np.flatnonzero(ok), b[ok]] = 1.0
    resid = np.where(ok, y - p, 0.0)

    def ece(w: np.ndarray) -> np.ndarray:
        w = np.asarray(w)
        return (np.abs((w * resid) @ onehot).sum(1) / (w @ ok.astype(float)))[:, None]

    plan = ResamplePlan(p.size, n_resamples, seed, clusters=clusters)
    res = weighted_bootstrap(ece, plan, confidence_level=confidence_level, method="percentile")
    nb = onehot.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        table = pd.DataFrame(
            {
                "bin": np.arange(n_bins),
                "bin_low": np.arange(n_bins) / n_bins,
                "bin_high": np.arange(1, n_bins + 1) / n_bins,
                "n": nb.astype(int),
                "mean_confidence": (np.where(ok, p, 0) @ onehot) / nb,
                "observed": (np.where(ok, y, 0) @ onehot) / nb,
            }
        )
    table["gap"] = table["observed"] - table["mean_confidence"]
    return {
        "ece": float(res["estimate"][0]),
        "ci_low": float(res["low"][0]),
        "ci_high": float(res["high"][0]),
        "ci_method": f"bootstrap percentile (B={n_resamples}, seed={seed})",
        "n": int(ok.sum()),
        "excluded": int((~ok).sum()),
        "n_bins": n_bins,
        "reliability": table,
    }
