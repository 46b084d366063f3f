"""Exact integer samplers (CKS20): empirical laws match the exact pmfs, edge cases, vectorisation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms._discrete_sampling import (
    as_fraction,
    bernoulli_exp_neg,
    bernoulli_rational,
    discrete_gaussian,
    discrete_laplace,
    exponential_choice,
)
from tests.gof import ALPHA, discrete_pvalue

N = 40_000
SEED = 20261122


def laplace_pmf(scale: float, width: int = 60) -> dict[int, float]:
    """P[Z = z] = (1 - a)/(1 + a) a^|z|, a = e^(-1/scale), on |z| <= width (the rest is the tail bin)."""
    a = math.exp(-1 / scale)
    return {z: (1 - a) / (1 + a) * a ** abs(z) for z in range(-width, width + 1)}


def gaussian_pmf(sigma2: float) -> dict[int, float]:
    """exp(-z^2/(2 sigma^2)) / normaliser on |z| <= 40 sigma + 10 (the neglected mass is < e^-800)."""
    width = int(40 * math.sqrt(sigma2)) + 10
    z = np.arange(-width, width + 1)
    w = np.exp(-(z**2) / (2 * sigma2))
    return dict(zip(z.tolist(), (w / w.sum()).tolist()))


# ---- Bernoulli(exp(-gamma)) ------------------------------------------------------------------------

GAMMAS = [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2), Fraction(7), Fraction(123, 10)]


@pytest.mark.statistical
def test_bernoulli_exp_neg_is_exact_for_every_gamma_in_one_vectorised_call():
    # One call with N draws per gamma on a common denominator 30: the vectorised masks must keep the
    # samples apart.  Two-sided exact binomial test per gamma at ALPHA.
    den = 30
    numerators = np.repeat([int(g * den) for g in GAMMAS], N)
    draws = bernoulli_exp_neg(numerators, den, np.random.default_rng(SEED)).reshape(len(GAMMAS), N)
    assert draws.shape == (len(GAMMAS), N) and draws.dtype == bool
    assert draws[0].all(), "gamma = 0 gives 1 surely"
    for gamma, row in zip(GAMMAS[1:], draws[1:]):
        assert stats.binomtest(int(row.sum()), N, math.exp(-gamma)).pvalue > ALPHA, gamma


@pytest.mark.statistical
def test_bernoulli_exp_neg_test_has_power_against_gamma_off_by_30_percent():
    # exp(-1.3) = 0.2725 vs exp(-1) = 0.3679: with N = 40000 the standardised gap is
    # 0.095 / sqrt(0.3679 * 0.6321 / N) = 40 sd, far past the ALPHA critical value (4.9 sd).
    row = bernoulli_exp_neg(np.full(N, 13), 10, np.random.default_rng(SEED))
    assert stats.binomtest(int(row.sum()), N, math.exp(-1)).pvalue < ALPHA


def test_bernoulli_exp_neg_takes_scalars_and_python_ints_beyond_int64():
    rng = np.random.default_rng(1)
    assert bernoulli_exp_neg(0, 7, rng).shape == ()
    # numerators beyond int64 (gamma = 2^15 over the denominator 2^55): split exactly in Python ints;
    # exp(-32768) is 0 to any precision, so both draws fail
    out = bernoulli_exp_neg(np.array([2**70, 2**70 + 1], dtype=object), 2**55, rng)
    assert out.shape == (2,) and out.dtype == bool and not out.any()
    assert bernoulli_exp_neg(np.zeros(0, dtype=np.int64), 5, rng).shape == (0,)


@pytest.mark.parametrize(
    "call",
    [
        lambda rng: bernoulli_exp_neg(-1, 3, rng),
        lambda rng: bernoulli_exp_neg(1, 0, rng),
        lambda rng: bernoulli_exp_neg(1.5, 3, rng),
        lambda rng: bernoulli_exp_neg(1, 2**60, rng),
        lambda rng: bernoulli_rational(Fraction(3, 2), 4, rng),
        lambda rng: discrete_laplace(Fraction(0), 4, rng),
        lambda rng: discrete_gaussian(Fraction(-1), 4, rng),
        lambda rng: exponential_choice([], 4, rng),
        lambda rng: exponential_choice([0, 1], 2, rng, allowed=np.array([[True, False], [False, False]])),
        lambda rng: as_fraction("x", float("nan")),
        lambda rng: as_fraction("x", "1"),
    ],
)
def test_invalid_arguments_are_refused(call):
    with pytest.raises(InvalidArgument):
        call(np.random.default_rng(0))


def test_as_fraction_reads_short_decimals_exactly():
    assert as_fraction("epsilon", 0.1) == Fraction(1, 10)
    assert as_fraction("epsilon", 3) == 3
    assert as_fraction("epsilon", Fraction(2, 7)) == Fraction(2, 7)
    assert as_fraction("epsilon", np.float64(0.25)) == Fraction(1, 4)


@pytest.mark.statistical
def test_bernoulli_rational_is_exact():
    draws = bernoulli_rational(Fraction(2, 7), N, np.random.default_rng(SEED))
    assert stats.binomtest(int(draws.sum()), N, 2 / 7).pvalue > ALPHA
    assert bernoulli_rational(Fraction(0), 100, np.random.default_rng(0)).sum() == 0
    assert bernoulli_rational(Fraction(1), 100, np.random.default_rng(0)).all()


# ---- discrete Laplace and discrete Gaussian --------------------------------------------------------


@pytest.mark.statistical
@pytest.mark.parametrize("scale", [Fraction(1), Fraction(3, 2), Fraction(1, 5), Fraction(7)])
def test_discrete_laplace_matches_its_pmf(scale):
    z = discrete_laplace(scale, N, np.random.default_rng(SEED))
    assert z.dtype == np.int64 and z.shape == (N,)
    assert discrete_pvalue(z, laplace_pmf(float(scale))) > ALPHA


@pytest.mark.statistical
def test_discrete_laplace_fit_rejects_scale_off_by_30_percent():
    # Scale 1.3 against the scale-1 pmf: chi-square noncentrality N sum (p1 - p0)^2 / p0 = 3700 at
    # N = 40000 (about 11 merged bins), against a critical value of 50 at ALPHA: power ~ 1.
    z = discrete_laplace(Fraction(13, 10), N, np.random.default_rng(SEED))
    assert discrete_pvalue(z, laplace_pmf(1.0)) < ALPHA


@pytest.mark.statistical
@pytest.mark.parametrize("sigma2", [Fraction(1), Fraction(2, 3), Fraction(9), Fraction(1, 4), Fraction(50)])
def test_discrete_gaussian_matches_its_pmf(sigma2):
    z = discrete_gaussian(sigma2, N, np.random.default_rng(SEED))
    assert z.dtype == np.int64 and z.shape == (N,)
    assert discrete_pvalue(z, gaussian_pmf(float(sigma2))) > ALPHA


@pytest.mark.statistical
def test_discrete_gaussian_fit_rejects_sigma_off_by_30_percent():
    # sigma = 3 * 1.3 against sigma = 3: the sd alone differs by 30 %; the chi-square noncentrality
    # over ~25 bins is ~ N * 0.1 = 4000 >> 63.7 (critical value at ALPHA, 19 df): power ~ 1.
    z = discrete_gaussian(Fraction(9) * Fraction(169, 100), N, np.random.default_rng(SEED))
    assert discrete_pvalue(z, gaussian_pmf(9.0)) < ALPHA


def test_samplers_are_deterministic_functions_of_the_generator_and_accept_n_zero():
    for draw in (lambda rng, n: discrete_laplace(Fraction(2), n, rng), lambda rng, n: discrete_gaussian(Fraction(2), n, rng)):
        assert np.array_equal(draw(np.random.default_rng(5), 1000), draw(np.random.default_rng(5), 1000))
        assert draw(np.random.default_rng(5), 0).shape == (0,)


# ---- exponential choice ------------------------------------------------------------------------------


def softmax(weights) -> np.ndarray:
    top = max(weights)  # subtract exactly before converting: 10^20 + 1 is not a distinct double
    w = np.exp(np.asarray([float(v - top) for v in weights]))
    return w / w.sum()


@pytest.mark.statistical
@pytest.mark.parametrize(
    "weights",
    [
        [Fraction(0), Fraction(1, 2), Fraction(1), Fraction(-3)],
        [0, 0],
        [Fraction(10**20), Fraction(10**20) + 1, Fraction(10**20) - 2],  # beyond int64: exact Python ints
        [Fraction(-40), Fraction(0)],
    ],
)
def test_exponential_choice_matches_the_softmax(weights):
    r = exponential_choice(weights, N, np.random.default_rng(SEED))
    assert r.dtype == np.int64
    assert discrete_pvalue(r, dict(enumerate(softmax(weights)))) > ALPHA


@pytest.mark.statistical
def test_exponential_choice_per_sample_weights_and_allowed_masks():
    # Two interleaved populations: rows alternate weights (0, 1, 2) / (2, 0, 0) and masks
    # {0, 1, 2} / {1, 2}; each population must follow its own restricted softmax.
    rng = np.random.default_rng(SEED)
    weights = np.array([[0, 1, 2], [2, 0, 0]] * (N // 2), dtype=object)
    allowed = np.array([[True, True, True], [False, True, True]] * (N // 2))
    r = exponential_choice(weights, N, rng, allowed=allowed)
    assert discrete_pvalue(r[0::2], dict(enumerate(softmax([0, 1, 2])))) > ALPHA
    assert discrete_pvalue(r[1::2], {0: 0.0, 1: 0.5, 2: 0.5}) > ALPHA


@pytest.mark.statistical
def test_exponential_choice_fit_rejects_weights_off_by_30_percent():
    # softmax(1.3 * (0, 1/2, 1, -3)) vs softmax((0, 1/2, 1, -3)): noncentrality 680 at N = 40000
    # (4 bins, critical value 30.7 at ALPHA): power ~ 1.
    base = [Fraction(0), Fraction(1, 2), Fraction(1), Fraction(-3)]
    r = exponential_choice([w * Fraction(13, 10) for w in base], N, np.random.default_rng(SEED))
    assert discrete_pvalue(r, dict(enumerate(softmax(base)))) < ALPHA
