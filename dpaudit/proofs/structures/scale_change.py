"""Refuting f(x) + s(x) Z when neighbours get different noise scales: a tail event of unbounded loss.

For a declared :class:`~dpaudit.mechanisms.structure.AdmissibleNoise` A(x) = f(x) + s(x) Z with
s(x) = S(x)/alpha and Z of density h, two neighbours x, x' with s = s(x) != s' = s(x') release
densities whose log ratio is

    L(y) = ln(h((y - f(x)) / s) / s) - ln(h((y - f(x')) / s') / s').

Rule
    For the pure epsilon-DP claim and each tail y -> +oo, y -> -oo: the limit of L (sympy) is taken;
    when it exceeds epsilon (for Laplace or Gaussian noise it is +oo: L grows like |y| (1/s' - 1/s)
    or y^2), the tail event S = {A(x) >= t} (or {A(x) <= t}) has P_x[S] / P_x'[S] -> e^lim too
    (l'Hopital), and a finite t with P_x[S] > e^epsilon P_x'[S] is searched for by doubling the
    distance from the two centres.
Output map
    Rounding to a grid is post-processing of the unrounded value, so a refutation of that value alone
    refutes nothing.  The event is stated on the released values instead: with the grid
    y = clamp(g round(v / g), -B, B) of :mod:`dpaudit.mechanisms._grid`, the released set
    {y >= k g} is exactly {v >= (k - 1/2) g} (the tie v = (k - 1/2) g has probability 0), and
    {y <= k g} is {v <= (k + 1/2) g}, both for -B <= k g <= B only (the search stops past B).  Its probabilities are tails of Z at the cell
    boundary c: P_x[S] = T((c - f(x)) / s) with T(w) = int_0^oo h(w + u) du (upper tail) or
    int_0^oo h(-w - u) du (lower tail), integrated in closed form by sympy (e^-w / 2 for Laplace).
    A declared output map other than this grid, or none declared in words only, stops the rule.
Check
    The inequality P_x[S] > e^epsilon P_x'[S] is evaluated with mpmath at 50 digits from the closed
    forms at the exact rational values of f, S, alpha and c (the binary values of their floats); only
    a witness that passes is reported.  The pair comes from the instance's datasets and their
    neighbours, so the refutation is of the mechanism at that instance.

A scale that does not change between neighbours (s = s') is outside the rule: it never refutes a
mechanism whose noise is calibrated to a fixed size.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from ...claims import Claim, PureDP
from ...mechanisms.structure import AdmissibleNoise
from ..budget import checkpoint
from ..result import Counterexample

__all__ = ["scale_change_witness"]

DIGITS = 50
# Doubling the distance from the centres 64 times reaches 2^64 scales: far beyond any float grid bound.
_MAX_DOUBLINGS = 64


@functools.lru_cache(maxsize=32)
def _tail(h: Any, z: Any, side: int) -> Any:
    """T(w) for w > 0: int_0^oo h(side (w + u)) du, the mass of Z beyond side * w, in closed form or None."""
    import sympy

    w, u = sympy.Symbol("w", positive=True), sympy.Symbol("u", positive=True)
    tail = sympy.integrate(h.subs(z, side * (w + u)), (u, 0, sympy.oo))
    return None if tail.has(sympy.Integral) else sympy.Lambda(w, tail)


def _released_boundary(value: Any, side: int, grid: tuple[float, float] | None) -> tuple[Any, Any] | None:
    """(released threshold k g, unrounded cell boundary c) of the event beyond ``value`` on ``side``."""
    import sympy

    if grid is None:
        return value, value
    step, bound = sympy.Rational(grid[0]), sympy.Rational(grid[1])
    half = sympy.Rational(1, 2)
    k = sympy.ceiling(value / step + half) if side > 0 else sympy.floor(value / step - half)
    # clamp(r, -B, B) >= k g iff r >= k g only when k g lies in [-B, B] (else the event is all or nothing)
    return (k * step, (k - side * half) * step) if -bound <= k * step <= bound else None


def _pair_witness(h: Any, z: Any, centres: tuple[Any, Any], scales: tuple[Any, Any], eps: Any,
                  grid: tuple[float, float] | None) -> tuple[int, Any, Any, Any, Any] | None:
    """(side, released threshold, P_x[S], P_x'[S], limit of L) of a tail event past e^eps, or None."""
    import mpmath
    import sympy

    (f, f_prime), (s, s_prime) = centres, scales
    y = sympy.Symbol("y", real=True)
    loss = sympy.log(h.subs(z, (y - f) / s) / s) - sympy.log(h.subs(z, (y - f_prime) / s_prime) / s_prime)
    for side in (1, -1):
        checkpoint()
        limit = sympy.limit(loss, y, side * sympy.oo)
        if not (limit == sympy.oo or (limit.is_real and bool(limit > eps))):
            continue
        tail = _tail(h, z, side)
        if tail is None:
            continue
        start, reach = (max(f, f_prime), max(s, s_prime)) if side > 0 else (min(f, f_prime), max(s, s_prime))
        with mpmath.workdps(DIGITS):
            budget = mpmath.exp(mpmath.mpf(eps.p) / eps.q)
            for doubling in range(_MAX_DOUBLINGS):
                boundary = _released_boundary(start + side * reach * 2**doubling, side, grid)
                if boundary is None:
                    break
                threshold, cut = boundary
                p, p_prime = (tail(side * (cut - c) / sc).evalf(DIGITS) for c, sc in ((f, s), (f_prime, s_prime)))
                p, p_prime = mpmath.mpf(str(p)), mpmath.mpf(str(p_prime))
                if p > 0 and p > budget * p_prime:
                    return side, threshold, p, p_prime, limit
    return None


def scale_change_witness(noise: AdmissibleNoise, claim: Claim, query: Callable[[Any], Any] | None) -> Counterexample | None:
    """A tail event of the released values refuting pure ``claim`` at neighbours with different scales
    (see the module docstring), or None when the rule finds none."""
    import mpmath
    import sympy

    if not isinstance(claim, PureDP) or query is None or (noise.output and noise.grid is None):
        return None
    h, z = noise.noise_density()
    eps, alpha = sympy.Rational(claim.epsilon), sympy.Rational(noise.alpha)
    tried: set[tuple[Any, ...]] = set()  # the rule depends on the pair only through its centres and scales
    for x in noise.datasets:
        checkpoint()
        for neighbour in noise.neighbours(x):
            scales = (sympy.Rational(noise.smooth_bound(x)) / alpha, sympy.Rational(noise.smooth_bound(neighbour)) / alpha)
            if scales[0] == scales[1] or min(scales) <= 0:
                continue
            centres = (sympy.Rational(float(query(x))), sympy.Rational(float(query(neighbour))))
            if (centres, scales) in tried:
                continue
            tried.add((centres, scales))
            found = _pair_witness(h, z, centres, scales, eps, noise.grid)
            if found is None:
                continue
            side, threshold, p, p_prime, limit = found
            relation = ">=" if side > 0 else "<="
            log_ratio = float(mpmath.log(p / p_prime)) if p_prime > 0 else math.inf
            return Counterexample(
                description=(
                    f"the noise scale changes between neighbours (S(x)/alpha = {float(scales[0]):g}, S(x')/alpha = "
                    f"{float(scales[1]):g}): the log density ratio tends to {sympy.sstr(limit)} as y -> "
                    f"{'+' if side > 0 else '-'}oo, and the released tail event S has P[M(x) in S] > e^epsilon P[M(x') in S]"
                ),
                inputs=(tuple(x), tuple(neighbour)),
                output=None,
                output_set=f"released y {relation} {float(threshold)!r}",
                log_ratio=log_ratio,
                bound=claim.epsilon,
                mass=float(p),
                precision_digits=DIGITS,
                extra={
                    "P[M(x) in S]": mpmath.nstr(p, 20),
                    "P[M(x') in S]": mpmath.nstr(p_prime, 20),
                    "threshold": sympy.sstr(threshold),
                    "centres": [float(c) for c in centres],
                    "scales": [float(s) for s in scales],
                    "exact": "tails of h at the grid cell's boundary, closed form, evaluated at 50 digits",
                },
            )
    return None
