"""The settings of an analysis resolved once: clusters (and, from :mod:`medjudge.data.design`,
the presentation and judge designs of the data).

Clusters
    ``cluster="auto"`` (the default of every study-level function) takes the column the mapping
    declares, else the first of ``image_id``, ``case_id``, ``patient_id``, ``cluster`` present
    with repeated values; ``None`` or ``"none"`` treats items as independent.

Examples
--------
>>> import medjudge as mj
>>> from medjudge.analyses.design import resolve_clusters
>>> c = resolve_clusters(mj.datasets.example())
>>> c.column, c.source
('image_id', 'detected')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.design import PresentationDesign, assignment, presentation_design
from ..data.model import Study
from ._arguments import check_cluster

__all__ = [
    "CLUSTER_COLUMNS",
    "Clusters",
    "PresentationDesign",
    "assignment",
    "presentation_design",
    "resolve_clusters",
]

CLUSTER_COLUMNS = ("image_id", "case_id", "patient_id", "cluster")


@dataclass(frozen=True)
class Clusters:
    """What is resampled and tested together: one label per item (``None``: independent items).

    ``source`` says where the decision came from, in words for the Methods and the CLI.
    """

    labels: np.ndarray | None
    column: str | None
    source: str

    @property
    def n(self) -> int | None:
        """Number of clusters (``None`` for independent items)."""
        return None if self.labels is None else int(np.unique(self.labels).size)

    def describe(self) -> str:
        """One phrase: ``"clustered by image_id (502 clusters; detected)"``."""
        if self.labels is None:
            return f"items treated as independent ({self.source})"
        return f"clustered by {self.column} ({self.n:,} clusters; {self.source})"


def resolve_clusters(study: Study, cluster: str | None = "auto") -> Clusters:
    """The study's clusters under ``cluster`` (``"auto"``, a column, or ``None``/``"none"``).

    Parameters
    ----------
    study : Study
    cluster : str or None, default "auto"
        ``"auto"``: the column declared in the mapping (``study.cluster``), else the first of
        :data:`CLUSTER_COLUMNS` present; a column name: that item attribute; ``None`` or
        ``"none"``: independent items.

    Returns
    -------
    Clusters
        A column whose values are all distinct gives independent items (each item its own
        cluster), said so in ``source``.

    Raises
    ------
    ValueError
        When a named column is not an item attribute.
    """

    check_cluster(study, cluster)
    if cluster in (None, "none", ""):
        return Clusters(None, None, "no clustering asked for")
    declared = getattr(study, "cluster", None)
    if cluster == "auto":
        if declared:
            cols, source = (declared,), "declared in the mapping"
        else:
            cols, source = CLUSTER_COLUMNS, "detected"
    else:
        cols, source = (cluster,), "as asked"
    for c in cols:
        if c in study.items.columns:
            vals = study.items[c].astype(str).to_numpy()
            if len(set(vals)) < len(vals):
                return Clusters(vals, c, source)
            return Clusters(None, c, f"every item its own {c}")
    if cluster != "auto":
        raise ValueError(
            f"cluster column {cluster!r} is not an item attribute; have {list(study.items.columns)}"
        )
    return Clusters(None, None, "no cluster column found")
