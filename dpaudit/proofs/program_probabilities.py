"""Exact output probabilities of small programs: nested Laplace / exponential integrals in closed form.

Preconditions
    A :class:`~dpaudit.mechanisms.programs.ThresholdProgram` or
    :class:`~dpaudit.mechanisms.programs.NoisyMaxProgram` at a numeric instance with rational
    parameters, rational query answers, and an output given as

    * sparse vector: one entry per query, ``1`` (top), ``0`` (bottom), ``-1`` (unanswered), or
      ``("<=", v)`` -- a top whose released value q_i + nu_i is at most v (``release="value"``);
    * noisy max: the index ``w`` (``release="index"``) or ``("<=", v)`` -- the maximum is at most v.

Claim
    :func:`output_probability` returns P[M(q) = output] (or of the event), exactly up to the working
    precision of mpmath (60 significant digits; the terms are sums of at most a few hundred
    exponentials, so the result is correct to far better than the 50 digits at which ratios are
    compared).

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

from fractions import Fraction
from typing import Any, Callable

import mpmath

from ..mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram

__all__ = ["WORKING_DIGITS", "output_probability"]

WORKING_DIGITS = 60

Terms = dict  # Fraction lambda -> mpf A: sum of A e^(lambda r)


class _Piecewise:
    """A function of r: between sorted rational ``breaks``, ``terms(x)`` gives its terms near x."""

    def __init__(self, breaks: list[Fraction], terms: Callable[[Fraction], Terms]):
        self.breaks = breaks
        self.terms = terms


def _fraction(value: Any) -> Fraction:
    return Fraction(str(value)) if not isinstance(value, Fraction) else value


def _exp(x: Fraction) -> Any:
    return mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)


def _cdf(noise: Noise, b: Fraction, a: Fraction, upper: bool) -> _Piecewise:
    """F(r + a) (``upper=False``) or 1 - F(r + a) (``upper=True``) as a function of r."""
    laplace = noise.distribution == "laplace"

    def terms(x: Fraction) -> Terms:
        below = x + a < 0
        if laplace:
            if below:  # F = e^((r + a)/b) / 2
                return {Fraction(0): mpmath.mpf(1), 1 / b: -_exp(a / b) / 2} if upper else {1 / b: _exp(a / b) / 2}
            return {-1 / b: _exp(-a / b) / 2} if upper else {Fraction(0): mpmath.mpf(1), -1 / b: -_exp(-a / b) / 2}
        if below:
            return {Fraction(0): mpmath.mpf(1)} if upper else {}
        return {-1 / b: _exp(-a / b)} if upper else {Fraction(0): mpmath.mpf(1), -1 / b: -_exp(-a / b)}

    return _Piecewise([-a], terms)


def _indicator(a: Fraction, below: bool) -> _Piecewise:
    """1[r + a > 0] (``below``: the exact answer q_i = T - a is below T + r) or 1[r + a <= 0]."""
    return _Piecewise([-a], lambda x: ({Fraction(0): mpmath.mpf(1)} if (x + a > 0) == below else {}))


def _window(noise: Noise, b: Fraction, a: Fraction, top: Fraction) -> _Piecewise:
    """max(0, F(top) - F(r + a)): the noise lies in [r + a, top]."""
    constant = _constant_value(noise, b, top)
    lower = _cdf(noise, b, a, upper=False)

    def terms(x: Fraction) -> Terms:
        if x + a >= top:
            return {}
        out = {lam: -v for lam, v in lower.terms(x).items()}
        out[Fraction(0)] = out.get(Fraction(0), mpmath.mpf(0)) + constant
        return out

    return _Piecewise(sorted({-a, top - a}), terms)


def _constant_value(noise: Noise, b: Fraction, x: Fraction) -> Any:
    """F(x) for a number x."""
    if noise.distribution == "laplace":
        return _exp(x / b) / 2 if x < 0 else 1 - _exp(-x / b) / 2
    return mpmath.mpf(0) if x < 0 else 1 - _exp(-x / b)


def _density(noise: Noise, b: Fraction) -> _Piecewise:
    def terms(x: Fraction) -> Terms:
        if noise.distribution == "laplace":
            return {(1 if x < 0 else -1) / b: mpmath.mpf(1) / (2 * mpmath.mpf(b.numerator) / b.denominator)}
        return {} if x < 0 else {-1 / b: mpmath.mpf(b.denominator) / b.numerator}

    return _Piecewise([Fraction(0)], terms)


def _multiply(left: Terms, right: Terms) -> Terms:
    out: Terms = {}
    for l1, a1 in left.items():
        for l2, a2 in right.items():
            out[l1 + l2] = out.get(l1 + l2, mpmath.mpf(0)) + a1 * a2
    return out


def _integrate(factors: list[_Piecewise]) -> Any:
    """int_{-inf}^{inf} prod factors(r) dr, exactly (piecewise sums of exponentials)."""
    breaks = sorted({x for f in factors for x in f.breaks})
    edges = [None, *breaks, None]
    total = mpmath.mpf(0)
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (lo + hi) / 2 if lo is not None and hi is not None else (hi - 1 if lo is None else lo + 1)
        product: Terms = {Fraction(0): mpmath.mpf(1)}
        for f in factors:
            product = _multiply(product, f.terms(inside))
            if not product:
                break
        for lam, value in product.items():
            if value == 0:
                continue
            if lam == 0:
                if lo is None or hi is None:
                    raise ArithmeticError("the integrand does not decay: a draw without a density")
                total += value * (mpmath.mpf(hi.numerator) / hi.denominator - mpmath.mpf(lo.numerator) / lo.denominator)
                continue
            if (lo is None and lam < 0) or (hi is None and lam > 0):
                raise ArithmeticError("the integrand does not decay")
            upper = mpmath.mpf(0) if hi is None else _exp(lam * hi)
            lower = mpmath.mpf(0) if lo is None else _exp(lam * lo)
            total += value * (upper - lower) / (mpmath.mpf(lam.numerator) / lam.denominator)
    return total


def _at_zero(factors: list[_Piecewise]) -> Any:
    """prod factors(0): the shared draw is absent (r = 0)."""
    product: Terms = {Fraction(0): mpmath.mpf(1)}
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
    b_nu = _scale(p, p.query_noise)
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
            factor = _cdf(p.query_noise, b_nu, a, upper=False) if b_nu else _indicator(a, below=True)
        elif out == 1 and p.release == "bit":
            factor = _cdf(p.query_noise, b_nu, a, upper=True) if b_nu else _indicator(a, below=False)
        elif isinstance(out, tuple) and p.release == "value" and out[0] == "<=":
            factor = _window(p.query_noise, b_nu, a, _fraction(out[1]) - qi)
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
    density = _density(p.threshold_noise, _scale(p, p.threshold_noise))
    result = mpmath.mpf(1)
    for segment in segments:
        result *= _integrate([density, *segment])
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
    losers = [_cdf(p.noise, b, q[w] - qj, upper=False) for j, qj in enumerate(q) if j != w]
    return _integrate([_density(p.noise, b), *losers])
