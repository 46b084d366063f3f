"""The staircase mechanism (Geng & Viswanath, "The optimal noise-adding mechanism in differential
privacy", IEEE Trans. Inf. Theory 62(2), 2016; arXiv 1212.1186).

M(D) = f(D) + X where X has the symmetric staircase density with parameters epsilon, Delta and
gamma in [0, 1]: with b = e^(-epsilon) and a(gamma) = (1 - b) / (2 Delta (gamma + (1 - gamma) b)),

    p(x) = a(gamma) e^(-k epsilon)        for |x| in [k Delta, (k + gamma) Delta),
    p(x) = a(gamma) e^(-(k+1) epsilon)    for |x| in [(k + gamma) Delta, (k + 1) Delta),   k = 0, 1, ...

i.e. p(x) = a(gamma) exp(-epsilon floor(|x|/Delta + 1 - gamma)).  Privacy: for |q - q'| <= Delta,
|y - q| and |y - q'| differ by at most Delta, so floor(|y-q|/Delta + 1 - gamma) and
floor(|y-q'|/Delta + 1 - gamma) differ by at most one and the density ratio is at most e^epsilon
(Geng & Viswanath Sect. III): pure epsilon-DP, attained (true epsilon = epsilon).  The choice
gamma* = 1 / (1 + e^(epsilon/2)) minimises E|X| (their Thm. 3).

Sampler (Geng & Viswanath Alg. 1): sign S = +-1 fair; G geometric with P(G = i) = (1 - b) b^i;
U uniform on [0, 1); B Bernoulli with P(B = 1) = (1 - gamma) b / (gamma + (1 - gamma) b);
X = S ((1 - B)(G + gamma U) + B (G + gamma + (1 - gamma) U)) Delta.

The entry acts on a count (records in {0, 1}, add/remove neighbours, Delta = 1).  Outputs are rounded
to the power-of-two grid of :mod:`dpaudit.mechanisms._grid` for scale gamma* Delta, the narrowest step
of the staircase (post-processing: the guarantee is kept and no float lattice reveals the input).
The declared density is the continuous staircase density.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._validation import check_positive_finite
from ...claims import PureDP
from ...neighbours import AddRemove
from .._grid import snap_to_grid
from ..base import Mechanism
from ..registry import register
from .laplace import count

__all__ = ["optimal_gamma", "staircase_noise"]


def optimal_gamma(epsilon: float) -> float:
    """gamma* = 1 / (1 + e^(epsilon/2)) (Geng & Viswanath 2016, Thm. 3)."""
    return 1.0 / (1.0 + math.exp(epsilon / 2.0))


def staircase_noise(epsilon: float, sensitivity: float, gamma: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n draws of the staircase noise X (Geng & Viswanath 2016, Alg. 1), vectorised."""
    b = math.exp(-epsilon)
    sign = rng.choice(np.array([-1.0, 1.0]), size=n)
    geometric = rng.geometric(1.0 - b, size=n) - 1.0  # numpy's geometric starts at 1
    uniform = rng.random(n)
    upper_step = rng.random(n) < (1.0 - gamma) * b / (gamma + (1.0 - gamma) * b)
    offset = np.where(upper_step, gamma + (1.0 - gamma) * uniform, gamma * uniform)
    return sign * (geometric + offset) * sensitivity


def staircase_density(epsilon: float, sensitivity: float, note: str = ""):
    """p(y | q) = a exp(-epsilon floor(|y - q|/Delta + 1 - gamma*)), gamma* = 1/(1 + e^(epsilon/2)).

    a = (1 - e^-epsilon) / (2 Delta (gamma* + (1 - gamma*) e^-epsilon)); symbolic in epsilon and Delta.
    """
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q, eps, sens = symbol("y"), symbol("q"), symbol("epsilon"), symbol("Delta")
    gamma = 1 / (1 + sympy.exp(eps / 2))
    b = sympy.exp(-eps)
    a = (1 - b) / (2 * sens * (gamma + (1 - gamma) * b))
    expr = a * sympy.exp(-eps * sympy.floor(sympy.Abs(y - q) / sens + 1 - gamma))
    return SymbolicDensity(
        expr=expr,
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        sensitivity=sens,
        instance={eps: epsilon, sens: sensitivity},
        note=note,
    )


@register("staircase")
def staircase(epsilon: float = 1.0) -> Mechanism:
    """Staircase mechanism with the optimal gamma on a count (add/remove neighbours, Delta = 1)."""
    epsilon = check_positive_finite("epsilon", epsilon)
    gamma = optimal_gamma(epsilon)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap_to_grid(count(data) + staircase_noise(epsilon, 1.0, gamma, n, rng), gamma)

    def density():
        return staircase_density(
            epsilon, 1.0, note="released on a 2^-16 gamma* Delta grid, clamped to 2^24 gamma* Delta (mechanisms._grid)"
        )

    return Mechanism(
        name="staircase",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="staircase",
        description=f"staircase noise on a count, gamma*={gamma:.4g}, epsilon={epsilon:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        true_epsilon=epsilon,
        source="Geng & Viswanath (2016, IEEE Trans. Inf. Theory) Alg. 1, Thm. 3",
    )
