"""The JSON codec every result, report and ``--json`` is written with (:mod:`dpaudit._codec`)."""

from __future__ import annotations

import enum
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit._codec import from_json, to_json


class Colour(str, enum.Enum):
    RED = "red"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ((1, (2.5, "a")), [1, [2.5, "a"]]),
        ({1: (True, None)}, {"1": [True, None]}),
        (np.array([[1.0, 2.0]]), [[1.0, 2.0]]),
        (np.float64(0.5), 0.5),
        (np.int64(3), 3),
        (np.bool_(True), True),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (math.nan, "nan"),
        (np.float64(-np.inf), "-inf"),
        (Colour.RED, "red"),
        (Fraction(1, 4), 0.25),
    ],
)
def test_values_become_strict_json(value: object, expected: object) -> None:
    encoded = to_json(value)
    assert encoded == expected and type(encoded) is type(expected)
    json.dumps(encoded, allow_nan=False)


def test_sympy_numbers_become_floats_and_expressions_text() -> None:
    sympy = pytest.importorskip("sympy")
    x = sympy.Symbol("x")
    assert to_json([sympy.Rational(1, 2), sympy.Integer(2), sympy.oo, x + 1, sympy.Le(x, 1), sympy.true]) == [
        0.5, 2.0, "inf", "x + 1", "x <= 1", "True"]


def test_whole_numbers_as_int_on_request() -> None:
    assert to_json([1.0, 2.5, np.float64(-3.0), 2.0**60], whole_as_int=True) == [1, 2.5, -3, 2.0**60]
    assert to_json([1.0]) == [1.0]


def test_other_objects_are_left_for_the_caller_to_refuse() -> None:
    thing = object()
    assert to_json({"x": thing})["x"] is thing
    with pytest.raises(TypeError):
        json.dumps(to_json(thing))


def test_from_json_undoes_lists_and_non_finite_strings_only() -> None:
    assert from_json([1, ["inf", "-inf"], "x"]) == (1, (math.inf, -math.inf), "x")
    assert math.isnan(from_json("nan"))
    assert from_json({"a": [1]}) == {"a": [1]}  # a record's reader converts its own fields


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5).filter(
    lambda s: s not in ("inf", "-inf", "nan"))
nested = st.recursive(scalars, lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=3).map(tuple),
                      max_leaves=8)


@given(nested)
def test_round_trip_through_json_text(value: object) -> None:
    text = json.dumps(to_json(value), allow_nan=False)
    assert from_json(json.loads(text)) == value
