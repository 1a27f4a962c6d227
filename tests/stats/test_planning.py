"""Label budgets (stats/planning.py and ``medjudge plan``): closed forms by hand, ppi-python's
power analysis, and simulation."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from medjudge.stats.planning import (
    alt_test_simulation,
    items_for_accuracy_power,
    labels_for_ppi,
    plan_ppi,
    ppi_pilot,
    ppi_variance,
)
from medjudge.stats.ppi.mean import ppi_mean


def test_classical_and_ppi_closed_forms_by_hand():
    # classical: n = z^2 sigma^2 / h^2 = 1.959964^2 * 0.25 / 0.05^2 = 384.15 -> 385
    assert labels_for_ppi(0.5, 0.3, halfwidth=0.05, method="classical") == 385
    # PPI++, N = inf: (1 - rho^2) of it: 384.15 * 0.36 = 138.3 -> 139
    assert labels_for_ppi(0.5, 0.8, halfwidth=0.05) == 139
    # PPI (lam = 1): sigma_r^2 = .25 + .25 - 2 * .8 * .25 = 0.1; 0.1 / (0.05/1.959964)^2 = 153.7
    assert labels_for_ppi(0.5, 0.8, halfwidth=0.05, sd_judge=0.5, method="ppi") == 154
    # power: V* = (delta / (z_.975 + z_.8))^2; classical n = sigma^2 / V* = .25 * 2.8016^2 / .1^2
    assert labels_for_ppi(0.5, 0.0, delta=0.1, method="classical") == math.ceil(
        0.25 * (1.959964 + 0.841621) ** 2 / 0.01
    )


def test_ppi_quadratic_root_solves_the_variance_equation():
    for N in (200.0, 1000.0, 1e5):
        n = labels_for_ppi(0.45, 0.7, halfwidth=0.04, n_unlabeled=N)
        target = (0.04 / 1.959963984540054) ** 2
        assert ppi_variance(n, 0.45, 0.7, n_unlabeled=N) <= target
        assert ppi_variance(n - 1, 0.45, 0.7, n_unlabeled=N) > target


def test_effective_n_equals_ppi_python_power_analysis():
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.4).astype(float)
    f = np.where(rng.random(300) < 0.15, 1 - y, y)
    r = ppi_py.ppi_mean_power(y, f, cost_Y=10, cost_Yhat=1, effective_n=500)
    v = ppi_variance(r["n"], 1.0, r["ppi_corr"], n_unlabeled=r["N"])
    # ppi-python picks integer (n, N) reaching effective n 500
    assert 500 <= 1 / v < 502


def test_planned_n_reaches_the_halfwidth_in_simulation():
    # pilot-style numbers for a binary gold with a 85%-accurate judge; simulate at the planned n
    rng = np.random.default_rng(3)
    big_y = (rng.random(400_000) < 0.4).astype(float)
    big_f = np.where(rng.random(big_y.size) < 0.15, 1 - big_y, big_y)
    pilot = ppi_pilot(big_y[:100_000], big_f[:100_000])
    N = 2000
    n = int(labels_for_ppi(pilot["sd_gold"], pilot["correlation"], halfwidth=0.05, n_unlabeled=N))
    widths = []
    for _r in range(200):
        idx = rng.choice(big_y.size, n + N, replace=False)
        y, f = big_y[idx], big_f[idx]
        e = ppi_mean(y[:n], f[:n], f[n:])
        widths.append((e.ci_high - e.ci_low) / 2)
    # mean half-width within 3% of the target (its MC SE here is < 0.3%)
    assert np.mean(widths) == pytest.approx(0.05, rel=0.03)


def test_plan_ppi_table():
    t = plan_ppi({"sd_gold": 0.5, "sd_judge": 0.5, "correlation": 0.8}, halfwidth=0.05)
    assert t["n_labels"].tolist() == [385, 154, 139]
    assert t["label_ratio"].iloc[0] == 1.0


def test_accuracy_power_by_hand():
    # (1.959964*sqrt(.21) + 0.841621*sqrt(.16))^2 / .01 = 152.5 -> 153
    assert items_for_accuracy_power(0.7, 0.8) == 153


def test_alt_test_simulation_behaves():
    t = alt_test_simulation(
        [30, 150], noise_judge=0.05, noise_annotators=0.3, n_replications=40, seed=0
    )
    # a judge far better than the humans passes nearly always with 150 items
    assert t["pass_probability"].iloc[1] >= 0.9
    bad = alt_test_simulation([150], noise_judge=0.9, n_replications=30, seed=0)
    assert bad["pass_probability"].iloc[0] <= 0.1
    with pytest.raises(ValueError, match="n_annotators"):
        alt_test_simulation([50], n_annotators=2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_annotators": 2}, "n_annotators: 2 is not allowed (annotators per item"),
        ({"n_categories": 1}, "n_categories: 1 is not allowed (number of categories"),
        ({"n_replications": 0}, "n_replications: 0 is not allowed (number of replications"),
        ({"noise_judge": 1.5}, "noise_judge: 1.5 is not allowed (a probability in [0, 1])"),
    ],
)
def test_simulation_arguments_are_checked_by_the_shared_validators(kwargs, message):
    """One message style (medjudge._validation): name, value, what is allowed."""
    with pytest.raises(ValueError) as err:
        alt_test_simulation([50], **kwargs)
    assert str(err.value).startswith(message)


def test_units_to_decide_refuses_a_bool_or_zero():
    from medjudge.stats.planning import units_to_decide

    for bad in (0, True, 2.5):
        with pytest.raises(ValueError, match=r"n_tests: .* is not allowed \(number of tests"):
            units_to_decide(bad)


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "medjudge.cli", "plan", *args], capture_output=True, text=True
    )


def test_cli_plan_numbers_and_errors():
    r = _cli(
        "ppi",
        "--sd-gold",
        "0.5",
        "--sd-judge",
        "0.5",
        "--correlation",
        "0.8",
        "--halfwidth",
        "0.05",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    assert [row["n_labels"] for row in json.loads(r.stdout)["plan"]] == [385, 154, 139]
    r = _cli("paired", "--discordance", "0.2", "--delta", "0.05", "--json")
    assert json.loads(r.stdout)["plan"][0]["items"] == 626  # Connor (1987), see test_power
    for bad, opt in (
        (["accuracy", "--accuracy", "1.2", "--halfwidth", ".05"], "--accuracy"),
        (["kappa", "--kappa", ".6", "--prevalence", "0", "--halfwidth", ".1"], "--prevalence"),
        (["paired", "--discordance", ".1", "--delta", ".2"], "--delta"),
        (["ppi", "--sd-gold", ".5", "--correlation", ".5"], "--halfwidth"),
        (["alt-test", "--annotators", "2"], "--annotators"),
    ):
        r = _cli(*bad)
        assert r.returncode == 2, (bad, r.stderr)
        assert opt in r.stderr and "Traceback" not in r.stderr
