"""Two bounds side by side (dpaudit.auditor.scopes): the implementation's and the algorithm's, and which decided."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dpaudit
from dpaudit.auditor import AuditResult, Verdict, audit
from dpaudit.auditor.scopes import implementation_only, with_both_scopes

LEAK = implementation_only(lambda event: False)  # no side channel recorded
from dpaudit.auditor.events.family import Scored


def _scored(family: str, objective: float) -> Scored:
    return Scored(event=f"{family}-{objective}", family=family, forward=True, objective=objective, hits_a=1, hits_b=0)


def test_the_best_own_event_is_verified_beside_leak_events():
    found = [_scored("lattice", 9.0), _scored("float-support", 8.0), _scored("threshold", 0.9), _scored("atom", 0.8)]
    assert [s.family for s in with_both_scopes(found, found[:1], LEAK)] == ["lattice", "threshold"]
    assert [s.family for s in with_both_scopes(found, found[:2], LEAK)] == ["lattice", "float-support", "threshold"]
    # An own event ranks first: the scopes share it, and the lower-ranked leak event is not added.
    ranked = [found[2], found[0], found[3]]
    assert with_both_scopes(ranked, ranked[:1], LEAK) == ranked[:1]
    assert with_both_scopes(found[:2], found[:1], LEAK) == found[:1]  # no own event found: nothing to add


@pytest.mark.statistical
def test_a_float_leak_is_decided_by_the_implementation_bound_and_the_algorithm_is_sized_apart():
    # laplace-numpy at 2 x 10^4 (seed 1): the float-support event certifies ~8 (a support mismatch capped
    # by the sample size); the mechanism's own events give the Laplace mechanism's epsilon, about 1 --
    # at most the claim at the verdict's level (the algorithm is exact).
    mechanism = dpaudit.get("laplace-numpy")
    result = audit(mechanism, pair=mechanism.pairs[0], samples=20_000, seed=1, executor="in-process")
    scopes = result.bounds_by_scope
    assert result.verdict is Verdict.VIOLATION and scopes.decided_by == "implementation"
    assert scopes.candidates == len(result.candidates) == 2
    implementation, algorithmic = scopes.implementation, scopes.algorithmic
    assert implementation.family == "float-support" and implementation.epsilon_lower_bound == result.epsilon_lower_bound
    assert algorithmic.family not in ("lattice", "float-support", "correlated-noise")
    assert 0.9 < algorithmic.verdict_epsilon_lower_bound <= algorithmic.epsilon_lower_bound <= 1.0
    assert "decided by the implementation bound" in result.reason
    assert AuditResult.from_dict(json.loads(json.dumps(result.as_dict()))) == result


def _halved_scale(q, n, rng):
    return q + rng.laplace(0.0, 0.5, size=n)  # Lap(1/2) in doubles: 2-DP, and a float-lattice leak besides


@pytest.mark.statistical
def test_an_algorithmic_flaw_behind_a_float_leak_is_decided_by_the_algorithmic_bound():
    # Claimed 1-DP with the noise scale halved: the own events certify about 2 (1.9 at the verdict's level
    # at 2 x 10^4, sd of the threshold log-ratio ~0.02), whatever the lattice events add.
    result = audit(_halved_scale, epsilon=1.0, pair=(0.0, 1.0), samples=20_000, seed=1, executor="in-process")
    scopes = result.bounds_by_scope
    assert result.verdict is Verdict.VIOLATION and scopes.decided_by == "algorithmic"
    assert 1.5 < scopes.algorithmic.verdict_epsilon_lower_bound <= 2.0
    assert "decided by the algorithmic bound" in result.reason


def test_no_leak_family_no_scopes():
    result = audit("laplace-numpy", samples=5_000, seed=1, checks=None, executor="in-process")
    assert result.bounds_by_scope is None and all(c.family not in ("lattice", "float-support") for c in result.candidates)


def test_the_cli_prints_both_bounds():
    from click.testing import CliRunner

    from dpaudit.cli import main

    out = CliRunner().invoke(main, ["audit", "laplace-numpy", "--samples", "20000", "--seed", "1", "--executor",
                                    "in-process"]).output
    assert "implementation: epsilon >= " in out and "algorithmic   : epsilon >= " in out
    assert "decided : by the implementation bound" in out
    assert np.isfinite(float(out.split("algorithmic   : epsilon >= ")[1].split()[0]))


def test_a_side_channel_event_is_of_the_implementation_not_the_algorithm():
    # geometric-by-trials: its output is the exact two-sided geometric, its draw count gives the input
    # away; the violation found on (output, draws) must be laid at the implementation's door.
    result = dpaudit.audit("geometric-by-trials", samples=2000, seed=1, executor="in-process")
    assert result.violation
    scopes = result.bounds_by_scope
    assert scopes.decided_by == "implementation", scopes
    algorithmic = scopes.algorithmic
    assert algorithmic is None or algorithmic.verdict_epsilon_lower_bound <= result.claim.epsilon
