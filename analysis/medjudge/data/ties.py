"""Leaving out the items whose gold label is a tie (pairwise preference studies).

In a pairwise study (answer 1, answer 2, *tie*) a tie gold label says the experts preferred
neither answer. Some analyses (the PandaLM and MT-Bench agreement tables, for instance) are
reported on the decisive items only. :func:`exclude_tie_gold` makes that choice explicit: it
returns a new study without those (item, dimension) pairs and the counts of what it left out,
so that a caller can say how many items were dropped — never silently.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .gold import GoldMethod
from .model import Study

TIES_CHOICES: tuple[str, ...] = ("keep", "exclude")


def tie_gold_items(
    study: Study, dimension: str, gold: GoldMethod = "auto", *, reference: str | None = None
) -> list[str]:
    """Items whose gold label of ``dimension`` is the scale's tie category.

    Parameters
    ----------
    study : Study
    dimension : str
    gold : str, default "auto"
        The gold rule (see :meth:`Study.gold <medjudge.data.model.Study.gold>`).
    reference : str or None, default None
        The reference rater of ``gold="reference"``.

    Returns
    -------
    list of str
        Empty when the dimension's scale has no tie category.

    Examples
    --------
    >>> import pandas as pd
    >>> import medjudge as mj
    >>> r = pd.DataFrame({"item": ["a", "b"], "rater": "e", "role": "expert",
    ...                   "dimension": "pref", "value": ["1", "tie"]})
    >>> s = mj.Study(r, pd.DataFrame({"item": ["a", "b"]}),
    ...              {"pref": mj.Scale("nominal", ("1", "2", "tie"), tie="tie")})
    >>> tie_gold_items(s, "pref")
    ['b']
    """
    scale = study.scales[dimension]
    if scale.tie is None or not scale.is_categorical:
        return []
    tie_code = scale.categories.index(scale.tie)
    g = study.gold(dimension, gold, reference=reference)
    codes = np.asarray(g.codes, dtype=float)
    return [item for item, c in zip(g.items, codes, strict=True) if c == tie_code]


def exclude_tie_gold(
    study: Study, gold: GoldMethod = "auto", *, reference: str | None = None
) -> tuple[Study, dict[str, int]]:
    """The study without the (item, dimension) pairs whose gold label is a tie.

    Every verdict and supplied gold label of such a pair is removed; an item left with no
    verdict at all is removed from the items table. The counts (items with a tie gold label
    per dimension, and ``"items"``: distinct items concerned) are returned and recorded in the
    new study's ``notes``.

    Parameters
    ----------
    study : Study
    gold : str, default "auto"
        The gold rule whose ties are left out.
    reference : str or None, default None
        The reference rater of ``gold="reference"``.

    Returns
    -------
    (Study, dict of str to int)
        The new study (``study`` itself when no gold label is a tie) and the counts.

    Examples
    --------
    >>> import pandas as pd
    >>> import medjudge as mj
    >>> r = pd.DataFrame({"item": ["a", "b", "a", "b"], "rater": ["e", "e", "j", "j"],
    ...                   "role": ["expert", "expert", "judge", "judge"],
    ...                   "dimension": "pref", "value": ["1", "tie", "1", "2"]})
    >>> s = mj.Study(r, pd.DataFrame({"item": ["a", "b"]}),
    ...              {"pref": mj.Scale("nominal", ("1", "2", "tie"), tie="tie")})
    >>> kept, counts = exclude_tie_gold(s)
    >>> kept.item_ids, counts
    (['a'], {'pref': 1, 'items': 1})
    """
    ties = {d: tie_gold_items(study, d, gold, reference=reference) for d in study.dimensions}
    counts = {d: len(v) for d, v in ties.items() if v}
    if not counts:
        return study, {"items": 0}
    pairs = {(str(i), d) for d, items in ties.items() for i in items}
    concerned = sorted({i for i, _ in pairs})
    counts["items"] = len(concerned)

    def keep(frame):  # noqa: ANN001, ANN202 - rows of (item, dimension) pairs not tied
        key = list(zip(frame["item"].astype(str), frame["dimension"].astype(str), strict=True))
        return frame.loc[[k not in pairs for k in key]].reset_index(drop=True)

    ratings = keep(study.ratings)
    gold_table = None if study.gold_table is None else keep(study.gold_table)
    rated = set(ratings["item"].astype(str))
    items = study.items.loc[study.items["item"].astype(str).isin(rated)].reset_index(drop=True)
    per_dim = ", ".join(f"{d} {n}" for d, n in counts.items() if d != "items")
    note = f"{counts['items']} items with a tie gold label left out (--ties exclude; {per_dim})"
    return (
        dataclasses.replace(
            study,
            ratings=ratings,
            items=items,
            gold_table=gold_table,
            notes=[*study.notes, note],
        ),  # fmt: skip
        counts,
    )
