"""Events: vectorised membership, descriptions and JSON form; the search finds the right family."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpaudit.auditor import bounds
from dpaudit.auditor.events import (
    AtomThreshold,
    BinSet,
    Feature,
    Interval,
    RowSet,
    Threshold,
    ValueSet,
    event_from_dict,
    row_keys,
)
from dpaudit.auditor.leak_events import CoordinateDifference, LatticeEvent, OutsideSupport, leak_event_from_dict
from dpaudit.auditor.lattice import NotReachableFrom
from dpaudit.auditor.search import search_events

ROWS = np.array([[0.0, 1.0, 2.0], [3.0, -1.0, 0.0], [1.0, 1.0, 1.0], [-0.0, 0.0, 5.0]])


def test_features():
    assert Feature("coordinate", index=1).values(ROWS).tolist() == [1.0, -1.0, 1.0, 0.0]
    assert Feature("sum").values(ROWS).tolist() == [3.0, 2.0, 3.0, 5.0]
    assert Feature("max").values(ROWS).tolist() == [2.0, 3.0, 1.0, 5.0]
    assert Feature("argmax").values(ROWS).tolist() == [2, 0, 0, 2]
    assert Feature("nonzero").values(ROWS).tolist() == [2, 2, 3, 1]
    assert Feature("linear", weights=(1.0, 0.0, -1.0)).values(ROWS).tolist() == [-2.0, 3.0, 0.0, -5.0]
    with pytest.raises(ValueError):
        Feature("median").values(ROWS)


@pytest.mark.parametrize(
    "event,expected",
    [
        (Threshold(Feature("sum"), 3.0, True), [True, True, True, False]),
        (Threshold(Feature("sum"), 3.0, False), [False, False, False, True]),
        (Interval(Feature("max"), 1.0, 3.0), [True, True, False, False]),
        (ValueSet(Feature("nonzero"), (1.0, 3.0)), [False, False, True, True]),
        (BinSet(Feature("sum"), (2.5, 4.0), (0, 2)), [False, True, False, True]),
        (RowSet(((0.0, 0.0, 5.0), (1.0, 1.0, 1.0))), [False, False, True, True]),
        (AtomThreshold(Feature("first-nonzero"), 0, 0, Feature("first-nonzero-value"), 1.0, True),
         [False, False, True, False]),
        (AtomThreshold(Feature("first-nonzero"), 1, 2, Feature("first-nonzero-value"), 4.0, False),
         [False, False, False, True]),
    ],
)
def test_membership_description_and_json(event, expected):
    assert event.contains(ROWS).tolist() == expected
    assert isinstance(event.describe(), str) and event.describe()
    assert event_from_dict(json.loads(json.dumps(event.as_dict()))) == event


def test_first_answer_features():
    rows = np.array([[0.0, 0.0, 3.5], [-1.0, 2.0, 0.0], [0.0, 0.0, 0.0]])
    assert Feature("first-nonzero").values(rows).tolist() == [2, 0, 3]
    assert Feature("first-nonzero-value").values(rows).tolist() == [3.5, -1.0, 0.0]


def test_leak_events_round_trip():
    for event in (LatticeEvent(NotReachableFrom(1.0)), CoordinateDifference(0, 2, -1.0, 0.5),
                  LatticeEvent(NotReachableFrom(1.0), 2.0**-60, 3), OutsideSupport(1.0, None, -0.25, 2)):
        back = leak_event_from_dict(json.loads(json.dumps(event.as_dict())))
        assert back == event and back.as_dict() == event.as_dict()  # coordinate and witness kept
    assert CoordinateDifference(0, 2, -1.0, 0.5).contains(ROWS).tolist() == [False, False, True, False]
    assert LatticeEvent(NotReachableFrom(1.0)).contains(np.array([[2.0**-60], [1.5]])).tolist() == [True, False]


def test_row_keys_identify_negative_zero_with_zero():
    assert row_keys(np.array([[-0.0, 1.0]]))[0] == row_keys(np.array([[0.0, 1.0]]))[0]


def _score(ka, na, kb, nb):
    return bounds.joint_bound(ka, kb, 0.999, na / nb)


def test_search_finds_a_half_line_for_a_location_shift():
    rng = np.random.default_rng(1)
    a, b = rng.laplace(0, 1, (20_000, 1)), rng.laplace(1, 1, (20_000, 1))
    best = search_events(a, b, _score)[0]
    # The Neyman-Pearson sets for Laplace(0) vs Laplace(1) are half-lines; any event contained in
    # (-inf, 0] or [1, inf) has log-ratio exactly 1, so the best found should be near 1.
    assert best.objective > 0.85
    assert best.forward == bool(best.event.contains(np.array([[-5.0]]))[0])


def test_search_finds_an_atom_impossible_under_b():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, (5_000, 1))  # 0, 1, 2
    b = rng.integers(1, 3, (5_000, 1))  # never 0
    best = search_events(a, b, _score)[0]
    assert best.hits_b == 0 and best.forward
    assert best.event.contains(np.array([[0]]))[0] and not best.event.contains(np.array([[2]]))[0]


def test_search_finds_an_answer_pattern():
    rng = np.random.default_rng(3)
    a = (rng.random((5_000, 3)) < 0.5).astype(np.int8)
    b = a.copy()
    b[:, 2] = b[:, 0]  # under b the last answer always equals the first
    best = search_events(a, b, _score)[0]
    assert best.hits_b == 0 and best.objective > 5


def test_search_on_constant_outputs_finds_nothing():
    rows = np.zeros((1000, 1))
    assert search_events(rows, rows, _score) == []


def test_search_finds_a_first_answer_conjunction():
    # Under a, an answer at query 2 or later comes with a value <= 0 three times as often as under b.
    rng = np.random.default_rng(4)
    def rows(shift):
        first = rng.integers(0, 4, 20_000)
        value = rng.normal(shift * (first >= 2), 1.0)
        out = np.zeros((20_000, 4))
        out[np.arange(20_000)[first < 4], first[first < 4]] = np.where(value == 0, 1e-9, value)[first < 4]
        return out
    best = [s for s in search_events(rows(0.0), rows(1.5), _score) if s.family == "first answer"][0]
    assert best.forward and best.objective > 0.5
