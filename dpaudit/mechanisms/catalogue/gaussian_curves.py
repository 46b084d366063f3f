"""The Gaussian mechanism stated as a curve claim: in zero-concentrated DP and in Gaussian DP.

M(D) = f(D) + N(0, sigma^2) on a count (Delta = 1, add/remove neighbours).

* ``gaussian-zcdp`` -- sigma = Delta / sqrt(2 rho) gives rho-zCDP: D_alpha(N(q, sigma^2) || N(q', sigma^2))
  = alpha (q - q')^2 / (2 sigma^2) <= rho alpha (Bun & Steinke 2016, Prop. 1.6).  OpenDP states its
  Gaussian measurements this way (``make_gaussian`` with zCDP output measure).
* ``gaussian-gdp`` -- sigma = Delta / mu gives mu-GDP exactly: the trade-off function of N(q, sigma^2)
  vs N(q', sigma^2) is G_(|q - q'| / sigma) (Dong, Roth & Su 2022, Thm. 2.7).

The densities state sigma through rho (or mu), so ``dpaudit prove`` decides the claim for every
parameter value.  Their ``epsilon`` and ``delta`` state an (epsilon, delta)-DP point the claim implies,
for a restated approximate claim: rho + 2 sqrt(rho ln(1/delta)) at delta (Bun & Steinke 2016,
Prop. 1.3) and the exact GDP curve delta(epsilon) (Dong, Roth & Su 2022, Cor. 2.13).  An audit
picks a point of the curve: ``dpaudit audit gaussian-zcdp --delta 1e-5``.  Outputs are released on the
grid of :mod:`dpaudit.mechanisms._grid` for scale sigma (post-processing, so the claims are kept).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._validation import check_positive_finite
from ...claims import GaussianDP, ZeroConcentratedDP
from ...neighbours import AddRemove
from .._grid import released
from ..base import Mechanism
from ..registry import register
from .laplace import count

__all__ = ["gaussian_gdp", "gaussian_zcdp", "normal_density"]

_GRID_NOTE = "released on a 2^-16 sigma grid, clamped to 2^24 sigma (mechanisms._grid)"


def normal_density(kind: str, value: float, sensitivity: float = 1.0, delta: float = 1e-5, note: str = _GRID_NOTE):
    """N(q, sigma^2) with sigma = Delta / sqrt(2 rho) (``kind="zcdp"``) or Delta / mu (``kind="gdp"``)."""
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q, sens = symbol("y"), symbol("q"), symbol("Delta")
    if kind == "zcdp":
        rho, dlt = symbol("rho"), symbol("delta")
        sigma = sens / sympy.sqrt(2 * rho)
        epsilon = rho + 2 * sympy.sqrt(rho * sympy.log(1 / dlt))  # Bun & Steinke 2016, Prop. 1.3
        claim_delta, instance = dlt, {rho: value, sens: sensitivity, dlt: delta}
    else:
        mu, epsilon = symbol("mu"), symbol("epsilon")
        sigma = sens / mu

        def phi(x: Any) -> Any:
            return (1 + sympy.erf(x / sympy.sqrt(2))) / 2

        claim_delta = phi(-epsilon / mu + mu / 2) - sympy.exp(epsilon) * phi(-epsilon / mu - mu / 2)
        instance = {mu: value, sens: sensitivity, epsilon: 1.0}
    return SymbolicDensity(
        expr=sympy.exp(-((y - q) ** 2) / (2 * sigma**2)) / (sigma * sympy.sqrt(2 * sympy.pi)),
        outputs=(y,),
        inputs=(q,),
        epsilon=epsilon,
        delta=claim_delta,
        sensitivity=sens,
        instance=instance,
        note=note,
    )


def _gaussian_on_count(name: str, claim: Any, sigma: float, kind: str, value: float, source: str) -> Mechanism:
    """The Gaussian mechanism on a count with noise sigma, stated as ``claim`` (a zCDP or GDP claim)."""

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return released(count(data), rng.normal(0.0, sigma, size=n), sigma)

    return Mechanism(
        name=name,
        claim=claim,
        neighbours=AddRemove(),
        sampler=sample,
        family="gaussian",
        description=f"Gaussian on a count, sigma={sigma:.4g}, stated as {claim}",
        query=count,
        sensitivity=1.0,
        density=lambda: normal_density(kind, value),
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        source=source,
    )


@register("gaussian-zcdp")
def gaussian_zcdp(rho: float = 0.5) -> Mechanism:
    """Gaussian mechanism on a count stated in zCDP: sigma = 1 / sqrt(2 rho) (Bun & Steinke 2016, Prop. 1.6)."""
    rho = check_positive_finite("rho", rho)
    return _gaussian_on_count("gaussian-zcdp", ZeroConcentratedDP(rho), 1.0 / math.sqrt(2.0 * rho), "zcdp", rho,
                              "Bun & Steinke (2016) Prop. 1.6; conversion: Canonne, Kamath & Steinke (2020) Cor. 13")


@register("gaussian-gdp")
def gaussian_gdp(mu: float = 1.0) -> Mechanism:
    """Gaussian mechanism on a count stated in Gaussian DP: sigma = 1 / mu (Dong, Roth & Su 2022, Thm. 2.7)."""
    mu = check_positive_finite("mu", mu)
    return _gaussian_on_count("gaussian-gdp", GaussianDP(mu), 1.0 / mu, "gdp", mu,
                              "Dong, Roth & Su (2022, JRSS B) Thm. 2.7 and Cor. 2.13")
