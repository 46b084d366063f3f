"""Sensitivity mistakes: samplers draw what they document, and the true epsilon follows from the exact
statistic and noise scales on the recommended pairs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.mechanisms.catalogue.flawed.sensitivity import (
    clamped_total,
    local_sensitivity_of_median,
    median,
    sum_clamp_after,
)
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, continuous_pvalue, density_function

N = 50_000  # KS critical value at ALPHA: 0.0123


@pytest.mark.statistical
@pytest.mark.parametrize("data, loc, scale", [((1.0,), 1.0, 1.0), ((1.0, 0.0), 0.5, 0.5), ((0.0, 2.0, 1.0, -3.0), 0.5, 0.25)])
def test_clamped_mean_draws_laplace_with_size_dependent_scale(data, loc, scale):
    samples = get("clamped-mean-wrong-sensitivity").sample(data, N, np.random.default_rng(51))
    assert continuous_pvalue(samples, stats.laplace(loc, scale).pdf) > ALPHA
    assert continuous_pvalue(samples, stats.laplace(loc, 1.3 * scale).pdf) < ALPHA


def test_clamped_mean_loss_is_unbounded():
    mech = get("clamped-mean-wrong-sensitivity")
    assert math.isinf(mech.true_epsilon)
    # D = (1,): Lap(1, 1); D' = (1, 0): Lap(1/2, 1/2).  For y >= 1 the loss is exactly y - ln 2.
    for y in (2.0, 10.0, 50.0):
        loss = stats.laplace(1.0, 1.0).logpdf(y) - stats.laplace(0.5, 0.5).logpdf(y)
        assert loss == pytest.approx(y - math.log(2), rel=1e-12)
    samples = mech.sample((1.0,), N, np.random.default_rng(52))
    # The event y > 1 + ln 2 (loss > eps = 1) has probability exp(-ln 2)/2 = 1/4 under D.
    assert np.mean(samples > 1 + math.log(2)) == pytest.approx(0.25, abs=0.01)


@pytest.mark.statistical
def test_sum_clamp_after_fits_declared_density_and_has_power():
    mech, data = get("sum-clamp-after"), (0.0, 10.0, 3.0)
    pdf = density_function(mech.density(), mech.query(data))
    assert mech.query(data) == 3.0  # clamp(13, 0, 3)
    assert continuous_pvalue(mech.sample(data, N, np.random.default_rng(53)), pdf) > ALPHA
    assert continuous_pvalue(sum_clamp_after(epsilon=0.5 / 1.3).sample(data, N, np.random.default_rng(53)), pdf) < ALPHA


def test_sum_clamp_after_true_sensitivity_is_the_record_bound():
    mech = get("sum-clamp-after")
    a, b = mech.pairs[0]
    assert abs(mech.query(a) - mech.query(b)) == 10.0 > mech.sensitivity
    # Exhaustively over datasets of up to 10 records from {0, 0.5, 1, 10}: no added record moves the
    # clamped total by more than R = 10 (the Lipschitz bound of the module docstring).
    values = (0.0, 0.5, 1.0, 10.0)
    worst = 0.0
    for size in range(10):
        for base in itertools.combinations_with_replacement(values, size):
            for r in values:
                worst = max(worst, abs(clamped_total(base + (r,), 0.0, 1.0) - clamped_total(base, 0.0, 1.0)))
    assert worst == 10.0
    # Laplace(ub / eps) at shift 10: the log-ratio for y beyond both inputs is 10 eps / ub = 5.
    pdf = (density_function(mech.density(), q) for q in (10.0, 0.0))
    p10, p0 = next(pdf), next(pdf)
    assert math.log(p10(12.0) / p0(12.0)) == pytest.approx(mech.true_epsilon, rel=1e-12)


def test_local_sensitivity_of_median():
    assert median((0.0, 0.0, 1.0)) == 0.0 and median((1.0, 0.0, 1.0, 0.0)) == 0.0
    assert local_sensitivity_of_median((0.0, 0.0, 0.0, 0.0, 1.0)) == 0.0
    assert local_sensitivity_of_median((0.0, 0.0, 0.0, 1.0, 1.0)) == 1.0
    assert local_sensitivity_of_median((0.2,)) == pytest.approx(0.8)  # max(0.2 - 0, 1 - 0.2)


@pytest.mark.statistical
def test_median_release_is_exact_on_one_side_and_continuous_on_the_other():
    mech = get("median-local-sensitivity")
    assert math.isinf(mech.true_epsilon)
    a, b = mech.pairs[0]
    at_a = mech.sample(a, N, np.random.default_rng(54))
    at_b = mech.sample(b, N, np.random.default_rng(55))
    assert np.all(at_a == 0.0)  # LS = 0: P[y = 0] = 1
    assert not np.any(at_b == 0.0)  # LS = 1: Laplace(0, 1), P[y = 0] = 0
    assert continuous_pvalue(at_b, stats.laplace(0.0, 1.0).pdf) > ALPHA
