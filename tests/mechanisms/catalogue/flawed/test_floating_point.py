"""Floating-point noise: the samplers draw the declared (correct) densities, the densities satisfy the
claim, and the float flaw shows directly: with f(D) = 1 every output is a multiple of 2^-53 (ulp
lattice lemma), with f(D) = 0 a sizeable share is not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.mechanisms.catalogue.flawed.floating_point import laplace_float_textbook
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, continuous_pvalue, density_function

NAMES = ["laplace-float-textbook", "laplace-scipy", "laplace-numpy", "gaussian-box-muller"]
N = 50_000  # KS critical value at ALPHA: 0.0123


def _off_lattice(outputs: np.ndarray) -> np.ndarray:
    """Outputs that are not multiples of 2^-53 (scaling by 2^53 is exact for these magnitudes)."""
    scaled = np.ldexp(outputs, 53)
    return np.floor(scaled) != scaled


@pytest.mark.statistical
@pytest.mark.parametrize("name", NAMES)
def test_sampler_fits_declared_density(name):
    mech = get(name)
    samples = mech.sample((1, 1), N, np.random.default_rng(41))
    assert samples.shape == (N,)
    assert continuous_pvalue(samples, density_function(mech.density(), 2.0)) > ALPHA


@pytest.mark.statistical
def test_fit_rejects_scale_off_by_30_percent():
    samples = laplace_float_textbook(epsilon=1 / 1.3).sample((1, 1), N, np.random.default_rng(41))
    assert continuous_pvalue(samples, density_function(get("laplace-float-textbook").density(), 2.0)) < ALPHA


@pytest.mark.parametrize("name", NAMES)
def test_declared_density_keeps_the_claim(name):
    # The algebra is right: the exact log-ratio at neighbours 0 and 1 never exceeds the claim's epsilon
    # (Laplace: |y - 1| - |y| over b; Gaussian: its loss exceeds eps only on mass < delta), so a prover
    # proves the density and only the floating-point check can find the flaw.
    mech = get(name)
    pdf0, pdf1 = (density_function(mech.density(), q) for q in (0.0, 1.0))
    ys = np.linspace(-20.0, 20.0, 4001)
    log_ratio = np.log(pdf0(ys)) - np.log(pdf1(ys))
    if mech.claim.delta == 0:
        assert np.max(np.abs(log_ratio)) <= mech.claim.epsilon * (1 + 1e-12)
    else:  # ln p(y|0) - ln p(y|1) = (1 - 2y) / (2 sigma^2) > eps iff y < 1/2 - eps sigma^2: mass below delta
        from scipy import stats

        from dpaudit.mechanisms.catalogue.gaussian import classic_sigma

        sigma = classic_sigma(mech.claim.epsilon, mech.claim.delta)
        assert density_function(mech.density(), 0.0)(0.0) == pytest.approx(1 / (sigma * math.sqrt(2 * math.pi)))
        eps, delta = mech.claim.epsilon, mech.claim.delta
        assert stats.norm.cdf((0.5 - eps * sigma**2) / sigma) < delta


@pytest.mark.statistical
@pytest.mark.parametrize("name", NAMES)
def test_output_lattice_reveals_the_input(name):
    mech = get(name)
    at_one = mech.sample((1,), 20_000, np.random.default_rng(43))
    at_zero = mech.sample((), 20_000, np.random.default_rng(44))
    # Lemma: |1| >= 2^0, so fl(1 + n) is on 2^-53 Z for every double n -- no exception, a certificate.
    assert not np.any(_off_lattice(at_one))
    # Off-lattice share at f(D) = 0: 0.27 for Laplace at eps = 1, 0.028 for Box-Muller at eps = 0.5.
    # Threshold 1 %: for p = 0.028 and N = 20 000 the count 200 is 15 standard deviations below the mean 560.
    share = float(np.mean(_off_lattice(at_zero)))
    assert share > 0.01
    assert math.isinf(mech.true_epsilon)


def test_snapped_catalogue_laplace_has_no_lattice_event():
    # Control: the correct entry rounds to a 2^-16 b grid, so the same event never fires at f(D) = 0.
    outputs = get("laplace").sample((), 20_000, np.random.default_rng(45))
    assert not np.any(_off_lattice(outputs))
