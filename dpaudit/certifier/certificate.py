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
Rationals stay exact; ``e^eps`` and logarithms are evaluated with mpmath at 60 digits and every
bound is rounded outward (an upper bound up, a lower bound down) to a float.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from .law import Law

__all__ = ["PairBounds", "TIGHT", "delta_bounds", "loss_mass_bounds", "pair_bounds"]

#: An outcome's interval counts as tight when its width is at most this fraction of its lower bound:
#: the logarithm of a ratio of tight intervals is then within about 2e-10 of the exact one.
TIGHT = Fraction(1, 10**10)

_DIGITS = 60
_MARGIN = mpmath.mpf(10) ** -50  # absolute slack for the 60-digit evaluations, far below a double's ulp


def _mp(value: Fraction) -> mpmath.mpf:
    with mpmath.workdps(_DIGITS):
        return mpmath.mpf(value.numerator) / value.denominator


def _up(value: mpmath.mpf) -> float:
    if value == mpmath.inf:
        return math.inf
    if value == 0:
        return 0.0
    return math.nextafter(float(value + _MARGIN), math.inf)


def _down(value: mpmath.mpf) -> float:
    if value == mpmath.inf:
        return math.inf
    if value == -mpmath.inf:
        return -math.inf
    return max(0.0, math.nextafter(float(value - _MARGIN), -math.inf)) if value >= 0 else math.nextafter(
        float(value - _MARGIN), -math.inf)


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


def delta_bounds(a: Law, b: Law, epsilon: float) -> tuple[float, float]:
    """(lower, upper) bounds of max over both directions of the hockey-stick divergence at ``epsilon``."""
    with mpmath.workdps(_DIGITS):
        factor = mpmath.exp(mpmath.mpf(epsilon))
        factor_low, factor_high = factor * (1 - _MARGIN), factor * (1 + _MARGIN)
        lows, highs = [], []
        for x, y in ((a, b), (b, a)):
            upper = _mp(x.residual)
            lower = mpmath.mpf(0)
            for outcome, low_x in x.outcomes.items():
                low_y = y.outcomes.get(outcome, Fraction(0))
                high_y = min(Fraction(1), low_y + y.residual)
                upper += max(mpmath.mpf(0), _mp(low_x) - factor_low * _mp(low_y))
                lower += max(mpmath.mpf(0), _mp(low_x) - factor_high * _mp(high_y))
            lows.append(lower)
            highs.append(min(mpmath.mpf(1), upper))
        return _down(max(lows)), _up(max(highs))


def loss_mass_bounds(a: Law, b: Law, epsilon: float) -> tuple[float, float]:
    """(lower, upper) bounds of max over both directions of P_x[{o : P_x(o) > e^eps P_y(o)}].

    The probability, under one input, of the outputs whose privacy loss exceeds epsilon: what a
    probabilistic (epsilon, delta)-DP claim bounds by delta (Meiser 2018, Def. 2).  An output is
    certainly in that set when ``L_x(o) > e^eps H_y(o)`` (lower bound: the sum of their ``L_x``), possibly
    when ``H_x(o) > e^eps L_y(o)`` (upper bound: the sum of their ``L_x`` plus the residual ``r_x``,
    which covers every output not explored and the excess of every explored one).
    """
    with mpmath.workdps(_DIGITS):
        factor = mpmath.exp(mpmath.mpf(epsilon))
        factor_low, factor_high = factor * (1 - _MARGIN), factor * (1 + _MARGIN)
        lows, highs = [], []
        for x, y in ((a, b), (b, a)):
            upper = _mp(x.residual)
            lower = mpmath.mpf(0)
            for outcome, low_x in x.outcomes.items():
                low_y = y.outcomes.get(outcome, Fraction(0))
                high_x = min(Fraction(1), low_x + x.residual)
                high_y = min(Fraction(1), low_y + y.residual)
                if _mp(high_x) > factor_low * _mp(low_y):
                    upper += _mp(low_x)
                if _mp(low_x) > factor_high * _mp(high_y):
                    lower += _mp(low_x)
            lows.append(lower)
            highs.append(min(mpmath.mpf(1), upper))
        return _down(max(lows)), _up(max(highs))


def pair_bounds(a: Law, b: Law) -> PairBounds:
    """Certified pure-epsilon bounds for the pair, and the (eps_up, delta_up) certificate."""
    with mpmath.workdps(_DIGITS):
        best_low, witness, forward = mpmath.mpf(0), None, True
        best_up = mpmath.mpf(0)
        tight_found = False
        for outcome in _outcomes(a, b):
            for x, y, is_forward in ((a, b, True), (b, a, False)):
                low_x = x.outcomes.get(outcome, Fraction(0))
                if low_x == 0:
                    continue
                low_y = y.outcomes.get(outcome, Fraction(0))
                high_y = min(Fraction(1), low_y + y.residual)
                ratio_low = mpmath.inf if high_y == 0 else mpmath.log(_mp(low_x) / _mp(high_y))
                if ratio_low > best_low or witness is None and ratio_low >= best_low:
                    best_low, witness, forward = ratio_low, outcome, is_forward
                # an output of one input only counts when the other's law is complete (its ratio is then
                # exactly infinite); the tails not enumerated are left to delta_up, which counts their mass
                tight = x.residual <= TIGHT * low_x and y.residual <= TIGHT * low_y
                if tight:
                    tight_found = True
                    high_x = min(Fraction(1), low_x + x.residual)
                    best_up = max(best_up, mpmath.inf if low_y == 0 else mpmath.log(_mp(high_x) / _mp(low_y)))
        # an upper bound of the pure epsilon is never below what is certified of it
        epsilon_up = _up(max(best_up, best_low)) if tight_found else math.inf
        # an infinite epsilon certifies nothing: its delta is reported as 1
        delta_up = 1.0 if math.isinf(epsilon_up) else delta_bounds(a, b, epsilon_up)[1]
        return PairBounds(_down(best_low), epsilon_up, delta_up, witness, forward)
