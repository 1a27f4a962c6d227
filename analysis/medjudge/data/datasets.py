"""Studies to try medjudge on, as :class:`~medjudge.data.model.Study` objects (``mj.datasets``).

Both are simulated, Med-RewardBench-shaped studies (:func:`medjudge.data.simulate.simulate`):
written once per process into a temporary folder and loaded, so they need no download and no
file of the repository. Treat the returned study as read-only (it is shared by later calls).

* :func:`demo` — the bundled demo, ``data/demo`` of the repository (1,026 items, 12 judges,
  3 experts, six dimensions; the same files, byte for byte, as ``medjudge simulate --seed
  20261122``).
* :func:`example` — a small study of the same shape, for examples and quick trials.

Examples
--------
>>> import medjudge as mj
>>> study = mj.datasets.example()
>>> len(study.items), len(study.judges), len(study.experts)
(60, 12, 3)
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Study

__all__ = ["demo", "demo_path", "example"]

#: the demo bundle's seed and size (``data/demo``)
DEMO_SEED, DEMO_ITEMS = 20261122, 1026

_STUDIES: dict[tuple[int, int], Study] = {}
_FOLDERS: dict[tuple[int, int], Path] = {}


def _folder(n_items: int, seed: int) -> Path:
    key = (int(n_items), int(seed))
    if key not in _FOLDERS:
        from .simulate import simulate

        name = "demo" if key == (DEMO_ITEMS, DEMO_SEED) else f"example-{key[0]}-{key[1]}"
        folder = Path(tempfile.mkdtemp(prefix="medjudge-dataset-")) / name  # the study's name
        simulate(folder, seed=key[1], n_items=key[0])
        _FOLDERS[key] = folder
    return _FOLDERS[key]


def _study(n_items: int, seed: int) -> Study:
    key = (int(n_items), int(seed))
    if key not in _STUDIES:
        from .tables import load_any

        _STUDIES[key] = load_any(_folder(*key))
    return _STUDIES[key]


def demo_path() -> Path:
    """The folder of the demo bundle (Med-RewardBench native layout), written on first use.

    Returns
    -------
    pathlib.Path
        A temporary folder holding the same files as the repository's ``data/demo``.

    Examples
    --------
    >>> import medjudge as mj
    >>> sorted(p.name for p in mj.datasets.demo_path().iterdir())[:2]
    ['README.md', 'expert_labels.jsonl']
    """
    return _folder(DEMO_ITEMS, DEMO_SEED)


def demo() -> Study:
    """The demo study: 1,026 image cases, 12 judges, 3 experts, six dimensions (simulated).

    Returns
    -------
    Study
        The study ``mj.load("data/demo")`` gives in the repository.

    References
    ----------
    The layout and dimensions follow Med-RewardBench (Ding et al. 2025, arXiv:2508.21430).

    Examples
    --------
    >>> import medjudge as mj
    >>> study = mj.datasets.demo()
    >>> len(study.items), len(study.judges), list(study.dimensions)[:2]
    (1026, 12, ['accuracy', 'relevance'])
    """
    return _study(DEMO_ITEMS, DEMO_SEED)


def example(n_items: int = 60, seed: int = 3) -> Study:
    """A small simulated study of the demo's shape, for examples and quick trials.

    Parameters
    ----------
    n_items : int, default 60
        Number of items.
    seed : int, default 3
        Seed of the simulation.

    Returns
    -------
    Study
        The layout and dimensions of :func:`demo` (Med-RewardBench's).

    Examples
    --------
    >>> example(n_items=30).items.shape[0]
    30
    """
    return _study(n_items, seed)
