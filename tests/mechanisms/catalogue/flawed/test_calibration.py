"""Calibration slips: samplers fit their declared densities (with power), and the exact log-ratios of
those densities reach the true epsilon."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

from dpaudit.mechanisms.catalogue.flawed.calibration import exponential_no_factor_2, laplace_scale_epsilon, rr_miscalibrated
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, continuous_pvalue, density_function, discrete_pvalue

N = 50_000  # KS critical value at ALPHA 0.0123 (see tests/mechanisms/catalogue/test_laplace.py); chi-square on 2-3 cells


def _pmf(mech, q, outputs):
    density = mech.density()
    return {y: density.numeric(y, q) for y in outputs}


@pytest.mark.statistical
def test_laplace_scale_epsilon_fits_and_has_power():
    mech, data = get("laplace-scale-epsilon"), (1, 0, 1)
    pdf = density_function(mech.density(), mech.query(data))
    assert continuous_pvalue(mech.sample(data, N, np.random.default_rng(31)), pdf) > ALPHA
    off = laplace_scale_epsilon(epsilon=0.1 * 1.3).sample(data, N, np.random.default_rng(31))
    assert continuous_pvalue(off, pdf) < ALPHA


def test_laplace_scale_epsilon_loss_is_delta_over_eps():
    mech = get("laplace-scale-epsilon")
    density = mech.density()
    y, q = density.outputs[0], density.inputs[0]
    log_ratio = sympy.log(density.expr.subs(q, 1) / density.expr.subs(q, 0))
    # For y >= 1 the ratio is exp(1 / eps) symbolically; at the instance that is 10 = true epsilon.
    assert sympy.simplify(log_ratio.subs(y, 2) - 1 / density.epsilon) == 0
    assert float(log_ratio.subs(y, 2).subs(density.instance)) == pytest.approx(mech.true_epsilon)


@pytest.mark.statistical
def test_rr_miscalibrated_fits_and_has_power():
    mech = get("rr-miscalibrated")
    pmf = _pmf(mech, 1, (0, 1))
    assert discrete_pvalue(mech.sample(1, N, np.random.default_rng(5)), pmf) > ALPHA
    # keep probability 0.731 vs 0.682 at eps / 1.3: 22 standard errors apart at N = 50 000.
    assert discrete_pvalue(rr_miscalibrated(epsilon=0.5 / 1.3).sample(1, N, np.random.default_rng(5)), pmf) < ALPHA


def test_rr_miscalibrated_loss_is_two_eps_symbolically():
    density = get("rr-miscalibrated").density()
    y, q = density.outputs[0], density.inputs[0]
    at = lambda yy, qq: density.expr.subs({y: yy, q: qq})  # noqa: E731
    assert sympy.simplify(sympy.log(at(1, 1) / at(1, 0)) - 2 * density.epsilon) == 0
    assert float(2 * density.epsilon.subs(density.instance)) == get("rr-miscalibrated").true_epsilon


@pytest.mark.statistical
def test_exponential_no_factor_2_fits_and_has_power():
    mech, u = get("exponential-no-factor-2"), (0.0, 1.0, 2.0)
    pmf = _pmf(mech, u, (0, 1, 2))
    out = mech.sample(u, N, np.random.default_rng(8))
    assert out.shape == (N,) and discrete_pvalue(out, pmf) > ALPHA
    assert discrete_pvalue(exponential_no_factor_2(epsilon=1 / 1.3).sample(u, N, np.random.default_rng(8)), pmf) < ALPHA


def test_exponential_no_factor_2_loss_approaches_two_eps():
    mech = get("exponential-no-factor-2")
    density = mech.density()
    (a, b), (far_a, far_b) = mech.pairs
    ratio = math.log(density.numeric(0, a) / density.numeric(0, b))
    assert ratio == pytest.approx(math.log((2 + math.e**2) / 3)) and ratio > mech.claim.epsilon
    far = math.log(density.numeric(0, far_a) / density.numeric(0, far_b))
    assert far == pytest.approx(2 - 1.45e-4, abs=1e-6)
    # The supremum: u' = (0, K, K), u = (1, K - 1, K - 1), K -> oo gives exactly 2 eps.
    kk = sympy.Symbol("K", positive=True)
    y, (q1, q2, q3) = density.outputs[0], density.inputs
    p = lambda u: density.expr.subs(dict(zip((q1, q2, q3), u))).subs(y, 0)  # noqa: E731
    eps, sens = density.epsilon, sympy.Symbol("Delta", positive=True)
    log_ratio = sympy.expand_log(sympy.log(p((1, kk - 1, kk - 1)) / p((0, kk, kk))).subs(sens, 1), force=True)
    assert sympy.simplify(sympy.limit(log_ratio, kk, sympy.oo) - 2 * eps) == 0
    assert mech.true_epsilon == 2 * float(eps.subs(density.instance))
