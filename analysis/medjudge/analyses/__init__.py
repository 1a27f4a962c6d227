"""Study-level analyses: ``analysis(study, ...) -> Result``.

Each module here takes a :class:`~medjudge.data.model.Study`, derives what it needs (gold,
outcome matrices, clusters) and calls the array estimators in :mod:`medjudge.stats`.
"""
