"""A curve claim (zCDP, RDP, GDP, privacy curve) is audited at one point of its curve, named by the caller."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import GaussianDP, InvalidArgument, Mechanism, QueryDistance, ZeroConcentratedDP
from dpaudit.mechanisms.targets import resolve


def _gaussian(claim):
    def sample(q, n, rng):
        return np.rint((q + rng.normal(0.0, 1.0, size=n)) * 2**16) / 2**16

    return Mechanism(name="gaussian-unit", claim=claim, neighbours=QueryDistance(1.0), sampler=sample)


@pytest.mark.parametrize("claim", [ZeroConcentratedDP(0.5), GaussianDP(1.0)])
def test_a_curve_claim_without_a_point_is_refused_with_the_fix(claim):
    with pytest.raises(InvalidArgument, match=r"states a curve .* pass delta= \(e\.g\. delta=1e-05 audits \("):
        dpaudit.audit(_gaussian(claim), pair=(0.0, 1.0), samples=10_000, seed=1, executor="in-process")


def test_delta_or_epsilon_picks_the_point_of_the_curve():
    mechanism = _gaussian(ZeroConcentratedDP(0.5))
    assert resolve(mechanism, delta=1e-5).claim == ZeroConcentratedDP(0.5).to_approx(1e-5)
    at_one = resolve(mechanism, epsilon=1.0).claim
    assert at_one.epsilon == 1.0 and at_one.delta == ZeroConcentratedDP(0.5).delta_at_epsilon(1.0)
    result = dpaudit.audit(mechanism, pair=(0.0, 1.0), samples=10_000, seed=1, executor="in-process", delta=1e-3)
    assert result.claim == ZeroConcentratedDP(0.5).to_approx(1e-3)
