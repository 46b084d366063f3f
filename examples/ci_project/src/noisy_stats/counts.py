"""Noisy counts.

``private_count`` is the Laplace mechanism with scale 1/epsilon, released on a power-of-two grid so the
floating-point output does not reveal the input (Mironov 2012): epsilon-DP for add/remove neighbours.

``buggy_count`` divides where it should multiply: its noise scale is 1/(2 epsilon), so it spends
2 epsilon while claiming epsilon. dpaudit's audit catches it.
"""

import numpy as np

EPSILON = 1.0
GRID = 2.0**-16


def private_count(records, n, rng):
    """n runs of: count(records) + Laplace(1/EPSILON), rounded to a 2^-16 grid."""
    noisy = sum(records) + rng.laplace(0.0, 1.0 / EPSILON, size=n)
    return np.rint(noisy / GRID) * GRID


def buggy_count(records, n, rng):
    """The same with the scale halved by mistake: really 2*EPSILON-DP."""
    noisy = sum(records) + rng.laplace(0.0, 0.5 / EPSILON, size=n)
    return np.rint(noisy / GRID) * GRID
