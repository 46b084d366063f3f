"""Discrete Gaussian mechanism: the exact sampler fits the declared pmf, with power; rho kept rational."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpaudit.claims import ZeroConcentratedDP
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.discrete_gaussian import discrete_gaussian
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, discrete_pvalue

N = 20_000
SEED = 20261125
DATA = (1, 0, 1, 1)  # count 3
WINDOW = range(3 - 40, 3 + 41)  # sigma^2 = 1: the mass outside is below 2 e^-800 / 2.5


def _pmf(sigma2: float, centre: int) -> dict[int, float]:
    """exp(-(y - centre)^2 / (2 sigma^2)) / sum_k exp(-k^2 / (2 sigma^2)), by mpmath summation."""
    with mpmath.workdps(30):
        normaliser = mpmath.nsum(lambda k: mpmath.exp(-(k**2) / (2 * sigma2)), [-mpmath.inf, mpmath.inf])
        return {y: float(mpmath.exp(-((y - centre) ** 2) / (2 * sigma2)) / normaliser) for y in WINDOW}


def test_declared_pmf_is_the_discrete_gaussian():
    import sympy

    density = get("discrete-gaussian").density()
    point = {p: sympy.nsimplify(v) for p, v in density.instance.items()}
    expr = density.expr.subs(point).subs(density.inputs[0], 3)
    reference = _pmf(1.0, 3)
    for y in (3, 4, 7):
        series = expr.subs(density.outputs[0], y)
        value = series.xreplace({s: sympy.Float(str(mpmath.nsum(sympy.lambdify(s.limits[0][0], s.function, "mpmath"),
                                                                 [-mpmath.inf, mpmath.inf])), 30)
                                 for s in series.atoms(sympy.Sum)})
        assert float(value) == pytest.approx(reference[y], rel=1e-12)


@pytest.mark.statistical
def test_discrete_gaussian_fits_declared_pmf():
    mechanism = get("discrete-gaussian")
    samples = mechanism.sample(DATA, N, np.random.default_rng(SEED))
    assert samples.dtype == np.int64
    assert discrete_pvalue(samples, _pmf(1.0, 3)) > ALPHA


@pytest.mark.statistical
def test_discrete_gaussian_fit_rejects_sigma_off_by_30_percent():
    # sigma^2 = 1.69 against the sigma^2 = 1 pmf: over ~9 bins at N = 20000 the noncentrality is in the
    # thousands (critical value ~ 46 at ALPHA): power ~ 1.
    samples = discrete_gaussian(rho=Fraction(1, 2) / Fraction(169, 100)).sample(DATA, N, np.random.default_rng(SEED))
    assert discrete_pvalue(samples, _pmf(1.0, 3)) < ALPHA


def test_rho_is_kept_rational_and_claimed():
    mechanism = discrete_gaussian(rho=0.125)
    assert mechanism.claim == ZeroConcentratedDP(0.125)
    assert "sigma^2=4" in mechanism.description


@pytest.mark.parametrize("rho", [0, -1, float("inf"), "1"])
def test_invalid_rho_is_refused(rho):
    with pytest.raises(InvalidArgument):
        discrete_gaussian(rho=rho)
