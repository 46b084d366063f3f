"""The discrete Gaussian mechanism on an integer query (Canonne, Kamath & Steinke 2020).

M(D) = f(D) + Z with P[Z = z] = exp(-z^2 / (2 sigma^2)) / sum_x exp(-x^2 / (2 sigma^2)) on the
integers.  For integer queries with |f(D) - f(D')| <= Delta it is (Delta^2 / (2 sigma^2))-zCDP
(Canonne, Kamath & Steinke 2020, Thm. 4: D_alpha <= alpha Delta^2 / (2 sigma^2), with equality at
the orders where (alpha - 1) Delta is an integer).  The noise is drawn exactly
(:func:`dpaudit.mechanisms._discrete_sampling.discrete_gaussian`, CKS20 Alg. 3): no floating point
decides an outcome.  sigma^2 = Delta^2 / (2 rho) must be rational for the exact sampler; rho is read
with ``as_fraction`` and that rational is the rho claimed and declared.  ``one_run`` draws the same
law from a ``random.Random`` (:func:`dpaudit.mechanisms.one_run.discrete_gaussian`).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import numpy as np

from ...claims import ZeroConcentratedDP
from ...neighbours import AddRemove
from .._discrete_sampling import discrete_gaussian as draw_discrete_gaussian
from ..base import Mechanism
from ..one_run import discrete_gaussian as draw_one_discrete_gaussian
from ..registry import register
from .geometric import integer_count, positive_fraction

__all__ = ["discrete_gaussian", "discrete_gaussian_density"]


def discrete_gaussian_density(rho: Fraction, note: str = ""):
    """p(y | q) = exp(-(y - q)^2 / (2 sigma^2)) / sum_k exp(-k^2 / (2 sigma^2)) on the integers, sigma = Delta / sqrt(2 rho)."""
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q, r, sens, dlt = symbol("y"), symbol("q"), symbol("rho"), symbol("Delta"), symbol("delta")
    k = sympy.Symbol("k", integer=True)
    sigma2 = sens**2 / (2 * r)
    normaliser = sympy.Sum(sympy.exp(-(k**2) / (2 * sigma2)), (k, -sympy.oo, sympy.oo))
    return SymbolicDensity(
        expr=sympy.exp(-((y - q) ** 2) / (2 * sigma2)) / normaliser,
        outputs=(y,),
        inputs=(q,),
        epsilon=r + 2 * sympy.sqrt(r * sympy.log(1 / dlt)),  # the (epsilon, delta) zCDP implies (Bun & Steinke 2016, Prop. 1.3)
        delta=dlt,
        sensitivity=sens,
        discrete=True,
        output_domain=sympy.S.Integers,
        instance={r: sympy.Rational(rho.numerator, rho.denominator), sens: 1, dlt: sympy.Rational(1, 10**5)},
        note=note,
    )


@register("discrete-gaussian")
def discrete_gaussian(rho: float = 0.5) -> Mechanism:
    """Discrete Gaussian mechanism on a count, sigma^2 = 1 / (2 rho): rho-zCDP (CKS 2020, Thm. 4); exact sampler."""
    rho_exact = positive_fraction("rho", rho)
    sigma2 = 1 / (2 * rho_exact)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return integer_count(data) + draw_discrete_gaussian(sigma2, n, rng)

    def one_run(data: Any, rng: random.Random) -> int:
        noise = draw_one_discrete_gaussian(sigma2.numerator, sigma2.denominator, rng)
        return integer_count(data) + noise

    return Mechanism(
        name="discrete-gaussian",
        claim=ZeroConcentratedDP(float(rho_exact)),
        neighbours=AddRemove(),
        sampler=sample,
        one_run=one_run,
        family="discrete-gaussian",
        description=f"discrete Gaussian on a count, sigma^2={sigma2}, stated as {float(rho_exact):g}-zCDP",
        query=integer_count,
        sensitivity=1.0,
        density=lambda: discrete_gaussian_density(rho_exact, note=f"exact sampler (CKS20 Alg. 3), sigma^2 = {sigma2}"),
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        source="Canonne, Kamath & Steinke (2020, NeurIPS) Thm. 4 and Alg. 3",
    )
