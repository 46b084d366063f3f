"""The two-sided geometric mechanism = discrete Laplace noise on an integer query.

Ghosh, Roughgarden & Sundararajan, "Universally utility-maximizing privacy mechanisms", STOC 2009:
M(D) = f(D) + Z with P[Z = z] = (1 - a)/(1 + a) a^|z| on the integers, a = exp(-eps/Delta).
For |f(D) - f(D')| <= Delta the pmf ratio is a^(|y - q| - |y - q'|) <= a^(-|q - q'|) <= e^eps
(triangle inequality), so the mechanism is pure eps-DP; the bound is attained at every y outside
the open interval between q and q' (tight).

The noise is drawn exactly (Canonne, Kamath & Steinke 2020, Alg. 2; see
:mod:`dpaudit.mechanisms._discrete_sampling`): no float rounding, hence no lattice or rounding leak.
Exactness needs a rational scale Delta/eps: epsilon is read with ``as_fraction`` (a float becomes the
nearest fraction with denominator at most 10^6, e.g. 0.1 -> 1/10) and that rational is the epsilon
claimed and declared.  ``one_run`` draws the same law from a ``random.Random``
(:func:`dpaudit.mechanisms.one_run.discrete_laplace` with scale t / s = 1 / eps).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import numpy as np

from ...claims import PureDP
from ...errors import InvalidArgument
from ...neighbours import AddRemove
from .._discrete_sampling import as_fraction, discrete_laplace
from ..base import Mechanism
from ..one_run import discrete_laplace as draw_discrete_laplace
from ..registry import register
from .laplace import count

__all__ = ["geometric", "geometric_density", "positive_fraction"]


def positive_fraction(name: str, value: Any) -> Fraction:
    """``value`` as a rational (``as_fraction``) that must be > 0."""
    exact = as_fraction(name, value)
    if exact <= 0:
        raise InvalidArgument(f"{name}={value!r} must be a positive number")
    return exact


def geometric_density(epsilon: Any, sensitivity: Fraction, note: str = ""):
    """p(y | q) = (1 - a)/(1 + a) a^|y - q|, a = exp(-epsilon/Delta), y integer; symbolic eps, Delta.

    ``epsilon`` at the instance is a Fraction or an exact sympy number (``log(2)``)."""
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q, eps, sens = symbol("y"), symbol("q"), symbol("epsilon"), symbol("Delta")
    a = sympy.exp(-eps / sens)
    return SymbolicDensity(
        expr=(1 - a) / (1 + a) * a ** sympy.Abs(y - q),
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        sensitivity=sens,
        discrete=True,
        output_domain=sympy.S.Integers,
        instance={
            eps: sympy.Rational(epsilon.numerator, epsilon.denominator) if isinstance(epsilon, Fraction) else epsilon,
            sens: sympy.Rational(sensitivity.numerator, sensitivity.denominator),
        },
        note=note,
    )


def integer_count(data: Any) -> int:
    """The number of records equal to 1, as an exact integer (sensitivity 1)."""
    return int(count(data))


@register("geometric")
def geometric(epsilon: float = 1.0) -> Mechanism:
    """Two-sided geometric (discrete Laplace) mechanism on a count; exact integer sampler."""
    eps = positive_fraction("epsilon", epsilon)
    scale = 1 / eps  # Delta / eps with Delta = 1

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return integer_count(data) + discrete_laplace(scale, n, rng)

    def one_run(data: Any, rng: random.Random) -> int:
        noise = draw_discrete_laplace(scale.numerator, scale.denominator, rng)
        return integer_count(data) + noise

    def density():
        return geometric_density(eps, Fraction(1), note=f"exact sampler (CKS20 Alg. 2), epsilon = {eps}")

    return Mechanism(
        name="geometric",
        claim=PureDP(float(eps)),
        neighbours=AddRemove(),
        sampler=sample,
        one_run=one_run,
        family="geometric",
        description=f"two-sided geometric (discrete Laplace) mechanism on a count, epsilon={eps}",
        query=integer_count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        true_epsilon=float(eps),
        source="Ghosh, Roughgarden & Sundararajan (2009) STOC; sampler: Canonne, Kamath & Steinke (2020) Alg. 2",
    )
