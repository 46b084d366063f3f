"""Correlated noise: a histogram adding one draw to every cell is flagged; independent noise is not.

Thresholds: alpha = 0.05 union bound, 2x10^3 search + 2x10^4 verification outputs per side.  For
the shared draw, the difference event holds ~all fresh outputs of a (LCB >= 0.99) and none of b
(a neighbour moves one cell by 1), so the bound is about ln(0.99 / 1.84e-4) = 8.6 > 5.  Independent
discrete noise per cell keeps every ratio within e^epsilon, so the verification bound stays at or
below the claim except with probability <= alpha per run (0 flags expected over the seeds).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpaudit import AddRemove, Mechanism, PureDP
from dpaudit.auditor.events.leaks.correlation import (
    correlation_check,
    independence_pvalue,
)
from dpaudit.auditor.events.leaks.finding import LeakVerdict
from dpaudit.errors import InvalidArgument
from tests.auditor.samplers import discrete_laplace_draws

pytestmark = pytest.mark.statistical

CELLS = 4


def histogram(data):
    return np.bincount(np.asarray(data, dtype=int), minlength=CELLS)[:CELLS].astype(float)


def shared_draw_histogram(epsilon: float) -> Mechanism:
    def sample(data, n, rng):
        return histogram(data)[None, :] + rng.laplace(0.0, 2.0 / epsilon, size=(n, 1))

    return Mechanism.from_callable(sample, claim=PureDP(epsilon), neighbours=AddRemove(), name="shared-draw-histogram")


def independent_histogram(epsilon: float) -> Mechanism:
    def sample(data, n, rng):
        noise = discrete_laplace_draws(1.0 / epsilon, n * CELLS, rng).reshape(n, CELLS)
        return histogram(data)[None, :] + noise

    return Mechanism.from_callable(sample, claim=PureDP(epsilon), neighbours=AddRemove(), name="independent-histogram")


A, B = (0, 1, 2, 2, 3), (0, 1, 2, 2, 3, 1)


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_shared_draw_is_flagged(epsilon):
    finding = correlation_check(shared_draw_histogram(epsilon), A, B, seed=3)
    assert finding.verdict is LeakVerdict.VIOLATION, finding.reason
    assert finding.epsilon_lower_bound > 5.0 and finding.hits_b == 0
    assert finding.figures["noise_correlated"] and finding.figures["max_abs_correlation"] > 0.99
    json.dumps(finding.as_dict())


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_independent_noise_is_not_flagged(epsilon, seed):
    finding = correlation_check(independent_histogram(epsilon), A, B, seed=seed)
    assert finding.verdict is LeakVerdict.PASS, finding.reason


def test_independence_pvalue_has_power_and_validity():
    rng = np.random.default_rng(9)
    z = rng.normal(size=(2000, 1))
    assert independence_pvalue(z + 0.1 * rng.normal(size=(2000, 3)))[1] < 1e-6
    # under independence the Bonferroni p-value is below 0.05 in at most 5 % of runs: 40 seeded runs,
    # P(>= 7 rejections | rate 0.05) = 0.014
    rejections = sum(independence_pvalue(np.random.default_rng(s).normal(size=(500, 3)))[1] < 0.05 for s in range(40))
    assert rejections < 7


def test_scalar_outputs_are_refused():
    mech = Mechanism.from_callable(lambda q, n, rng: rng.random(n), claim=PureDP(1.0))
    with pytest.raises(InvalidArgument, match="vector outputs"):
        correlation_check(mech, 0.0, 1.0, n_search=10, n_verify=10)
