"""Conversions zCDP / RDP / GDP -> (epsilon, delta): reference values, an independent oracle, properties.

* reference: Google's ``dp_accounting`` (``rdp_privacy_accountant.compute_epsilon`` / ``compute_delta``,
  CKS 2020 Prop. 12) on the same orders;
* oracle: the GDP curve against the hockey-stick divergence of N(0, 1) vs N(mu, 1) by mpmath quadrature;
* properties: inverses, monotone curves, the Gaussian's exact curve below its zCDP and RDP bounds.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit import InvalidArgument
from dpaudit.conversions import gdp_delta, gdp_epsilon, renyi_delta, renyi_epsilon, zcdp_delta, zcdp_epsilon


def _rdp_accountant():
    """Google's dp_accounting (the test extra); only the two reference tests need it."""
    return pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")

rhos = st.floats(1e-4, 50.0)
mus = st.floats(1e-2, 8.0)
deltas = st.floats(1e-12, 0.5)
epsilons = st.floats(0.0, 40.0)


@pytest.mark.parametrize("orders, rdp, delta", [
    ((2.0, 4.0, 8.0, 16.0, 32.0), (1.0, 2.0, 4.0, 8.0, 16.0), 1e-5),
    ((1.5, 3.0, 10.0, 64.0), (0.01, 0.05, 0.3, 2.5), 1e-6),
    ((2.0, 5.0, 20.0), (2.0, 3.0, 3.5), 1e-3),
])
def test_renyi_conversion_matches_dp_accounting(orders, rdp, delta):
    rdp_accountant = _rdp_accountant()
    epsilon, alpha = renyi_epsilon(orders, rdp, delta)
    reference, reference_alpha = rdp_accountant.compute_epsilon(orders, rdp, delta)
    assert epsilon == pytest.approx(reference, rel=1e-12) and alpha == reference_alpha
    back, _ = renyi_delta(orders, rdp, epsilon)
    reference_delta, _ = rdp_accountant.compute_delta(orders, rdp, epsilon)
    assert back == pytest.approx(reference_delta, rel=1e-9) and back <= delta * (1 + 1e-9)


@pytest.mark.parametrize("rho, delta", [(0.5, 1e-5), (0.05, 1e-6), (2.0, 1e-3), (0.001, 1e-9)])
def test_zcdp_conversion_matches_dp_accounting_on_a_dense_grid_of_orders(rho, delta):
    rdp_accountant = _rdp_accountant()
    # dp_accounting minimises over the orders it is given; ours over every real alpha > 1, so ours is
    # at most theirs, and a grid of 2 x 10^5 orders brings theirs within 1e-6 of the infimum.
    orders = 1.0 + np.geomspace(1e-3, 1e4, 200_000)
    reference, _ = rdp_accountant.compute_epsilon(orders, rho * orders, delta)
    epsilon = zcdp_epsilon(rho, delta)
    assert epsilon <= reference + 1e-12 and epsilon == pytest.approx(reference, abs=1e-6)
    reference_delta, _ = rdp_accountant.compute_delta(orders, rho * orders, epsilon)
    assert zcdp_delta(rho, epsilon) == pytest.approx(reference_delta, rel=1e-5)


def _hockey_stick_by_quadrature(mu: float, epsilon: float) -> float:
    """int max(0, phi(y - mu) - e^epsilon phi(y)) dy, split at the crossing y* = epsilon/mu + mu/2 (mpmath, 30 digits)."""
    with mpmath.workdps(30):
        mu, epsilon = mpmath.mpf(mu), mpmath.mpf(epsilon)
        density = lambda y: mpmath.npdf(y, mu, 1) - mpmath.exp(epsilon) * mpmath.npdf(y, 0, 1)  # noqa: E731
        return float(mpmath.quad(density, [epsilon / mu + mu / 2, mpmath.inf]))


@pytest.mark.parametrize("mu, epsilon", [(0.5, 0.0), (1.0, 1.0), (1.0, 3.0), (2.0, 0.5), (3.0, 5.0), (0.1, 0.05)])
def test_gdp_curve_is_the_hockey_stick_divergence_of_two_normals(mu, epsilon):
    assert gdp_delta(mu, epsilon) == pytest.approx(_hockey_stick_by_quadrature(mu, epsilon), rel=1e-9, abs=1e-15)


@given(mu=mus, delta=deltas)
def test_gdp_epsilon_inverts_gdp_delta_from_above(mu, delta):
    epsilon = gdp_epsilon(mu, delta)
    assert gdp_delta(mu, epsilon) <= delta
    if epsilon > 0:
        assert gdp_delta(mu, epsilon * (1 - 1e-7)) > delta or gdp_delta(mu, epsilon * (1 - 1e-7)) == pytest.approx(delta, rel=1e-5)


@given(rho=rhos, delta=deltas)
def test_zcdp_epsilon_inverts_zcdp_delta(rho, delta):
    epsilon = zcdp_epsilon(rho, delta)
    if epsilon > 0:
        assert zcdp_delta(rho, epsilon) == pytest.approx(delta, rel=1e-6)


@given(rho=rhos, delta=deltas)
def test_zcdp_tight_conversion_beats_the_classic_one(rho, delta):
    # Bun & Steinke (2016, Prop. 1.3): epsilon = rho + 2 sqrt(rho log(1/delta)); CKS (2020, Cor. 13) is never worse.
    assert zcdp_epsilon(rho, delta) <= rho + 2 * math.sqrt(rho * math.log(1 / delta)) + 1e-12


@settings(max_examples=50)
@given(mu=mus, low=epsilons, gap=st.floats(1e-3, 5.0))
def test_every_curve_is_non_increasing_in_epsilon(mu, low, gap):
    rho = mu**2 / 2
    assert gdp_delta(mu, low + gap) <= gdp_delta(mu, low)
    assert zcdp_delta(rho, low + gap) <= zcdp_delta(rho, low)
    orders = (1.5, 2.0, 4.0, 16.0)
    assert renyi_delta(orders, [rho * a for a in orders], low + gap)[0] <= renyi_delta(orders, [rho * a for a in orders], low)[0]


@given(mu=mus, epsilon=epsilons)
def test_the_gaussians_exact_curve_lies_below_its_zcdp_and_renyi_bounds(mu, epsilon):
    # N(q, sigma^2) with Delta/sigma = mu is mu-GDP exactly (Dong, Roth & Su 2022, Thm. 2.7) and
    # (mu^2/2)-zCDP (Bun & Steinke 2016, Prop. 1.6): both conversions are upper bounds on the exact curve.
    rho = mu**2 / 2
    exact = gdp_delta(mu, epsilon)
    assert exact <= zcdp_delta(rho, epsilon) * (1 + 1e-9) + 1e-300
    orders = (1.25, 2.0, 3.0, 8.0, 32.0)
    assert zcdp_delta(rho, epsilon) <= renyi_delta(orders, [rho * a for a in orders], epsilon)[0] * (1 + 1e-9) + 1e-300


def test_zero_parameters_promise_perfect_privacy():
    assert zcdp_delta(0.0, 0.0) == 0.0 and zcdp_epsilon(0.0, 1e-9) == 0.0
    assert gdp_delta(0.0, 0.0) == 0.0 and gdp_epsilon(0.0, 1e-9) == 0.0


@pytest.mark.parametrize("call, message", [
    (lambda: zcdp_delta(-1.0, 1.0), "rho=-1.0 must be a finite number >= 0"),
    (lambda: zcdp_epsilon(0.5, 0.0), r"delta=0.0 must lie in \(0, 1\)"),
    (lambda: gdp_delta(1.0, -0.5), "epsilon=-0.5 must be a finite number >= 0"),
    (lambda: gdp_epsilon(math.inf, 0.1), "mu=inf must be a finite number >= 0"),
    (lambda: renyi_epsilon([1.0], [1.0], 1e-5), "alpha=1.0 must be a finite Rényi order > 1"),
    (lambda: renyi_epsilon([2.0, 3.0], [1.0], 1e-5), "must be non-empty and of equal length"),
    (lambda: renyi_delta([2.0], [-1.0], 1.0), "epsilon=-1.0 must be a finite number >= 0"),
])
def test_invalid_arguments_name_the_argument(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()


def test_the_docstring_examples_hold():
    import doctest

    from dpaudit import conversions

    assert doctest.testmod(conversions).failed == 0
