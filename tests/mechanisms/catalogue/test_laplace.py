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
    from dpaudit.mechanisms.catalogue.laplace import laplace_count

    data = (1, 0, 1, 1)
    samples = laplace_count(epsilon=1 / 1.3).sample(data, N, np.random.default_rng(20261122))
    pdf = density_function(get("laplace").density(), 3.0)
    assert continuous_pvalue(samples, pdf) < ALPHA


# --- clamped sum, clamped mean, histogram ------------------------------------------------------------

SUM_DATA = (-3.0, 0.5, 2.0, 7.0)  # clamps to (-1, 0.5, 2, 2): q = 3.5
MEAN_DATA = (0.1, 0.9, 1.5, -0.2, 0.4, 0.4, 0.7, 0.3, 0.0, 1.0)  # clamps into [0, 1]: q = 4.8 / 10


@pytest.mark.parametrize(
    "factory, data, q",
    [("laplace_sum", SUM_DATA, 3.5), ("laplace_mean", MEAN_DATA, 0.48)],
)
def test_clamped_laplace_fits_declared_density(factory, data, q):
    from dpaudit.mechanisms.catalogue import laplace as module

    mech = getattr(module, factory)()
    assert mech.query(data) == pytest.approx(q)
    samples = mech.sample(data, N, np.random.default_rng(20261123))
    assert continuous_pvalue(samples, density_function(mech.density(), mech.query(data))) > ALPHA


@pytest.mark.parametrize("factory, data", [("laplace_sum", SUM_DATA), ("laplace_mean", MEAN_DATA)])
def test_clamped_laplace_fit_rejects_scale_off_by_30_percent(factory, data):
    from dpaudit.mechanisms.catalogue import laplace as module

    reference = getattr(module, factory)()
    wrong = getattr(module, factory)(epsilon=1 / 1.3)
    samples = wrong.sample(data, N, np.random.default_rng(20261123))
    assert continuous_pvalue(samples, density_function(reference.density(), reference.query(data))) < ALPHA


def test_clamped_sensitivities_follow_the_bounds():
    from dpaudit.mechanisms.catalogue.laplace import laplace_mean, laplace_sum

    assert laplace_sum(lower=-3.0, upper=2.0).sensitivity == 3.0
    assert laplace_mean(lower=0.0, upper=1.0, size=10).sensitivity == pytest.approx(0.1)
    # the declared sensitivity holds on the recommended pairs (replace one record / add one record)
    for mech in (get("laplace-sum"), get("laplace-mean")):
        for a, b in mech.pairs:
            assert abs(mech.query(a) - mech.query(b)) == pytest.approx(mech.sensitivity)


def _coordinate_pdf(density, q, i):
    """y_i -> p(y | q) with the other coordinates held at q_j.

    For a product density this is proportional to the marginal of y_i (continuous_pvalue normalises),
    so a KS test per coordinate checks each declared factor.
    """
    joint = density_function(density, tuple(q.tolist()))

    def pdf(t):
        t = np.asarray(t, dtype=float)
        args = [np.full_like(t, v) for v in q.tolist()]
        args[i] = t
        return joint(*args)

    return pdf


def test_laplace_vector_fits_product_density_per_coordinate():
    mech = get("laplace-vector")
    data = (0, 1, 1, 3, 3, 3)
    q = mech.query(data)
    assert q.tolist() == [1.0, 2.0, 0.0, 3.0]
    samples = mech.sample(data, N, np.random.default_rng(20261124))
    density = mech.density()
    for i in range(q.size):
        pvalue = continuous_pvalue(samples[:, i], _coordinate_pdf(density, q, i))
        assert pvalue > ALPHA / q.size, (i, pvalue)  # Bonferroni over the coordinates
    # independence of the coordinates (the density is a product): correlations are O(1/sqrt(N));
    # |r| < 5.5/sqrt(N) = 0.025 has two-sided probability < 4e-8 each under independence
    r = np.corrcoef(samples.T)[np.triu_indices(q.size, 1)]
    assert np.all(np.abs(r) < 5.5 / np.sqrt(N))


def test_laplace_vector_fit_rejects_scale_off_by_30_percent():
    from dpaudit.mechanisms.catalogue.laplace import laplace_vector

    data = (0, 1, 1, 3, 3, 3)
    reference = get("laplace-vector")
    q = reference.query(data)
    samples = laplace_vector(epsilon=1 / 1.3).sample(data, N, np.random.default_rng(20261124))
    assert continuous_pvalue(samples[:, 0], _coordinate_pdf(reference.density(), q, 0)) < ALPHA


@pytest.mark.parametrize("name", ["laplace", "laplace-sum", "laplace-mean", "laplace-vector"])
def test_outputs_lie_on_the_grid_whatever_the_input(name):
    from dpaudit.mechanisms._grid import grid_for

    mech = get(name)
    step = grid_for(mech.sensitivity / mech.claim.epsilon)[0]
    for data in mech.pairs[0] + ((0.1234567,) * 3, (1 / 3, 2 / 3, 0.7)):
        out = mech.sample(data, 2_000, np.random.default_rng(7))
        assert np.all(np.mod(out, step) == 0), (name, data)
