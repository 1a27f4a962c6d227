"""Appendix: a reporting checklist (``--checklist tripod-llm|stard``) filled from the report.

Built after the other sections (``COLLECTS``): an item is answered only by a section this
report shows (:func:`medjudge.report.checklist.fill_checklist`). The section is in a report
only when a checklist was asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..checklist import STATUS, fill_checklist, load_checklist
from ..context import ReportContext
from ..escape import prose
from ..tables import fmt_int
from . import Section

KEY = "checklist"
TITLE = "Appendix: reporting checklist"
COLLECTS = True


def build(ctx: ReportContext, sections: Sequence[Section]) -> Section:
    c = load_checklist(str(ctx.checklist))
    t = fill_checklist(c.key, ctx, sections)
    sec = Section(KEY, f"Appendix: {c.name} checklist")
    n = t["status"].value_counts()
    authors = t.loc[t["status"] == "authors", "id"].tolist()
    sec.text(
        f"The {fmt_int(len(t))} items of {prose(c.name)} ({prose(c.citation)}), worded as "
        f"published. {prose(c.reading)} This report answers {fmt_int(n.get('answered', 0))} "
        f"items and part of {fmt_int(n.get('partly', 0))} more, each with the section that "
        f"shows it; the authors must supply the other {fmt_int(len(authors))} (items "
        f"{prose(', '.join(authors))}) and the parts marked 'partly'."
    )
    frame = pd.DataFrame(
        {
            "item": t["id"],
            "topic": t["section"],
            "checklist item (as published)": t["text"],
            "status": t["status"].map(STATUS),
            "where in this report": t["where"].replace("", "—"),
        }
    )
    sec.table(
        f"tbl-checklist-{c.key}",
        f"{prose(c.name)} items: answered by this report, partly answered, or for the authors.",
        frame,
    )
    return sec
