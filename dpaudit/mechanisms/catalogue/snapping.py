"""The snapping mechanism (Mironov 2012, "On significance of the least significant bits for
differential privacy", CCS, Sect. 5.2): the Laplace mechanism made safe for floating point.

For a query f of sensitivity 1 (here a count under add/remove neighbours), noise scale lambda
(= 1/epsilon), clamp bound B and Lambda the smallest power of two >= lambda, the mechanism outputs

    clamp_B( Lambda * round( (clamp_B(f(D)) (+) S (x) lambda (x) LN(U*)) / Lambda ) )

with S a fair sign, (+), (x) and LN the floating-point operations, and U* the uniform distribution
on the doubles of (0, 1), each double drawn with probability equal to the length of the real
interval it stands for.  Mironov's Thm. 1: for lambda < B < 2^46 lambda this is
((1 + 12 B eta) / lambda + 2 eta)-DP with eta = 2^-53 the unit roundoff, i.e. at most
1/lambda + 2^-49 B/lambda + 2^-52.  Proof idea: rounding to the coarse grid Lambda Z makes every output
a union of whole Laplace cells; the relative error of each float operation (at most eta) moves the
cell boundaries by at most a factor (1 + 12 eta) on |noise| <= 2B, which inflates the ratio of
neighbouring cell probabilities by the B eta / lambda term; clamping bounds |noise| that matters.
The entry's claim is that epsilon, so it is slightly above the nominal 1/lambda.  B must be a
multiple of Lambda so that the clamped ends are grid points.  The declared density is the pmf of the
output in exact arithmetic (Laplace cell probabilities, clamped ends), whose ratio is at most e^(1/lambda).

The uniform U*: 53 significant random bits at every scale -- a geometric exponent e >= 0 (P = 2^-(e+1),
read from the leading zeros of an infinite bit string) and a uniform 52-bit mantissa m give
U* = (2^52 + m) 2^-(53 + e), the uniform on (0, 1) rounded down to a double.  A fixed-point uniform
k 2^-53 would not do: it truncates |ln U| at 36.7, so for B > 36 lambda the extreme cells would be
reachable from q but not from q + 1, an infinite privacy loss on an event of mass ~2^-53.  The
exponent is capped at 1021 (normal doubles only), an event of probability 2^-1022.  numpy's ``log``
is used for LN; Mironov's analysis assumes a correctly rounded logarithm, numpy's is accurate to
within one ulp on this platform, an error of the same order as the (x) and (+) roundings his
12 B eta term accounts for.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from ..._validation import check_positive_finite
from ...claims import PureDP
from ...errors import InvalidArgument
from ...neighbours import AddRemove
from ..base import Mechanism
from ..registry import register
from .laplace import count

__all__ = [
    "full_precision_uniform",
    "full_precision_uniform_once",
    "mironov_epsilon",
    "snap_grid",
    "snapping_density",
    "snapping_noise_release",
    "snapping_once",
]

UNIT_ROUNDOFF = 2.0**-53
_MAX_EXPONENT = 1021


def snap_grid(scale: float) -> float:
    """Lambda: the smallest power of two >= lambda (Mironov 2012, Sect. 5.2)."""
    mantissa, exponent = math.frexp(scale)  # scale = mantissa 2^exponent, mantissa in [1/2, 1): exact
    return float(scale) if mantissa == 0.5 else math.ldexp(1.0, exponent)


def mironov_epsilon(scale: float, bound: float) -> float:
    """((1 + 12 B eta) / lambda + 2 eta) for sensitivity 1 (Mironov 2012, Thm. 1; needs lambda < B < 2^46 lambda)."""
    return (1.0 + 12.0 * bound * UNIT_ROUNDOFF) / scale + 2.0 * UNIT_ROUNDOFF


def full_precision_uniform(n: int, rng: np.random.Generator) -> np.ndarray:
    """n draws of U* = (2^52 + m) 2^-(53 + e): uniform on (0, 1) rounded down to a double (see module notes)."""
    exponent = np.minimum(rng.geometric(0.5, size=n) - 1, _MAX_EXPONENT)
    mantissa = rng.integers(0, 2**52, size=n, dtype=np.int64) + 2**52
    return np.ldexp(mantissa.astype(np.float64), -(53 + exponent))


def uniform_exponent(rng: random.Random) -> int:
    """The exponent e of U*: P(e = k) = 2^-(k+1) for k < 1021 and P(e = 1021) = 2^-1021, from fair bits."""
    exponent = 0
    while exponent < _MAX_EXPONENT:
        if rng.getrandbits(1):
            return exponent
        exponent += 1
    return exponent


def full_precision_uniform_once(rng: random.Random) -> float:
    """One draw of U* = (2^52 + m) 2^-(53 + e) from a ``random.Random``: the law of :func:`full_precision_uniform`.

    The product by a power of two is exact (no underflow: 53 + e <= 1074 keeps the result normal).
    """
    exponent = uniform_exponent(rng)
    mantissa = rng.getrandbits(52)
    return (2**52 + mantissa) * 2.0 ** -(53 + exponent)


def snapping_once(value: float, scale: float, bound: float, rng: random.Random) -> float:
    """One output clamp_B(Lambda round((clamp_B(value) + S lambda ln U*) / Lambda)), with ``math.log``.

    The same formula as :func:`snapping_noise_release` for one run, from a ``random.Random``: the sign
    from one fair bit, U* from :func:`full_precision_uniform_once`, Python's ``round`` (half to even, as
    numpy's ``rint``).  Its logarithm is libm's ``log`` through ``math.log``, which may differ from
    numpy's vectorised ``log`` in the last bit: the certificate is of this code.
    """
    grid = snap_grid(scale)
    sign = -1.0 if rng.getrandbits(1) else 1.0
    noisy = min(max(value, -bound), bound) + sign * scale * math.log(full_precision_uniform_once(rng))
    return min(max(round(noisy / grid) * grid, -bound), bound)


def snapping_noise_release(value: float, scale: float, bound: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n outputs clamp_B(Lambda round((clamp_B(value) + S lambda ln U*) / Lambda)) in float64."""
    grid = snap_grid(scale)
    sign = rng.choice(np.array([-1.0, 1.0]), size=n)
    noisy = min(max(value, -bound), bound) + sign * scale * np.log(full_precision_uniform(n, rng))
    # Lambda is a power of two, so the division and the product by it are exact in floating point.
    return np.clip(np.rint(noisy / grid) * grid, -bound, bound)


def snapping_density(epsilon: float, bound: float, claimed: float):
    """The pmf of the snapping output in exact arithmetic, for the instance's Lambda and B.

    With c = min(max(q, -B), B), F the CDF of Lap(c, 1/epsilon) and y in {-B, -B + Lambda, ..., B}
    (B a multiple of Lambda):
        P(y) = F(-B + Lambda/2)                           for y = -B,
        P(y) = 1 - F(B - Lambda/2)                        for y = B,
        P(y) = F(y + Lambda/2) - F(y - Lambda/2)          otherwise.
    This is post-processing of the Laplace mechanism, so its ratio is at most e^epsilon for every
    epsilon > 0 (Lambda and B are held at the instance's values); the claimed epsilon is Mironov's
    (1 + 12 B eta) epsilon + 2 eta, which also covers the floating-point implementation.
    """
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q, eps = symbol("y"), symbol("q"), symbol("epsilon")
    grid = sympy.nsimplify(snap_grid(1.0 / epsilon))
    big = sympy.nsimplify(bound)
    centre = sympy.Min(sympy.Max(q, -big), big)

    def cdf(t: Any) -> Any:
        return sympy.Piecewise(
            (sympy.exp((t - centre) * eps) / 2, t < centre), (1 - sympy.exp(-(t - centre) * eps) / 2, True)
        )

    expr = sympy.Piecewise(
        (cdf(-big + grid / 2), sympy.Eq(y, -big)),
        (1 - cdf(big - grid / 2), sympy.Eq(y, big)),
        (cdf(y + grid / 2) - cdf(y - grid / 2), True),
    )
    cells = int(2 * bound / snap_grid(1.0 / epsilon))
    eta = sympy.Rational(1, 2**53)
    return SymbolicDensity(
        expr=expr,
        outputs=(y,),
        inputs=(q,),
        epsilon=(1 + 12 * big * eta) * eps + 2 * eta,
        sensitivity=1,
        discrete=True,
        output_domain=sympy.FiniteSet(*(-big + j * grid for j in range(cells + 1))),
        instance={eps: epsilon},
        note=(
            f"exact-arithmetic pmf with Lambda = {snap_grid(1.0 / epsilon):g} and B = {bound:g}; the float "
            f"implementation is covered by Mironov's Thm. 1 (claimed epsilon {claimed!r})"
        ),
    )


@register("snapping")
def snapping(epsilon: float = 0.5, bound: float = 100.0) -> Mechanism:
    """Mironov's snapping mechanism on a count with lambda = 1/epsilon and clamp bound B = ``bound``.

    The claim is Mironov's Thm. 1 epsilon, (1 + 12 B 2^-53) epsilon + 2^-52, just above ``epsilon``.
    """
    epsilon = check_positive_finite("epsilon", epsilon)
    bound = check_positive_finite("bound", bound)
    scale = 1.0 / epsilon
    if not scale < bound < 2.0**46 * scale:
        raise InvalidArgument(f"bound={bound!r} must satisfy 1/epsilon < bound < 2^46/epsilon (Mironov 2012, Thm. 1)")
    if bound % snap_grid(scale) != 0:
        raise InvalidArgument(f"bound={bound!r} must be a multiple of Lambda={snap_grid(scale)!r}")
    claimed = mironov_epsilon(scale, bound)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snapping_noise_release(count(data), scale, bound, n, rng)

    def density():
        return snapping_density(epsilon, bound, claimed)

    def one_run(data: Any, rng: random.Random) -> float:
        return snapping_once(count(data), scale, bound, rng)

    return Mechanism(
        name="snapping",
        claim=PureDP(claimed),
        neighbours=AddRemove(),
        sampler=sample,
        one_run=one_run,
        family="laplace",
        description=(
            f"snapping mechanism on a count, lambda={scale:g}, Lambda={snap_grid(scale):g}, B={bound:g}, "
            f"claim {claimed!r}"
        ),
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        source="Mironov (2012, CCS) Sect. 5.2, Thm. 1",
    )
