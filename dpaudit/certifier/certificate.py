"""From the explored laws of a pair of inputs to certified bounds on epsilon and delta.

For each input ``x`` of the pair the enumeration gives exact lower bounds ``L_x(o)`` of the output
probabilities and a residual ``r_x = 1 - sum_o L_x(o)``; then ``L_x(o) <= P_x(o) <= H_x(o) = L_x(o) + r_x``
and the excesses ``P_x(o) - L_x(o)`` sum to at most ``r_x`` over all outcomes.  For either direction
(x, y) = (a, b), (b, a):

* hockey-stick divergence, upper bound:  ``delta(eps) = sum_o max(0, P_x(o) - e^eps P_y(o))
  <= sum_o max(0, L_x(o) - e^eps L_y(o)) + r_x``  (each term grows by at most the excess of P_x(o));
* its lower bound: ``delta(eps) >= sum_o max(0, L_x(o) - e^eps H_y(o))`` (a sum of smaller terms);
* pure epsilon, certified lower bound: ``eps >= max_o ln(L_x(o) / H_y(o))`` (infinite when
  ``H_y(o) = 0``: an output possible under one input only, with the other's law complete);
* the upper bound reported beside it: ``eps_up = max_o ln(H_x(o) / L_y(o))`` over the outcomes whose
  intervals are tight (width at most :data:`TIGHT` of the lower bound; an output of one input only
  when the other's law is complete, ratio infinite), and never below the certified lower bound, with
  ``delta_up(eps_up)`` from the first line covering every other outcome (the tails not enumerated):
  (eps_up, delta_up) is a valid certificate for the pair
  (Dwork & Roth 2014, Def. 2.4, read through the hockey-stick divergence, e.g. Balle et al. 2018,
  "Privacy amplification by subsampling", Thm. 1).

A claim (eps, delta) is certified when ``delta_up(eps) <= delta`` in both directions (for a pure claim:
the enumeration is complete and no ratio exceeds e^eps), refuted when ``delta_low(eps) > delta``.  A
probabilistic (eps, delta)-DP claim bounds instead the probability of the outputs whose loss exceeds
eps (:func:`loss_mass_bounds`), with the same rule.
Rationals stay exact; ``e^eps``, the products and the logarithms are evaluated in mpmath's interval
arithmetic (``mpmath.iv``, 60 digits, each operation rounded outward), and every bound is then rounded
outward to a double (an upper bound up, a lower bound down): exact where the numbers are (a ratio of
1 at epsilon = 0 gives delta 0, not a rounding residue).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from .law import Law

__all__ = ["PairBounds", "TIGHT", "delta_bounds", "fraction_down", "fraction_up", "loss_mass_bounds", "pair_bounds"]

#: An outcome's interval counts as tight when its width is at most this fraction of its lower bound:
#: the logarithm of a ratio of tight intervals is then within about 2e-10 of the exact one.
TIGHT = Fraction(1, 10**10)

_BITS = 200  # about 60 digits


@contextlib.contextmanager
def _precision() -> Iterator[None]:
    """Interval and point arithmetic at :data:`_BITS` bits inside (mpmath's contexts are global)."""
    saved = iv.prec, mpmath.mp.prec
    iv.prec = mpmath.mp.prec = _BITS
    try:
        yield
    finally:
        iv.prec, mpmath.mp.prec = saved


def _iv(value: Fraction) -> iv.mpf:
    """An interval containing the rational ``value`` (rounded outward)."""
    return iv.mpf(value.numerator) / value.denominator


def _positive_part(term: iv.mpf, end: str) -> iv.mpf:
    """max(0, ``term``) at one end of the interval (``"a"`` the lower, ``"b"`` the upper), as an interval."""
    value = getattr(term, end)
    return value if value > 0 else iv.mpf(0)


def _up(value: iv.mpf) -> float:
    """The smallest double at least the upper end of ``value``."""
    top = mpmath.mpf(value.b)
    if top == mpmath.inf:
        return math.inf
    nearest = float(top)
    return nearest if mpmath.mpf(nearest) >= top else math.nextafter(nearest, math.inf)


def _down(value: iv.mpf) -> float:
    """The largest double at most the lower end of ``value``."""
    bottom = mpmath.mpf(value.a)
    if bottom == mpmath.inf:
        return math.inf
    nearest = float(bottom)
    return nearest if mpmath.mpf(nearest) <= bottom else math.nextafter(nearest, -math.inf)


def fraction_down(value: Fraction) -> float:
    """The largest double at most ``value`` (exact when ``value`` is a double)."""
    nearest = float(value)
    return nearest if Fraction(nearest) <= value else math.nextafter(nearest, -math.inf)


def fraction_up(value: Fraction) -> float:
    """The smallest double at least ``value`` (exact when ``value`` is a double)."""
    nearest = float(value)
    return nearest if Fraction(nearest) >= value else math.nextafter(nearest, math.inf)


@dataclass(frozen=True)
class PairBounds:
    """What the laws of one pair certify: epsilon between ``epsilon_low`` and ``epsilon_up`` (pure),
    ``delta_up`` at ``epsilon_up``, and the outcome and direction that set ``epsilon_low``."""

    epsilon_low: float
    epsilon_up: float
    delta_up: float
    witness: Hashable | None
    witness_forward: bool


def _outcomes(a: Law, b: Law) -> list[Hashable]:
    return list(dict.fromkeys([*a.outcomes, *b.outcomes]))


def _high(law: Law, low: Fraction) -> Fraction:
    return min(Fraction(1), low + law.residual)


def _over_both_directions(a: Law, b: Law, epsilon: float, terms: Callable[..., tuple[Any, Any]]) -> tuple[float, float]:
    """(lower, upper) bounds of ``max over (x, y) in ((a, b), (b, a)) of sum_o term(o) + ...``.

    ``terms(factor, x, y, low_x, low_y)`` gives, for one outcome explored under x, its contribution to
    the upper sum (which starts at the residual ``r_x``) and to the lower sum, as intervals.
    """
    with _precision():
        factor = iv.exp(iv.mpf(epsilon))
        lows, highs = [], []
        for x, y in ((a, b), (b, a)):
            upper, lower = _iv(x.residual), iv.mpf(0)
            for outcome, low_x in x.outcomes.items():
                up, low = terms(factor, x, y, low_x, y.outcomes.get(outcome, Fraction(0)))
                upper += up
                lower += low
            lows.append(_down(lower))
            highs.append(min(1.0, _up(upper)))
        return max(lows), max(highs)


def _hockey_stick_terms(factor: Any, x: Law, y: Law, low_x: Fraction, low_y: Fraction) -> tuple[Any, Any]:
    return (_positive_part(_iv(low_x) - factor * _iv(low_y), "b"),
            _positive_part(_iv(low_x) - factor * _iv(_high(y, low_y)), "a"))


def _loss_mass_terms(factor: Any, x: Law, y: Law, low_x: Fraction, low_y: Fraction) -> tuple[Any, Any]:
    possibly = (_iv(_high(x, low_x)) - factor * _iv(low_y)).b > 0
    certainly = (_iv(low_x) - factor * _iv(_high(y, low_y))).a > 0
    return (_iv(low_x) if possibly else iv.mpf(0)), (_iv(low_x) if certainly else iv.mpf(0))


def delta_bounds(a: Law, b: Law, epsilon: float) -> tuple[float, float]:
    """(lower, upper) bounds of max over both directions of the hockey-stick divergence at ``epsilon``."""
    return _over_both_directions(a, b, epsilon, _hockey_stick_terms)


def loss_mass_bounds(a: Law, b: Law, epsilon: float) -> tuple[float, float]:
    """(lower, upper) bounds of max over both directions of P_x[{o : P_x(o) > e^eps P_y(o)}].

    The probability, under one input, of the outputs whose privacy loss exceeds epsilon: what a
    probabilistic (epsilon, delta)-DP claim bounds by delta (Meiser 2018, Def. 2).  An output is
    certainly in that set when ``L_x(o) > e^eps H_y(o)`` (lower bound: the sum of their ``L_x``), possibly
    when ``H_x(o) > e^eps L_y(o)`` (upper bound: the sum of their ``L_x`` plus the residual ``r_x``,
    which covers every output not explored and the excess of every explored one).
    """
    return _over_both_directions(a, b, epsilon, _loss_mass_terms)


def pair_bounds(a: Law, b: Law) -> PairBounds:
    """Certified pure-epsilon bounds for the pair, and the (eps_up, delta_up) certificate."""
    with _precision():
        best_low, witness, forward = 0.0, None, True
        best_up = 0.0
        tight_found = False
        for outcome in _outcomes(a, b):
            for x, y, is_forward in ((a, b, True), (b, a, False)):
                low_x = x.outcomes.get(outcome, Fraction(0))
                if low_x == 0:
                    continue
                low_y = y.outcomes.get(outcome, Fraction(0))
                high_y = _high(y, low_y)
                ratio_low = math.inf if high_y == 0 else max(0.0, _down(iv.log(_iv(low_x) / _iv(high_y))))
                if ratio_low > best_low or witness is None and ratio_low >= best_low:
                    best_low, witness, forward = ratio_low, outcome, is_forward
                # an output of one input only counts when the other's law is complete (its ratio is then
                # exactly infinite); the tails not enumerated are left to delta_up, which counts their mass
                tight = x.residual <= TIGHT * low_x and y.residual <= TIGHT * low_y
                if tight:
                    tight_found = True
                    ratio_up = math.inf if low_y == 0 else _up(iv.log(_iv(_high(x, low_x)) / _iv(low_y)))
                    best_up = max(best_up, ratio_up)
        # an upper bound of the pure epsilon is never below what is certified of it
        epsilon_up = max(best_up, best_low) if tight_found else math.inf
        # an infinite epsilon certifies nothing: its delta is reported as 1
        delta_up = 1.0 if math.isinf(epsilon_up) else delta_bounds(a, b, epsilon_up)[1]
        return PairBounds(best_low, epsilon_up, delta_up, witness, forward)
