"""Sparse vector: answer distributions for two queries, computed by integration over the threshold noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.sparse_vector import above_threshold, svt_lyu_1, svt_lyu_2
from dpaudit.neighbours import QueryDistance
from tests.gof import ALPHA, discrete_pvalue

N = 200_000


def _laplace_pdf(x: float, scale: float) -> float:
    return math.exp(-abs(x) / scale) / (2 * scale)


def _laplace_sf(x: float, scale: float) -> float:
    return 0.5 * math.exp(-x / scale) if x >= 0 else 1 - 0.5 * math.exp(x / scale)


def _expect(function, scale: float, kinks) -> float:
    """E[function(rho)] for rho ~ Lap(scale), integrated piecewise between the kinks (scipy quad)."""
    from scipy import integrate

    points = sorted({0.0, *kinks})
    edges = [-np.inf, *points, np.inf]
    return sum(
        integrate.quad(lambda r: function(r) * _laplace_pdf(r, scale), a, b, epsabs=1e-13, epsrel=1e-11)[0]
        for a, b in zip(edges, edges[1:])
    )


def exact_pmf(name: str, q, epsilon: float = 1.0, cutoff: int = 2) -> dict[tuple[int, int], float]:
    """P[output] of the entry on two queries q = (q_1, q_2) with threshold T = 0.

    Given the threshold noise r, query i is answered top with probability P[nu_i >= r - q_i].
    """
    q1, q2 = q
    if name == "above-threshold":
        t_scale, nu_scale = 2 / epsilon, 4 / epsilon
    elif name == "svt-lyu-1":
        t_scale, nu_scale = 2 / epsilon, 4 * cutoff / epsilon
    else:
        t_scale, nu_scale = 2 * cutoff / epsilon, 4 * cutoff / epsilon

    def top(r: float, qi: float) -> float:
        return _laplace_sf(r - qi, nu_scale)

    kinks = (q1, q2)

    def e(function) -> float:
        return _expect(function, t_scale, kinks)

    both_bottom = e(lambda r: (1 - top(r, q1)) * (1 - top(r, q2)))
    bottom_top = e(lambda r: (1 - top(r, q1)) * top(r, q2))
    if name == "above-threshold":
        return {(1, -1): e(lambda r: top(r, q1)), (0, 1): bottom_top, (0, 0): both_bottom}
    if name == "svt-lyu-1":
        return {
            (1, 1): e(lambda r: top(r, q1) * top(r, q2)),
            (1, 0): e(lambda r: top(r, q1) * (1 - top(r, q2))),
            (0, 1): bottom_top,
            (0, 0): both_bottom,
        }
    # Alg. 2: after a top the second query faces a fresh threshold noise
    first_top = e(lambda r: top(r, q1))
    second_top_fresh = e(lambda r: top(r, q2))
    return {
        (1, 1): first_top * second_top_fresh,
        (1, 0): first_top * (1 - second_top_fresh),
        (0, 1): bottom_top,
        (0, 0): both_bottom,
    }


NAMES = ["above-threshold", "svt-lyu-1", "svt-lyu-2"]
FACTORIES = {"above-threshold": above_threshold, "svt-lyu-1": svt_lyu_1, "svt-lyu-2": svt_lyu_2}
Q = (0.5, 1.5)


@pytest.mark.parametrize("name", NAMES)
def test_exact_pmf_sums_to_one(name):
    assert sum(exact_pmf(name, Q).values()) == pytest.approx(1.0, abs=1e-10)


@pytest.mark.statistical
@pytest.mark.parametrize("name", NAMES)
def test_answers_follow_the_exact_distribution(name):
    samples = get(name).sample(Q, N, np.random.default_rng(20261130))
    assert discrete_pvalue(samples, exact_pmf(name, Q)) > ALPHA


@pytest.mark.statistical
@pytest.mark.parametrize("name", NAMES)
def test_answer_test_rejects_noise_off_by_30_percent(name):
    samples = FACTORIES[name](epsilon=1 / 1.3).sample(Q, N, np.random.default_rng(20261130))
    assert discrete_pvalue(samples, exact_pmf(name, Q)) < ALPHA


def test_lyu_2_differs_from_lyu_1_only_through_the_fresh_threshold():
    """With the threshold redrawn, the two tops are less correlated: P[(1,1)] drops (a check that the
    test distinguishes the two algorithms, so it would catch a swapped implementation)."""
    one, two = exact_pmf("svt-lyu-1", Q), exact_pmf("svt-lyu-2", Q)
    assert abs(one[(1, 1)] - two[(1, 1)]) > 0.005


@pytest.mark.parametrize("name", NAMES)
def test_privacy_loss_on_two_queries_is_within_epsilon(name):
    """Exact output probabilities on every Ding et al. pair around (0, 0): max log-ratio <= epsilon."""
    worst = 0.0
    for a, b in QueryDistance(1.0, "linf").candidate_pairs((0.0, 0.0)):
        pa, pb = exact_pmf(name, a), exact_pmf(name, b)
        worst = max(worst, max(abs(math.log(pa[o] / pb[o])) for o in pa))
    assert 0.05 < worst <= 1.0 + 1e-9


def test_stops_after_cutoff_tops_and_marks_the_rest_unanswered():
    for name in NAMES:
        mech = get(name)
        out = mech.sample((100.0,) * 10, 500, np.random.default_rng(1))  # far above: every answer is top
        cutoff = 1 if name == "above-threshold" else 2
        assert np.all(out[:, :cutoff] == 1) and np.all(out[:, cutoff:] == -1)
        out = mech.sample((-100.0,) * 10, 500, np.random.default_rng(1))  # far below: all bottom
        assert np.all(out == 0)
