"""Hypothesis strategies for differential-privacy code: datasets, neighbouring pairs, sensitivity checks.

Use them in your own tests::

    from hypothesis import given
    from dpaudit import AddRemove
    from dpaudit.strategies import assert_within_sensitivity, neighbouring_pairs

    @given(neighbouring_pairs(AddRemove(), lo=0.0, hi=1.0))
    def test_my_sum_has_sensitivity_one(pair):
        assert_within_sensitivity(my_clamped_sum, 1.0, *pair)

Datasets are numpy arrays of one dtype (``float64``, ``float32``, ``int32``, ``int64``) so that the
statistic sees the arithmetic it will meet in production.  They mix three shapes, because
floating-point and integer sensitivity bugs hide in structure, not in random noise (Casacuberta,
Shoemate, Vadhan & Wagaman 2022, "Widespread underestimation of sensitivity in differentially
private libraries", CCS: float32 running sums at a binade edge, int32 accumulators that wrap):

* short lists of records biased to the bounds, zero, the midpoint and their float neighbours;
* a few blocks of repeated values with counts near powers of two (huge n without huge search cost);
* accumulator edges derived from the domain: for integer dtypes ``floor(max / hi)`` copies of ``hi``
  (one more record overflows); for float dtypes a prefix of ``hi`` summing just below a binade
  boundary 2^m followed by a tail of values 1.25 ulp wide, each of which rounds to one ulp below
  the boundary and to one doubled ulp above it.

Neighbouring pairs are built to satisfy the relation (add/remove inserts one record at a drawn
position, replace swaps one record for a different one, query-distance moves a query value by at
most Delta in the relation's norm).  This module imports hypothesis; ``import dpaudit`` never does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

from ._validation import check_nonnegative_finite, check_one_of, check_positive_int, check_real
from .errors import InvalidArgument
from .neighbours import AddRemove, QueryDistance, Replace

__all__ = [
    "DTYPES",
    "assert_within_sensitivity",
    "datasets",
    "exact_gap",
    "neighbouring_pairs",
    "query_values",
    "records",
    "sensitivity_falsifier",
]

DTYPES = ("float64", "float32", "int32", "int64")


def _bounds(lo: Any, hi: Any, dtype: str) -> tuple[float, float]:
    check_one_of("dtype", dtype, DTYPES)
    low, high = check_real("lo", lo), check_real("hi", hi)
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise InvalidArgument(f"lo={lo!r}, hi={hi!r} must be finite with lo <= hi")
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        if low != int(low) or high != int(high) or low < info.min or high > info.max:
            raise InvalidArgument(f"lo={lo!r}, hi={hi!r} must be integers within the range of {dtype}")
    return low, high


def _special_values(low: float, high: float, dtype: str) -> list[Any]:
    """hi first (the simplest example adds the largest record), lo, zero, the midpoint, float neighbours of the bounds."""
    cast = np.dtype(dtype).type
    values = [high, low, 0.0, (low + high) / 2]
    if dtype.startswith("float"):
        values += [float(np.nextafter(cast(high), cast(low))), float(np.nextafter(cast(low), cast(high)))]
    out = []
    for v in values:
        v = int(v) if dtype.startswith("int") else float(cast(v))
        if low <= v <= high and v not in out:
            out.append(v)
    return out


def records(lo: float = 0.0, hi: float = 1.0, dtype: str = "float64") -> st.SearchStrategy[Any]:
    """Single records in [lo, hi] representable in ``dtype``, biased to the bounds and zero."""
    low, high = _bounds(lo, hi, dtype)
    if dtype.startswith("int"):
        general: st.SearchStrategy[Any] = st.integers(int(low), int(high))
    else:
        width = 32 if dtype == "float32" else 64
        general = st.floats(low, high, width=width, allow_nan=False, allow_infinity=False)
    return st.one_of(st.sampled_from(_special_values(low, high, dtype)), general)


def _counts(max_repeat: int) -> st.SearchStrategy[int]:
    near_powers = sorted({c for k in range(1, max_repeat.bit_length()) for c in (2**k - 1, 2**k, 2**k + 1)})
    return st.one_of(st.integers(1, 16), st.sampled_from([c for c in near_powers if c <= max_repeat]))


def _accumulator_edges(low: float, high: float, dtype: str, max_repeat: int) -> list[list[tuple[Any, int]]]:
    """Block lists that put a running sum right at an overflow or binade edge (module docstring)."""
    edges: list[list[tuple[Any, int]]] = []
    if dtype.startswith("int"):
        top = np.iinfo(dtype).max
        for value in {int(high), int(-low)} if low < 0 else {int(high)}:
            if value > 0 and top // value <= max_repeat:
                sign = 1 if value == int(high) else -1
                edges.append([(sign * value, top // value)])
        return edges
    if high <= 0:
        return edges
    mantissa = 24 if dtype == "float32" else 53
    cast = np.dtype(dtype).type
    for m in range(1, 64):
        prefix = math.ceil(2.0**m / high) - 1
        if prefix < 1:
            continue
        if prefix > max_repeat:
            break
        partial = prefix * high
        ulp_below = 2.0 ** (math.frexp(partial)[1] - mantissa)
        tail = float(cast(1.25 * ulp_below))
        if not low <= tail <= high:
            continue
        count = min(max_repeat, max(1, math.ceil(high / ulp_below)))
        edges.append([(float(cast(high)), prefix), (tail, count)])
    return edges


def _expand(blocks: list[tuple[Any, int]], dtype: str) -> np.ndarray:
    if not blocks:
        return np.empty(0, dtype=dtype)
    return np.concatenate([np.full(count, value, dtype=dtype) for value, count in blocks])


def datasets(
    lo: float = 0.0,
    hi: float = 1.0,
    *,
    dtype: str = "float64",
    max_size: int = 32,
    max_repeat: int = 2**22,
) -> st.SearchStrategy[np.ndarray]:
    """Datasets (1-D arrays of ``dtype``) with records in [lo, hi], possibly empty.

    Short lists of up to ``max_size`` records, block datasets of up to three repeated values with up
    to ``max_repeat`` copies each, and the accumulator edges of the module docstring.
    """
    check_positive_int("max_size", max_size)
    check_positive_int("max_repeat", max_repeat)
    low, high = _bounds(lo, hi, dtype)
    values = records(low, high, dtype)
    plain = st.lists(values, max_size=max_size).map(lambda rs: np.asarray(rs, dtype=dtype).reshape(-1))
    blocks = st.lists(st.tuples(values, _counts(max_repeat)), min_size=1, max_size=3).map(lambda b: _expand(b, dtype))
    options = [plain, blocks]
    edges = _accumulator_edges(low, high, dtype, max_repeat)
    if edges:
        options.append(st.sampled_from(edges).map(lambda b: _expand(b, dtype)))
    return st.one_of(*options)


def query_values(relation: QueryDistance, dimension: int | None = None, bound: float = 1e6) -> st.SearchStrategy[Any]:
    """Query values for a :class:`QueryDistance` relation: floats (``dimension=None``) or tuples."""
    check_nonnegative_finite("bound", bound)
    value = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    if dimension is None:
        return value
    return st.tuples(*[value] * check_positive_int("dimension", dimension))


@st.composite
def _add_remove_pair(draw: Any, data: st.SearchStrategy[np.ndarray], values: st.SearchStrategy[Any]) -> tuple:
    base = draw(data)
    record = draw(values)
    position = draw(st.one_of(st.sampled_from([0, base.size]), st.integers(0, base.size)))
    grown = np.insert(base, position, np.asarray(record, dtype=base.dtype))
    return (base, grown) if draw(st.booleans()) else (grown, base)


@st.composite
def _replace_pair(draw: Any, data: st.SearchStrategy[np.ndarray], values: st.SearchStrategy[Any]) -> tuple:
    base = draw(data.filter(lambda d: d.size > 0))
    position = draw(st.one_of(st.sampled_from([0, base.size - 1]), st.integers(0, base.size - 1)))
    old = base[position]
    record = draw(values.filter(lambda r: np.asarray(r, dtype=base.dtype) != old))
    changed = base.copy()
    changed[position] = record
    return base, changed


@st.composite
def _query_pair(draw: Any, relation: QueryDistance, dimension: int | None, bound: float) -> tuple:
    first = np.atleast_1d(np.asarray(draw(query_values(relation, dimension, bound)), dtype=float))
    direction = np.asarray(draw(st.tuples(*[st.floats(-1, 1, allow_nan=False)] * first.size)), dtype=float)
    norm = {"l1": 1, "l2": 2, "linf": np.inf}[relation.norm]
    length = float(np.linalg.norm(direction, norm))
    if not (length > 0 and math.isfinite(length)):  # all zero, or so small its norm underflows
        direction, length = np.eye(1, first.size).reshape(-1), 1.0
    scale = draw(st.one_of(st.just(1.0), st.floats(0.0, 1.0)))
    step = direction / length * relation.sensitivity * scale
    second = first + step
    while not relation.is_neighbouring(first, second):  # rounding of the addition: pull back inside
        step = step * (1 - 2**-40)
        second = first + step
    if dimension is None:
        return float(first[0]), float(second[0])
    return tuple(first.tolist()), tuple(second.tolist())


def neighbouring_pairs(
    relation: Any,
    lo: float = 0.0,
    hi: float = 1.0,
    *,
    dtype: str = "float64",
    max_size: int = 32,
    max_repeat: int = 2**22,
    dimension: int | None = None,
    bound: float = 1e6,
) -> st.SearchStrategy[tuple[Any, Any]]:
    """Pairs (D, D') that are neighbours under ``relation``.

    ``AddRemove()``: D' is D with one record of [lo, hi] inserted at a drawn position (or the
    reverse).  ``Replace()``: one record of a non-empty D replaced by a different one.
    ``QueryDistance(Delta, norm)``: query values (floats, or tuples of ``dimension`` floats within
    +-``bound``) at distance at most Delta, often exactly Delta.
    """
    if isinstance(relation, QueryDistance):
        return _query_pair(relation, dimension, bound)
    data = datasets(lo, hi, dtype=dtype, max_size=max_size, max_repeat=max_repeat)
    values = records(lo, hi, dtype)
    if isinstance(relation, AddRemove):
        return _add_remove_pair(data, values)
    if isinstance(relation, Replace):
        if _bounds(lo, hi, dtype)[0] == _bounds(lo, hi, dtype)[1]:
            raise InvalidArgument(f"lo={lo!r} and hi={hi!r} must differ for Replace neighbours")
        return _replace_pair(data, values)
    raise InvalidArgument(f"relation={relation!r} must be AddRemove(), Replace() or QueryDistance(...)")


def exact_gap(fa: Any, fb: Any) -> Fraction:
    """||f(a) - f(b)||_1 computed exactly (rationals), whatever the result dtypes."""
    ra, rb = np.asarray(fa), np.asarray(fb)
    if ra.shape != rb.shape:
        raise InvalidArgument(f"query results of shapes {ra.shape} and {rb.shape} cannot be compared")
    for r in (ra, rb):
        exact = r.dtype == object and all(isinstance(x, (Fraction, int)) for x in r.ravel().tolist())
        if r.dtype.kind not in "biuf" and not exact:
            raise InvalidArgument(f"query results of dtype {r.dtype} must be numeric (or exact Fractions)")
    items = zip(ra.ravel().tolist(), rb.ravel().tolist())
    return sum((abs(Fraction(x) - Fraction(y)) for x, y in items), Fraction(0))


def assert_within_sensitivity(
    query: Callable[[Any], Any], sensitivity: float, a: Any, b: Any, *, rtol: float = 0.0
) -> None:
    """Raise ``AssertionError`` if ||f(a) - f(b)||_1 > sensitivity * (1 + rtol).

    Vector results are compared in the l1 norm.  ``rtol = 0`` holds the code to its declared Delta
    exactly (floating-point sums do exceed it, see the module docstring).
    """
    check_nonnegative_finite("rtol", rtol)
    fa, fb = query(a), query(b)
    gap = exact_gap(fa, fb)
    if gap > Fraction(sensitivity) * (1 + Fraction(rtol)):
        raise AssertionError(
            f"|f(D) - f(D')| = {float(gap)!r} > declared sensitivity {sensitivity!r} "
            f"(ratio {float(gap / Fraction(sensitivity)):.9g}); f(D) = {fa!r}, f(D') = {fb!r}, "
            f"|D| = {np.size(a)}, |D'| = {np.size(b)}"
        )


def sensitivity_falsifier(
    query: Callable[[Any], Any], sensitivity: float, *, rtol: float = 0.0
) -> Callable[[tuple[Any, Any]], None]:
    """``check(pair)`` raising ``AssertionError`` on a pair that breaks the declared sensitivity.

    For use inside a user's own ``@given(neighbouring_pairs(...))`` test.
    """

    def check(pair: tuple[Any, Any]) -> None:
        assert_within_sensitivity(query, sensitivity, pair[0], pair[1], rtol=rtol)

    return check
