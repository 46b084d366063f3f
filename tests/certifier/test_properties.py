"""Property tests: on small samplers built from random parameters, every enumerated interval contains the
exact probability, computed independently (Fractions for integer draws, grid counting for float ones).

Hypothesis runs derandomized with no database (``tests/conftest.py``), so each test is a fixed list of
examples; exact, nothing statistical.  For every example: each interval ``[low, high]`` contains the
exact probability, an unlisted output has at most the residual, the residual is >= 0 and the lower
bounds sum to at most 1 (:func:`checks.assert_intervals_contain`), and ``epsilon_up`` >= the exact
epsilon of the pair with the certificate valid (:func:`checks.assert_epsilon_sound`).
"""

from __future__ import annotations

import functools
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

import dpaudit

from . import oracle, samplers
from .checks import assert_epsilon_sound, assert_intervals_contain

EXAMPLES = 150
BOUNDS = {"tolerance": 1e-12, "time_limit": 5.0}


def _check(sampler, pair, law_of) -> dpaudit.CertifyResult:
    result = dpaudit.certify(sampler, pair=pair, **BOUNDS)
    assert_intervals_contain(result, law_of)
    assert_epsilon_sound(result, law_of, finite_epsilon=True)
    assert result.epsilon_low <= result.epsilon_up
    return result


@settings(max_examples=EXAMPLES)
@given(k=st.integers(2, 6), den=st.integers(1, 40), data=st.data())
def test_k_rr_with_a_rational_coin(k, den, data):
    num = data.draw(st.integers(0, den), label="num")
    x, y = data.draw(st.lists(st.integers(0, k - 1), min_size=2, max_size=2, unique=True), label="pair")
    keep = Fraction(num, den)

    def law(v: int) -> dict[int, Fraction]:
        return {j: keep if j == v else (1 - keep) / (k - 1) for j in range(k)}

    result = _check(functools.partial(samplers.k_rr_rational, k=k, num=num, den=den), (x, y), law)
    assert all(law_.complete for law_ in result.laws)


@settings(max_examples=EXAMPLES)
@given(p=st.floats(0.0, 1.0) | st.sampled_from([2.0**-60, 1 - 2.0**-53, 0.5 + 2.0**-54, 1e-300]))
def test_float_threshold(p):
    keep = oracle.grid_bernoulli(p)

    def law(v: int) -> dict[int, Fraction]:
        return {v: keep, 1 - v: 1 - keep}

    _check(functools.partial(samplers.float_threshold, p=p), (0, 1), law)


@settings(max_examples=EXAMPLES)
@given(m=st.integers(1, 12), data=st.data())
def test_rejection_loop(m, data):
    c = data.draw(st.integers(1, m), label="c")

    def law(v: int) -> dict[int, Fraction]:
        return {u + v: Fraction(1, c) for u in range(c)}

    result = _check(functools.partial(samplers.rejection, m=m, c=c), (0, 1), law)
    assert result.unexplored <= 1e-12


@settings(max_examples=EXAMPLES)
@given(weights=st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=5), data=st.data())
def test_random_choices_with_random_weights(weights, data):
    other = data.draw(st.lists(st.floats(1e-3, 1e3), min_size=len(weights), max_size=len(weights)), label="other")
    a, b = tuple(weights), tuple(other)
    _check(samplers.weighted_choice, (a, b), lambda w: oracle.choices_pmf(w))
