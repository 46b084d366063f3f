"""Report noisy max that releases the noisy maximum VALUE instead of its index.

Report noisy max (Dwork & Roth 2014, Claim 3.9) adds independent noise Z_i to k query answers q_i
and releases argmax_i (q_i + Z_i); with Laplace(2 Delta / eps) or Exponential(2 Delta / eps) noise
that index is eps-DP under the "ALL" neighbourhood ||q - q'||_inf <= Delta.  Releasing the value
Y = max_i (q_i + Z_i) instead leaks far more.  Its density is

    p(y | q) = d/dy prod_i F(y - q_i) = sum_i f(y - q_i) prod_{j != i} F(y - q_j)

with f, F the noise density and CDF.

``noisy-max-value-laplace`` (StatDP ``noisy_max_v1b``; DP-Sniper RNM3) -- Laplace noise, b = 2/eps.
    True epsilon k eps / 2 (0.25 for k = 5, eps = 0.1).  Derivation: for y below every q_i,
    F(y - q_i) = exp((y - q_i)/b) / 2 and f = F / b, so p(y | q) = (k / b) 2^-k exp(sum_i (y - q_i) / b)
    and p(y | q) / p(y | q + 1) = exp(k / b) = exp(k eps / 2) exactly on that half-line; each of the
    k factors of the product is log-Lipschitz with constant 1/b, and the same holds for the
    sum of products, so no output does worse (Ding et al. 2018, Sect. 6; DP-Sniper Table 2).
    Witness: (1, ..., 1) vs (2, ..., 2) (StatDP's "all above" input), y well below 1.

``noisy-max-value-exponential`` (StatDP ``noisy_max_v2b``; DP-Sniper RNM4) -- one-sided noise
    Z_i ~ Exponential(scale 2/eps) >= 0.  True epsilon inf: Y >= max_i q_i always, so the support
    [max q, inf) moves with the input and an output in [max q, max q') has probability 0 under q'.
    For StatDP's all-equal inputs (1...1) vs (2...2) the witnessing event {Y < 2} has mass
    (1 - e^(-eps/2))^5 = 2.8e-7 at k = 5, eps = 0.1; for the skewed pair (0, -10, -10, -10, -10) vs
    (1, -9, -9, -9, -9) the event {Y < 1} has mass (1 - e^-0.05)(1 - e^-0.55)^4 = 1.6e-3, within
    reach of a Monte Carlo audit (violations hidden in low-mass events: 'The Curator Attack',
    arXiv 2411.16516).

Outputs are released on the power-of-two grid of :mod:`dpaudit.mechanisms._grid` (post-processing), so
the documented flaw is the only one: no floating-point lattice adds to it.  The declared densities are
the continuous ones above, with the claim the buggy code makes (eps-DP, ||q - q'||_inf <= Delta).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...._validation import check_positive_finite, check_positive_int
from ....claims import PureDP
from ....neighbours import QueryDistance
from ..._grid import snap_to_grid
from ..._queries import identity_query, query_vector
from ...base import Mechanism
from ...registry import register

__all__ = ["noisy_max_value_density"]

_SOURCE_STATDP = (
    "Ding, Wang, Wang, Zhang & Kifer (2018, CCS) 'Detecting violations of differential privacy', StatDP "
    "{statdp}; Bichsel, Steffen, Bogunovic & Vechev (2021, S&P) DP-Sniper {sniper}"
)


def noisy_max_value_density(k: int, epsilon: float, noise: str):
    """p(y | q) = sum_i f(y - q_i) prod_{j != i} F(y - q_j), noise scale b = 2 Delta / eps.

    ``noise`` is ``"laplace"`` (f(z) = e^(-|z|/b) / (2b)) or ``"exponential"``
    (f(z) = e^(-z/b) / b for z >= 0).  Symbolic in eps and Delta; ``epsilon`` is the instance value.
    """
    import sympy

    from ...density import SymbolicDensity, symbol

    y, eps, sens = symbol("y"), symbol("epsilon"), symbol("Delta")
    qs = tuple(symbol(f"q{i}") for i in range(1, k + 1))
    b = 2 * sens / eps

    def pdf(z: Any) -> Any:
        if noise == "laplace":
            return sympy.exp(-sympy.Abs(z) / b) / (2 * b)
        return sympy.Piecewise((sympy.exp(-z / b) / b, z >= 0), (0, True))

    def cdf(z: Any) -> Any:
        if noise == "laplace":  # e^(z/b)/2 for z < 0, 1 - e^(-z/b)/2 for z >= 0, in one overflow-free term
            return (1 + sympy.sign(z) * (1 - sympy.exp(-sympy.Abs(z) / b))) / 2
        return sympy.Piecewise((1 - sympy.exp(-z / b), z >= 0), (0, True))

    expr = sympy.Add(
        *(pdf(y - qi) * sympy.Mul(*(cdf(y - qj) for qj in qs if qj is not qi)) for qi in qs)
    )
    return SymbolicDensity(
        expr=expr,
        outputs=(y,),
        inputs=qs,
        epsilon=eps,
        sensitivity=sens,
        norm="linf",
        instance={eps: epsilon, sens: 1},
        note="the continuous density of the maximum; outputs are released on a 2^-16 b grid (mechanisms._grid)",
    )


def _noisy_max_value(name: str, noise: str, epsilon: float, k: int, **fields: Any) -> Mechanism:
    epsilon = check_positive_finite("epsilon", epsilon)
    k = check_positive_int("k", k)
    scale = 2.0 / epsilon

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        q = query_vector(data, k)
        if noise == "laplace":
            z = rng.laplace(0.0, scale, size=(n, k))
        else:
            z = rng.exponential(scale, size=(n, k))
        return snap_to_grid(np.max(q + z, axis=1), scale)

    def density():
        return noisy_max_value_density(k, epsilon, noise)

    def program():
        from ...programs import noisy_max_program

        return noisy_max_program(name, epsilon=epsilon, queries=k, scale=lambda eps, sens: 2 * sens / eps,
                                 distribution=noise, release="value")

    return Mechanism(
        name=name,
        claim=PureDP(epsilon),
        neighbours=QueryDistance(1.0, "linf"),
        sampler=sample,
        family="noisy-max",
        query=identity_query,
        sensitivity=1.0,
        density=density,
        program=program,
        **fields,
    )


@register("noisy-max-value-laplace")
def noisy_max_value_laplace(epsilon: float = 0.1, k: int = 5) -> Mechanism:
    """Noisy max with Laplace(2/eps) noise that returns the noisy maximum value: true eps k eps / 2."""
    return _noisy_max_value(
        "noisy-max-value-laplace",
        "laplace",
        epsilon,
        k,
        description=f"report noisy max returning the value, Laplace(2/eps), k={k}, eps={epsilon:g}",
        domain=(1.0,) * k,
        pairs=(((1.0,) * k, (2.0,) * k), ((0.0,) * k, (1.0,) * k)),
        flaw=(
            "releases the noisy maximum value instead of its index, so every one of the k noisy answers "
            "shifts the output: the privacy loss adds up to k eps / 2 instead of staying at eps"
        ),
        true_epsilon=k * epsilon / 2,
        source=_SOURCE_STATDP.format(statdp="noisy_max_v1b", sniper="RNM3"),
    )


@register("noisy-max-value-exponential")
def noisy_max_value_exponential(epsilon: float = 0.1, k: int = 5) -> Mechanism:
    """Noisy max with one-sided Exponential(2/eps) noise returning the value: true eps inf."""
    skewed = (0.0,) + (-10.0,) * (k - 1)
    return _noisy_max_value(
        "noisy-max-value-exponential",
        "exponential",
        epsilon,
        k,
        description=f"report noisy max returning the value, Exponential(2/eps), k={k}, eps={epsilon:g}",
        domain=(1.0,) * k,
        pairs=(
            (skewed, tuple(v + 1.0 for v in skewed)),
            ((1.0,) * k, (2.0,) * k),
        ),
        flaw=(
            "releases the maximum of q_i plus one-sided exponential noise, whose support [max q, inf) moves "
            "with the input: an output below max q' is impossible under q', so no finite epsilon holds"
        ),
        true_epsilon=math.inf,
        source=_SOURCE_STATDP.format(statdp="noisy_max_v2b", sniper="RNM4")
        + "; low-mass witnesses: 'The Curator Attack' (arXiv 2411.16516)",
    )
