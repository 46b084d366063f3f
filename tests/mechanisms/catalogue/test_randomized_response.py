"""Randomized response family: samplers fit their declared pmfs (chi-square at ALPHA), with power."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidDataset
from dpaudit.mechanisms.catalogue.randomized_response import k_rr, one_hot, rappor, rr
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, discrete_pvalue
from tests.mechanisms.catalogue._discrete_pmf import declared_pmf, product_support

N = 20_000
SEED = 20261122

# Power: chi-square noncentrality lambda = N sum (p1 - p0)^2 / p0 for the 30 %-off twin at N = 20000
# against the ALPHA critical values 23.9 (1 df), 30.7 (3 df), 56.5 (15 df):
#   rr p = 0.65 vs 0.5: 600;  k-rr eps 1.3 vs 1: 449;  rappor eps 1.3 vs 1: 409.
# Each lambda exceeds its critical value by more than 5 sd of the noncentral chi-square, power ~ 1.


def support_of(mechanism):
    density = mechanism.density()
    values = sorted(int(v) for v in density.output_domain)
    return values if len(density.outputs) == 1 else product_support(*[values] * len(density.outputs))


def fit_pvalue(mechanism, reference, x, n=N):
    samples = mechanism.sample(x, n, np.random.default_rng(SEED + x))
    q = reference.query(x) if reference.query else x
    return discrete_pvalue(samples, declared_pmf(reference.density(), q, support_of(reference)))


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["rr-two-coin", "rr", "k-rr", "rappor"])
def test_sampler_fits_declared_pmf_for_every_input(name):
    mechanism = get(name)
    for x in mechanism.domain:
        assert fit_pvalue(mechanism, mechanism, x) > ALPHA, x


@pytest.mark.statistical
@pytest.mark.parametrize(
    "twin, name",
    [(lambda: rr(p=0.65), "rr-two-coin"), (lambda: rr(p=0.65), "rr"), (lambda: k_rr(epsilon=1.3), "k-rr"), (lambda: rappor(epsilon=1.3), "rappor")],
)
def test_fit_rejects_flip_probability_off_by_30_percent(twin, name):
    assert fit_pvalue(twin(), get(name), 1) < ALPHA


def test_rr_with_p_one_half_is_two_coin_randomized_response():
    import sympy

    two_coin, half = get("rr-two-coin").density().at_instance(), rr(p=0.5).density().at_instance()
    assert sympy.simplify(two_coin.expr - half.expr) == 0
    assert sympy.simplify(two_coin.epsilon - half.epsilon) == 0
    assert get("rr").claim.epsilon == pytest.approx(math.log(3), abs=1e-15)


def test_rr_epsilon_formula():
    mechanism = rr(p=0.3)
    assert mechanism.claim.epsilon == pytest.approx(math.log(1 + 2 * 0.3 / 0.7), abs=1e-12)
    assert float(mechanism.density().at_instance().epsilon) == pytest.approx(mechanism.claim.epsilon, abs=1e-12)


@pytest.mark.parametrize("name", ["rr-two-coin", "rr", "k-rr", "rappor"])
def test_declared_pmf_sums_to_one_and_has_the_claimed_worst_ratio(name):
    # Exact (sympy) check at the instance: probabilities sum to 1 for every input, and the largest
    # log-ratio over outputs and input pairs equals the claimed epsilon (the claims are tight).
    import sympy

    mechanism = get(name)
    density = mechanism.density().at_instance()
    support = support_of(mechanism)
    inputs = density.input_domain
    tables = {}
    for x in inputs:
        expr = density.expr.subs(dict(zip(density.inputs, x)))
        tables[x] = [expr.subs(dict(zip(density.outputs, y if isinstance(y, tuple) else (y,)))) for y in support]
        assert sympy.simplify(sympy.Add(*tables[x]) - 1) == 0
    worst = max(
        float(sympy.log(p / q).evalf(30)) for a in inputs for b in inputs if a != b for p, q in zip(tables[a], tables[b])
    )
    assert worst == pytest.approx(mechanism.claim.epsilon, rel=1e-12)


def test_rappor_f_and_query():
    mechanism = rappor(epsilon=2.0, k=3)
    f = 2 / (1 + math.exp(1.0))
    assert 2 * math.log((1 - f / 2) / (f / 2)) == pytest.approx(mechanism.claim.epsilon, rel=1e-12)
    assert mechanism.query(2) == one_hot(2, 3) == (0, 0, 1)
    out = mechanism.sample(1, 10, np.random.default_rng(0))
    assert out.shape == (10, 3) and set(np.unique(out)) <= {0, 1}


@pytest.mark.parametrize(
    "call",
    [lambda: rr(p=1.0), lambda: rr(p=0), lambda: k_rr(k=1), lambda: k_rr(epsilon=-1), lambda: rappor(k=1), lambda: rappor(epsilon=0)],
)
def test_invalid_parameters_are_refused(call):
    with pytest.raises(InvalidArgument):
        call()


@pytest.mark.parametrize("name, data", [("rr", 2), ("rr-two-coin", (0, 1)), ("k-rr", 4), ("rappor", -1), ("k-rr", "a")])
def test_data_outside_the_domain_is_refused(name, data):
    with pytest.raises(InvalidDataset):
        get(name).sampler(data, 3, np.random.default_rng(0))
