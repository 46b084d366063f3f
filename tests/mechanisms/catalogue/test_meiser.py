"""Meiser's K and its post-processing T o K: samplers fit the declared pmfs; P-DP holds / breaks exactly."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.meiser import meiser_k, meiser_k_merged, merge_zero_and_one, merged_true_epsilon
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, discrete_pvalue
from tests.mechanisms.catalogue._discrete_pmf import declared_pmf

SEED = 20261122
N = 20_000
N_DELTA = 200_000

# Power: epsilon 1.3 vs 1 gives noncentrality 302 at N = 20000 (2 df, critical value 27.6 at ALPHA).
# delta 0.013 vs 0.01 moves only the atom of mass delta: lambda = N (0.003^2 / 0.01 + ...) ~ 0.91e-3 N,
# so N_DELTA = 200000 gives lambda ~ 180 (2 df): power ~ 1.


def pmf_of(mechanism, x):
    return declared_pmf(mechanism.density(), x, range(len(mechanism.density().output_domain)))


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["meiser-k", "meiser-k-merged"])
def test_sampler_fits_declared_pmf_for_both_inputs(name):
    mechanism = get(name)
    for x in (0, 1):
        samples = mechanism.sample(x, N, np.random.default_rng(SEED + x))
        assert discrete_pvalue(samples, pmf_of(mechanism, x)) > ALPHA


@pytest.mark.statistical
@pytest.mark.parametrize("factory", [meiser_k, meiser_k_merged])
def test_fit_rejects_epsilon_or_delta_off_by_30_percent(factory):
    reference = factory()
    off_eps = factory(epsilon=1.3).sample(0, N, np.random.default_rng(SEED))
    off_delta = factory(delta=0.013).sample(1, N_DELTA, np.random.default_rng(SEED))
    assert discrete_pvalue(off_eps, pmf_of(reference, 0)) < ALPHA
    assert discrete_pvalue(off_delta, pmf_of(reference, 1)) < ALPHA


def bad_mass(p, q, epsilon):
    """Probabilistic-DP bad mass: sum of p(y) over outputs with p(y) > e^eps q(y) (Meiser 2018, Def. 2)."""
    return sum(py for py, qy in zip(p, q) if py > np.exp(epsilon) * qy * (1 + 1e-12))


def test_k_is_probabilistically_dp_and_the_merge_breaks_it():
    k, merged = meiser_k(), meiser_k_merged()
    eps, delta = k.claim.epsilon, k.claim.delta
    pk = {x: list(pmf_of(k, x).values()) for x in (0, 1)}
    pm = {x: list(pmf_of(merged, x).values()) for x in (0, 1)}
    for a, b in ((0, 1), (1, 0)):
        assert bad_mass(pk[a], pk[b], eps) == pytest.approx(delta, rel=1e-12)
    assert bad_mass(pm[0], pm[1], eps) > 50 * delta  # the merged output carries delta + (1-delta) e/(1+e)
    # the loss at the merged output is exactly the recorded true epsilon; with it the claim holds again
    assert np.log(pm[0][0] / pm[1][0]) == pytest.approx(merged.true_epsilon, rel=1e-12)
    assert bad_mass(pm[0], pm[1], merged.true_epsilon) <= delta
    assert merged.flawed and merged.true_epsilon > merged.claim.epsilon


def test_approximate_dp_survives_the_merge():
    # hockey-stick divergence sum max(0, p - e^eps q) stays <= delta (post-processing, Dwork & Roth 2014, Prop. 2.1)
    merged = meiser_k_merged()
    p, q = (list(pmf_of(merged, x).values()) for x in (0, 1))
    hockey = sum(max(0.0, a - np.exp(1.0) * b) for a, b in zip(p, q))
    assert hockey <= merged.claim.delta + 1e-15


def test_symbolic_pmfs_sum_to_one_for_all_parameters():
    import sympy

    for factory in (meiser_k, meiser_k_merged):
        density = factory().density()
        y, q = density.outputs[0], density.inputs[0]
        for x in (0, 1):
            total = sympy.Add(*(density.expr.subs({q: x, y: v}) for v in density.output_domain))
            assert sympy.simplify(total - 1) == 0


def test_merge_function_and_true_epsilon_formula():
    assert merge_zero_and_one(np.array([0, 1, 2, 3])).tolist() == [0, 0, 1, 2]
    assert merged_true_epsilon(1.0, 0.01) == pytest.approx(np.log(np.e + 0.01 * (1 + np.e) / 0.99))


@pytest.mark.parametrize("kwargs", [{"delta": 0}, {"delta": 1}, {"epsilon": 0}, {"epsilon": -2}])
def test_invalid_parameters_are_refused(kwargs):
    with pytest.raises(InvalidArgument):
        meiser_k(**kwargs)
