"""Exact output probabilities of small programs: nested Laplace / exponential integrals in closed form.

Preconditions
    A :class:`~dpaudit.mechanisms.programs.ThresholdProgram` or
    :class:`~dpaudit.mechanisms.programs.NoisyMaxProgram` at a numeric instance with rational
    parameters, rational query answers, and an output given as

    * sparse vector: one entry per query, ``1`` (top), ``0`` (bottom), ``-1`` (unanswered), or
      ``("<=", v)`` -- a top whose released value q_i + nu_i is at most v (``release="value"``);
    * noisy max: the index ``w`` (``release="index"``) or ``("<=", v)`` -- the maximum is at most v.

Claim
    :func:`output_probability` returns P[M(q) = output] (or of the event) within
    :data:`ABSOLUTE_ERROR` = 1e-35 of the exact value (closed form evaluated at 60 digits; an
    instance whose terms are too large to keep that bound raises ArithmeticError); an output that is
    impossible gets exactly 0.

Proof (the formula)
    Given the shared draw r (the threshold noise rho, or the winner's noise Z_w), the per-query draws
    are independent, so P = int p(r) prod_i g_i(r) dr with

    * bottom: g = F(T + r - q_i) (nu_i below T + r - q_i), top: g = 1 - F(T + r - q_i),
    * top with value <= v: g = max(0, F(v - q_i) - F(T + r - q_i)),
    * noisy-max loser j: g = F(q_w + r - q_j),

    F the CDF of the per-query noise (Laplace: e^(x/b)/2 for x < 0, 1 - e^(-x/b)/2 for x >= 0;
    exponential: 1 - e^(-x/b) for x >= 0).  Every g and p is, between rational breakpoints, a finite sum
    of terms A e^(lambda r), so is the product, and int_lo^hi A e^(lambda r) dr =
    A (e^(lambda hi) - e^(lambda lo)) / lambda.  Threshold noise redrawn after each top splits the
    output into independent segments whose probabilities multiply (Lyu et al. 2017, Alg. 2).  Without
    threshold noise r = 0; without query noise g is the indicator of the comparison.
"""

from __future__ import annotations

import bisect
import itertools
import math
from fractions import Fraction
from typing import Any

import mpmath

from ...mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram

__all__ = ["ABSOLUTE_ERROR", "WORKING_DIGITS", "output_probability"]

WORKING_DIGITS = 60
ABSOLUTE_ERROR = mpmath.mpf("1e-35")
"""Bound on |computed - exact| of every probability returned: each integral is a sum of at most a few
thousand terms, each computed with a few roundings at 60 digits, so its error is below 1e-55 times the
sum of the terms' absolute values, which :func:`_integrate` requires to be at most 1e15 (else it
refuses: ArithmeticError); a product of at most k + 1 such factors in [0, 1] adds their errors."""
MAX_MAGNITUDE = mpmath.mpf("1e15")

Terms = dict  # int j -> mpf A: sum of A e^(j u r), u the rate unit of the program (see _Rates)


class _Rates:
    """Exponents as integers: every rate 1/b of the program is a whole multiple j of one unit u
    (u = gcd of the rates), so multiplying terms adds ints, not fractions."""

    def __init__(self, scales: list[Fraction]):
        rates = [1 / b for b in scales]
        numerator = math.gcd(*(r.numerator for r in rates))
        denominator = math.lcm(*(r.denominator for r in rates))
        self.unit = Fraction(numerator, denominator)

    def of(self, b: Fraction) -> int:
        j = (1 / b) / self.unit
        assert j.denominator == 1
        return int(j)


class _Piecewise:
    """A function of r: sorted rational ``breaks`` and one term dict per interval between them."""

    def __init__(self, breaks: list[Fraction], pieces: list[Terms]):
        self.breaks = breaks
        self.pieces = pieces

    def terms(self, x: Fraction) -> Terms:
        """The terms on the interval holding x (at a breakpoint: the interval left of it)."""
        return self.pieces[bisect.bisect_left(self.breaks, x)]


def _fraction(value: Any) -> Fraction:
    return Fraction(str(value)) if not isinstance(value, Fraction) else value


def _exp(x: Fraction) -> Any:
    return mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)


_ONE = {0: mpmath.mpf(1)}


def _cdf(noise: Noise, b: Fraction, j: int, a: Fraction, upper: bool) -> _Piecewise:
    """F(r + a) (``upper=False``) or 1 - F(r + a) (``upper=True``) as a function of r; j = rate 1/b in units."""
    if noise.distribution == "laplace":  # F = e^((r + a)/b) / 2 left of -a, 1 - e^(-(r + a)/b) / 2 right of it
        left, right = _exp(a / b) / 2, _exp(-a / b) / 2
        pieces = [{0: mpmath.mpf(1), j: -left}, {-j: right}] if upper else [{j: left}, {0: mpmath.mpf(1), -j: -right}]
    else:  # F = 0 left of -a, 1 - e^(-(r + a)/b) right of it
        right = _exp(-a / b)
        pieces = [dict(_ONE), {-j: right}] if upper else [{}, {0: mpmath.mpf(1), -j: -right}]
    return _Piecewise([-a], pieces)


def _indicator(a: Fraction, below: bool) -> _Piecewise:
    """1[r + a > 0] (``below``: the exact answer q_i = T - a is below T + r) or 1[r + a <= 0]."""
    return _Piecewise([-a], [{}, dict(_ONE)] if below else [dict(_ONE), {}])


def _window(noise: Noise, b: Fraction, j: int, a: Fraction, top: Fraction) -> _Piecewise:
    """max(0, F(top) - F(r + a)): the noise lies in [r + a, top]."""
    constant = _constant_value(noise, b, top)
    lower = _cdf(noise, b, j, a, upper=False)
    breaks = sorted({-a, top - a})
    pieces = []
    for x in _inside_points(breaks):
        if x + a >= top:
            pieces.append({})
            continue
        out = {lam: -v for lam, v in lower.terms(x).items()}
        out[0] = out.get(0, mpmath.mpf(0)) + constant
        pieces.append(out)
    return _Piecewise(breaks, pieces)


def _inside_points(breaks: list[Fraction]) -> list[Fraction]:
    """One point inside each interval that the breaks cut the line into."""
    if not breaks:
        return [Fraction(0)]
    return [breaks[0] - 1, *((lo + hi) / 2 for lo, hi in itertools.pairwise(breaks)), breaks[-1] + 1]


def _constant_value(noise: Noise, b: Fraction, x: Fraction) -> Any:
    """F(x) for a number x."""
    if noise.distribution == "laplace":
        return _exp(x / b) / 2 if x < 0 else 1 - _exp(-x / b) / 2
    return mpmath.mpf(0) if x < 0 else 1 - _exp(-x / b)


def _density(noise: Noise, b: Fraction, j: int) -> _Piecewise:
    if noise.distribution == "laplace":
        height = mpmath.mpf(b.denominator) / (2 * b.numerator)
        return _Piecewise([Fraction(0)], [{j: height}, {-j: height}])
    return _Piecewise([Fraction(0)], [{}, {-j: mpmath.mpf(b.denominator) / b.numerator}])


def _multiply(left: Terms, right: Terms) -> Terms:
    out: Terms = {}
    for l1, a1 in left.items():
        for l2, a2 in right.items():
            key = l1 + l2
            out[key] = out[key] + a1 * a2 if key in out else a1 * a2
    return out


def _integrate(factors: list[_Piecewise], unit: Fraction) -> Any:
    """int_{-inf}^{inf} prod factors(r) dr, exactly (piecewise sums of exponentials)."""
    breaks = sorted({x for f in factors for x in f.breaks})
    edges = [None, *breaks, None]
    total = magnitude = mpmath.mpf(0)
    for (lo, hi), inside in zip(itertools.pairwise(edges), _inside_points(breaks)):
        product: Terms = dict(_ONE)
        for f in factors:
            product = _multiply(product, f.terms(inside))
            if not product:
                break
        for j, value in product.items():
            if value == 0:
                continue
            if j == 0:
                if lo is None or hi is None:
                    raise ArithmeticError("the integrand does not decay: a draw without a density")
                term = value * (mpmath.mpf(hi.numerator) / hi.denominator - mpmath.mpf(lo.numerator) / lo.denominator)
                total, magnitude = total + term, magnitude + abs(term)
                continue
            if (lo is None and j < 0) or (hi is None and j > 0):
                raise ArithmeticError("the integrand does not decay")
            lam = j * unit
            upper = mpmath.mpf(0) if hi is None else _exp(lam * hi)
            lower = mpmath.mpf(0) if lo is None else _exp(lam * lo)
            term = value * (upper - lower) / (mpmath.mpf(lam.numerator) / lam.denominator)
            total, magnitude = total + term, magnitude + abs(term)
    if magnitude > MAX_MAGNITUDE:
        raise ArithmeticError(f"terms of size {mpmath.nstr(magnitude, 3)} cancel: 60 digits do not bound the error by 1e-35")
    return total


def _at_zero(factors: list[_Piecewise]) -> Any:
    """prod factors(0): the shared draw is absent (r = 0).  At a breakpoint the left piece applies, which
    is right for the indicators (1[r + a > 0] is 0 and 1[r + a <= 0] is 1 at r = -a) and for the
    continuous factors alike."""
    product: Terms = dict(_ONE)
    for f in factors:
        product = _multiply(product, f.terms(Fraction(0)))
    return sum(product.values(), mpmath.mpf(0))


def output_probability(program: Any, q: tuple, output: Any) -> Any:
    """P[M(q) = output] (an mpf at :data:`WORKING_DIGITS` digits); see the module docstring for the forms."""
    q = tuple(_fraction(x) for x in q)
    if len(q) != program.queries:
        raise ValueError(f"{len(q)} query answers for a program of {program.queries}")
    with mpmath.workdps(WORKING_DIGITS):
        if isinstance(program, ThresholdProgram):
            return _threshold_probability(program, q, tuple(output))
        if isinstance(program, NoisyMaxProgram):
            return _noisy_max_probability(program, q, output)
    raise TypeError(f"no probability for {type(program).__name__}")


def _scale(program: Any, noise: Noise | None) -> Fraction | None:
    return None if noise is None else _fraction(program.exact(noise.scale))


def _threshold_probability(p: ThresholdProgram, q: tuple, output: tuple) -> Any:
    if len(output) != p.queries:
        raise ValueError(f"an output of {len(output)} entries for {p.queries} queries")
    T = _fraction(p.exact(p.threshold))
    b_nu, b_rho = _scale(p, p.query_noise), _scale(p, p.threshold_noise)
    rates = _Rates([b for b in (b_nu, b_rho) if b is not None] or [Fraction(1)])
    j_nu = rates.of(b_nu) if b_nu else 0
    cutoff = p.queries + 1 if p.cutoff is None else p.cutoff
    segments: list[list[_Piecewise]] = [[]]
    tops = 0
    for qi, out in zip(q, output):
        if tops >= cutoff:
            if out != -1:
                return mpmath.mpf(0)
            continue
        a = T - qi  # the comparison is nu_i vs r + a
        if out == 0:
            factor = _cdf(p.query_noise, b_nu, j_nu, a, upper=False) if b_nu else _indicator(a, below=True)
        elif out == 1 and p.release == "bit":
            factor = _cdf(p.query_noise, b_nu, j_nu, a, upper=True) if b_nu else _indicator(a, below=False)
        elif isinstance(out, tuple) and p.release == "value" and out[0] == "<=":
            factor = _window(p.query_noise, b_nu, j_nu, a, _fraction(out[1]) - qi)
        else:
            return mpmath.mpf(0)
        segments[-1].append(factor)
        if out != 0:
            tops += 1
            if p.resample_threshold:
                segments.append([])
    if p.threshold_noise is None:
        return _at_zero([f for s in segments for f in s])
    if not p.resample_threshold:
        segments = [[f for s in segments for f in s]]
    density = _density(p.threshold_noise, b_rho, rates.of(b_rho))
    result = mpmath.mpf(1)
    for segment in segments:
        result *= _integrate([density, *segment], rates.unit)
    return result


def _noisy_max_probability(p: NoisyMaxProgram, q: tuple, output: Any) -> Any:
    b = _scale(p, p.noise)
    if p.release == "value":
        if not (isinstance(output, tuple) and output[0] == "<="):
            raise ValueError("a noisy-max value output is given as ('<=', v)")
        v = _fraction(output[1])
        result = mpmath.mpf(1)
        for qi in q:
            result *= _constant_value(p.noise, b, v - qi)
        return result
    w = int(output)
    if not 0 <= w < p.queries:
        return mpmath.mpf(0)
    rates = _Rates([b])
    j = rates.of(b)
    losers = [_cdf(p.noise, b, j, q[w] - qj, upper=False) for i, qj in enumerate(q) if i != w]
    return _integrate([_density(p.noise, b, j), *losers], rates.unit)
