"""Geometric (discrete Laplace) mechanism: exact sampler fits the declared pmf, with power."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.geometric import geometric
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, discrete_pvalue
from tests.mechanisms.catalogue._discrete_pmf import declared_pmf

N = 20_000
SEED = 20261122
DATA = (1, 0, 1, 1)  # count 3
WINDOW = range(3 - 60, 3 + 61)  # the declared mass outside is 2 e^-61 / (1 + e^-1) < 1e-26


@pytest.mark.statistical
def test_geometric_fits_declared_pmf():
    mechanism = get("geometric")
    samples = mechanism.sample(DATA, N, np.random.default_rng(SEED))
    assert samples.dtype == np.int64
    assert discrete_pvalue(samples, declared_pmf(mechanism.density(), mechanism.query(DATA), WINDOW)) > ALPHA


@pytest.mark.statistical
def test_geometric_fit_rejects_noise_scale_off_by_30_percent():
    # epsilon = 1/1.3 against the epsilon = 1 pmf: noncentrality 1870 at N = 20000 over ~11 bins
    # (critical value ~ 50 at ALPHA): power ~ 1.
    samples = geometric(epsilon=1 / 1.3).sample(DATA, N, np.random.default_rng(SEED))
    assert discrete_pvalue(samples, declared_pmf(get("geometric").density(), 3, WINDOW)) < ALPHA


def test_declared_pmf_is_normalised_and_tight():
    import sympy

    density = get("geometric").density().at_instance()
    y, q = density.outputs[0], density.inputs[0]
    pmf = density.expr.subs(q, 0)
    m = sympy.Symbol("m", positive=True, integer=True)
    # sum over the integers: the atom at 0 plus twice a geometric series over m >= 1
    total = pmf.subs(y, 0) + 2 * sympy.summation(pmf.subs(y, m), (m, 1, sympy.oo))
    assert sympy.simplify(total - 1) == 0
    # at y = 5, moving q from 0 to 1 multiplies the pmf by exactly e^epsilon
    assert sympy.simplify(sympy.log(density.expr.subs({q: 1, y: 5}) / pmf.subs(y, 5)) - density.epsilon) == 0


def test_epsilon_is_kept_rational():
    mechanism = geometric(epsilon=0.1)
    assert mechanism.claim.epsilon == 0.1
    density = mechanism.density()
    assert density.at_instance().epsilon == Fraction(1, 10)  # sympy Rational(1, 10) equals the Fraction
    assert mechanism.true_epsilon == 0.1


def test_outputs_are_count_plus_integer_noise_and_reproducible():
    mechanism = get("geometric")
    a = mechanism.sample(DATA, 1000, np.random.default_rng(3))
    assert np.array_equal(a, mechanism.sample(DATA, 1000, np.random.default_rng(3)))
    assert mechanism.sample((), 5, np.random.default_rng(0)).shape == (5,)
    assert abs(float(np.mean(a)) - 3) < 0.5  # mean 3, sd sqrt(2a)/(1 - a) = 1.36, so the mean's sd is 0.04


@pytest.mark.parametrize("epsilon", [0, -1, math.inf, "1"])
def test_invalid_epsilon_is_refused(epsilon):
    with pytest.raises(InvalidArgument):
        geometric(epsilon=epsilon)


def test_rational_epsilon_given_as_fraction_is_exact():
    density = geometric(epsilon=Fraction(2, 3)).density()
    assert density.instance[density.epsilon] == Fraction(2, 3)
