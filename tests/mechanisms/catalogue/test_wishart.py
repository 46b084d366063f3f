"""Wishart mechanism: mean and marginal of the noise, and the support escape that sets the true delta."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.claims import ApproxDP
from dpaudit.mechanisms._grid import grid_for
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.wishart import wishart
from tests.gof import ALPHA, continuous_pvalue

N = 50_000
EPSILON, SIZE, D = 1.0, 4, 2
C = 3 / (2 * SIZE * EPSILON)  # Jiang et al.: C = 3/(2 n epsilon) I
DOF = D + 1


def test_claim_is_the_derived_approximate_guarantee():
    assert get("wishart").claim == ApproxDP(EPSILON / 3, 1 - math.exp(-EPSILON / 3))


@pytest.mark.statistical
def test_mean_is_a_plus_dof_times_c():
    mech = get("wishart")
    data = mech.pairs[0][0]
    a = mech.query(data)
    out = mech.sample(data, N, np.random.default_rng(20261201))
    # E[W] = dof C; Var(W_ii) = 2 dof c^2, Var(W_12) = dof c^2 (Wishart moments, C = c I).
    # 5.3 standard errors: two-sided normal tail 1.2e-7 per coordinate.
    expected = a + np.array([DOF * C, 0.0, DOF * C])
    sd = np.sqrt(np.array([2 * DOF, DOF, 2 * DOF]) * C**2 / N)
    assert np.all(np.abs(out.mean(axis=0) - expected) < 5.3 * sd)


@pytest.mark.statistical
def test_diagonal_noise_is_scaled_chi_square():
    """W_11 ~ c chi^2_dof (the (1,1) entry of Wishart(dof, c I))."""
    from scipy import stats

    mech = get("wishart")
    data = mech.pairs[0][0]
    noise = mech.sample(data, N, np.random.default_rng(20261202))[:, 0] - mech.query(data)[0]
    assert continuous_pvalue(noise, stats.chi2(DOF, scale=C).pdf) > ALPHA
    wrong = wishart(epsilon=EPSILON / 1.3).sample(data, N, np.random.default_rng(20261202))[:, 0] - mech.query(data)[0]
    assert continuous_pvalue(wrong, stats.chi2(DOF, scale=C).pdf) < ALPHA


@pytest.mark.statistical
def test_support_escape_has_probability_one_minus_exp_minus_epsilon_over_three():
    """Under D (a zero record) the output leaves the support A' + PSD of D' (a unit record instead)
    with probability P[chi^2_2 < 1/(c n)] = 1 - e^(-epsilon/3): the pure claim of the paper fails."""
    mech = get("wishart")
    d, d_prime = mech.pairs[0]
    out = mech.sample(d, N, np.random.default_rng(20261203))
    a11, a12, a22 = (out - mech.query(d_prime)).T
    outside = (a11 < 0) | (a22 < 0) | (a11 * a22 - a12**2 < 0)
    p = 1 - math.exp(-EPSILON / 3)
    # 5.3 binomial standard errors: two-sided tail 1.2e-7
    assert abs(outside.mean() - p) < 5.3 * math.sqrt(p * (1 - p) / N)
    # and under D' itself no output ever leaves that support
    own = mech.sample(d_prime, N, np.random.default_rng(20261204)) - mech.query(d_prime)
    assert np.all(own[:, 0] * own[:, 2] - own[:, 1] ** 2 >= -1e-9)


def test_records_are_clipped_to_the_unit_ball():
    mech = get("wishart")
    assert np.allclose(mech.query([(3.0, 4.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]), [0.36 / 4, 0.48 / 4, 0.64 / 4])


def test_outputs_lie_on_the_grid_whatever_the_input():
    step = grid_for(C)[0]
    mech = get("wishart")
    for data in (((0.1, 0.2),) * 4, ((1 / 3, 0.5), (0.7, 0.1), (0.0, 1.0), (0.6, 0.6))):
        out = mech.sample(data, 2_000, np.random.default_rng(3))
        assert np.all(np.mod(out, step) == 0)
