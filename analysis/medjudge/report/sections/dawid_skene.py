"""Latent-class labels (Dawid–Skene) and the most disputed items."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..context import ReportContext
from ..tables import fmt_int, fmt_num
from . import Section, md
from ._results import audit, why_no_audit

KEY = "dawid-skene"
TITLE = "Disputed items and latent-class labels"


def dawid_skene_table(au: Any) -> pd.DataFrame:
    """Per dimension and annotator: Dawid–Skene model accuracy and per-class sensitivity."""
    rows = []
    for dim, d in au.dimensions.items():
        ds = d.get("dawid_skene")
        if not ds:
            continue
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
    for dim, d in au.dimensions.items():
        ds = d.get("dawid_skene")
        if not ds:
            continue
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


def disputed_table(au: Any, dimension: str, top: int = 15) -> pd.DataFrame:
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


def build(ctx: ReportContext) -> Section:
    why = why_no_audit(ctx)
    if why:
        return Section.not_applicable(KEY, TITLE, why)
    au = audit(ctx)
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
                f"{', '.join(f'*{md(d)}*' for d in dims)}: {md(why)}"
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
        sec.text(
            f"@tbl-disputed lists the most disputed items of *{md(head)}* (lowest share of "
            "agreeing annotator pairs, then lowest Dawid–Skene posterior) with every label."
        )
        sec.table(
            "tbl-disputed", f"The most disputed items on *{md(head)}*.", disputed_table(au, head)
        )
    elif disputed is not None:
        sec.text(f"No item of *{md(head)}* has a dissenting label.")
    return sec
