"""Group (cluster) labels as integer codes: the codes every clustered statistic sums over.

:func:`group_codes` returns exactly what ``np.unique(labels, return_inverse=True)`` gives as
the inverse — codes ``0..G-1`` in sorted-label order — so a statistic computed from them is the
same to the last bit. Labels that are already small non-negative integers (the cluster codes an
analysis computes once and then subsets per judge, class or column) are compressed with a
presence table in O(n + max label) instead of a sort: the clustered intervals of ``medjudge
run`` call this some thousand times per run.

Examples
--------
>>> import numpy as np

from .._validation import refuse_missing_labels
>>> from medjudge.stats.groups import group_codes
>>> group_codes(np.array([7, 3, 7, 9]))
(array([1, 0, 1, 2]), 3)
>>> group_codes(np.array(["b", "a", "b"], dtype=object))
(array([1, 0, 1]), 2)
"""

from __future__ import annotations

import numpy as np

from .._validation import refuse_missing_labels

#: integer labels up to this many times the number of labels use the presence table
_SPARSITY = 4


def group_codes(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes ``0..G-1`` of ``labels`` in sorted-label order, and ``G``.

    Parameters
    ----------
    labels : array_like, 1-D
        Group labels (integers, text, anything ``np.unique`` sorts).

    Raises
    ------
    ValueError
        A label is missing (NaN, None): see :func:`refuse_missing_labels`.

    Returns
    -------
    codes : ndarray of intp
        ``np.unique(labels, return_inverse=True)[1]``, flattened.
    n_groups : int
        The number of distinct labels (``0`` for no labels).

    Notes
    -----
    For non-negative integer labels with ``max(labels) <= 4 n + 1024`` the codes are read from
    a table: ``present[labels] = True``; ``codes = cumsum(present)[labels] - 1`` (a label's
    code is the number of smaller labels present), which is the rank ``np.unique`` gives.
    """
    a = np.asarray(labels)
    if a.ndim == 1 and a.size and a.dtype.kind in "iu":
        low, high = int(a.min()), int(a.max())
        if low >= 0 and high <= _SPARSITY * a.size + 1024:
            present = np.zeros(high + 1, dtype=bool)
            present[a] = True
            rank = np.cumsum(present, dtype=np.intp)
            return rank[a] - 1, int(rank[-1])
    refuse_missing_labels(a)
    _, codes = np.unique(a, return_inverse=True)
    codes = codes.ravel()
    return codes, (int(codes.max()) + 1 if codes.size else 0)
