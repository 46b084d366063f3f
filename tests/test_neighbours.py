"""Neighbour relations: membership checks, clear refusals, and candidate pairs that are neighbours."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit import AddRemove, InvalidArgument, InvalidDataset, Local, NotNeighbouring, QueryDistance, Replace
from dpaudit.neighbours import DING_PATTERNS, ding_patterns


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ([1, 2], [2, 1, 3], True),
        ((), (0,), True),
        ([1, 2, 3], [1, 2], True),
        ([1, 2], [1, 2], False),
        ([1, 2], [1, 3, 4], False),
        ([1, 1], [1, 1, 1, 1], False),
        (np.array([0.5, 1.0]), [1.0, 0.5, 0.5], True),
    ],
)
def test_add_remove_membership(a, b, expected):
    assert AddRemove().is_neighbouring(a, b) is expected


@pytest.mark.parametrize(
    "a, b, expected",
    [([1, 2], [1, 3], True), ([1, 2], [2, 1], False), ([1, 2], [1, 2, 3], False), ([], [], False), ([1, 2], [3, 4], False)],
)
def test_replace_membership(a, b, expected):
    assert Replace().is_neighbouring(a, b) is expected


def test_query_distance_norms():
    assert QueryDistance(1, "l1").is_neighbouring([0, 0], [0.5, 0.5])
    assert not QueryDistance(1, "l1").is_neighbouring([0, 0], [0.6, 0.6])
    assert QueryDistance(1, "l2").is_neighbouring([0, 0], [0.6, 0.6])
    assert QueryDistance(1, "linf").is_neighbouring([0, 0, 0], [1, -1, 1])
    assert QueryDistance(1).is_neighbouring(0.1 + 0.2, 1.3)  # float tolerance of a few ulps


def test_non_neighbouring_pair_is_refused_with_the_reason():
    with pytest.raises(NotNeighbouring, match="distance 2 > sensitivity 1"):
        QueryDistance(1.0).check(0.0, 2.0)
    with pytest.raises(NotNeighbouring, match="exactly one record"):
        AddRemove().check([1], [1, 2, 3])
    with pytest.raises(NotNeighbouring, match="exactly one record"):
        Replace().check([1, 2], [3, 4])
    with pytest.raises(NotNeighbouring, match="same input"):
        Local().check(1, 1)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: AddRemove().is_neighbouring("abc", "abcd"), InvalidDataset, "must be a sequence of records"),
        (lambda: AddRemove().is_neighbouring({"a": 1}, []), InvalidDataset, "not dict"),
        (lambda: Replace().is_neighbouring(3, [3]), InvalidDataset, "not int"),
        (lambda: QueryDistance(1).is_neighbouring([0, 1], [0, 1, 2]), InvalidDataset, "differ in shape"),
        (lambda: QueryDistance(1).is_neighbouring("x", 1), InvalidDataset, "must be a number"),
        (lambda: QueryDistance(1).is_neighbouring([np.nan], [0]), InvalidDataset, "finite"),
        (lambda: QueryDistance(-1), InvalidArgument, "sensitivity=-1 must be a positive finite number"),
        (lambda: QueryDistance(1, "l3"), InvalidArgument, "norm='l3' must be one of"),
        (lambda: AddRemove().candidate_pairs([]), InvalidDataset, "at least one record"),
    ],
)
def test_malformed_input_gets_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("relation", [AddRemove(), Replace(), Local()])
def test_dataset_candidate_pairs_are_neighbours(relation):
    pairs = relation.candidate_pairs((0, 1, 0.5))
    assert pairs
    for a, b in pairs:
        relation.check(a, b)


@given(
    base=st.lists(st.floats(-100, 100), min_size=1, max_size=9),
    sensitivity=st.floats(0.01, 10),
    norm=st.sampled_from(["l1", "l2", "linf"]),
)
def test_query_candidate_pairs_lie_on_the_boundary(base, sensitivity, norm):
    relation = QueryDistance(sensitivity, norm)
    pairs = relation.candidate_pairs(base)
    assert pairs
    for a, b in pairs:
        assert relation.is_neighbouring(a, b)
        assert relation.distance(a, b) == pytest.approx(sensitivity, rel=1e-9)


def test_ding_patterns_cover_the_eight_patterns():
    patterns = ding_patterns(5)
    assert tuple(patterns) == DING_PATTERNS
    u, v = patterns["one above rest below"]
    assert list(v - u) == [1, -1, -1, -1, -1]
    u, v = patterns["x-shape"]
    assert list(v - u) == [-1, -1, 1, 1, 1]


def test_the_patterns_around_a_base_of_ones_are_the_reference_generators_pairs():
    """StatDP's ``generate_database`` (reused by DP-Sniper) for 6 queries: the base 1^6 against seven
    moves of it, and the x-shape (1^3 0^3, 0^3 1^3) -- below the base, not above it."""
    ones = (1.0,) * 6
    expected = {
        (ones, (0.0,) + (1.0,) * 5), (ones, (2.0,) + (1.0,) * 5), (ones, (2.0,) + (0.0,) * 5),
        (ones, (0.0,) + (2.0,) * 5), (ones, (2.0,) * 3 + (0.0,) * 3), (ones, (2.0,) * 6), (ones, (0.0,) * 6),
        ((1.0,) * 3 + (0.0,) * 3, (0.0,) * 3 + (1.0,) * 3),
    }
    pairs = QueryDistance(1.0, "linf").candidate_pairs(ones)
    assert len(pairs) == 8
    assert {tuple(sorted(p, reverse=True)) if p[0] != ones else p for p in pairs} == expected


def test_scalar_query_pairs_move_both_ways():
    assert QueryDistance(2.0).candidate_pairs(1.0) == [(1.0, 3.0), (1.0, -1.0)]


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("add-remove", AddRemove()),
        ("replace", Replace()),
        ("local", Local()),
        ("query-distance", QueryDistance(1.0)),
        ("query-distance:2", QueryDistance(2.0)),
        ("query-distance:0.5:linf", QueryDistance(0.5, "linf")),
    ],
)
def test_relations_parse_from_their_command_line_spec(spec, expected):
    from dpaudit.neighbours import relation_from_spec

    assert relation_from_spec(spec) == expected


@pytest.mark.parametrize("spec", ["", "addremove", "replace:1", "query-distance:x", "query-distance:1:l7"])
def test_bad_relation_specs_are_refused(spec):
    from dpaudit.neighbours import relation_from_spec

    with pytest.raises(InvalidArgument):
        relation_from_spec(spec)


@pytest.mark.parametrize(
    "a, b, relation, why",
    [
        ([1, 0, 1], [1, 0, 1, 1], AddRemove(), "sizes 3 and 4, one record added"),
        ((1, 0, 1, 1), (1, 0, 1), AddRemove(), "sizes 4 and 3, one record removed"),
        ([1, 0, 1], [1, 1, 1], Replace(), "size 3 both, one record replaced"),
        (np.array([0.5, 2.0]), np.array([0.5, 3.0]), Replace(), "size 2 both, one record replaced"),
        (2, 5.5, QueryDistance(3.5), "two query values at distance 3.5"),
        (np.float64(1.0), 0, QueryDistance(1.0), "two query values at distance 1"),
        (1, 1, None, "two equal query values"),
        ([1, 0], [1, 1, 1], None, "sizes 2 and 3, 1 record(s) only in a and 2 only in b"),
        ((0.0, 0.0), (1.0, 1.0), None, "sizes 2 and 2, 2 record(s) only in a and 2 only in b"),
        ("yes", "no", None, "inputs that are neither two numbers nor two sequences of records"),
    ],
)
def test_infer_relation_reads_the_pair(a, b, relation, why):
    from dpaudit.neighbours import infer_relation

    assert infer_relation(a, b) == (relation, why)


@pytest.mark.parametrize("relation", [AddRemove(), Replace(), Local(), QueryDistance(2.5, "linf")])
def test_relation_names_and_dicts_round_trip(relation):
    from dpaudit.neighbours import relation_from_dict, relation_from_spec, relation_spec

    assert relation_from_spec(relation_spec(relation)) == relation == relation_from_dict(relation.as_dict())


def test_canary_relation_is_add_remove_of_the_canary_only():
    from dpaudit import AddRemove, Canary
    from dpaudit.neighbours import relation_from_dict, relation_from_spec, relation_spec

    canary = Canary([0.0, 0.0, 4.0, 1.0])
    base = [(1.0, 0.0, 0.0, 1.0)]
    assert isinstance(canary, AddRemove) and canary.record == (0.0, 0.0, 4.0, 1.0)
    assert canary.is_neighbouring(base, base + [(0, 0, 4, 1)])
    assert canary.is_neighbouring(base + [(0, 0, 4, 1)], base)
    assert not canary.is_neighbouring(base, base + [(0, 0, 5, 1)])  # add/remove, but not of the canary
    assert all(canary.is_neighbouring(a, b) for a, b in canary.candidate_pairs(base))
    assert relation_from_spec(relation_spec(canary)) == canary
    assert relation_from_dict(canary.as_dict()) == canary


def test_canary_relation_refuses_bad_input():
    from dpaudit import Canary
    from dpaudit.neighbours import relation_from_spec

    with pytest.raises(InvalidArgument, match="canary record"):
        Canary()
    with pytest.raises(InvalidDataset, match="canary must be one record in JSON"):
        relation_from_spec("canary:[0, 1")


def test_a_canary_shaped_unlike_the_datasets_records_is_refused_before_any_run():
    from dpaudit import Canary

    with pytest.raises(InvalidArgument, match=r"the canary \(1, 2\) has shape \(2,\) but the dataset's records have shape \(3,\)"):
        Canary([1, 2]).candidate_pairs([[0, 0, 1], [1, 0, 0]])
    assert Canary([1, 2, 3]).candidate_pairs([[0, 0, 1]])
