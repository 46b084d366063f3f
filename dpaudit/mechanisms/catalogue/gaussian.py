"""The Gaussian mechanism: classic calibration and the analytic calibration of Balle & Wang.

M(D) = f(D) + Z with Z ~ N(0, sigma^2) and density p(y | q) = exp(-(y - q)^2 / (2 sigma^2)) / (sigma sqrt(2 pi)).

* ``gaussian`` -- classic calibration sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon, which gives
  (epsilon, delta)-DP for epsilon < 1 (Dwork & Roth 2014, Thm. A.1).  Proof idea: the privacy loss
  ln(p(y|q)/p(y|q')) = Delta (2(y - q) + Delta)/(2 sigma^2) is Gaussian; it exceeds epsilon with
  probability below delta once sigma is that large, and the tail bound used needs epsilon < 1.
* ``gaussian-analytic`` -- sigma is the smallest value with
  Phi(Delta/(2 sigma) - epsilon sigma/Delta) - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta) <= delta,
  which is *exactly* the condition for (epsilon, delta)-DP (Balle & Wang 2018, ICML, "Improving the
  Gaussian mechanism for differential privacy: analytical calibration and optimal denoising",
  Thm. 8); it is solved by root finding (their Alg. 1 solves the same equation), for every epsilon > 0.

Both entries act on a count (records in {0, 1}, add/remove neighbours, Delta = 1).  Outputs are
released on the power-of-two grid of :mod:`dpaudit.mechanisms._grid` for scale sigma (post-processing,
so the guarantees are kept; no floating-point lattice reveals the input).  What is left of float error
is the resolution of numpy's ziggurat normal sampler, far below the grid cells' probabilities in the
bulk; the declared density is the continuous normal one.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from ..._validation import check_positive_finite, check_unit_interval
from ...claims import ApproxDP
from ...errors import InvalidArgument
from ...neighbours import AddRemove
from .._grid import released
from ..base import Mechanism
from ..registry import register
from .laplace import count

__all__ = ["analytic_delta", "analytic_sigma", "classic_sigma"]

_GRID_NOTE = "released on a 2^-16 sigma grid, clamped to 2^24 sigma (mechanisms._grid)"


def classic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """sigma = Delta sqrt(2 ln(1.25 / delta)) / epsilon (Dwork & Roth 2014, Thm. A.1; needs epsilon < 1)."""
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def analytic_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """delta(epsilon) of the Gaussian mechanism with noise sigma (Balle & Wang 2018, Thm. 8).

    delta = Phi(Delta/(2 sigma) - epsilon sigma/Delta) - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta);
    the second term is computed as exp(epsilon + log Phi(.)) to avoid overflow for large epsilon.
    """
    from scipy.special import log_ndtr, ndtr

    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return float(ndtr(a - b) - np.exp(epsilon + log_ndtr(-a - b)))


@cache
def analytic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest sigma with analytic_delta(sigma, epsilon) <= delta (Balle & Wang 2018, Thm. 8, Alg. 1).

    delta(sigma) decreases from 1 (sigma -> 0) to 0 (sigma -> inf), so the root is
    bracketed by doubling and found with ``scipy.optimize.brentq``; the returned sigma is then nudged
    up by ulps until the inequality holds in floating point, so the claim is never undershot.
    """
    from scipy.optimize import brentq

    def excess(sigma: float) -> float:
        return analytic_delta(sigma, epsilon, sensitivity) - delta

    low, high = sensitivity, sensitivity
    while excess(low) <= 0:
        low /= 2.0
    while excess(high) > 0:
        high *= 2.0
    sigma = brentq(excess, low, high, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)
    while excess(sigma) > 0:
        sigma = math.nextafter(sigma, math.inf)
    return float(sigma)


def gaussian_density(epsilon: float, delta: float, sensitivity: float, *, analytic: bool, sigma: float | None = None):
    """The normal density with the calibration as a symbolic function of the parameters.

    Classic: sigma = Delta sqrt(2 ln(5/(4 delta))) / epsilon, claim (epsilon, delta) under the extra
    assumption epsilon < 1.  Analytic: sigma is a free positive parameter and the claim is
    (epsilon, delta_BW(sigma, epsilon, Delta)) with delta_BW of Balle & Wang Thm. 8, written with
    Phi(x) = (1 + erf(x / sqrt 2)) / 2 -- true for every sigma, epsilon, Delta > 0.
    """
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q, eps, dlt, sens = symbol("y"), symbol("q"), symbol("epsilon"), symbol("delta"), symbol("Delta")
    if analytic:
        sig = symbol("sigma")

        def phi(x: Any) -> Any:
            return (1 + sympy.erf(x / sympy.sqrt(2))) / 2

        u, v = sens / (2 * sig), eps * sig / sens
        claim_delta = phi(u - v) - sympy.exp(eps) * phi(-u - v)
        instance = {eps: epsilon, sens: sensitivity, sig: sigma}
        assumptions: tuple[Any, ...] = ()
        note = f"sigma solved numerically for delta={delta:g}; {_GRID_NOTE}"
    else:
        sig = sens * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / dlt)) / eps
        claim_delta = dlt
        instance = {eps: epsilon, dlt: delta, sens: sensitivity}
        assumptions = (eps < 1, dlt < 1)
        note = _GRID_NOTE
    expr = sympy.exp(-((y - q) ** 2) / (2 * sig**2)) / (sig * sympy.sqrt(2 * sympy.pi))
    return SymbolicDensity(
        expr=expr,
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        delta=claim_delta,
        sensitivity=sens,
        instance=instance,
        assumptions=assumptions,
        note=note,
    )


def _check_parameters(epsilon: float, delta: float) -> tuple[float, float]:
    epsilon = check_positive_finite("epsilon", epsilon)
    delta = check_unit_interval("delta", delta, low_open=True)
    return epsilon, delta


@register("gaussian")
def gaussian(epsilon: float = 0.5, delta: float = 1e-5) -> Mechanism:
    """Classic Gaussian mechanism on a count, sigma = sqrt(2 ln(1.25/delta))/epsilon (epsilon < 1)."""
    epsilon, delta = _check_parameters(epsilon, delta)
    if epsilon >= 1:
        raise InvalidArgument(f"epsilon={epsilon!r} must be < 1 for the classic calibration (Dwork & Roth Thm. A.1)")
    sigma = classic_sigma(epsilon, delta)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return released(count(data), rng.normal(0.0, sigma, size=n), sigma)

    def density():
        return gaussian_density(epsilon, delta, 1.0, analytic=False)

    return Mechanism(
        name="gaussian",
        claim=ApproxDP(epsilon, delta),
        neighbours=AddRemove(),
        sampler=sample,
        family="gaussian",
        description=f"Gaussian on a count, classic sigma={sigma:.4g}, epsilon={epsilon:g}, delta={delta:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        source="Dwork & Roth (2014) Thm. A.1",
    )


@register("gaussian-analytic")
def gaussian_analytic(epsilon: float = 1.0, delta: float = 1e-5) -> Mechanism:
    """Analytic Gaussian mechanism on a count (Balle & Wang 2018, Thm. 8): valid for every epsilon > 0.

    sigma is computed on first use (scipy is imported then, not when the catalogue is listed).
    """
    epsilon, delta = _check_parameters(epsilon, delta)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        sigma = analytic_sigma(epsilon, delta)
        return released(count(data), rng.normal(0.0, sigma, size=n), sigma)

    def density():
        return gaussian_density(epsilon, delta, 1.0, analytic=True, sigma=analytic_sigma(epsilon, delta))

    return Mechanism(
        name="gaussian-analytic",
        claim=ApproxDP(epsilon, delta),
        neighbours=AddRemove(),
        sampler=sample,
        family="gaussian",
        description=f"analytic Gaussian on a count, epsilon={epsilon:g}, delta={delta:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        source="Balle & Wang (2018, ICML) Thm. 8 and Alg. 1",
    )
