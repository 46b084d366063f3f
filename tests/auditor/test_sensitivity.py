"""Sensitivity falsification: leaky statistics flagged without sampling any noise, correct ones pass.

Deterministic (hypothesis derandomize=True, database=None, no deadline).  Expected shapes follow
Casacuberta et al. 2022 (CCS): a float32 running sum (ratio 2 at a binade edge) and an int32
accumulator that wraps.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpaudit import AddRemove, Mechanism, PureDP, Replace
from dpaudit.auditor.sensitivity import falsify_sensitivity, run_length
from dpaudit.errors import InvalidArgument


def float32_running_sum(data):
    x = np.asarray(data, dtype=np.float32)
    return np.cumsum(x, dtype=np.float32)[-1] if x.size else np.float32(0.0)


def sum_clamped_after(data):
    """Meant to clamp each record to [0, 1]; clamps the total to [0, 100] instead."""
    return float(np.clip(np.sum(np.asarray(data, dtype=float)), 0.0, 100.0))


def int32_sum(data):
    x = np.asarray(data, dtype=np.int32)
    return np.cumsum(x, dtype=np.int32)[-1] if x.size else np.int32(0)


def clamped_int_sum(data):
    return int(np.clip(np.asarray(data, dtype=np.int64), 0, 1000).sum())


def count_ones(data):
    return int(np.count_nonzero(np.asarray(data) == 1))


def _replays(result, query):
    a, b = result.datasets()
    if max(a.size, b.size) < 5_000:  # the relation's multiset check is a Python loop
        assert AddRemove().is_neighbouring(a, b) or Replace().is_neighbouring(a, b)
    gap = abs(float(np.float64(query(a))) - float(np.float64(query(b))))
    assert gap == pytest.approx(result.difference, rel=1e-12)
    assert gap > result.declared_sensitivity


def test_clamp_after_sum_is_flagged_with_a_minimal_pair():
    result = falsify_sensitivity(sum_clamped_after, 1.0, AddRemove(), lo=-1000.0, hi=1000.0, max_examples=100, max_repeat=2**16)
    assert result.flagged and result.ratio > 1
    assert sorted(map(len, (result.datasets()))) == [0, 1]  # one record against the empty dataset
    _replays(result, sum_clamped_after)
    json.dumps(result.as_dict())


def test_float32_running_sum_is_flagged():
    result = falsify_sensitivity(float32_running_sum, 1.0, AddRemove(), lo=0.0, hi=1.0, dtype="float32", max_examples=100, max_repeat=2**16)
    assert result.flagged and result.ratio > 1.0
    _replays(result, float32_running_sum)


def test_float32_running_sum_doubles_at_a_binade_edge():
    # rtol = 0.5 asks for more than rounding noise: a prefix of 2047 ones, then 8192 <= 2^16 records of
    # 1.25 * 2^-13, gives ratio 2.0 (each tail record adds 2^-13 below the binade edge 2^11, 2^-12 above)
    result = falsify_sensitivity(
        float32_running_sum, 1.0, AddRemove(), lo=0.0, hi=1.0, dtype="float32", max_examples=100, rtol=0.5, max_repeat=2**16
    )
    assert result.flagged and result.ratio >= 1.5
    _replays(result, float32_running_sum)


def test_int32_accumulator_overflow_is_flagged():
    result = falsify_sensitivity(int32_sum, 1000.0, AddRemove(), lo=0, hi=1000, dtype="int32", max_examples=100)
    assert result.flagged and result.ratio > 10**6  # a wrap-around moves the sum by about 2^32
    assert result.f_a * result.f_b < 0


@pytest.mark.parametrize(
    "query, delta, relation, bounds",
    [(clamped_int_sum, 1000.0, AddRemove(), (0, 1000)), (count_ones, 1.0, Replace(), (0, 1))],
)
def test_correct_statistics_pass(query, delta, relation, bounds):
    result = falsify_sensitivity(query, delta, relation, lo=bounds[0], hi=bounds[1], dtype="int64", max_examples=60)
    assert result.verdict == "pass" and not result.flagged
    assert result.examples_tried >= 60 and result.largest_ratio <= 1.0


def test_mechanism_declarations_are_used():
    mech = Mechanism.from_callable(
        lambda d, n, rng: np.zeros(n), claim=PureDP(1.0), neighbours=AddRemove(), query=sum_clamped_after,
        sensitivity=1.0, domain=(-5.0, 5.0),
    )
    assert falsify_sensitivity(mech, max_examples=50).flagged


def test_deterministic():
    first = falsify_sensitivity(sum_clamped_after, 1.0, lo=-10.0, hi=10.0, max_examples=50)
    second = falsify_sensitivity(sum_clamped_after, 1.0, lo=-10.0, hi=10.0, max_examples=50)
    assert first.pair == second.pair and first.examples_tried == second.examples_tried


def test_run_length():
    assert run_length([1.0, 1.0, 2.0]) == [[1.0, 2], [2.0, 1]]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"target": 3, "sensitivity": 1.0}, "must be a Mechanism declaring query"),
        ({"target": sum, "sensitivity": None}, "sensitivity=None must be given"),
        ({"target": sum, "sensitivity": -1.0}, "sensitivity=-1.0 must be a positive finite number"),
        ({"target": sum, "sensitivity": 1.0, "dtype": "float16"}, "dtype='float16' must be one of"),
    ],
)
def test_invalid_arguments(kwargs, message):
    with pytest.raises(InvalidArgument, match=message):
        falsify_sensitivity(**kwargs)
