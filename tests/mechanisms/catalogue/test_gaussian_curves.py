"""The Gaussian mechanism stated in zCDP and in GDP: samplers fit the declared densities, with power."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.claims import GaussianDP, ZeroConcentratedDP
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.gaussian_curves import gaussian_gdp, gaussian_zcdp
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, continuous_pvalue, density_function

N = 50_000  # KS critical value at ALPHA is 0.0123; a 30 % sigma error moves the normal CDF by ~0.07
DATA = (1, 0, 1, 1)  # count 3


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["gaussian-zcdp", "gaussian-gdp"])
def test_fits_declared_density(name):
    mechanism = get(name)
    samples = mechanism.sample(DATA, N, np.random.default_rng(20261125))
    assert continuous_pvalue(samples, density_function(mechanism.density(), 3.0)) > ALPHA


@pytest.mark.statistical
@pytest.mark.parametrize("name, wrong", [("gaussian-zcdp", gaussian_zcdp(rho=0.5 / 1.3**2)), ("gaussian-gdp", gaussian_gdp(mu=1 / 1.3))])
def test_fit_rejects_sigma_off_by_30_percent(name, wrong):
    samples = wrong.sample(DATA, N, np.random.default_rng(20261125))
    assert continuous_pvalue(samples, density_function(get(name).density(), 3.0)) < ALPHA


def test_claims_and_the_point_the_densities_state():
    zcdp, gdp = get("gaussian-zcdp"), get("gaussian-gdp")
    assert zcdp.claim == ZeroConcentratedDP(0.5) and gdp.claim == GaussianDP(1.0)
    # zCDP's density states Bun & Steinke's rho + 2 sqrt(rho ln(1/delta)) at delta = 1e-5
    assert float(zcdp.density().at_instance().epsilon) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)))
    # GDP's density states the exact curve at epsilon = 1: delta = Phi(-1/2) - e Phi(-3/2)
    assert float(gdp.density().at_instance().delta) == pytest.approx(GaussianDP(1.0).delta_at_epsilon(1.0), rel=1e-12)


@pytest.mark.parametrize("factory, argument", [(gaussian_zcdp, "rho"), (gaussian_gdp, "mu")])
@pytest.mark.parametrize("value", [0, -1, math.inf])
def test_invalid_parameters_are_refused(factory, argument, value):
    with pytest.raises(InvalidArgument, match=argument):
        factory(**{argument: value})
