"""A curve claim (zCDP, RDP, GDP, privacy curve) is audited on its whole curve, or at one point of it named by the caller."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import GaussianDP, InvalidArgument, Mechanism, QueryDistance, ZeroConcentratedDP
from dpaudit.targets import resolve


def _gaussian(claim):
    def sample(q, n, rng):
        return np.rint((q + rng.normal(0.0, 1.0, size=n)) * 2**16) / 2**16

    return Mechanism(name="gaussian-unit", claim=claim, neighbours=QueryDistance(1.0), sampler=sample)


@pytest.mark.parametrize("claim", [ZeroConcentratedDP(0.5), GaussianDP(1.0)])
def test_a_curve_claim_without_a_point_is_audited_on_its_whole_curve(claim):
    # The verdict comes from the empirical curve (dpaudit.auditor.curve_claims; validity and power in
    # test_curve.py); the stages work at the claim's point at delta = 1e-5.
    result = dpaudit.audit(_gaussian(claim), pair=(0.0, 1.0), samples=10_000, seed=1, executor="in-process")
    assert result.claim == claim and result.curve is not None
    assert f"working point {claim.to_approx(1e-5)}" in result.reason


def test_delta_or_epsilon_picks_the_point_of_the_curve():
    mechanism = _gaussian(ZeroConcentratedDP(0.5))
    assert resolve(mechanism, delta=1e-5).claim == ZeroConcentratedDP(0.5).to_approx(1e-5)
    at_one = resolve(mechanism, epsilon=1.0).claim
    assert at_one.epsilon == 1.0 and at_one.delta == ZeroConcentratedDP(0.5).delta_at_epsilon(1.0)
    result = dpaudit.audit(mechanism, pair=(0.0, 1.0), samples=10_000, seed=1, executor="in-process", delta=1e-3)
    assert result.claim == ZeroConcentratedDP(0.5).to_approx(1e-3)


def test_a_curve_claim_the_budget_cannot_reach_is_underpowered_not_a_pass():
    # 100 samples per side: even a perfect witness certifies far less than 0.9 x the working point's
    # epsilon (4.73 at delta = 1e-5 for 0.5-zCDP), so no pass may be reported -- never a silent pass.
    result = dpaudit.audit("gaussian-zcdp", samples=100, seed=1, progress=False, executor="in-process")
    assert result.verdict.value == "underpowered" and "increase samples" in result.reason
    assert result.claim == ZeroConcentratedDP(0.5)
