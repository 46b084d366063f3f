"""Float-safe release of continuous noise: round onto a power-of-two grid coarser than float error.

A textbook ``q + Laplace(b)`` in doubles is not DP at any epsilon: the set of reachable doubles
depends on q (Mironov 2012, "On significance of the least significant bits for differential
privacy", CCS).  The correct continuous entries of the catalogue therefore release

    y = clamp(g * round((q + Z) / g), -B, B)

with g = 2^(ceil(log2 s) - 16) for noise scale s and B = 2^(ceil(log2 s) + 24).  In exact arithmetic
this is post-processing of q + Z, so it keeps every DP guarantee of the continuous mechanism.  In
doubles every output is a multiple of g whatever q is (no lattice leak: |q + Z| <= 2^53 g), and the
computed cell boundaries differ from the real ones by at most ulp(|q + Z|) << g.  What is left of
float error is the granularity of the uniform behind Z: a cell at distance x from q holds about
2^36 e^(-x/s) of numpy's 2^-53-spaced uniforms, so its probability is exact to a relative 2^-36 e^(x/s),
i.e. to better than 1 % in the log-ratio on |y - q| <= 20 s, outside which lies mass e^(-20) ~ 2e-9.
The declared density is the continuous one; the goodness-of-fit tests compare against it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["grid_for", "released", "snap_to_grid"]


def grid_for(scale: float) -> tuple[float, float]:
    """The grid step g and clamp bound B for noise of scale ``scale`` (see the module docstring)."""
    e = math.ceil(math.log2(scale))
    return math.ldexp(1.0, e - 16), math.ldexp(1.0, e + 24)


def snap_to_grid(values: np.ndarray, scale: float, in_place: bool = False) -> np.ndarray:
    """Round ``values`` to the grid of :func:`grid_for` and clamp them to [-B, B]: one new array, or ``values``
    itself with ``in_place`` (a float array the caller has no other use for: a sampler's own noise)."""
    step, bound = grid_for(scale)
    if np.ndim(values) == 0:
        return np.clip(np.rint(values / step) * step, -bound, bound)
    out = np.divide(values, step, out=values if in_place else None)
    np.rint(out, out=out)
    np.multiply(out, step, out=out)
    return np.clip(out, -bound, bound, out=out)


def released(value: Any, noise: np.ndarray, scale: float) -> np.ndarray:
    """``snap_to_grid(value + noise, scale)`` computed in ``noise``'s own array (a sampler's fresh noise, of no
    other use): one array per draw instead of three, the same doubles (value + noise is noise + value)."""
    noise += value
    return snap_to_grid(noise, scale, in_place=True)
