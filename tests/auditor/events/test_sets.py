"""Events: vectorised membership, descriptions and JSON form; the search finds the right family."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.auditor import bounds
from dpaudit.auditor.events.leaks.events import (
    CoordinateDifference,
    LatticeEvent,
    OutsideSupport,
    leak_event_from_dict,
)
from dpaudit.auditor.events.leaks.lattice import NotReachableFrom
from dpaudit.auditor.events.sets import (
    SORTED_COUNTING,
    AtomThreshold,
    BinSet,
    Feature,
    Interval,
    RowSet,
    Threshold,
    ValueSet,
    answer_positions,
    bin_index,
    event_from_dict,
    hit_counts,
    row_keys,
)
from dpaudit.auditor.events.standard import search_events

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
        (AtomThreshold(Feature("first-nonzero", codes=(0.0, 1.0)), 2, 2,
                       Feature("first-nonzero-value", codes=(0.0, 1.0)), 5.0, True),
         [True, False, False, True]),
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
    # With codes, the first coordinate that is not a code: -1000 below, -2000 aborted (DP-Sniper's Alg. 3).
    coded = np.array([[-1000.0, 7.5, -2000.0], [-1000.0, -1000.0, -1000.0], [0.0, -1000.0, -2000.0]])
    codes = (-2000.0, -1000.0)
    assert Feature("first-nonzero", codes=codes).values(coded).tolist() == [1, 3, 0]
    assert Feature("first-nonzero-value", codes=codes).values(coded).tolist() == [7.5, 0.0, 0.0]
    assert "not in {-2000, -1000}" in Feature("first-nonzero", codes=codes).describe()


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


def test_search_reads_the_first_answer_past_codes_other_than_zero():
    # The same outputs with "below" coded -1000 (DP-Sniper's sparse vector Alg. 3): the first non-zero
    # coordinate is then always 0, and only the coded reading finds the conjunction.
    rng = np.random.default_rng(4)
    def rows(shift):
        first = rng.integers(0, 4, 20_000)
        value = rng.normal(shift * (first >= 2), 1.0)
        out = np.full((20_000, 4), -1000.0)
        out[np.arange(20_000)[first < 4], first[first < 4]] = value[first < 4]
        return out
    found = [s for s in search_events(rows(0.0), rows(1.5), _score) if s.family == "first answer"]
    best = found[0]
    assert best.event.atom_feature.codes == (-1000.0,) and best.forward and best.objective > 0.5
    assert event_from_dict(json.loads(json.dumps(best.event.as_dict()))) == best.event


# --- outputs that were labels, booleans or dicts -------------------------------------------------


def _coding_of(function, n=2_000, seed=0):
    from dpaudit import Mechanism, PureDP

    return Mechanism.from_callable(function, claim=PureDP(1.0)).draw(0.0, n, np.random.default_rng(seed))


def test_labelled_events_read_as_the_outputs_and_round_trip():
    from dpaudit.auditor.events.sets import labelled
    from dpaudit.mechanisms.outputs import label_code

    drawn = _coding_of(lambda q, rng: {"band": "high" if rng.random() < 0.5 else "low", "count": 3})
    high = float(label_code("high"))
    events = [
        labelled(ValueSet(Feature("coordinate", index=0), (high,)), drawn.coding),
        labelled(Threshold(Feature("coordinate", index=1), 2.5, False), drawn.coding),
        labelled(RowSet(((high, 3.0),)), drawn.coding),
        labelled(CoordinateDifference(0, 1, -1.0, 1.0), drawn.coding),
    ]
    assert [e.describe() for e in events] == [
        "output['band'] == 'high'",
        "output['count'] > 2.5",
        "output == {'band': 'high', 'count': 3}",
        "-1 <= output['band'] - output['count'] <= 1",
    ]
    for event in events:
        back = event_from_dict(json.loads(json.dumps(event.as_dict())))
        assert back == event and back.describe() == event.describe()
        assert np.array_equal(back.contains(drawn.values), event.contains(drawn.values))


def test_a_cut_on_a_boolean_output_reads_as_true_or_false():
    from dpaudit.auditor.events.sets import labelled

    drawn = _coding_of(lambda q, rng: bool(rng.random() < 0.3))
    rows = drawn.values.astype(np.int8)[:, None]
    for event, text in [(Threshold(Feature("value"), 0.0, True), "output == False"),
                        (Threshold(Feature("value"), 0.0, False), "output == True"),
                        (Interval(Feature("value"), 0.5, 7.0), "output == True")]:
        named = labelled(event, drawn.coding)
        assert named.describe() == text
        assert np.array_equal(named.contains(rows), event.contains(rows))  # the same set of outputs


def test_the_search_cuts_no_thresholds_through_label_codes():
    rng = np.random.default_rng(1)
    # Labels coded 10, 20, 30 (as codes are: arbitrary integers); 30 is three times likelier under a.
    rows_a = rng.choice([10, 20, 30], size=(4_000, 1), p=[0.2, 0.2, 0.6])
    rows_b = rng.choice([10, 20, 30], size=(4_000, 1), p=[0.4, 0.4, 0.2])
    score = _score
    found = search_events(rows_a, rows_b, score, categorical=frozenset({0}))
    assert found and all(isinstance(s.event, ValueSet) for s in found)
    assert found[0].event.values == (30.0,) and found[0].forward
    mixed = search_events(np.c_[rows_a, rows_a], np.c_[rows_b, rows_b], score, categorical=frozenset({0}))
    assert {s.family for s in mixed} <= {"atoms", "threshold", "interval", "answer patterns"}
    assert not any(s.event.feature.kind in ("sum", "max", "min", "argmax", "nonzero", "linear")
                   for s in mixed if hasattr(s.event, "feature"))


def test_a_label_output_with_more_labels_than_atoms_keeps_the_frequent_ones():
    from dpaudit.auditor.events.standard import MAX_ATOMS

    rng = np.random.default_rng(2)
    rows_a = rng.integers(0, 3 * MAX_ATOMS, size=(20_000, 1))
    rows_b = rows_a.copy()
    rows_a[rng.random(20_000) < 0.05, 0] = 7  # label 7 gains 5 % of the mass under a
    found = search_events(rows_a, rows_b, _score, categorical=frozenset({0}))
    assert found and found[0].event.values[0] == 7.0 and found[0].forward


@settings(max_examples=100, derandomize=True, database=None, deadline=None)
@given(values=st.lists(st.floats(allow_infinity=True) | st.sampled_from([0.0, -0.0, 1.0, 2.5]), min_size=1, max_size=60),
       cuts=st.lists(st.floats(allow_nan=False) | st.sampled_from([0.0, 1.0, 2.5]), min_size=3, max_size=12))
def test_sorted_counting_equals_counting_contains(values, cuts):
    # Enough events on one feature that hit_counts sorts it and counts by binary search (NaN rows included).
    rows = np.array(values, dtype=float).reshape(-1, 1)
    feature = Feature("value")
    edges = tuple(sorted(cuts))
    events = [Threshold(feature, t, upper) for t in cuts for upper in (True, False)]
    events += [Interval(feature, lo, hi) for lo, hi in zip(cuts, cuts[1:])]
    events += [BinSet(feature, edges, (0, len(edges))), BinSet(feature, edges, tuple(range(1, len(edges), 2)))]
    assert len(events) >= SORTED_COUNTING
    assert hit_counts(events, rows) == [int(np.count_nonzero(event.contains(rows))) for event in events]


@settings(max_examples=150, derandomize=True, database=None, deadline=None)
@given(values=st.lists(st.floats() | st.sampled_from([0.0, -0.0, 1.0, 2.5]), min_size=1, max_size=60),
       edges=st.lists(st.floats(allow_nan=False) | st.sampled_from([0.0, -0.0, 1.0, 2.5]), min_size=1, max_size=300),
       strided=st.booleans())
def test_bin_index_is_numpys_left_insertion_point(values, edges, strided):
    # Sorted edges (duplicates, zeros of both signs, infinities) by comparisons, unsorted ones by binary search;
    # values with NaN, contiguous or a strided column.
    v = np.array(values, dtype=float)
    if strided:
        v = np.c_[v, v][:, 1]
    for e in (np.sort(np.array(edges)), np.array(edges)):
        assert np.array_equal(bin_index(e, v), np.searchsorted(e, v, side="left"))


@settings(max_examples=100, derandomize=True, database=None, deadline=None)
@given(rows=st.lists(st.lists(st.sampled_from([0.0, 1.0, -1000.0, 2.5, float("nan")]), min_size=1, max_size=6),
                     min_size=1, max_size=30).filter(lambda r: len({len(x) for x in r}) == 1),
       codes=st.sampled_from([None, (0.0, -1000.0)]), rank=st.integers(1, 7))
def test_answer_positions_read_the_kth_answer(rows, codes, rank):
    # The rank-th coordinate that is an answer (non-zero, or not a code), the width where there is none.
    y = np.array(rows)
    expected = []
    for row in y:
        answers = [i for i, v in enumerate(row) if (v != 0 if codes is None else v not in codes)]
        expected.append(answers[rank - 1] if len(answers) >= rank else y.shape[1])
    assert answer_positions(y, codes, rank).tolist() == expected
