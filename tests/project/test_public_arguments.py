"""Every public function of ``import medjudge as mj`` checks its arguments at the door.

In the spirit of scikit-learn's ``test_public_functions`` (parameter validation): for every
front-door function, every keyword argument and every value of a fixed set of wrong kinds
(negative, zero, out-of-range, a wrong string, a wrong type ...), the call either works (the
value happens to be allowed) or raises :class:`ValueError` with **one line naming the argument**
— never a numpy ``IndexError``, a bare ``KeyError``/``TypeError`` or a traceback from deep
inside. Then, for every function, a few hand-picked bad values must be refused with the message
naming the argument, the value and what is allowed.
"""

from __future__ import annotations

import inspect
import math
from functools import cache
from typing import Any

import medjudge as mj
import numpy as np
import pytest


@cache
def _study():
    from medjudge.data.simulate import example_study

    return example_study()


_X2 = np.array([[0, 0], [1, 1], [0, 1], [1, 1], [2, 2], [2, 1], [0, 0], [1, 0]], float)
_X3 = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]], float)
_S3 = np.array([[9, 2, 5], [6, 1, 3], [8, 4, 6], [7, 1, 2], [10, 5, 6], [6, 2, 4]], float)
_Y = np.array([[1, 0], [1, 1], [0, 1], [1, np.nan], [1, 1], [0, 0], [1, 1], [1, 0]], float)


def _alt_data():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 40)
    ann = np.where(rng.random((40, 3)) < 0.85, truth[:, None], 1 - truth[:, None]).astype(float)
    judge = np.where(rng.random(40) < 0.85, truth, 1 - truth).astype(float)
    return judge, ann


#: name -> (positional arguments, keyword arguments) of one valid call
VALID: dict[str, tuple[tuple, dict[str, Any]]] = {
    "cohen_kappa": ((_X2,), {"ci": None}),
    "scott_pi": ((_X2,), {"ci": None}),
    "pabak": ((_X2,), {"ci": None}),
    "fleiss_kappa": ((_X3,), {"ci": None}),
    "conger_kappa": ((_X3,), {"ci": None}),
    "gwet_ac": ((_X3,), {"ci": None}),
    "brennan_prediger": ((_X3,), {"ci": None}),
    "percent_agreement": ((_X3,), {"ci": None}),
    "krippendorff_alpha": ((_X3,), {"scale": "nominal", "ci": None}),
    "icc": ((_S3,), {}),
    "kendall_w": ((_S3,), {}),
    "agreement_table": ((_X3,), {"scale": "nominal", "ci": None}),
    "judge_accuracy": ((_Y,), {}),
    "proportion_ci": ((8, 10), {}),
    "paired_difference_ci": ((np.array([[40, 12], [5, 43]]),), {}),
    "mcnemar": ((np.array([[40, 12], [5, 43]]),), {}),
    "paired_bootstrap": ((_Y[:, 0], _Y[:, 1]), {"bootstrap": mj.Bootstrap(50)}),
    "all_pairs": ((_Y,), {"bootstrap": mj.Bootstrap(50)}),
    "adjust_pvalues": ((np.array([0.01, 0.04, 0.2]),), {}),
    "alt_test": (_alt_data(), {"min_items_per_annotator": 10}),
    "dawid_skene": ((_X3,), {}),
    "evaluate_judges": ((), {"bootstrap": mj.Bootstrap(20), "dimensions": ["overall"]}),
    "audit_study": ((), {"bootstrap": mj.Bootstrap(20), "with_dawid_skene": False, "ci": None}),
    "study_alt_test": ((), {"dimension": "overall"}),
    "study_stand_in": ((), {"dimension": "overall"}),
    "paired_score_difference": ((_S3[:, 0], _S3[:, 1], _S3[:, 2]), {}),
    "subgroup_accuracy": ((), {}),
    "heterogeneity_table": ((), {"permutation": mj.Permutation(20)}),
    "position_bias": ((), {}),
    "bias_report": ((), {}),
    "run_consistency": ((), {}),
    "Bootstrap": ((), {}),
    "Permutation": ((), {}),
    "rank_correlations": ((_S3[:, 0], _S3[:, 1:]), {"n_resamples": 20}),
    "judge_assisted_estimate": ((), {"dimension": "overall", "keep_labels": 30}),
    "ppi_pilot": (([1, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0, 1]), {}),
    "plan_ppi": (({"sd_gold": 0.5, "sd_judge": 0.5, "correlation": 0.8},), {"halfwidth": 0.05}),
}
STUDY_FUNCTIONS = {
    "evaluate_judges", "audit_study", "study_alt_test", "subgroup_accuracy",
    "heterogeneity_table", "position_bias", "bias_report", "run_consistency",
    "judge_assisted_estimate", "study_stand_in",
}  # fmt: skip
#: front-door names that are not functions to validate here (classes holding results, the
#: loaders, which are validated against files in test_robust_faults / test_mapping_schema, and
#: the plots module, whose functions are checked in tests/plots)
NOT_HERE = {
    "Estimate", "TestResult", "Study", "Scale", "load", "simulate", "datasets", "published",
    "plots",
}  # fmt: skip

#: wrong kinds of value tried for every keyword argument
WRONG = [-1, 0, 1.5, 10**9, -0.5, math.nan, "bogus", "", True, (), [], {}, object()]
#: arguments whose every value is data, not an option (arrays and names, checked elsewhere)
DATA_ARGS = {"categories", "values", "judges", "annotator_names", "judge_name", "raters",
             "items", "name", "groups", "clusters", "weights_matrix", "gold", "_stacked",
             "labels", "weights"}  # fmt: skip


#: legal values whose call fails for a reason of the data, said in the model's own words:
#: a pseudo-count of 1e9 drowns the data, so the Dawid-Skene classes cannot be matched to labels
LEGAL_BUT_FAILING = [("dawid_skene", "smoothing", 10**9)]


def _call(name: str, **override: Any) -> Any:
    args, kw = VALID[name]
    fn = getattr(mj, name)
    if name in STUDY_FUNCTIONS:
        args = (_study(), *args)
    return fn(*args, **{**kw, **override})


def test_every_front_door_function_is_covered():
    assert set(mj._API) - NOT_HERE == set(VALID)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_call_works(name):
    _call(name)


def _keyword_params(name: str) -> list[str]:
    fn = getattr(mj, name)
    sig = inspect.signature(fn)
    out = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is inspect.Parameter.empty:
            continue
        if p.name in DATA_ARGS:
            continue
        out.append(p.name)
    return out


CASES = [(n, a) for n in sorted(VALID) for a in _keyword_params(n)]


@pytest.mark.parametrize(("name", "arg"), CASES, ids=[f"{n}-{a}" for n, a in CASES])
def test_wrong_values_are_refused_by_name(name, arg):
    """Every wrong value either works or is refused naming the argument (never a traceback
    from deep inside)."""
    for value in WRONG:
        try:
            _call(name, **{arg: value})
        except ValueError as exc:
            msg = str(exc)
            assert "\n" not in msg, (name, arg, value, msg)
            if (name, arg, value) in LEGAL_BUT_FAILING:
                continue
            assert arg in msg or arg.split("_")[0] in msg, (name, arg, value, msg)
        except Exception as exc:  # noqa: BLE001 - the point: nothing but ValueError
            raise AssertionError(
                f"mj.{name}({arg}={value!r}) raised {type(exc).__name__}: {exc}"
            ) from exc


#: (function, argument, bad value, words the one-line message must contain)
REFUSED = [
    ("cohen_kappa", "confidence_level", 1.5, ["confidence_level", "1.5", "between 0 and 1"]),
    ("cohen_kappa", "ci", "exact", ["ci", "'exact'", "'analytic'"]),
    ("fleiss_kappa", "bootstrap", 2000, ["bootstrap", "2000", "Bootstrap"]),
    ("krippendorff_alpha", "scale", "nominl", ["scale", "'nominl'", "'nominal'"]),
    ("agreement_table", "coefficients", ["kapa"], ["coefficients", "'kapa'", "'cohen_kappa'"]),
    ("judge_accuracy", "method", "exact", ["method", "'exact'", "'wilson'"]),
    ("judge_accuracy", "policy", "wrnog", ["policy", "'wrnog'", "'exclude'"]),
    ("proportion_ci", "confidence_level", 0, ["confidence_level", "0", "between 0 and 1"]),
    ("paired_difference_ci", "method", "score", ["method", "'score'", "'tango'"]),
    ("mcnemar", "method", "exactly", ["method", "'exactly'", "'midp'"]),
    ("adjust_pvalues", "method", "hol", ["method", "'hol'", "'holm'"]),
    ("all_pairs", "policy", "x", ["policy", "'x'", "'wrong'"]),
    ("paired_bootstrap", "statistic", "f1", ["statistic", "'f1'", "'accuracy'"]),
    ("evaluate_judges", "family", "all", ["family", "'all'", "'table'"]),
    ("evaluate_judges", "dimensions", ["overal"], ["dimensions", "'overal'", "overall"]),
    ("audit_study", "top", 0, ["top", "0", "integer"]),
    ("heterogeneity_table", "confidence_level", 95, ["confidence_level", "95", "between 0 and 1"]),
    ("subgroup_accuracy", "min_n", 0, ["min_n", "0"]),
    ("dawid_skene", "max_iter", 0, ["max_iter", "0"]),
    ("alt_test", "epsilon", 2, ["epsilon", "2"]),
    ("Bootstrap", "n_resamples", 0, ["n_resamples", "0", "from 10 to 100000"]),
    ("Bootstrap", "method", "bc", ["method", "'bc'", "'bca'"]),
    ("Bootstrap", "seed", -1, ["seed", "-1"]),
    ("Permutation", "n_resamples", 5, ["n_resamples", "5", "from 10 to 100000"]),
    ("rank_correlations", "n_resamples", 0, ["n_resamples", "0", "from 10 to 100000"]),
    ("rank_correlations", "method", "bc", ["method", "'bc'", "'bca'"]),
    ("judge_assisted_estimate", "keep_labels", 1, ["keep_labels", "1", "from 2"]),
    ("judge_assisted_estimate", "cluster", "image", ["cluster", "'image'", "'image_id'"]),
    ("judge_assisted_estimate", "dimension", "overal", ["dimension", "'overal'", "'overall'"]),
    ("plan_ppi", "confidence_level", 95, ["confidence_level", "95", "(0, 1)"]),
    ("plan_ppi", "halfwidth", 10**9, ["halfwidth", "1000000000", "no expert label"]),
]


@pytest.mark.parametrize(("name", "arg", "value", "words"), REFUSED,
                         ids=[f"{r[0]}-{r[1]}" for r in REFUSED])  # fmt: skip
def test_bad_values_get_one_line_naming_argument_value_and_what_is_allowed(name, arg, value, words):
    with pytest.raises(ValueError) as info:
        _call(name, **{arg: value})
    msg = str(info.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)


# ---------------------------------------------------------------- issue 38: data at the door
#: data that is not an array of numbers: text, a ragged list, a dict, a matrix of text
NOT_NUMBERS = {
    "strings": ["a", "b", "c"],
    "ragged": [[0, 1], [1]],
    "dict": {"a": [1, 2]},
    "text_matrix": [["a", "b"], ["c", "d"]],
}
#: functions whose positional arguments are arrays of numbers (plan_ppi's is a dict)
ARRAY_FUNCTIONS = sorted(
    n for n, (args, _) in VALID.items() if args and n not in STUDY_FUNCTIONS and n != "plan_ppi"
)
#: (function, position): outcome as a dict of dimensions is all_pairs' documented input
DICT_ALLOWED = {("all_pairs", 0)}


def _positional_cases() -> list[tuple[str, int, str]]:
    out = []
    for name in ARRAY_FUNCTIONS:
        args, _ = VALID[name]
        if not all(isinstance(a, np.ndarray) or isinstance(a, list) for a in args):
            continue  # counts (proportion_ci) are checked by REFUSED
        for i in range(len(args)):
            for kind in NOT_NUMBERS:
                if (name, i) in DICT_ALLOWED and kind == "dict":
                    continue
                out.append((name, i, kind))
    return out


DATA_CASES = _positional_cases()


@pytest.mark.parametrize(
    ("name", "pos", "kind"), DATA_CASES, ids=[f"{n}-{i}-{k}" for n, i, k in DATA_CASES]
)
def test_data_that_is_not_numbers_is_refused_naming_the_argument(name, pos, kind):
    """mj.fleiss_kappa(["a", "b"]) answered with numpy's "could not convert string to float"
    or "inhomogeneous shape" from deep inside (issue 38): now one line naming the argument."""
    args, kw = VALID[name]
    fn = getattr(mj, name)
    param = list(inspect.signature(fn).parameters)[pos]
    bad = list(args)
    bad[pos] = NOT_NUMBERS[kind]
    with pytest.raises(ValueError) as info:
        fn(*bad, **kw)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"{param}: "), msg
    assert "convert" not in msg and "inhomogeneous" not in msg, msg


def test_fleiss_kappa_on_text_ragged_and_dict_names_x():
    for value, words in (
        (["a", "b"], "'a' is not allowed"),
        ([[0, 1], [1]], "a ragged list is not allowed"),
        ({"a": [1, 2]}, "a dict is not allowed"),
    ):
        with pytest.raises(ValueError, match=f"^X: {words}"):
            mj.fleiss_kappa(value)


#: functions with a ``clusters=`` argument for arrays, called with one label per item
CLUSTER_FUNCTIONS = sorted(
    n for n in ARRAY_FUNCTIONS if "clusters" in inspect.signature(getattr(mj, n)).parameters
)


@pytest.mark.parametrize("name", CLUSTER_FUNCTIONS)
@pytest.mark.parametrize("labels", ["float", "text"])
def test_a_missing_cluster_label_is_refused(name, labels):
    """A NaN cluster label gave an interval (issue 38); in a list of text numpy turns it into
    the text "nan", one more cluster. Both are refused naming clusters and the item."""
    args, kw = VALID[name]
    n = len(args[0])
    cl: list = (
        [float(i // 2) for i in range(n)] if labels == "float" else [f"c{i // 2}" for i in range(n)]
    )
    cl[-1] = math.nan
    kw = {**kw, "clusters": cl}
    if "ci" in kw:
        kw["ci"] = "bootstrap"
        kw["bootstrap"] = mj.Bootstrap(20)
    with pytest.raises(ValueError, match=f"^clusters: a missing label .* item {n - 1} has none"):
        getattr(mj, name)(*args, **kw)


@pytest.mark.parametrize(("count", "nobs", "arg"), [(1.5, 10, "count"), (3, 10.5, "nobs"),
                                                     (True, 10, "count"), (3, math.inf, "nobs")])  # fmt: skip
def test_proportion_ci_counts_are_whole_numbers(count, nobs, arg):
    with pytest.raises(ValueError, match=f"^{arg}: .* is not allowed"):
        mj.proportion_ci(count, nobs)


def test_proportion_ci_whole_float_counts_still_work():
    assert mj.proportion_ci(3.0, 10.0).estimate == 0.3


@pytest.mark.parametrize(
    "pilot",
    [
        {"sd_gold": 0.5},
        [0.5, 0.5, 0.8],
        {"sd_gold": -1, "sd_judge": 0.5, "correlation": 0.8},
        {"sd_gold": 0.5, "sd_judge": 0.5, "correlation": 2},
    ],  # fmt: skip
)
def test_plan_ppi_pilot_is_checked(pilot):
    with pytest.raises(ValueError, match=r"^pilot"):
        mj.plan_ppi(pilot, halfwidth=0.05)
