"""Lattice events: exact membership, the ulp lemma as a property, leaky samplers flagged, controls not.

Thresholds: alpha = 0.05 union bound, 5x10^3 search + 9.5x10^4 verification outputs per side (10^5
in all).  With hits_b = 0 the bound is ln(LCB(p_a) / 3.88e-5); it exceeds 8 when p_a >= 0.12 (numpy
Laplace at epsilon = 1: measured 0.43; Box-Muller at epsilon = 1: 0.167).  Box-Muller at epsilon = 0.1
(sigma = 48.4) puts only p_a ~ 0.03 in the impossible set, so its bound is at most ln(0.03 / 3.88e-5)
= 6.6: that is the mass of the event, not a weakness of the search, and the test asks for > 6.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.auditor.events.leaks.finding import LeakVerdict
from dpaudit.auditor.events.leaks.lattice import (
    ExponentIs,
    MantissaLowBits,
    NotMultipleOf,
    NotReachableFrom,
    candidate_centres,
    default_events,
    find_lattice_event,
    hit_counts,
    lattice_check,
    lemma_grid_power,
    lowest_set_power,
)
from tests.auditor.samplers import CONTROLS, box_muller, numpy_laplace, textbook_laplace

finite = st.floats(allow_nan=False, allow_infinity=False)


def test_membership_on_known_values():
    y = np.array([0.0, 1.0, 0.5, 0.75, 2.0**-60, 3.0 * 2.0**-54, -6.0, 5e-324])
    assert lowest_set_power(y)[1:].tolist() == [0, -1, -2, -60, -54, 1, -1074]
    assert NotMultipleOf(-53).contains(y).tolist() == [False, False, False, False, True, True, False, True]
    assert MantissaLowBits(2, 0b11).contains(np.array([1.0 + 3 * 2.0**-52, 1.0])).tolist() == [True, False]
    assert ExponentIs(1).contains(np.array([1.0, 1.5, 2.0, -1.2])).tolist() == [True, True, False, True]
    assert all(e.describe() for e in default_events(y, queries=(1.0,)))


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(x=finite.filter(lambda v: 2.0**-900 < abs(v) < 2.0**900), n=finite.filter(lambda v: abs(v) < 2.0**900))
def test_ulp_lattice_lemma(x, n):
    # |x| >= 2^k  =>  fl(x + n) is a multiple of 2^(k-53)  (lemma of dpaudit/auditor/events/leaks/lattice.py)
    grid = lemma_grid_power(x)
    assert not NotMultipleOf(grid).contains(np.array([x + n]))[0]
    assert not NotReachableFrom(x).contains(np.array([x + n]))[0]


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(y=finite.filter(lambda v: abs(v) < 2.0**900), q=st.sampled_from([1.0, -3.0, 0.1, 1e6]))
def test_reachability_is_exact(y, q):
    # brute force over the doubles around y - q: reachable iff one of them maps to y
    unreachable = NotReachableFrom(q).contains(np.array([y]))[0]
    candidate, found = np.float64(y - q), False
    for _ in range(8):
        candidate = np.nextafter(candidate, -np.inf)
    for _ in range(17):
        found |= bool(q + candidate == y)
        candidate = np.nextafter(candidate, np.inf)
    assert unreachable == (not found)


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(values=st.lists(st.floats() | st.sampled_from([0.0, -0.0, 1.0, 2.0**-60, 5e-324]), max_size=40))
def test_hit_counts_equal_counting_contains(values):
    y = np.array(values, dtype=float)
    events = default_events(y, queries=(1.0, 0.0)) + [MantissaLowBits(6, 0b101010)]
    assert hit_counts(y, events) == [int(np.count_nonzero(event.contains(y))) for event in events]


def test_search_prefers_the_structurally_empty_grid():
    rng = np.random.default_rng(5)
    mech = textbook_laplace(1.0)
    a, b = mech.sample(0.0, 4000, rng), mech.sample(1.0, 4000, rng)
    choice = find_lattice_event(a, b)
    assert choice.event == NotMultipleOf(-53) and not choice.swap
    assert find_lattice_event(b, a).swap
    assert isinstance(find_lattice_event(a, b, queries=(0.0, 1.0)).event, NotReachableFrom)


@pytest.mark.statistical
@pytest.mark.parametrize(
    "make, epsilon, minimum",
    [(numpy_laplace, 0.1, 7.0), (numpy_laplace, 1.0, 8.0), (box_muller, 0.1, 6.0), (box_muller, 1.0, 8.0)],
)
def test_leaky_samplers_are_flagged(make, epsilon, minimum):
    finding = lattice_check(make(epsilon), 0.0, 1.0, seed=11, queries=(0.0, 1.0))
    assert finding.verdict is LeakVerdict.VIOLATION, finding.reason
    assert finding.support_mismatch and finding.proven_empty
    assert finding.epsilon_lower_bound > minimum
    assert finding.n_a + 5_000 <= 100_000


@pytest.mark.statistical
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("epsilon", [0.1, 1.0])
@pytest.mark.parametrize("kind", sorted(CONTROLS))
def test_controls_are_never_flagged(kind, epsilon, seed):
    finding = lattice_check(CONTROLS[kind](epsilon), 0, 1, n_search=2_000, n_verify=20_000, seed=seed, queries=(0.0, 1.0))
    assert finding.verdict is LeakVerdict.PASS, finding.reason
    assert not finding.proven_empty


def test_vector_outputs_are_refused():
    from dpaudit import Mechanism, PureDP
    from dpaudit.errors import InvalidArgument

    mech = Mechanism.from_callable(lambda q, n, rng: rng.random((n, 2)), claim=PureDP(1.0))
    with pytest.raises(InvalidArgument, match="scalar outputs"):
        lattice_check(mech, 0.0, 1.0, n_search=10, n_verify=10)


def test_candidate_centres_find_integer_and_mean_query_values():
    # Unknown query values: the simplest fractions j / d near the median come first, and a candidate
    # some output cannot come from is dropped (the reachability test is exact).
    rng = np.random.default_rng(0)
    for q, b in ((2.0, 1.0), (3.0, 1.0), (np.mean([1, 0, 1]), 1 / 3), (17.0, 10.0), (1000.0, 1.0)):
        outputs = q + rng.laplace(0, b, 20_000)
        centres = candidate_centres(outputs)
        assert centres[0] == q and len(centres) <= 4, (q, centres)
        assert not any(NotReachableFrom(c).contains(outputs[:2_000]).any() for c in centres)
    assert 1.0 not in candidate_centres(np.mean([1, 0, 1]) + rng.laplace(0, 1 / 3, 20_000))  # off 1's lattice
    assert candidate_centres(np.array([np.nan, np.inf])) == ()
