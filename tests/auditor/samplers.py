"""Leaky float samplers and must-pass controls shared by the leak-check tests.

Leaky (Mironov 2012, CCS; Jin et al. 2022 for the Gaussian): textbook float Laplace q + s*(-b log u),
scipy.stats.laplace.rvs, numpy Generator.laplace, Box-Muller Gaussian.  Controls: snapping to a
power-of-two grid coarser than the noise's rounding, an exact integer discrete Laplace (difference
of two geometric draws), a discrete Gaussian (Canonne, Kamath & Steinke 2020, Alg. 3: discrete
Laplace proposals accepted with probability exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import ApproxDP, Mechanism, PureDP
from dpaudit.mechanisms._grid import snap_to_grid
from dpaudit.mechanisms.float_noise import FloatNoise

DELTA = 1e-5

_libm_log = np.frompyfunc(lambda t: math.log(t) if t > 0 else -math.inf, 1, 1)


def libm_log(x: np.ndarray) -> np.ndarray:
    """The C library log that numpy's samplers call (np.log on arrays may use a SIMD variant)."""
    return _libm_log(x).astype(float)


def textbook_laplace(epsilon: float) -> Mechanism:
    b = 1.0 / epsilon

    def sample(q, n, rng):
        sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        return q + sign * (-b * np.log(1.0 - rng.random(n)))

    noise = FloatNoise(lambda u: -b * np.log(u), bits=53, signed=True, description="-b log u, random sign")
    return Mechanism.from_callable(sample, claim=PureDP(epsilon), name="textbook-laplace", noise=noise)


def _branches(u: np.ndarray, log, scale: float, after: bool) -> np.ndarray:
    """U < 0.5 ? log(U+U) : -log(2-U-U), each branch evaluated only where it applies (scaled before or after)."""
    out = np.empty(u.shape)
    low = u < 0.5
    if after:
        out[low], out[~low] = log(u[low] + u[low]) * scale, -log(2.0 - u[~low] - u[~low]) * scale
    else:
        out[low], out[~low] = scale * log(u[low] + u[low]), -(scale * log(2.0 - u[~low] - u[~low]))
    return out


def _numpy_laplace_noise(b: float) -> FloatNoise:
    # numpy distributions.c random_laplace: U < 0.5 ? loc + b*log(U+U) : loc - b*log(2-U-U), U = k 2^-53
    return FloatNoise(
        lambda u: np.where(u < 0.5, b * np.log(u + u), -(b * np.log(2.0 - u - u))),
        bits=53,
        exact_function=lambda u: _branches(u, libm_log, b, after=False),
        description="numpy Generator.laplace",
    )


def numpy_laplace(epsilon: float) -> Mechanism:
    b = 1.0 / epsilon
    return Mechanism.from_callable(
        lambda q, n, rng: q + rng.laplace(0.0, b, size=n),
        claim=PureDP(epsilon),
        name="numpy-laplace",
        noise=_numpy_laplace_noise(b),
    )


def scipy_laplace(epsilon: float) -> Mechanism:
    from scipy import stats

    b = 1.0 / epsilon
    # scipy: rvs = random_state.laplace(0, 1, size) * scale + loc
    noise = FloatNoise(
        lambda u: np.where(u < 0.5, np.log(u + u), -np.log(2.0 - u - u)) * b,
        bits=53,
        exact_function=lambda u: _branches(u, libm_log, b, after=True),
        description="scipy.stats.laplace.rvs",
    )
    return Mechanism.from_callable(
        lambda q, n, rng: stats.laplace.rvs(loc=q, scale=b, size=n, random_state=rng),
        claim=PureDP(epsilon),
        name="scipy-laplace",
        noise=noise,
    )


def gaussian_sigma(epsilon: float) -> float:
    """Classic calibration sigma = sqrt(2 ln(1.25/delta)) / epsilon (Dwork & Roth 2014, Thm. A.1)."""
    return math.sqrt(2 * math.log(1.25 / DELTA)) / epsilon


def box_muller(epsilon: float) -> Mechanism:
    sigma = gaussian_sigma(epsilon)

    def sample(q, n, rng):
        radius = np.sqrt(-2.0 * np.log(1.0 - rng.random(n)))
        return q + sigma * radius * np.cos(2.0 * np.pi * rng.random(n))

    return Mechanism.from_callable(sample, claim=ApproxDP(epsilon, DELTA), name="box-muller")


def snapping(epsilon: float) -> Mechanism:
    b = 1.0 / epsilon
    return Mechanism.from_callable(
        lambda q, n, rng: snap_to_grid(q + rng.laplace(0.0, b, size=n), b),
        claim=PureDP(epsilon),
        name="snapping",
        # declares the textbook-style noise although it snaps: the support check must refuse
        noise=_numpy_laplace_noise(b),
    )


def discrete_laplace_draws(t: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """Exact integer discrete Laplace: G1 - G2 with G ~ Geometric(1 - e^(-1/t)) (int64 arithmetic)."""
    p = -math.expm1(-1.0 / t)
    return rng.geometric(p, size=n).astype(np.int64) - rng.geometric(p, size=n).astype(np.int64)


def discrete_laplace(epsilon: float) -> Mechanism:
    return Mechanism.from_callable(
        lambda q, n, rng: int(q) + discrete_laplace_draws(1.0 / epsilon, n, rng),
        claim=PureDP(epsilon),
        name="discrete-laplace",
    )


def discrete_gaussian_draws(sigma: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """CKS20 Alg. 3 (vectorised rejection), t = floor(sigma) + 1."""
    t = math.floor(sigma) + 1
    out = np.empty(0, dtype=np.int64)
    while out.size < n:
        y = discrete_laplace_draws(t, 2 * n, rng)
        accept = rng.random(2 * n) < np.exp(-((np.abs(y) - sigma**2 / t) ** 2) / (2 * sigma**2))
        out = np.concatenate([out, y[accept]])
    return out[:n]


def discrete_gaussian(epsilon: float) -> Mechanism:
    sigma = gaussian_sigma(epsilon)
    return Mechanism.from_callable(
        lambda q, n, rng: int(q) + discrete_gaussian_draws(sigma, n, rng),
        claim=ApproxDP(epsilon, DELTA),
        name="discrete-gaussian",
    )


LEAKY = {"textbook": textbook_laplace, "scipy": scipy_laplace, "numpy": numpy_laplace}
CONTROLS = {"snapping": snapping, "discrete-laplace": discrete_laplace, "discrete-gaussian": discrete_gaussian}
