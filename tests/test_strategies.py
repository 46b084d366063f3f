"""Public hypothesis strategies: generated pairs really are neighbours; the helpers catch violations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from dpaudit import AddRemove, QueryDistance, Replace
from dpaudit.errors import InvalidArgument
from dpaudit.strategies import assert_within_sensitivity, datasets, exact_gap, neighbouring_pairs, sensitivity_falsifier

SMALL = dict(max_size=12, max_repeat=64)
quick = settings(max_examples=150, derandomize=True, database=None, deadline=None)


@quick
@given(neighbouring_pairs(AddRemove(), 0.0, 1.0, dtype="float32", **SMALL))
def test_add_remove_pairs_are_neighbours(pair):
    assert AddRemove().is_neighbouring(*pair)
    assert pair[0].dtype == np.float32 and all(((d >= 0) & (d <= 1)).all() for d in pair)


@quick
@given(neighbouring_pairs(Replace(), -5, 5, dtype="int32", **SMALL))
def test_replace_pairs_are_neighbours(pair):
    assert Replace().is_neighbouring(*pair)


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_query_distance_pairs_are_neighbours(norm):
    relation = QueryDistance(2.5, norm)

    @quick
    @given(neighbouring_pairs(relation, dimension=3))
    def check(pair):
        assert relation.is_neighbouring(*pair)

    check()


@quick
@given(datasets(0, 1000, dtype="int32", max_repeat=2**22))
def test_datasets_stay_in_bounds(data):
    assert data.dtype == np.int32 and data.ndim == 1
    assert data.size == 0 or (data.min() >= 0 and data.max() <= 1000)


def test_helpers_catch_and_pass():
    check = sensitivity_falsifier(lambda d: float(np.sum(d)), 1.0)
    check((np.array([0.5]), np.array([0.5, 1.0])))
    with pytest.raises(AssertionError, match="ratio 2"):
        assert_within_sensitivity(lambda d: 2.0 * len(d), 1.0, [1], [1, 1])
    assert exact_gap(np.int32(-2**31), np.int32(2**31 - 1)) == 2**32 - 1


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: datasets(1.0, 0.0), "lo=1.0, hi=0.0 must be finite with lo <= hi"),
        (lambda: datasets(0.5, 1, dtype="int32"), "must be integers within the range of int32"),
        (lambda: neighbouring_pairs("x"), "relation='x' must be AddRemove"),
        (lambda: datasets(0, 1, max_size=0), "max_size=0 must be a positive integer"),
    ],
)
def test_invalid_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()
