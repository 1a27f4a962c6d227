"""Report section: the judge bias suite (self-preference, length, style, position) with Holm
over the suite; each effect that does not apply is named with its reason.

``section(study, ...) -> dict`` with ``title``, ``text``, ``tables``, ``figures``;
presentation only (numbers from :func:`medjudge.analyses.bias_suite.bias_suite`).
"""

from __future__ import annotations

from typing import Any

from medjudge.analyses.bias_suite import bias_suite
from medjudge.data.model import Study

TITLE = "Bias suite"


def section(study: Study, **kwargs: Any) -> dict:
    res = bias_suite(study, **kwargs)
    st = res.settings
    text = [
        f"{st['family_size']} tests on '{st['dimension']}', {st['multiplicity']}; intervals at "
        f"level {st['confidence_level']}."
    ]
    text += [f"{k.replace('_', ' ')}: not tested — {v}." for k, v in res.notes.items()]
    if res.effects.empty:
        return {"title": TITLE, "text": text, "tables": {}, "figures": {}}
    cols = ["judge", "effect", "estimate", "ci_low", "ci_high", "level", "pvalue", "p_holm", "n"]
    tables = {"effects": res.effects[cols]}
    if "lc_accuracy" in res.effects.columns:
        lc = res.effects[res.effects["effect"] == "length"]
        if len(lc):
            tables["length_controlled_accuracy"] = lc[
                ["judge", "accuracy", "lc_accuracy", "lc_ci_low", "lc_ci_high", "n"]
            ]
    return {"title": TITLE, "text": text, "tables": tables, "figures": {}}
