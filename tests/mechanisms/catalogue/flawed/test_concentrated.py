"""The zCDP / RDP flawed entries: their true epsilons recomputed, their samplers the declared Gaussians."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from dpaudit.claims import RenyiDP, ZeroConcentratedDP
from dpaudit.conversions import gdp_epsilon, renyi_epsilon
from dpaudit.mechanisms.base import TRUE_EPSILON_DELTA
from dpaudit.mechanisms.catalogue.flawed import concentrated
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, continuous_pvalue

N = 50_000  # KS critical value at ALPHA is 0.0123; a 30 % sigma error moves the normal CDF by ~0.07


@pytest.mark.parametrize("name, true_mu", [
    ("gaussian-zcdp-linf-sensitivity", math.sqrt(concentrated.FEATURES) / (1 / math.sqrt(2 * concentrated.LINF_RHO))),
    ("gaussian-zcdp-conversion-drops-rho", math.sqrt(2 * concentrated.DROPS_RHO)),
    ("renyi-accountant-wrong-order", math.sqrt(concentrated.RELEASES) / concentrated.RELEASE_SIGMA),
])
def test_true_epsilon_is_the_exact_gaussian_curve_at_the_stated_delta(name, true_mu):
    mechanism = get(name)
    assert mechanism.true_epsilon == pytest.approx(gdp_epsilon(true_mu, TRUE_EPSILON_DELTA), rel=1e-12)


def test_each_claim_is_below_the_truth():
    assert get("gaussian-zcdp-linf-sensitivity").claim == ZeroConcentratedDP(0.5)  # truth: rho = 2
    drops = get("gaussian-zcdp-conversion-drops-rho").claim
    assert drops.epsilon == pytest.approx(2 * math.sqrt(4 * math.log(1e5)))  # the rho term of 4 + 2 sqrt(4 ln 1e5) dropped
    wrong = get("renyi-accountant-wrong-order").claim
    truth = RenyiDP(wrong.alpha, [a / 2 for a in wrong.alpha])  # 4 releases of (alpha, alpha/8)-RDP
    assert all(c <= t for c, t in zip(wrong.epsilon, truth.epsilon)) and wrong.epsilon[1] == truth.epsilon[1] / 2
    assert renyi_epsilon(wrong.alpha, wrong.epsilon, 1e-5)[0] < gdp_epsilon(1.0, 1e-5)  # the truth is 1-GDP


def _declared_sigma(mechanism) -> float:
    density = mechanism.density()
    return float(next(v for p, v in density.instance.items() if p.name == "sigma"))


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["gaussian-zcdp-linf-sensitivity", "renyi-accountant-wrong-order"])
def test_every_coordinate_fits_its_declared_normal(name):
    # The declared density is a product of N(m_i, sigma^2): each column must fit its factor.  Four KS
    # tests at ALPHA / 4 each keep the family-wise level at ALPHA (Bonferroni).
    mechanism = get(name)
    data = mechanism.pairs[0][0]
    samples = mechanism.sample(data, N, np.random.default_rng(20261125))
    means = np.broadcast_to(np.atleast_1d(mechanism.query(data)), (samples.shape[1],))
    sigma = _declared_sigma(mechanism)
    for column, mean in zip(samples.T, means):
        assert continuous_pvalue(column, lambda y, m=float(mean): norm.pdf(y, m, sigma)) > ALPHA / samples.shape[1]


@pytest.mark.statistical
def test_the_fit_rejects_sigma_off_by_30_percent():
    mechanism = get("renyi-accountant-wrong-order")
    samples = mechanism.sample(mechanism.pairs[0][0], N, np.random.default_rng(20261125))
    wrong = 1.3 * _declared_sigma(mechanism)
    assert continuous_pvalue(samples[:, 0], lambda y: norm.pdf(y, 2.0, wrong)) < ALPHA
