"""Laplace family: samplers agree with their declared densities (KS at ALPHA), and the test has power."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, continuous_pvalue, density_function

pytestmark = pytest.mark.statistical

N = 50_000  # KS critical value at ALPHA: sqrt(ln(2/ALPHA) / (2N)) = 0.0123; a 30 % scale error moves the CDF by ~0.05


def test_laplace_count_fits_declared_density():
    mech = get("laplace")
    data = (1, 0, 1, 1)
    samples = mech.sample(data, N, np.random.default_rng(20261122))
    pdf = density_function(mech.density(), mech.query(data))
    assert continuous_pvalue(samples, pdf) > ALPHA


def test_laplace_count_fit_rejects_scale_off_by_30_percent():
    from dpaudit.mechanisms.laplace import laplace_count

    data = (1, 0, 1, 1)
    samples = laplace_count(epsilon=1 / 1.3).sample(data, N, np.random.default_rng(20261122))
    pdf = density_function(get("laplace").density(), 3.0)
    assert continuous_pvalue(samples, pdf) < ALPHA
