"""Thresholded histogram: the exact sampler fits the declared joint pmf; delta is the release probability."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import InvalidArgument, InvalidDataset
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.thresholded_histogram import SENTINEL, thresholded_histogram, thresholded_histogram_delta
from tests.gof import ALPHA, discrete_pvalue
from tests.mechanisms.catalogue._discrete_pmf import declared_pmf, product_support

SEED = 20261122
N = 20_000
TAU = 5
RELEASED = [SENTINEL, *range(TAU, TAU + 45)]  # declared mass beyond count + 40 is < e^-40
DATA = (0,) * 5 + (1,) * 7 + (2,)  # counts (5, 7, 1): at, above and far below the threshold

# Power: epsilon 1.3 vs 1 changes each present key's law; the chi-square noncentrality
# N sum (p1 - p0)^2 / p0 over the 63 joint bins with expected count >= 5 is 2500 at N = 20000
# (critical value ~ 100 at ALPHA, 62 df): power ~ 1.


def joint_pmf(mechanism, data):
    support = product_support(RELEASED, RELEASED, RELEASED)
    return declared_pmf(mechanism.density(), mechanism.query(data), support)


@pytest.mark.statistical
def test_sampler_fits_declared_joint_pmf():
    mechanism = get("thresholded-histogram")
    samples = mechanism.sample(DATA, N, np.random.default_rng(SEED))
    pmf = joint_pmf(mechanism, DATA)
    assert sum(pmf.values()) == pytest.approx(1.0, abs=1e-12)
    assert discrete_pvalue(samples, pmf) > ALPHA


@pytest.mark.statistical
def test_fit_rejects_noise_off_by_30_percent():
    samples = thresholded_histogram(epsilon=1.3).sample(DATA, N, np.random.default_rng(SEED))
    assert discrete_pvalue(samples, joint_pmf(get("thresholded-histogram"), DATA)) < ALPHA


def test_absent_keys_are_never_released():
    out = get("thresholded-histogram").sample((0,) * 9, 2000, np.random.default_rng(1))
    assert np.all(out[:, 1:] == SENTINEL) and np.all((out[:, 0] == SENTINEL) | (out[:, 0] >= TAU))


def test_declared_delta_is_the_release_probability_of_a_key_seen_once():
    density = get("thresholded-histogram").density()
    at = density.at_instance()
    pmf = declared_pmf(density, (1, 0, 0), product_support(RELEASED, [SENTINEL], [SENTINEL]))
    released = sum(p for y, p in pmf.items() if y[0] != SENTINEL)
    delta = thresholded_histogram_delta(1.0, TAU)
    assert released == pytest.approx(delta, rel=1e-12)
    assert float(at.delta) == pytest.approx(delta, rel=1e-14) == get("thresholded-histogram").claim.delta
    assert delta == pytest.approx(math.exp(-4) / (1 + math.exp(-1)))


@pytest.mark.statistical
def test_release_frequency_of_a_key_seen_once_is_delta():
    # Exact binomial test at ALPHA on 200000 runs (expected 2678 releases).
    out = get("thresholded-histogram").sample((0, 1), 200_000, np.random.default_rng(SEED))
    hits = int(np.sum(out[:, 1] != SENTINEL))
    assert stats.binomtest(hits, 200_000, thresholded_histogram_delta(1.0, TAU)).pvalue > ALPHA


def test_worst_pair_loss_is_epsilon_on_released_values():
    density = get("thresholded-histogram").density()
    high = declared_pmf(density, (5, 0, 0), [(v, SENTINEL, SENTINEL) for v in range(TAU, TAU + 10)])
    low = declared_pmf(density, (4, 0, 0), [(v, SENTINEL, SENTINEL) for v in range(TAU, TAU + 10)])
    losses = [math.log(high[y] / low[y]) for y in high]
    assert max(losses) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("kwargs", [{"tau": 1}, {"tau": 0}, {"epsilon": 0}, {"epsilon": 0.01, "tau": 2}])
def test_invalid_parameters_are_refused(kwargs):
    with pytest.raises(InvalidArgument):
        thresholded_histogram(**kwargs)


@pytest.mark.parametrize("data", [(3,), (0.5,), "abc", 5])
def test_keys_outside_the_universe_are_refused(data):
    with pytest.raises(InvalidDataset):
        get("thresholded-histogram").sampler(data, 3, np.random.default_rng(0))
