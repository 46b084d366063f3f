"""Staircase mechanism: the sampler draws the declared staircase density; the test has power."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.mechanisms._grid import grid_for
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.staircase import optimal_gamma, staircase
from tests.gof import ALPHA, continuous_pvalue, density_function

N = 50_000  # KS critical value at ALPHA: 0.0123
DATA = (1, 0, 1, 1)


def test_declared_density_integrates_to_one_and_has_ratio_e_epsilon():
    from scipy import integrate

    density = get("staircase").density()
    pdf = density_function(density, 0.0)
    gamma = optimal_gamma(1.0)
    # integrate piece by piece (the density jumps at k and k + gamma)
    edges = sorted({float(k + s) for k in range(0, 60) for s in (0.0, gamma)})
    total = 2 * sum(integrate.quad(lambda t: float(pdf(t)), a, b)[0] for a, b in zip(edges, edges[1:]))
    assert total == pytest.approx(1.0, abs=1e-12)
    # the worst-case ratio p(y | 0) / p(y | 1) is exactly e^epsilon (attained, so true epsilon = epsilon)
    y = np.linspace(-5, 5, 20_001)
    shifted = density_function(density, 1.0)
    ratio = np.log(pdf(y) / shifted(y))
    assert ratio.max() == pytest.approx(1.0, abs=1e-12) and ratio.min() == pytest.approx(-1.0, abs=1e-12)


@pytest.mark.statistical
def test_staircase_fits_declared_density():
    mech = get("staircase")
    samples = mech.sample(DATA, N, np.random.default_rng(20261126))
    assert continuous_pvalue(samples, density_function(mech.density(), mech.query(DATA))) > ALPHA


@pytest.mark.statistical
def test_staircase_fit_rejects_scale_off_by_30_percent():
    # epsilon / 1.3 widens the geometric steps (b = e^-eps) and moves gamma*
    samples = staircase(epsilon=1 / 1.3).sample(DATA, N, np.random.default_rng(20261126))
    assert continuous_pvalue(samples, density_function(get("staircase").density(), 3.0)) < ALPHA


@pytest.mark.statistical
def test_step_masses_follow_geng_viswanath():
    """P(|X| in [k, k + gamma)) = (1-b) b^k gamma / (gamma + (1-gamma) b): binomial check per step."""
    mech = get("staircase")
    noise = np.abs(mech.sample((), 200_000, np.random.default_rng(5)))
    gamma, b = optimal_gamma(1.0), math.exp(-1.0)
    for k in range(4):
        p = (1 - b) * b**k * gamma / (gamma + (1 - gamma) * b)
        observed = np.mean((noise >= k) & (noise < k + gamma))
        # 5.3 standard errors: two-sided normal tail 1.2e-7 per check (4 checks)
        assert abs(observed - p) < 5.3 * math.sqrt(p * (1 - p) / noise.size), k


def test_outputs_lie_on_the_grid_whatever_the_input():
    step = grid_for(optimal_gamma(1.0))[0]
    for data in ((), (1,) * 7, (1, 0, 1)):
        out = get("staircase").sample(data, 2_000, np.random.default_rng(3))
        assert np.all(np.mod(out, step) == 0)
