"""Noisy max returning the value: samplers fit their densities; the densities reach the true epsilon."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from dpaudit.mechanisms.catalogue.flawed.noisy_max import noisy_max_value_exponential, noisy_max_value_laplace
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, continuous_pvalue, density_function

N = 50_000  # KS critical value at ALPHA: sqrt(ln(2/ALPHA)/(2N)) = 0.0123; a 30 % scale error moves the CDF by > 0.05
Q = (1.0, 0.0, 3.0, 2.0, 1.0)


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["noisy-max-value-laplace", "noisy-max-value-exponential"])
def test_sampler_fits_declared_density(name):
    mech = get(name)
    samples = mech.sample(Q, N, np.random.default_rng(20261201))
    assert samples.shape == (N,)
    assert continuous_pvalue(samples, density_function(mech.density(), Q)) > ALPHA


@pytest.mark.statistical
@pytest.mark.parametrize("factory", [noisy_max_value_laplace, noisy_max_value_exponential])
def test_fit_rejects_noise_scale_off_by_30_percent(factory):
    declared = factory().density()
    samples = factory(epsilon=0.1 / 1.3).sample(Q, N, np.random.default_rng(20261201))
    assert continuous_pvalue(samples, density_function(declared, Q)) < ALPHA


def _log_density_of(mech):
    """ln p(y | q) at the instance, as a numpy function of (y, q)."""
    import sympy

    density = mech.density()
    expr = density.expr.subs(dict(density.instance))
    pdf = sympy.lambdify((*density.outputs, *density.inputs), expr, modules="numpy")
    return lambda y, q: np.log(np.asarray(pdf(y, *q), dtype=float))


def test_laplace_value_loss_is_k_eps_over_2_and_no_more():
    mech = get("noisy-max-value-laplace")
    k, eps = 5, mech.claim.epsilon
    assert mech.true_epsilon == pytest.approx(k * eps / 2)
    a, b = mech.pairs[0]
    log_p = _log_density_of(mech)
    # Below every input the ratio is exactly exp(k / b), b = 2 / eps.
    for y in (-150.0, -60.0, 0.5):
        assert log_p(y, a) - log_p(y, b) == pytest.approx(k * eps / 2, rel=1e-9)
    # Nowhere larger, for the recommended pairs and random pairs within linf distance 1 (both orders).
    ys = np.linspace(-200.0, 200.0, 4001)
    rng = np.random.default_rng(7)
    pairs = list(mech.pairs) + [
        (tuple(q), tuple(q + rng.uniform(-1, 1, k))) for q in rng.uniform(-5, 5, (20, k))
    ]
    worst = max(
        float(np.max(np.abs(log_p(ys, a) - log_p(ys, b)))) for a, b in pairs
    )
    assert mech.claim.epsilon < worst <= k * eps / 2 + 1e-9


def test_exponential_value_support_moves_with_the_input():
    mech = get("noisy-max-value-exponential")
    assert math.isinf(mech.true_epsilon)
    a, b = mech.pairs[0]  # (0, -10, ...) vs (1, -9, ...): outputs in [0, 1) are impossible under b
    pdf_a, pdf_b = density_function(mech.density(), a), density_function(mech.density(), b)
    mass_a = integrate.quad(lambda y: float(pdf_a(y)), 0.0, 1.0)[0]
    mass_b = integrate.quad(lambda y: float(pdf_b(y)), 0.0, 1.0)[0]
    expected = (1 - math.exp(-0.05)) * (1 - math.exp(-0.55)) ** 4  # P[max < 1] = prod_i F(1 - q_i)
    assert mass_a == pytest.approx(expected, rel=1e-6) and mass_a == pytest.approx(1.6e-3, abs=5e-5)
    assert mass_b == 0.0
    # The sampler agrees: a witness under a (expected 78 of 50 000), never under b.
    rng = np.random.default_rng(99)
    assert np.count_nonzero(mech.sample(a, N, rng) < 1.0) > 0
    assert np.count_nonzero(mech.sample(b, N, rng) < 1.0) == 0
