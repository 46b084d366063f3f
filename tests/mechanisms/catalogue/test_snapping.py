"""Snapping mechanism: outputs on the Lambda grid, exact cell probabilities of the Laplace, the claim."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.snapping import full_precision_uniform, mironov_epsilon, snap_grid, snapping
from tests.gof import ALPHA, density_function, discrete_pvalue

N = 200_000
DATA = (1, 0, 1, 1)  # count 3


def ideal_pmf(q: float, scale: float, bound: float) -> dict[float, float]:
    """P[Y = y] of clamp_B(Lambda round((q + Lap(scale)) / Lambda)) in exact arithmetic (B a multiple of Lambda)."""
    from scipy import stats

    grid = snap_grid(scale)
    cells = np.arange(-bound, bound + grid / 2, grid)
    lower = np.where(cells == -bound, -np.inf, cells - grid / 2)
    upper = np.where(cells == bound, np.inf, cells + grid / 2)
    centre = min(max(q, -bound), bound)
    law = stats.laplace(loc=centre, scale=scale)
    # differences of the survival function above the centre keep full relative precision in the tail
    probability = np.where(cells >= centre, law.sf(lower) - law.sf(upper), law.cdf(upper) - law.cdf(lower))
    return dict(zip(cells.tolist(), probability.tolist()))


def test_claim_is_mironov_theorem_1():
    mech = get("snapping")
    # lambda = 2, B = 100: (1 + 12 * 100 * 2^-53) / 2 + 2 * 2^-53
    assert mech.claim.epsilon == (1 + 1200 * 2.0**-53) / 2 + 2.0**-52
    assert 0.5 < mech.claim.epsilon < 0.5 + 2.0**-49 * 100 / 2 + 2.0**-52
    assert mironov_epsilon(2.0, 100.0) == mech.claim.epsilon
    with pytest.raises(InvalidArgument, match="bound=1.0 must satisfy"):
        snapping(epsilon=0.5, bound=1.0)


def test_lambda_is_the_smallest_power_of_two_at_least_lambda():
    assert [snap_grid(s) for s in (0.3, 0.5, 1.0, 3.0, 4.0, 100.0)] == [0.5, 0.5, 1.0, 4.0, 4.0, 128.0]


@pytest.mark.statistical
def test_snapping_matches_the_snapped_laplace_cell_probabilities():
    samples = get("snapping").sample(DATA, N, np.random.default_rng(20261127))
    assert discrete_pvalue(samples, ideal_pmf(3.0, 2.0, 100.0)) > ALPHA


@pytest.mark.statistical
def test_cell_test_rejects_scale_off_by_30_percent():
    samples = snapping(epsilon=0.5 / 1.3).sample(DATA, N, np.random.default_rng(20261127))
    assert discrete_pvalue(samples, ideal_pmf(3.0, 2.0, 100.0)) < ALPHA


def test_ideal_cells_keep_the_nominal_ratio():
    """In exact arithmetic the snapped outputs are post-processed Laplace: ratio <= e^(1/lambda)."""
    p, p1 = ideal_pmf(3.0, 2.0, 100.0), ideal_pmf(4.0, 2.0, 100.0)
    worst = max(abs(math.log(p[y] / p1[y])) for y in p)
    assert worst <= 0.5 + 1e-9
    assert worst > 0.49  # attained on the tail cells


def test_outputs_are_multiples_of_lambda_within_the_bound_whatever_the_input():
    mech = get("snapping")
    for data in ((), (1,) * 7, (1,) * 300):
        out = mech.sample(data, 20_000, np.random.default_rng(11))
        assert np.all(np.mod(out, 2.0) == 0) and np.all(np.abs(out) <= 100.0)
    assert np.all(mech.sample((1,) * 300, 100, np.random.default_rng(1)) <= 100.0)


@pytest.mark.statistical
def test_full_precision_uniform_reaches_below_the_53_bit_grid_with_the_right_mass():
    u = full_precision_uniform(400_000, np.random.default_rng(13))
    assert np.all((u > 0) & (u < 1))
    # P[U < 2^-k] = 2^-k for each binade boundary; 5.3 standard errors (two-sided 1.2e-7 per check)
    for k in (1, 2, 5, 10):
        p = 2.0**-k
        assert abs(np.mean(u < p) - p) < 5.3 * math.sqrt(p * (1 - p) / u.size), k
    # below 2^-10 the doubles are finer than a fixed-point 53-bit uniform could give: a draw in
    # binade [2^-e-1, 2^-e) lies on the 2^-53 lattice with probability 2^-e <= 2^-10, so among the
    # ~390 draws below 2^-10 the lattice count is ~Poisson(0.39); P[count >= 8] = 1.3e-8
    small = u[u < 2.0**-10]
    on_fixed_point_lattice = np.count_nonzero(np.ldexp(small, 53) % 1 == 0)
    assert small.size > 300 and on_fixed_point_lattice < 8


@pytest.fixture(scope="module")
def density():
    return get("snapping").density()


@pytest.mark.parametrize("q", [3.0, -99.5, 250.0])
def test_declared_pmf_is_the_snapped_laplace(q, density):
    assert density.discrete and len(density.output_domain) == 101
    pmf = density_function(density, q)
    declared = {float(y): float(pmf(float(y))) for y in density.output_domain}
    expected = ideal_pmf(q, 2.0, 100.0)
    assert sum(declared.values()) == pytest.approx(1.0, abs=1e-12)
    for y, p in expected.items():
        # absolute 1e-15: the declared CDF differences cancel in double precision in the far tails
        assert declared[y] == pytest.approx(p, rel=1e-9, abs=1e-15), y
    assert float(density.at_instance().epsilon) == get("snapping").claim.epsilon
