"""The settings and shared results every report section reads (:class:`ReportContext`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..analyses._findings import Markup, attribute_words, plural, value_words
from ..analyses.subgroups import SUBGROUP_ATTRIBUTES  # one rule, re-exported
from ..data.model import Study
from .escape import markdown, prose

__all__ = [
    "ReportContext",
    "check_settings",
    "POLICY_LABELS",
    "SUBGROUP_ATTRIBUTES",
    "headline_dimension",
    "alt_invalid_rule",
]

T = TypeVar("T")

POLICY_LABELS = {
    "wrong": "count as wrong (Med-RewardBench rule)",
    "exclude": "exclude from the denominator",
    "half": "count as half correct",
}

#: Item attributes tried for subgroup breakdowns when ``by`` is not given, in this order.

#: Columns that identify clusters or answers, never subgroups.
_NOT_SUBGROUPS = {"item", "image_id", "case_id", "patient_id", "cluster", "answer1_len",
                  "answer2_len", "question", "prompt"}  # fmt: skip


def headline_dimension(study: Study) -> str:
    """The dimension shown in single-dimension tables: ``overall`` if present, else the first."""
    return "overall" if "overall" in study.dimensions else study.dimensions[0]


def alt_invalid_rule(policy: str) -> str:
    """The alternative-annotator test's rule for items without a usable judge verdict.

    One rule for the CLI (``medjudge audit``) and the report: under ``policy="wrong"`` (the
    Med-RewardBench rule) such items count as losses for the judge; otherwise they are excluded
    (the alt-test has no "half" rule).
    """
    return "wrong" if policy == "wrong" else "exclude"


#: each report setting's rule: (holds, the allowed values in words)
SETTING_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "confidence_level": (lambda v: 0 < v < 1, "between 0 and 1 (exclusive)"),
    "alpha": (lambda v: 0 < v < 1, "between 0 and 1 (exclusive)"),
    "epsilon": (lambda v: 0 <= v < 1, "in [0, 1)"),
    "margin": (lambda v: v is None or 0 < v < 1, "in (0, 1)"),
    "n_resamples": (lambda v: v >= 1, ">= 1"),
    "policy": (lambda v: v in POLICY_LABELS, "one of " + ", ".join(POLICY_LABELS)),
}


def check_settings(option: Mapping[str, str] | None = None, **settings: Any) -> None:
    """One ``ValueError`` naming the first of ``settings`` outside its rule (:data:`SETTING_RULES`),
    by its name or by ``option[name]`` (the command line's spelling, e.g. ``--margin``).

    >>> check_settings(alpha=0.05, margin=None)
    >>> check_settings({"margin": "--margin"}, margin=1.5)
    Traceback (most recent call last):
    ...
    ValueError: --margin must be in (0, 1), got 1.5
    """
    for name, value in settings.items():
        holds, allowed = SETTING_RULES[name]
        if not holds(value):
            shown = value if isinstance(value, (int, float)) else repr(value)
            raise ValueError(f"{(option or {}).get(name, name)} must be {allowed}, got {shown}")


@dataclass
class ReportContext:
    """Everything a section needs: the study, the settings, and a cache of shared results.

    Parameters
    ----------
    study
        The loaded study.
    confidence_level
        Coverage of every interval in the report (default 0.95).
    alpha
        Size of every test (family-wise after the stated adjustment).
    by
        Item attributes for subgroup breakdowns; default: the first of
        :func:`medjudge.analyses.subgroups.default_subgroup_attributes`.
    names
        The study's own words for the roles, e.g. ``{"judge": "evaluator", "expert":
        "annotator"}`` (singular; plurals are formed by :meth:`names_of`).
    epsilon
        Margin of the alternative-annotator test (Calderon et al. 2025: 0.1 for experts).
    margin
        Clinical margin of the stand-in decision in accuracy points as a proportion
        (default None: :data:`medjudge.stats.judge_vs_experts.STAND_IN_MARGIN`, 0.05).
    dimension
        The headline dimension of single-dimension tables and findings (default:
        :func:`headline_dimension`).
    reliability_ci
        Interval of the agreement coefficients (``"auto"``: as ``medjudge audit --ci auto``,
        resolved once by :func:`medjudge.analyses.audit.audit_settings`).
    """

    study: Study
    data: str | Path | None = None
    mapping: str | Path | None = None
    seed: int = 0
    n_resamples: int = 2000
    policy: str = "wrong"
    confidence_level: float = 0.95
    alpha: float = 0.05
    epsilon: float = 0.1
    margin: float | None = None
    by: Sequence[str] | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    reliability_ci: str = "auto"
    dimension: str | None = None
    command: str | None = None
    simulated: bool | None = None
    #: the reporting checklist appended to the report (``"tripod-llm"``, ``"stard"`` or None)
    checklist: str | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        check_settings(
            confidence_level=self.confidence_level, alpha=self.alpha, epsilon=self.epsilon,
            margin=self.margin, n_resamples=self.n_resamples, policy=self.policy,
        )  # fmt: skip
        if self.dimension is not None and self.dimension not in self.study.dimensions:
            raise ValueError(
                f"dimension: {self.dimension!r} is not a dimension of the study; have "
                + ", ".join(map(str, self.study.dimensions))
            )
        if self.by is not None:
            self.by = [b for b in self.by if b]
            missing = [b for b in self.by if b not in self.study.items.columns]
            if missing:
                have = [c for c in self.study.items.columns if c != "item"]
                raise ValueError(
                    f"by: no item attribute {missing[0]!r}; the items have: "
                    f"{', '.join(map(str, have)) or 'none'}"
                )
        if self.simulated is None:
            self.simulated = (
                self.data is not None and (Path(self.data) / "truth" / "params.json").is_file()
            )

    # ------------------------------------------------------------------ shared results
    @property
    def bootstrap(self) -> Any:
        """The report's resampling settings (:class:`medjudge.Bootstrap`)."""
        from ..stats.resampling import Bootstrap

        return Bootstrap(self.n_resamples, self.seed)

    def get(self, name: str, compute: Callable[[], T]) -> T:
        """The shared result ``name``, computed by ``compute()`` the first time it is asked."""
        if name not in self._cache:
            self._cache[name] = compute()
        return self._cache[name]

    # ------------------------------------------------------------------ words
    @property
    def level(self) -> str:
        """The confidence level as text: ``"95%"`` (from :attr:`confidence_level`)."""
        pct = 100 * self.confidence_level
        return f"{pct:.0f}%" if abs(pct - round(pct)) < 1e-9 else f"{pct:g}%"

    def unusable_rule(self) -> str:
        """What happens to a rating row without a usable value, for this study (plain text).

        The invalid-verdict policy concerns the judges' categorical verdicts only: score
        comparisons use the items where both scores exist, and an expert's blank label is a
        missing label (no gold vote), whatever the policy.
        """
        s = self.study
        if not s.judges:
            return (
                f"empty or unparseable {self.name('expert')} labels are missing labels (no gold "
                "vote; left out of the agreement coefficients)"
            )
        categorical = [d for d in s.dimensions if s.scales[d].is_categorical]
        parts = []
        if categorical:
            parts.append(f"a {self.name('judge')}'s unusable verdict: {POLICY_LABELS[self.policy]}")
        if len(categorical) < len(s.dimensions):
            parts.append("an unusable score is left out of the score comparisons")
        if s.experts:
            parts.append(f"unusable {self.name('expert')} labels are missing labels")
        return "; ".join(parts)

    def name(self, role: str) -> str:
        """The study's word for a role (``judge``, ``expert``), singular."""
        if role in self.names:
            return str(self.names[role])
        return str(getattr(self.study, "role_names", {}).get(role, role))

    def names_of(self, role: str, n: int | None = None) -> str:
        """Plural (or singular when ``n == 1``) of the study's word for ``role``."""
        word = self.name(role)
        return word if n == 1 else str(self.names.get(f"{role}s", plural(word)))

    @property
    def markup(self) -> Markup:
        """How a result writes its findings into this report: data strings escaped for
        markdown, ``**strong**`` and ``*em*`` (:meth:`medjudge.analyses._result.Result.findings`)."""
        return Markup(escape=markdown, strong="**{}**", em="*{}*", prose=prose)

    @property
    def headline(self) -> str:
        return self.dimension or headline_dimension(self.study)

    @property
    def subgroup_attributes(self) -> list[str]:
        """Attributes to break down by (``by``, else the first usable default)."""
        items = self.study.items
        if self.by is not None:
            return [b for b in self.by if items[b].nunique(dropna=True) > 1]
        from ..analyses.subgroups import default_subgroup_attributes

        return default_subgroup_attributes(self.study)

    @property
    def subgroup_attribute(self) -> str | None:
        attrs = self.subgroup_attributes
        return attrs[0] if attrs else None

    def label(self, attribute: str) -> str:
        """Readable name of an item attribute (``organ_system`` → ``organ system``)."""
        return attribute_words(attribute)

    def value_label(self, value: object) -> str:
        """Readable attribute value for sentences (``upper_limb`` → ``upper limb``); tables keep
        the data's own spelling so that values can be looked up."""
        return value_words(value)
