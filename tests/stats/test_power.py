"""Planning formulas: published sample sizes, inversion identities, and simulation checks."""

from __future__ import annotations

import numpy as np
import pytest
from medjudge.stats.mcnemar import mcnemar_pvalue
from medjudge.stats.power import (
    items_for_accuracy_halfwidth,
    items_for_kappa_halfwidth,
    kappa_variance,
    mcnemar_power,
    mcnemar_sample_size,
    mde_for_pair,
    minimum_detectable_difference,
)


def test_connor_formula_by_hand():
    # Connor (1987): n = (z_.975 sqrt(psi) + z_.8 sqrt(psi - delta^2))^2 / delta^2
    # psi = 0.2, delta = 0.05: (1.959964*0.447214 + 0.841621*0.444410)^2 / 0.0025 = 625.5 -> 626
    assert mcnemar_sample_size(0.05, 0.2) == 626
    assert mcnemar_power(626, 0.05, 0.2) == pytest.approx(0.8, abs=0.002)
    with pytest.raises(ValueError):
        mcnemar_sample_size(0.3, 0.2)


@pytest.mark.parametrize("psi", [0.05, 0.2, 0.5])
def test_mde_inverts_sample_size(psi):
    n = np.array([100, 500, 1026, 5000])
    d = minimum_detectable_difference(n, psi)
    ok = ~np.isnan(d)
    np.testing.assert_allclose(mcnemar_power(n[ok], d[ok], psi), 0.8, atol=1e-6)
    # NaN only where even a one-sided discordance (delta = psi) has power < 0.8
    assert (mcnemar_power(n[~ok], psi, psi) < 0.8).all()


def test_mde_simulated_power():
    # at the MDE, McNemar (asymptotic) rejects about 80% of the time
    rng = np.random.default_rng(0)
    n, psi = 1026, 0.25
    d = float(minimum_detectable_difference(n, psi))
    p10, p01 = (psi + d) / 2, (psi - d) / 2
    x = rng.multinomial(n, [p10, p01, 1 - psi], size=4000)
    rej = np.mean(mcnemar_pvalue(x[:, 0], x[:, 1], "asymptotic")[1] < 0.05)
    assert rej == pytest.approx(0.8, abs=0.03)


def test_mde_for_pair():
    y1 = np.r_[np.ones(80), np.zeros(20), np.ones(10), np.zeros(90)]
    y2 = np.r_[np.ones(80), np.zeros(20), np.zeros(10), np.ones(90)]
    r = mde_for_pair(y1, y2)
    assert r["n"] == 200 and r["discordance"] == pytest.approx(0.5)
    assert 0 < r["mde"] < 0.5


def test_items_for_accuracy_halfwidth():
    n_wald = items_for_accuracy_halfwidth(0.8, 0.03, method="wald")
    assert n_wald == np.ceil(1.959964**2 * 0.16 / 0.0009)
    n_w = items_for_accuracy_halfwidth(0.8, 0.03)
    from medjudge.stats.intervals import wilson_interval

    lo, hi = wilson_interval(0.8 * n_w, n_w)
    assert (hi - lo) / 2 <= 0.03
    lo, hi = wilson_interval(0.8 * (n_w - 1), n_w - 1)
    assert (hi - lo) / 2 > 0.03
    assert items_for_accuracy_halfwidth(0.8, 0.03, design_effect=2.0) == 2 * n_w


def test_kappa_variance_by_simulation():
    # two raters with common prevalence pi and kappa k: P(11) = pi^2 + k pi (1-pi), etc.
    rng = np.random.default_rng(1)
    k, pi, n = 0.6, 0.3, 300
    p11 = pi**2 + k * pi * (1 - pi)
    p00 = (1 - pi) ** 2 + k * pi * (1 - pi)
    p10 = p01 = pi * (1 - pi) * (1 - k)
    t = rng.multinomial(n, [p11, p10, p01, p00], size=5000) / n
    po = t[:, 0] + t[:, 3]
    r1, c1 = t[:, 0] + t[:, 1], t[:, 0] + t[:, 2]
    pe = r1 * c1 + (1 - r1) * (1 - c1)
    kap = (po - pe) / (1 - pe)
    assert np.std(kap) == pytest.approx(np.sqrt(kappa_variance(k, pi, n)), rel=0.05)
    h = 1.959964 * np.std(kap)
    assert items_for_kappa_halfwidth(k, pi, h) == pytest.approx(n, rel=0.1)
