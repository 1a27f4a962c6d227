"""The tidy tables of a :class:`~medjudge.analyses.models.ModelRankingResult`.

Each wide table becomes one long table of the result contract (:mod:`medjudge.analyses._result`).
"""

from __future__ import annotations

import pandas as pd

from ._result import Quantity, Result, long_table

NO_INTERVAL = "none (no interval computed)"


def ranking_table(res: Result, name: str) -> pd.DataFrame:
    """The tidy long table ``name`` of ``res``."""
    s = res.settings
    level = float(s.get("confidence_level", 0.95))
    method = str(s.get("interval", ""))
    one = {"confidence_level": level}
    if name in ("strengths", "elo"):
        q = (
            Quantity("Bradley-Terry log strength (centred to mean 0)", "strength",
                     ci_method=method, n="comparisons", n_unit="comparisons")
            if name == "strengths"
            else Quantity("Elo rating (1000 + 400 log strength / ln 10)", "elo", "elo_ci_low",
                          "elo_ci_high", method, "comparisons", "comparisons")
        )  # fmt: skip
        extra = ["rank", "rank_low", "rank_high", "se", "tie_parameter"]
        return long_table(res.strengths, ["model", "source"], [q], extra=extra, **one)
    if name == "win_probabilities":
        return long_table(
            res.win_probabilities,
            ["model", "opponent", "source"],
            [
                Quantity(
                    "probability that the model beats the opponent",
                    "p_win",
                    ci_method=method,
                    n="comparisons",
                    n_unit="comparisons",
                )
            ],  # fmt: skip
            extra=["observed_wins"],
            **one,
        )
    if name == "correlations":
        rank = "of the judge's model ranking with the reference's"
        simultaneous = "simultaneous interval over the judges; " + method
        return long_table(
            res.correlations,
            ["judge", "reference"],
            [
                Quantity(
                    f"Kendall's tau {rank}",
                    "kendall_tau",
                    ci_method=method,
                    n="n_models",
                    n_unit="models",
                ),
                Quantity(
                    f"Kendall's tau {rank}",
                    "kendall_tau",
                    "simultaneous_ci_low",
                    "simultaneous_ci_high",
                    simultaneous,
                    "n_models",
                    "models",
                ),
                Quantity(
                    f"Spearman's rho {rank}",
                    "spearman_rho",
                    "rho_ci_low",
                    "rho_ci_high",
                    method,
                    "n_models",
                    "models",
                ),
                Quantity(
                    f"Spearman's rho {rank}",
                    "spearman_rho",
                    "rho_simultaneous_ci_low",
                    "rho_simultaneous_ci_high",
                    simultaneous,
                    "n_models",
                    "models",
                ),
            ],  # fmt: skip
            extra=["pairs", "swapped_pairs", "swapped_significant", "p_best", "best"],
            **one,
        )
    c = res.counts
    return long_table(
        c,
        ["source"],
        [
            Quantity(
                "comparisons used",
                "comparisons",
                None,
                None,
                NO_INTERVAL,
                "comparisons",
                "comparisons",
            )
        ],  # fmt: skip
        extra=[k for k in c.columns if k not in ("source", "comparisons")],
        **one,
    )
