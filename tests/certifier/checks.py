"""Checks of a :class:`~dpaudit.certifier.CertifyResult` against exact laws computed without the certifier.

Every check is a *necessary* condition of a correct certificate, with the oracle's own uncertainty (the
mass outside a truncated window, the normalisation of a discrete Gaussian over its window) counted in
the certifier's favour: a failure is a proof that the certifier is wrong, never a rounding accident.

* :func:`assert_intervals_contain` -- for every input, each enumerated ``[low, high]`` meets the oracle's
  bracket of the exact probability; an output the oracle gives mass to but the certifier did not list has
  at most the unexplored mass; the lower bounds sum to at most 1 and the residual is >= 0.
* :func:`assert_epsilon_sound` -- ``epsilon_up`` >= the exact epsilon of each pair when that is finite;
  in every case the (``epsilon_up``, ``delta_up``) certificate holds: the exact hockey-stick delta at
  ``epsilon_up`` is at most ``delta_up`` (both directions).
* :func:`assert_claim_bracket_sound` -- ``delta_at_claim`` brackets the exact delta at the claimed epsilon
  (hockey-stick, or for a probabilistic claim the mass of the outputs whose loss exceeds epsilon).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from typing import Any

from dpaudit.certifier import CertifyResult

from . import oracle
from .oracle import MP, Truncated

Law = Truncated
"""An exact law: ``pmf`` on a window, each value within a factor (1 +- ``tail``) of the exact probability,
and at most ``tail`` of mass outside the window (``tail = 0``: exact and complete)."""


def exact(pmf: Mapping[Hashable, Any]) -> Law:
    """A law known exactly on its whole support."""
    return Truncated(dict(pmf), Fraction(0))


def as_law(value: Any) -> Law:
    return value if isinstance(value, Truncated) else exact(value)


def mp(value: Any) -> Any:
    return oracle._mpf_any(value)


def bracket(law: Law, outcome: Hashable) -> tuple[Any, Any]:
    """[A, B] containing the exact probability of ``outcome``."""
    tail = mp(law.tail)
    if outcome in law.pmf:
        p = mp(law.pmf[outcome])
        return p * (1 - tail), p * (1 + tail)
    return MP.mpf(0), tail


def assert_intervals_contain(result: CertifyResult, law_of: Callable[[Any], Any]) -> None:
    for input_law in result.laws:
        law = as_law(law_of(input_law.input))
        assert input_law.residual >= 0
        assert MP.fsum(MP.mpf(b.low) for b in input_law.outcomes) <= 1, input_law.input
        listed = set()
        for bound in input_law.outcomes:
            listed.add(bound.outcome)
            low, high = bracket(law, bound.outcome)
            assert 0 <= bound.low <= bound.high <= 1
            assert MP.mpf(bound.low) <= high and MP.mpf(bound.high) >= low, (
                input_law.input, bound, (float(low), float(high)))
        for outcome, p in law.pmf.items():
            if outcome not in listed and p:
                low, _ = bracket(law, outcome)
                assert low <= MP.mpf(input_law.residual), (input_law.input, outcome, float(low), input_law.residual)


def _windowed(law: Law, shrink: bool) -> dict[Hashable, Any]:
    factor = 1 - mp(law.tail) if shrink else 1 + mp(law.tail)
    return {o: mp(p) * factor for o, p in law.pmf.items()}


def hockey_stick_low(x: Law, y: Law, epsilon: Any) -> Any:
    """A lower bound of the exact hockey-stick divergence D_{e^eps}(x || y) from the laws' windows."""
    below = oracle.hockey_stick_delta(_windowed(x, True), _windowed(y, False), epsilon)
    # an output of x's window outside y's counts there as P_y = 0: y's mass outside (<= its tail) is owed
    return below - mp(y.tail) * MP.exp(mp(epsilon))


def hockey_stick_high(x: Law, y: Law, epsilon: Any) -> Any:
    """An upper bound of D_{e^eps}(x || y): x's window raised, y's lowered, plus x's mass outside."""
    return oracle.hockey_stick_delta(_windowed(x, False), _windowed(y, True), epsilon) + mp(x.tail)


def loss_mass_bounds(x: Law, y: Law, epsilon: Any) -> tuple[Any, Any]:
    """[low, high] of P_x[{o : P_x(o) > e^eps P_y(o)}]; outputs within the oracle's fuzz count only in high."""
    e = MP.exp(mp(epsilon))
    fuzz = (e + 3) * (mp(x.tail) + mp(y.tail)) + MP.mpf(10) ** -40
    low = high = MP.mpf(0)
    for o in set(x.pmf) | set(y.pmf):
        px, py = mp(x.pmf.get(o, 0)), mp(y.pmf.get(o, 0))
        if px > e * py * (1 + fuzz) + fuzz:
            low += px * (1 - mp(x.tail))
        if px * (1 + fuzz) + fuzz > e * py:
            high += px * (1 + mp(x.tail))
    return low, high + mp(x.tail)


def exact_epsilon(a: Law, b: Law) -> Any:
    """The exact pure epsilon of the pair (``inf`` if an output has mass under one law only); on truncated
    laws, over the outputs of both windows (the window's edge is no support mismatch)."""
    if not a.tail and not b.tail:
        return oracle.exact_epsilon(a.pmf, b.pmf)
    common = set(a.pmf) & set(b.pmf)
    return oracle.exact_epsilon({o: a.pmf[o] for o in common}, {o: b.pmf[o] for o in common})


def assert_epsilon_sound(result: CertifyResult, law_of: Callable[[Any], Any], finite_epsilon: bool) -> None:
    """``finite_epsilon``: the exact epsilon over the whole support is that of the window (ratios bounded)."""
    for a, b in result.pairs:
        law_a, law_b = as_law(law_of(a)), as_law(law_of(b))
        if finite_epsilon:
            assert MP.mpf(result.epsilon_up) >= exact_epsilon(law_a, law_b), (a, b, result.epsilon_up)
        if result.epsilon_up != float("inf"):
            for x, y in ((law_a, law_b), (law_b, law_a)):
                assert hockey_stick_low(x, y, result.epsilon_up) <= MP.mpf(result.delta_up), (a, b)


def assert_claim_bracket_sound(result: CertifyResult, law_of: Callable[[Any], Any]) -> None:
    if result.claim is None or result.delta_at_claim is None:
        return
    claimed = result.claim.epsilon
    low = high = MP.mpf(0)
    for a, b in result.pairs:
        law_a, law_b = as_law(law_of(a)), as_law(law_of(b))
        for x, y in ((law_a, law_b), (law_b, law_a)):
            if result.claim.bounds_loss_per_output:
                lo, hi = loss_mass_bounds(x, y, claimed)
            else:
                lo, hi = hockey_stick_low(x, y, claimed), hockey_stick_high(x, y, claimed)
            low, high = max(low, lo), max(high, hi)
    certified_low, certified_up = result.delta_at_claim
    assert MP.mpf(certified_low) <= high and MP.mpf(certified_up) >= low, (result.delta_at_claim, float(low),
                                                                          float(high))
