"""The Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Def. 3.3, Thm. 3.6).

M(D) = f(D) + Z with Z ~ Lap(b), b = Delta_1 / epsilon, density p(y | q) = exp(-|y - q| / b) / (2b).
For neighbours with |f(D) - f(D')|_1 <= Delta_1 the log-ratio is
|y - q'| / b - |y - q| / b <= |q - q'| / b <= epsilon (triangle inequality): pure epsilon-DP.

Outputs are released on a fine power-of-two grid (see :mod:`dpaudit.mechanisms._grid`), so no
floating-point lattice reveals the input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..claims import PureDP
from ..neighbours import AddRemove
from ._grid import snap_to_grid
from .base import Mechanism
from .registry import register


def count(data: Any) -> float:
    """The number of records equal to 1 (or True): sensitivity 1 under add/remove and replace."""
    return float(sum(1 for r in data if r == 1))


def laplace_density(epsilon: float, sensitivity: float, note: str = ""):
    """p(y | q) = exp(-|y - q| / b) / (2 b), b = Delta / epsilon, symbolic in epsilon and Delta.

    ``epsilon`` and ``sensitivity`` are the catalogue instance's values.
    """
    import sympy

    from .density import SymbolicDensity, symbol

    y, q, eps, sens = symbol("y"), symbol("q"), symbol("epsilon"), symbol("Delta")
    b = sens / eps
    return SymbolicDensity(
        expr=sympy.exp(-sympy.Abs(y - q) / b) / (2 * b),
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        sensitivity=sens,
        instance={eps: epsilon, sens: sensitivity},
        note=note,
    )


@register("laplace")
def laplace_count(epsilon: float = 1.0) -> Mechanism:
    """Laplace mechanism on a count (records in {0, 1}, add/remove neighbours, Delta = 1)."""
    scale = 1.0 / epsilon

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap_to_grid(count(data) + rng.laplace(0.0, scale, size=n), scale)

    def density():
        return laplace_density(epsilon, 1.0, note="released on a 2^-16 b grid, clamped to 2^24 b (mechanisms._grid)")

    return Mechanism(
        name="laplace",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="laplace",
        description=f"Laplace mechanism on a count, scale 1/epsilon, epsilon={epsilon:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        true_epsilon=epsilon,
        source="Dwork, McSherry, Nissim & Smith (2006); Dwork & Roth (2014) Thm. 3.6",
    )
