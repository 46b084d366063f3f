"""Smooth-sensitivity median: S* against a brute-force search of the definition, the noise law, the grid."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpaudit.mechanisms._grid import grid_for
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.smooth_sensitivity import quartic_noise, smooth_sensitivity_median
from tests.gof import ALPHA, continuous_pvalue

UPPER = 1.0


def _median(values) -> float:
    v = sorted(values)
    return v[(len(v) + 1) // 2 - 1]


def _local_sensitivity(values) -> float:
    """max over replace-one neighbours of |med(y) - med(y')|; a replacement by 0 or UPPER moves it furthest."""
    m = _median(values)
    return max(
        abs(_median(values[:i] + (r,) + values[i + 1 :]) - m) for i in range(len(values)) for r in (0.0, UPPER)
    )


def _smooth_sensitivity_brute_force(values, beta) -> float:
    """max_y LS(y) e^(-beta d(x, y)) (NRS Def. 2.2) over every y reached by moving records to 0 or UPPER.

    Moving a record anywhere else never widens a gap next to the median more than moving it to an end
    of [0, UPPER], so these datasets attain the maximum.
    """
    n = len(values)
    best = 0.0
    for choice in itertools.product((None, 0.0, UPPER), repeat=n):
        y = tuple(v if c is None else c for v, c in zip(values, choice))
        distance = sum(1 for v, w in zip(values, y) if v != w)
        best = max(best, _local_sensitivity(y) * math.exp(-beta * distance))
    return best


@pytest.mark.parametrize(
    "values",
    [
        (0.1, 0.2, 0.3, 0.5, 0.9),
        (0.5, 0.5, 0.5, 0.5, 0.5),
        (0.0, 0.0, 0.0, 1.0, 1.0),
        (0.3, 0.31, 0.32, 0.33, 0.34, 0.35, 0.9),
        (0.2, 0.4, 0.6, 0.8),  # even n: the lower median
        (0.7,),
    ],
)
@pytest.mark.parametrize("beta", [0.1, 0.5, 2.0])
def test_smooth_sensitivity_matches_the_definition(values, beta):
    expected = _smooth_sensitivity_brute_force(values, beta)
    assert smooth_sensitivity_median(values, UPPER, beta) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_smooth_sensitivity_is_beta_smooth_on_neighbours():
    """S*(x) <= e^beta S*(x') for replace-one neighbours (the property NRS Lemma 2.6 uses)."""
    rng = np.random.default_rng(17)
    beta = 0.1
    for _ in range(200):
        x = rng.random(7).round(2)
        y = x.copy()
        y[rng.integers(7)] = rng.choice([0.0, 1.0, rng.random()])
        sx, sy = smooth_sensitivity_median(x, UPPER, beta), smooth_sensitivity_median(y, UPPER, beta)
        assert sx <= math.exp(beta) * sy * (1 + 1e-12) and sy <= math.exp(beta) * sx * (1 + 1e-12)


@pytest.mark.statistical
def test_quartic_noise_fits_its_density():
    z = quartic_noise(50_000, np.random.default_rng(20261128))
    assert continuous_pvalue(z, lambda t: math.sqrt(2) / math.pi / (1 + np.asarray(t) ** 4)) > ALPHA


@pytest.mark.statistical
def test_quartic_noise_fit_rejects_scale_off_by_30_percent():
    z = 1.3 * quartic_noise(50_000, np.random.default_rng(20261128))
    assert continuous_pvalue(z, lambda t: math.sqrt(2) / math.pi / (1 + np.asarray(t) ** 4)) < ALPHA


@pytest.mark.statistical
def test_mechanism_output_is_median_plus_scaled_noise():
    mech = get("smooth-sensitivity-median")
    data = (0.1, 0.2, 0.3, 0.5, 0.9)
    epsilon = mech.claim.epsilon
    scale = smooth_sensitivity_median(data, UPPER, epsilon / 10) / (epsilon / 8)
    out = mech.sample(data, 50_000, np.random.default_rng(20261129))
    z = (out - 0.3) / scale
    assert continuous_pvalue(z, lambda t: math.sqrt(2) / math.pi / (1 + np.asarray(t) ** 4)) > ALPHA


def test_outputs_lie_on_a_data_independent_grid():
    step = grid_for(UPPER)[0]
    mech = get("smooth-sensitivity-median")
    for data in ((0.1, 0.2, 0.3), (0.123456789,) * 5, (1 / 3, 2 / 3, 0.7, 0.05, 0.99)):
        out = mech.sample(data, 2_000, np.random.default_rng(3))
        assert np.all(np.mod(out, step) == 0)
