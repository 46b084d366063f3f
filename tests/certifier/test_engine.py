"""Unit tests of the certifier's pieces, on closed-form cases.

* :func:`dpaudit.certifier.frames.state_key`: a call inside a ``for`` loop is no merge point (its
  iterator is state the frame does not show), a dead variable does not distinguish states, a live one
  does, a function with a ``try`` block gives no key;
* symbolic comparisons split a draw's interval exactly: ``random() < p`` keeps ceil(p 2^53) of the 2^53
  grid points, ``<=`` keeps floor(p 2^53) + 1, a monotone chain (``1 - u``, ``log``, ``* c``) keeps the count
  found by bisection with the float operations themselves (:func:`oracle.grid_count_below`);
* what cannot be followed is "unknown" with a one-line reason, never a wrong answer: one value from two
  uniforms (the reason names both draws), a continuous output, mass on which the sampler raises (kept
  unexplored), a sampler that is not deterministic given its draws, a vectorised ``size=`` draw;
* bad arguments raise :class:`~dpaudit.errors.InvalidArgument` naming the argument and its value.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import pytest

import dpaudit
from dpaudit.certifier.frames import state_key
from dpaudit.certifier.law import Budget, Summaries, enumerate_law
from dpaudit.certifier.source import InstrumentedSource
from dpaudit.errors import InvalidArgument

from . import oracle
from .oracle import GRID

# ---- frames.state_key ------------------------------------------------------------------------------------


class Probe:
    """Stands for a random source (keyed as one, like the instrumented source): records the state key of
    its caller's frame at each call."""

    _dpaudit_source = True

    def __init__(self, answers: list[int]) -> None:
        self.answers = list(answers)
        self.keys: list[object] = []

    def draw(self) -> int:
        self.keys.append(state_key(sys._getframe(1)))
        return self.answers.pop(0)


def in_for_loop(probe: Probe) -> int:
    total = 0
    for _ in range(3):
        total += probe.draw()
    return total


def dead_variable(probe: Probe) -> int:
    y = 7  # overwritten by the call's result before any read: dead at the call
    while True:
        y = probe.draw()
        if y == 0:
            return 1


def live_variable(probe: Probe) -> int:
    count = 0
    while True:
        y = probe.draw()
        if y == 0:
            return count
        count += 1


def in_try_block(probe: Probe) -> int:
    while True:
        try:
            y = probe.draw()
        except ValueError:
            continue
        if y == 0:
            return y


def test_a_call_in_a_for_loop_is_no_merge_point():
    probe = Probe([1, 1, 1])
    in_for_loop(probe)
    assert probe.keys == [None, None, None]


def test_a_dead_variable_does_not_distinguish_states():
    probe = Probe([5, 3, 0])  # y is 7, then 5, then 3 before the three calls
    dead_variable(probe)
    assert None not in probe.keys and len(set(probe.keys)) == 1


def test_a_live_variable_distinguishes_states():
    probe = Probe([1, 1, 0])  # count is 0, 1, 2 at the three calls
    live_variable(probe)
    assert None not in probe.keys and len(set(probe.keys)) == 3


def test_a_try_block_gives_no_key():
    probe = Probe([1, 0])
    in_try_block(probe)
    assert probe.keys == [None, None]


# ---- symbolic comparisons split the grid exactly ----------------------------------------------------------


def _law(function, data=None):
    """The exact law of ``function(data, rng)`` on an instrumented source (no summaries, tight budget)."""
    summaries = Summaries(observe_draws=False, budget=Budget())
    return enumerate_law(function, (data, InstrumentedSource()), summaries=summaries, observe_draws=False,
                         budget=Budget(tolerance=Fraction(0)))


@pytest.mark.parametrize("p", [0.5, 1 / 3, 0.1, math.e / (1 + math.e), 2.0**-60, 1 - 2.0**-53, 0.0, 1.0])
def test_random_below_p_keeps_ceil_p_2_53_grid_points(p):
    law = _law(lambda _, rng: rng.random() < p)
    assert law.complete
    assert law.outcomes.get(True, 0) == Fraction(math.ceil(Fraction(p) * GRID), GRID) == oracle.grid_bernoulli(p)


@pytest.mark.parametrize("p", [0.5, 1 / 3, 0.1])
def test_random_at_most_p_keeps_floor_p_2_53_plus_one_grid_points(p):
    law = _law(lambda _, rng: rng.random() <= p)
    assert law.outcomes[True] == Fraction(math.floor(Fraction(p) * GRID) + 1, GRID)


def test_a_monotone_chain_of_one_uniform_keeps_the_grid_points_of_its_float_code():
    # -log(1 - u) * 3 < 2: decreasing then increasing steps, evaluated with the code's own rounding
    def sampler(_, rng):
        return -math.log(1 - rng.random()) * 3 < 2

    count = oracle.grid_count_below(lambda u: -math.log(1 - u) * 3, 2)
    result = dpaudit.certify(sampler, pair=(0, 1))
    low, high = result.laws[0].probability(True)
    assert result.laws[0].complete
    assert low <= Fraction(count, GRID) <= high and high - low < 1e-15
    assert abs(count / GRID - (1 - math.exp(-2 / 3))) < 1e-15


def test_an_integer_draw_branches_over_its_values_exactly():
    law = _law(lambda _, rng: rng.randrange(7) // 3)
    assert law.outcomes == {0: Fraction(3, 7), 1: Fraction(3, 7), 2: Fraction(1, 7)} and law.complete


# ---- what cannot be followed: unknown, with its reason -------------------------------------------------------


def _one_line(reason: str) -> bool:
    return "\n" not in reason


def two_uniforms(x, rng):
    return rng.random() + rng.random() < 1


def continuous(x, rng):
    return rng.random() + x


def raises_sometimes(x, rng):
    if rng.randrange(4) == 0 and x == 1:
        raise RuntimeError("boom")
    return 0


_CALLS = [0]


def global_counter(x, rng):
    _CALLS[0] += 1
    if _CALLS[0] % 2:
        return rng.randrange(2)
    return rng.randrange(3)


def vectorised(x, rng):
    return rng.integers(0, 2, size=3)


def test_one_value_from_two_uniforms_is_unknown_naming_both_draws():
    result = dpaudit.certify(two_uniforms, pair=(0, 1), epsilon=1.0)
    assert result.verdict.value == "unknown" and _one_line(result.reason)
    assert "random() #1" in result.reason and "random() #2" in result.reason
    assert all(law.residual == 1.0 for law in result.laws)


def test_a_continuous_output_is_unknown_with_its_reason():
    result = dpaudit.certify(continuous, pair=(0, 1), epsilon=1.0)
    assert result.verdict.value == "unknown" and _one_line(result.reason)
    assert "continuous" in result.reason and "random() #1" in result.reason


def test_mass_on_which_the_sampler_raises_stays_unexplored_never_certified():
    result = dpaudit.certify(raises_sometimes, pair=(0, 1), epsilon=5.0)
    assert result.verdict.value == "unknown"
    law_0, law_1 = result.laws
    assert law_0.complete and law_0.probability(0)[0] >= 1 - 1e-15
    assert law_1.residual >= 0.25 and law_1.probability(0)[0] <= 0.75 <= law_1.probability(0)[1]
    assert "RuntimeError: boom" in law_1.set_aside[0][1] and law_1.set_aside[0][0] >= 0.25


def loops_without_drawing(x, rng):
    if rng.randrange(2) == 0:
        return x
    while True:  # this path never draws again: no check between draws could stop it
        try:
            pass
        except Exception:  # noqa: BLE001 - a sampler's own broad except must not swallow the time limit
            pass


def test_a_path_that_loops_without_drawing_is_stopped_at_the_time_limit():
    import time

    started = time.monotonic()
    result = dpaudit.certify(loops_without_drawing, pair=(0, 1), epsilon=1.0, time_limit=0.5)
    assert time.monotonic() - started < 5  # 0.5 s per input, and the rest of the work
    assert result.verdict.value == "unknown"
    for x, law in zip((0, 1), result.laws):  # the half that returned is exact; the looping half stays unexplored
        assert law.stopped_by == "time limit" and law.residual == 0.5 and law.probability(x) == (0.5, 1.0)


def returns_half_the_time(x, rng):
    if rng.random() < 0.5:
        return x
    while True:  # draws forever, never leaves: a loop of the merged chain with no exit
        if rng.random() < 0.0:
            return x


def test_a_sampler_that_never_returns_is_told_so_with_the_probability():
    result = dpaudit.certify(returns_half_the_time, pair=(0, 1), epsilon=1.0)
    assert result.verdict.value == "unknown" and _one_line(result.reason)
    assert "on input 0 the sampler never returns with probability 0.5" in result.reason
    assert all(law.residual == 0.5 and law.stopped_by == "complete" for law in result.laws)
    cut = dpaudit.certify("geometric", pair=((1, 0), (1, 0, 1)), epsilon=1.0)  # a helper's cut tail is not a loop
    assert cut.verdict.value == "unknown" and "never returns" not in cut.reason


def test_the_time_limit_is_not_raised_inside_a_garbage_collector_callback():
    """An exception raised in a gc callback (hypothesis installs one) is printed as unraisable and lost: the alarm
    stays quiet there and rings again 50 ms later."""
    import gc

    from dpaudit.certifier.law import _Alarm, _OutOfTime

    seen = []

    def callback(phase, info):
        if not seen:
            seen.append(sys._getframe())

    gc.callbacks.append(callback)
    try:
        gc.collect()
        alarm = _Alarm(float("inf"))
        alarm.inside = True
        alarm._ring(0, seen[0])  # inside the callback: quiet
        with pytest.raises(_OutOfTime):
            alarm._ring(0, sys._getframe())  # in the sampler's own code: raised
    finally:
        gc.callbacks.remove(callback)


def test_a_sampler_that_is_not_deterministic_given_its_draws_is_detected():
    result = dpaudit.certify(global_counter, pair=(0, 1), epsilon=1.0, summarise=False)
    assert result.verdict.value == "unknown" and _one_line(result.reason)
    assert "not deterministic" in result.reason


def test_a_vectorised_draw_is_refused_with_its_reason():
    result = dpaudit.certify(vectorised, pair=(0, 1), epsilon=1.0)
    assert result.verdict.value == "unknown" and _one_line(result.reason)
    assert "size=3" in result.reason and "vectorised" in result.reason


# ---- bad arguments ---------------------------------------------------------------------------------------------


def plain(x, rng):
    return x


class SamplerClass:
    def __init__(self, data, rng):
        self.data = data


@pytest.mark.parametrize("target, options, named", [
    (plain, {}, "pair="),
    (plain, {"pair": (0, 1), "observe": "x"}, "observe='x'"),
    (plain, {"pair": (0, 1), "tolerance": -1e-3}, "tolerance=-0.001"),
    (plain, {"pair": (0, 1), "time_limit": 0}, "time_limit=0"),
    (plain, {"pair": (0, 1), "max_paths": 0}, "max_paths=0"),
    (plain, {"pair": (0, 1, 2)}, "pair=(0, 1, 2)"),
    (plain, {"pair": (0, 1), "summarise": "yes"}, "summarise='yes'"),
    (plain, {"pair": (0, 1), "delta": 0.1}, "delta="),
    (SamplerClass, {"pair": (0, 1)}, "target='SamplerClass'"),
    (int, {"pair": (0, 1)}, "target='int'"),
])
def test_bad_arguments_raise_invalid_argument_naming_the_argument(target, options, named):
    with pytest.raises(InvalidArgument) as error:
        dpaudit.certify(target, **options)
    assert named in str(error.value)
    assert isinstance(error.value, ValueError)


# ---- domains, near-singular values, module state -------------------------------------------------------


def log_of_shifted_uniform(x, rng):
    """log(u - 1/4) raises for u <= 1/4: on that branch a prefix of the grid (u in (0.1, 0.25]) raises."""
    u = rng.random()
    if u > 0.1:
        return x + math.floor(math.log(u - 0.25) * 2)
    return x


def test_the_points_where_the_code_raises_are_set_aside_whole_by_bisection():
    result = dpaudit.certify(log_of_shifted_uniform, pair=(0, 1))
    at_most = [oracle.grid_count_below(lambda u: u, math.nextafter(c, 1.0)) for c in (0.25, 0.1)]
    exact_raising = Fraction(at_most[0] - at_most[1], GRID)  # u in (0.1, 0.25]: u - 0.25 <= 0 exactly
    for law in result.laws:
        mass, reason = law.set_aside[0]
        assert "ValueError" in reason and mass >= float(exact_raising) > 0.149
        assert law.residual == pytest.approx(float(exact_raising), rel=1e-12)
        # every other value is enumerated: floor(2 log(u - 1/4)) takes about 75 values near u = 1/4
        assert len(law.outcomes) > 50


def test_a_value_with_many_values_near_one_end_is_not_mistaken_for_a_continuous_one():
    result = dpaudit.certify(log_of_shifted_uniform, pair=(0, 1))
    assert "continuous" not in result.reason


def nan_comparison(x, rng):
    return 1 if rng.random() == float("nan") else 0


def test_a_comparison_with_nan_is_false_on_every_point():
    result = dpaudit.certify(nan_comparison, pair=(0, 1), epsilon=0.0)
    assert result.certified and result.laws[0].probability(0) == (1.0, 1.0)


COUNTER = 0


def assigns_a_global(probe: Probe) -> int:
    global COUNTER
    while True:
        COUNTER += 1
        y = probe.draw()
        if y == 0:
            return COUNTER


def test_a_function_assigning_a_global_gives_no_key():
    probe = Probe([1, 0])
    assigns_a_global(probe)
    assert probe.keys == [None, None]
