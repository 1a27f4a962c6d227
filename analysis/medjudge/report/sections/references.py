"""References: every method cited by the sections of this report, alphabetically."""

from __future__ import annotations

from collections.abc import Sequence

from ..context import ReportContext
from . import Section

KEY = "references"
TITLE = "References"
COLLECTS = True

#: Key → full reference (markdown). Sections cite keys in ``Section.references``.
REFERENCES: dict[str, str] = {
    "angelopoulos2023": "Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, "
    "T. (2023). Prediction-powered inference. *Science* 382(6671), 669–674.",
    "angelopoulos2023ppipp": "Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: "
    "efficient prediction-powered inference. arXiv:2311.01453.",
    "bland1986": "Bland, J. M. & Altman, D. G. (1986). Statistical methods for assessing "
    "agreement between two methods of clinical measurement. *Lancet* 327(8476), 307–310.",
    "bradley1952": "Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block "
    "designs: I. The method of paired comparisons. *Biometrika* 39(3/4), 324–345.",
    "brier1950": "Brier, G. W. (1950). Verification of forecasts expressed in terms of "
    "probability. *Monthly Weather Review* 78(1), 1–3.",
    "brocker2007": "Bröcker, J. & Smith, L. A. (2007). Increasing the reliability of "
    "reliability diagrams. *Weather and Forecasting* 22(3), 651–661.",
    "cohen1968": "Cohen, J. (1968). Weighted kappa: nominal scale agreement with provision for "
    "scaled disagreement or partial credit. *Psychological Bulletin* 70(4), 213–220.",
    "dubois2024": "Dubois, Y., Galambosi, B., Liang, P. & Hashimoto, T. B. (2024). "
    "Length-controlled AlpacaEval: a simple way to debias automatic evaluators. arXiv:2404.04475.",
    "durkalski2003": "Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. & Rust, P. F. (2003). "
    "Analysis of clustered matched-pair data. *Statistics in Medicine* 22(15), 2417–2428.",
    "kendall1938": "Kendall, M. G. (1938). A new measure of rank correlation. *Biometrika* "
    "30(1/2), 81–93.",
    "lin1989": "Lin, L. I.-K. (1989). A concordance correlation coefficient to evaluate "
    "reproducibility. *Biometrics* 45(1), 255–268.",
    "mcgraw1996": "McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass "
    "correlation coefficients. *Psychological Methods* 1(1), 30–46.",
    "mogstad2024": "Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference "
    "for ranks with applications to mobility across neighbourhoods and academic achievement "
    "across countries. *Review of Economic Studies* 91(1), 476–518.",
    "panickssery2024": "Panickssery, A., Bowman, S. R. & Feng, S. (2024). LLM evaluators "
    "recognize and favor their own generations. *Advances in Neural Information Processing "
    "Systems* 37.",
    "searle1992": "Searle, S. R., Casella, G. & McCulloch, C. E. (1992). *Variance Components*. "
    "New York: Wiley.",
    "calderon2025": "Calderon, N., Reichart, R. & Dror, R. (2025). The alternative annotator "
    "test for LLM-as-a-judge: how to statistically justify replacing human annotators with "
    "LLMs. *Proceedings of ACL 2025*. arXiv:2501.10970.",
    "benjamini2001": "Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery "
    "rate in multiple testing under dependency. *Annals of Statistics* 29(4), 1165–1188.",
    "cohen1960": "Cohen, J. (1960). A coefficient of agreement for nominal scales. "
    "*Educational and Psychological Measurement* 20(1), 37–46.",
    "dawid1979": "Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer "
    "error-rates using the EM algorithm. *Applied Statistics* 28(1), 20–28.",
    "efron1987": "Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the "
    "American Statistical Association* 82(397), 171–185.",
    "fagerland2013": "Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for "
    "binary matched-pairs data: mid-p and asymptotic are better than exact conditional. *BMC "
    "Medical Research Methodology* 13, 91.",
    "fleiss1971": "Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. "
    "*Psychological Bulletin* 76(5), 378–382.",
    "gwet2008": "Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the "
    "presence of high agreement. *British Journal of Mathematical and Statistical Psychology* "
    "61(1), 29–48.",
    "hall2009": "Hall, P. & Miller, H. (2009). Using the bootstrap to quantify the authority of "
    "an empirical ranking. *Annals of Statistics* 37(6B), 3929–3959.",
    "higgins2002": "Higgins, J. P. T. & Thompson, S. G. (2002). Quantifying heterogeneity in a "
    "meta-analysis. *Statistics in Medicine* 21(11), 1539–1558.",
    "guo2017": "Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of "
    "modern neural networks. *Proceedings of ICML 2017*, PMLR 70, 1321–1330.",
    "holm1979": "Holm, S. (1979). A simple sequentially rejective multiple test procedure. "
    "*Scandinavian Journal of Statistics* 6(2), 65–70.",
    "kish1965": "Kish, L. (1965). *Survey Sampling*. New York: Wiley (design effect, §8.2).",
    "krippendorff2011": "Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. "
    "Annenberg School for Communication, University of Pennsylvania.",
    "newcombe1998": "Newcombe, R. G. (1998). Interval estimation for the difference between "
    "independent proportions: comparison of eleven methods. *Statistics in Medicine* 17(8), "
    "873–890.",
    "piepho2004": "Piepho, H.-P. (2004). An algorithm for a letter-based representation of "
    "all-pairwise comparisons. *Journal of Computational and Graphical Statistics* 13(2), "
    "456–466.",
    "tango1998": "Tango, T. (1998). Equivalence test and confidence interval for the difference "
    "in proportions for the paired-sample design. *Statistics in Medicine* 17(8), 891–908.",
    "wilson1927": "Wilson, E. B. (1927). Probable inference, the law of succession, and "
    "statistical inference. *Journal of the American Statistical Association* 22(158), "
    "209–212.",
}


#: words of a result's ``ci_method`` → (reference key, how the text cites it): a section cites
#: the papers of the interval method its result records, never a method it types itself
INTERVAL_CITES: dict[str, tuple[str, str]] = {
    "wilson": ("wilson1927", "Wilson 1927"),
    "effective n": ("kish1965", "design effect of Kish 1965"),
}


#: words of a result's ``test`` column → (reference key, citation)
TEST_CITES: dict[str, tuple[str, str]] = {
    "clustered": ("durkalski2003", "Durkalski et al. 2003"),
    "mid-p": ("fagerland2013", "Fagerland et al. 2013"),
}
#: a result's multiplicity ``method`` → (reference key, citation)
ADJUSTMENT_CITES: dict[str, tuple[str, str]] = {"holm": ("holm1979", "Holm 1979")}


def interval_cites(ci_method: str) -> list[tuple[str, str]]:
    """``(key, citation)`` of every paper behind the interval method a result records."""
    low = ci_method.lower()
    return [v for k, v in INTERVAL_CITES.items() if k in low]


def test_cites(tests: Sequence[str]) -> list[tuple[str, str]]:
    """``(key, citation)`` of the papers behind the tests a result records (first match each)."""
    out: list[tuple[str, str]] = []
    for t in tests:
        low = str(t).lower()
        hit = next((v for k, v in TEST_CITES.items() if k in low), None)
        if hit and hit not in out:
            out.append(hit)
    return out


def build(ctx: ReportContext, sections: Sequence[Section]) -> Section:
    keys = sorted({k for s in sections for k in s.references})
    unknown = [k for k in keys if k not in REFERENCES]
    if unknown:
        raise KeyError(f"sections cite unknown references: {', '.join(unknown)}")
    sec = Section(KEY, TITLE)
    if not keys:
        return Section.not_applicable(KEY, TITLE, "no method with a literature reference was run")
    sec.text("\n".join(f"- {REFERENCES[k]}" for k in keys))
    return sec
