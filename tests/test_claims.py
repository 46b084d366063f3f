"""Claims: frozen, self-validating, JSON round-trippable (unit + table-driven invalid arguments)."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit import ApproxDP, InvalidArgument, ProbabilisticDP, PureDP
from dpaudit.claims import claim_from_dict


def test_pure_dp_has_zero_delta_and_is_frozen():
    claim = PureDP(1)
    assert claim.epsilon == 1.0 and isinstance(claim.epsilon, float) and claim.delta == 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.epsilon = 2.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: PureDP(-0.1), "epsilon=-0.1 must be a finite number >= 0"),
        (lambda: PureDP(math.inf), "epsilon=inf must be a finite number >= 0"),
        (lambda: PureDP(math.nan), "epsilon=nan must be a finite number >= 0"),
        (lambda: PureDP("1"), "epsilon='1' must be a real number"),
        (lambda: PureDP(True), "epsilon=True must be a real number"),
        (lambda: ApproxDP(1.0, 1.0), r"delta=1.0 must lie in \[0, 1\)"),
        (lambda: ApproxDP(1.0, -1e-9), r"delta=-1e-09 must lie in \[0, 1\)"),
        (lambda: ProbabilisticDP(-1.0, 0.1), "epsilon=-1.0 must be a finite number >= 0"),
        (lambda: ProbabilisticDP(1.0, 2), r"delta=2 must lie in \[0, 1\)"),
    ],
)
def test_invalid_claims_name_the_argument_and_value(make, message):
    with pytest.raises(InvalidArgument, match=message):
        make()


def test_invalid_claim_is_a_value_error():
    with pytest.raises(ValueError):
        PureDP(-1)


@given(
    kind=st.sampled_from([PureDP, ApproxDP, ProbabilisticDP]),
    epsilon=st.floats(0, 1e6),
    delta=st.floats(0, 1, exclude_max=True),
)
def test_claims_round_trip_through_dicts(kind, epsilon, delta):
    claim = kind(epsilon) if kind is PureDP else kind(epsilon, delta)
    assert claim_from_dict(claim.as_dict()) == claim


def test_claim_from_dict_rejects_unknown_kind():
    with pytest.raises(InvalidArgument, match="kind"):
        claim_from_dict({"kind": "renyi", "epsilon": 1})
