"""Sub-commands of the ``medjudge`` CLI (one module each)."""
