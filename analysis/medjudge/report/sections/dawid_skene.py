"""Latent-class labels (Dawid–Skene) and the most disputed items."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..context import ReportContext
from ..escape import prose
from ..tables import fmt_int, fmt_num
from . import Section, builder, md
from ._results import audit, why_no_audit

KEY = "dawid-skene"
TITLE = "Disputed items and latent-class labels"


def fits(au: Any) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """``(dimension, audit entry, Dawid–Skene fit)`` of every dimension with a fit."""
    return [(dim, d, d["dawid_skene"]) for dim, d in au.dimensions.items() if d.get("dawid_skene")]


def dawid_skene_table(au: Any) -> pd.DataFrame:
    """Per dimension and annotator: Dawid–Skene model accuracy and per-class sensitivity."""
    rows = []
    for dim, _, ds in fits(au):
        for r in ds["raters"]:
            row = {
                "dimension": dim,
                "annotator": r["rater"],
                "model accuracy": fmt_num(r["accuracy"], 3),
            }
            for k, v in r.items():
                if k.startswith("p_correct_given_"):
                    row[f"P(correct | {k.removeprefix('p_correct_given_')})"] = fmt_num(v, 3)
            rows.append(row)
    return pd.DataFrame(rows)


def dawid_skene_fit_table(au: Any) -> pd.DataFrame:
    """Per dimension: class priors, EM iterations, convergence, disagreements with the majority."""
    rows = []
    for dim, d, ds in fits(au):
        rows.append(
            {
                "dimension": dim,
                "priors": ", ".join(f"{k} {fmt_num(v, 3)}" for k, v in ds["priors"].items()),
                "iterations": fmt_int(ds["n_iter"]),
                "converged": "yes" if ds["converged"] else "NO",
                "log-likelihood": fmt_num(ds["log_likelihood_final"], 1),
                "≠ majority": fmt_int(ds.get("differs_from_majority", 0)),
                "disputed items": fmt_int(d.get("n_disputed", 0)),
            }
        )
    return pd.DataFrame(rows)


#: rows of the disputed-items table; when more items than this tie at the top, a few are shown
MAX_DISPUTED, SHOWN_TIES = 15, 5


def leading_ties(disputed: pd.DataFrame) -> int:
    """How many of the first rows tie with the first on the dispute ordering (pair agreement,
    then Dawid–Skene posterior): rows the ordering cannot tell apart."""
    key = [c for c in ("pair_agreement", "ds_posterior") if c in disputed]
    if disputed.empty or not key:
        return 0
    k = disputed[key].astype(float).round(12)
    same = ((k == k.iloc[0]) | (k.isna() & k.iloc[0].isna())).all(axis=1)
    return int(same.cumprod().sum())


def disputed_table(au: Any, dimension: str, top: int = MAX_DISPUTED) -> pd.DataFrame:
    """The most disputed items of one dimension with every annotator's label."""
    d = au.dimensions[dimension]["disputed"].head(top).copy()
    d["pair_agreement"] = [fmt_num(v, 2) for v in d["pair_agreement"]]
    if "ds_posterior" in d:
        d["ds_posterior"] = [fmt_num(v, 3) for v in d["ds_posterior"]]
    if "n_ratings" in d:
        d["n_ratings"] = [fmt_int(v) for v in d["n_ratings"]]
    d = d.drop(columns=[c for c in ("modal_share",) if c in d])
    return d.rename(
        columns={
            "n_ratings": "labels",
            "pair_agreement": "pair agreement",
            "modal_label": "modal",
            "ds_label": "Dawid–Skene",
            "ds_posterior": "posterior",
        }
    )


APPLIES = why_no_audit


def present(ctx: ReportContext, au: Any) -> Section:
    head = au.settings.get("headline", ctx.headline)
    fit = dawid_skene_fit_table(au)
    sec = Section(KEY, TITLE)
    skipped = {
        dim: d["dawid_skene_skipped"]
        for dim, d in au.dimensions.items()
        if "dawid_skene_skipped" in d
    }
    if skipped:
        by_reason: dict[str, list[str]] = {}
        for dim, why in skipped.items():
            by_reason.setdefault(why, []).append(dim)
        sec.text(
            "The Dawid–Skene model was not fitted on "
            + "; ".join(
                f"{', '.join(f'*{md(d)}*' for d in dims)}: {prose(why)}"
                for why, dims in by_reason.items()
            )
            + "."
        )
    if not fit.empty:
        sec.text(
            "A Dawid–Skene model (Dawid & Skene 1979) estimates each annotator's confusion matrix "
            "and a posterior probability for each item's true class. @tbl-ds-fit summarises the "
            "fits and @tbl-ds gives each annotator's model-implied accuracy."
        )
        sec.table(
            "tbl-ds-fit",
            "Dawid–Skene fits per dimension: class priors, EM iterations, items whose "
            "latent-class label differs from the majority, and items with any disagreement.",
            fit,
        )
        sec.table(
            "tbl-ds", "Dawid–Skene model accuracy and per-class sensitivity of each annotator.",
            dawid_skene_table(au),
        )  # fmt: skip
        sec.methods.append("Latent-class labels: the Dawid & Skene (1979) model fitted by EM.")
        sec.references.append("dawid1979")
    disputed = au.dimensions.get(head, {}).get("disputed")
    if disputed is not None and len(disputed):
        n_tied = leading_ties(disputed)
        top = SHOWN_TIES if n_tied > MAX_DISPUTED else MAX_DISPUTED
        intro = (
            f"@tbl-disputed lists the most disputed items of *{md(head)}* (lowest share of "
            "agreeing annotator pairs, then lowest Dawid–Skene posterior) with every label."
        )
        if n_tied > MAX_DISPUTED:
            first = disputed.iloc[0]
            intro += (
                f" {fmt_int(n_tied)} items tie at the most disputed level (pair agreement "
                f"{fmt_num(first['pair_agreement'], 2)}"
                + (f", posterior {fmt_num(first['ds_posterior'], 3)}" if "ds_posterior" in first
                   else "")
                + f"); the first {top} by item id are shown."
            )  # fmt: skip
        sec.text(intro)
        sec.table(
            "tbl-disputed",
            f"The most disputed items on *{md(head)}*"
            + (
                f" ({top} of the {fmt_int(n_tied)} tied at the top)."
                if n_tied > MAX_DISPUTED
                else "."
            ),
            disputed_table(au, head, top),
        )
    elif disputed is not None:
        sec.text(f"No item of *{md(head)}* has a dissenting label.")
    return sec


build = builder(KEY, TITLE, APPLIES, audit, present)
