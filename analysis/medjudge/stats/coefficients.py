"""The agreement coefficients, one row each: the single registry.

Every place that lists the coefficients reads this table: the front door's lazy names
(``mj.fleiss_kappa`` …), :func:`~medjudge.stats.agreement.agreement_table` (which rows apply to
a measurement scale, how each is called, in which order), ``agreement(df, name)``, the paired
cores of :func:`~medjudge.stats.agreement.agreement_difference`, and the coefficient table of
``docs/agreement.md`` (a test checks that the table lists exactly these rows, as
:func:`markdown_table` writes them). Adding a coefficient: write its function (and ``*_core``)
in a module of :mod:`medjudge.stats.agreement`, export it there, and add one row here.

The module holds plain data (no numpy), so the front door can read it at ``import medjudge``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["AGREEMENT_MODULE", "COEFFICIENT_TABLE", "Coefficient", "markdown_table"]

#: where every coefficient function is exported (the front door's lazy target)
AGREEMENT_MODULE = "medjudge.stats.agreement"

Scale = Literal["nominal", "ordinal", "interval", "ratio"]
ALL_SCALES: tuple[Scale, ...] = ("nominal", "ordinal", "interval", "ratio")

#: how ``agreement_table`` calls a coefficient and labels its ``weights`` column:
#: ``weighted`` — ``weights=`` (the scale's default), ``categories=`` and ``values=``;
#: ``unweighted`` — ``categories=`` only, identity weights; ``metric`` — ``scale=`` (and the
#: categories of a categorical scale), labelled "<scale> metric"; ``ranks`` — the ratings
#: alone, labelled "ranks" (no analytic interval: ``ci="analytic"`` gives none); ``forms`` —
#: one row per form, named by its form.
Call = Literal["weighted", "unweighted", "metric", "ranks", "forms"]


@dataclass(frozen=True)
class Coefficient:
    """One agreement coefficient.

    ``scales``: the measurement scales ``agreement_table`` computes it for; ``raters``: how
    many rater columns it needs (``"two"``: exactly two, ``"2+"``: at least two, ``"any"``);
    ``exchangeable``: defined when rater ids are exchangeable slots (labels per item may vary
    in number) rather than the same persons on every item; ``core``: whether it has a
    ``<name>_core(X, w)`` function of item weights; ``aliases``: further names accepted by
    ``agreement_table(coefficients=...)``. The defaults are those of most coefficients.
    """

    name: str
    display: str
    reference: str
    scales: tuple[Scale, ...] = ALL_SCALES
    raters: Literal["two", "2+", "any"] = "any"
    call: Call = "weighted"
    exchangeable: bool = True
    core: bool = True
    aliases: tuple[str, ...] = ()

    @property
    def core_name(self) -> str | None:
        """The name of its ``*_core`` function (None: it has none)."""
        return f"{self.name}_core" if self.core else None

    @property
    def kappa_type(self) -> bool:
        """Built on a ``q x q`` category table (skipped for scores with too many values)."""
        return self.call in ("weighted", "unweighted")

    def applies(self, scale: str, n_raters: int) -> bool:
        """Whether ``agreement_table`` computes it for this scale and number of raters."""
        enough = {"two": n_raters == 2, "2+": n_raters >= 2, "any": True}[self.raters]
        return scale in self.scales and enough


#: the coefficients, in the order of ``agreement_table``'s rows
COEFFICIENT_TABLE: tuple[Coefficient, ...] = (
    Coefficient("percent_agreement", "Percent agreement", "Gwet 2014, ch. 2"),
    Coefficient("cohen_kappa", "Cohen's kappa", "Cohen 1960; 1968", raters="two",
                exchangeable=False),
    Coefficient("scott_pi", "Scott's pi", "Scott 1955", raters="two", exchangeable=False),
    Coefficient("pabak", "PABAK", "Byrt, Bishop & Carlin 1993", ("nominal",), "two",
                "unweighted", exchangeable=False, core=False),
    Coefficient("fleiss_kappa", "Fleiss' kappa", "Fleiss 1971; Gwet 2014, ch. 5"),
    Coefficient("conger_kappa", "Conger's kappa", "Conger 1980", exchangeable=False),
    Coefficient("brennan_prediger", "Brennan–Prediger", "Brennan & Prediger 1981"),
    Coefficient("gwet_ac", "Gwet's AC1 / AC2", "Gwet 2008; 2014, ch. 4",
                aliases=("gwet_ac1", "gwet_ac2")),
    Coefficient("krippendorff_alpha", "Krippendorff's alpha", "Krippendorff 2011",
                call="metric"),
    Coefficient("kendall_w", "Kendall's W", "Kendall & Babington Smith 1939",
                ("ordinal", "interval", "ratio"), "2+", "ranks", exchangeable=False),
    Coefficient("icc", "Intraclass correlations (six forms)",
                "Shrout & Fleiss 1979; McGraw & Wong 1996", ("interval", "ratio"), "2+",
                "forms", exchangeable=False, aliases=("ICC",)),
)  # fmt: skip


def markdown_table() -> str:
    """The coefficient table of ``docs/agreement.md``, written from :data:`COEFFICIENT_TABLE`.

    Returns
    -------
    str
        A Markdown table, one row per coefficient: name, what it is, the scales
        ``agreement_table`` computes it for, the raters it needs, and its reference.
    """
    raters = {"two": "exactly 2", "2+": "2 or more", "any": "any (missing allowed)"}
    lines = [
        "| name | coefficient | scales in `agreement_table` | raters | reference |",
        "|---|---|---|---|---|",
    ]
    for c in COEFFICIENT_TABLE:
        lines.append(
            f"| `{c.name}` | {c.display} | {', '.join(c.scales)} | {raters[c.raters]}"
            f"{'' if c.exchangeable else ', the same persons on every item'} | {c.reference} |"
        )
    return "\n".join(lines) + "\n"
