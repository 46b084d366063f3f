"""zCDP and Rényi accounting slips: the right Gaussian noise, the wrong privacy statement.

``gaussian-zcdp-linf-sensitivity`` -- a vector of d = 4 counts (one per binary feature of a record)
    plus N(0, sigma^2) per count, with sigma = 1/sqrt(2 rho) calibrated to the per-coordinate
    sensitivity 1 (the l-infinity norm).  Adding a record moves every count by one, so the l2
    sensitivity that zCDP needs is sqrt(d) = 2 (Bun & Steinke 2016, Prop. 1.6: rho = Delta_2^2 / (2 sigma^2)).
    Claim 0.5-zCDP; true rho = d / (2 sigma^2) = 2 (mu = 2 in GDP).  (Calibrating to the l1
    sensitivity d instead would be safe: ||v||_2 <= ||v||_1, so only a norm below l2 understates rho.)
``gaussian-zcdp-conversion-drops-rho`` -- the Gaussian mechanism with sigma = 1/sqrt(2 rho) at rho = 4
    is 4-zCDP, but its (epsilon, delta) statement drops the rho term of Bun & Steinke's conversion
    (2016, Prop. 1.3), eps = rho + 2 sqrt(rho ln(1/delta)), and claims eps = 2 sqrt(rho ln(1/delta)) =
    13.57 at delta = 1e-5.  True epsilon at that delta (exact, mu = sqrt(2 rho) = 2 sqrt 2, Dong, Roth &
    Su 2022, Cor. 2.13): 15.46; true delta at the claimed epsilon 1.5e-4.
``renyi-accountant-wrong-order`` -- k = 4 Gaussian releases of one count, sigma = 2 each: each is
    (alpha, alpha / 8)-RDP, so the composition is (alpha, alpha / 2)-RDP (Mironov 2017, Prop. 1).  The
    accountant composes the parts' epsilons read at the previous order of its table (2, 4, 8, 16, 32,
    64) -- an off-by-one in the order index -- and claims epsilon(alpha) = k (alpha / 2) / 8 = alpha / 4 at
    every order after the first: half the truth.  True epsilon at delta = 1e-5: 4.38 (mu = 1); the
    claim converts to 3.34 (Balle et al. 2020, Thm. 21).

``true_epsilon`` of each entry is the epsilon it really achieves at delta = 1e-5 (for a curve claim,
the claim's own epsilon at that delta is what it is compared with): the exact GDP curve's epsilon at
the true mu, ``dpaudit.conversions.gdp_epsilon(mu, 1e-5)``, written out to 16 digits so that listing the
catalogue does not load scipy (tests/mechanisms/catalogue/flawed/test_concentrated.py recomputes each).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ....claims import ApproxDP, RenyiDP, ZeroConcentratedDP
from ....neighbours import AddRemove
from ..._grid import snap_to_grid
from ...base import Mechanism
from ...registry import register
from ..gaussian_curves import normal_density
from ..laplace import count

__all__ = ["FEATURES", "WRONG_ORDER_TABLE", "feature_counts", "normal_product_density"]

FEATURES = 4
WRONG_ORDER_TABLE = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


def feature_counts(data: Any) -> np.ndarray:
    """Column sums of records of FEATURES bits: adding a record moves every count by at most one."""
    rows = np.asarray(data, dtype=float).reshape(-1, FEATURES)
    return rows.sum(axis=0)


def normal_product_density(sigma: float, coordinates: int, *, shared: bool, sensitivity: float, norm: str = "l2",
                           epsilon: Any = 1, delta: Any = 0, note: str = ""):
    """prod_i N(y_i; m_i, sigma^2) with m_i = q (``shared``) or q_i, neighbours ||q - q'||_norm <= Delta."""
    import sympy

    from ...density import SymbolicDensity, symbol

    sig, sens = symbol("sigma"), symbol("Delta")
    ys = tuple(symbol(f"y{i}") for i in range(1, coordinates + 1))
    qs = (symbol("q"),) if shared else tuple(symbol(f"q{i}") for i in range(1, coordinates + 1))
    means = qs * coordinates if shared else qs
    expr = sympy.Mul(*(sympy.exp(-((y - m) ** 2) / (2 * sig**2)) / (sig * sympy.sqrt(2 * sympy.pi)) for y, m in zip(ys, means)))
    return SymbolicDensity(expr=expr, outputs=ys, inputs=qs, epsilon=epsilon, delta=delta, sensitivity=sens, norm=norm,
                           instance={sig: sigma, sens: sensitivity}, note=note)


# The entries' parameters, and gdp_epsilon(true mu, 1e-5) for each: mu = sqrt(4) / sigma = 2 (l-infinity
# calibration at rho = 0.5), mu = sqrt(2 rho) = sqrt(8) (rho = 4), mu = sqrt(4) / 2 = 1 (four releases, sigma = 2).
LINF_RHO, LINF_TRUE_EPSILON = 0.5, 9.997256146434303
DROPS_RHO, DROPS_DELTA, DROPS_TRUE_EPSILON = 4.0, 1e-5, 15.456155822609322
RELEASES, RELEASE_SIGMA, WRONG_ORDER_TRUE_EPSILON = 4, 2.0, 4.377178095681235

_GRID_NOTE = "released on a 2^-16 sigma grid, clamped to 2^24 sigma (mechanisms._grid)"


@register("gaussian-zcdp-linf-sensitivity")
def gaussian_zcdp_linf_sensitivity() -> Mechanism:
    """Gaussian noise on 4 feature counts calibrated to the per-coordinate sensitivity: true rho = 4 x the claim."""
    rho = LINF_RHO
    sigma = 1.0 / math.sqrt(2.0 * rho)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap_to_grid(feature_counts(data) + rng.normal(0.0, sigma, size=(n, FEATURES)), sigma)

    record = (1,) * FEATURES
    return Mechanism(
        name="gaussian-zcdp-linf-sensitivity",
        claim=ZeroConcentratedDP(rho),
        neighbours=AddRemove(),
        sampler=sample,
        family="gaussian",
        description=f"Gaussian on {FEATURES} feature counts, sigma={sigma:.4g} for per-coordinate sensitivity 1, claims {rho:g}-zCDP",
        query=feature_counts,
        sensitivity=1.0,  # per coordinate (l-infinity), what the code calibrates to
        density=lambda: normal_product_density(sigma, FEATURES, shared=False, sensitivity=1.0, norm="linf",
                                               note=f"each coordinate: {_GRID_NOTE}"),
        domain=(record, (0,) * FEATURES),
        pairs=(((record,), (record, record)),),
        flaw=f"sigma calibrated to the l-infinity sensitivity 1; the l2 sensitivity is sqrt({FEATURES}): true rho = {FEATURES * rho:g}",
        true_epsilon=LINF_TRUE_EPSILON,
        source="Bun & Steinke (2016) Prop. 1.6 (rho = Delta_2^2 / (2 sigma^2))",
    )


@register("gaussian-zcdp-conversion-drops-rho")
def gaussian_zcdp_conversion_drops_rho() -> Mechanism:
    """A rho-zCDP Gaussian on a count claiming (2 sqrt(rho ln(1/delta)), delta): the rho term dropped."""
    rho, delta = DROPS_RHO, DROPS_DELTA
    sigma = 1.0 / math.sqrt(2.0 * rho)
    wrong_epsilon = 2.0 * math.sqrt(rho * math.log(1.0 / delta))

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap_to_grid(count(data) + rng.normal(0.0, sigma, size=n), sigma)

    def density():
        import sympy

        from ...density import symbol

        declared = normal_density("zcdp", rho, delta=delta)
        r, dlt = symbol("rho"), symbol("delta")
        return dataclasses.replace(declared, epsilon=2 * sympy.sqrt(r * sympy.log(1 / dlt)))  # the rho term dropped

    return Mechanism(
        name="gaussian-zcdp-conversion-drops-rho",
        claim=ApproxDP(wrong_epsilon, delta),
        neighbours=AddRemove(),
        sampler=sample,
        family="gaussian",
        description=f"{rho:g}-zCDP Gaussian on a count claiming epsilon = 2 sqrt(rho ln(1/delta)) = {wrong_epsilon:.4g} at delta={delta:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        flaw="the zCDP -> (epsilon, delta) conversion rho + 2 sqrt(rho ln(1/delta)) written without its rho term",
        true_epsilon=DROPS_TRUE_EPSILON,
        source="Bun & Steinke (2016) Prop. 1.3; exact curve: Dong, Roth & Su (2022) Cor. 2.13",
    )


@register("renyi-accountant-wrong-order")
def renyi_accountant_wrong_order() -> Mechanism:
    """k Gaussian releases of a count whose RDP accountant reads each part at the previous order of its table."""
    releases, sigma = RELEASES, RELEASE_SIGMA
    part = 1.0 / (2.0 * sigma**2)  # each release: epsilon(alpha) = alpha Delta^2 / (2 sigma^2)
    previous = (WRONG_ORDER_TABLE[0],) + WRONG_ORDER_TABLE[:-1]
    claim = RenyiDP(WRONG_ORDER_TABLE, [releases * part * a for a in previous])

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap_to_grid(count(data) + rng.normal(0.0, sigma, size=(n, releases)), sigma)

    return Mechanism(
        name="renyi-accountant-wrong-order",
        claim=claim,
        neighbours=AddRemove(),
        sampler=sample,
        family="gaussian",
        description=f"{releases} Gaussian releases of a count (sigma={sigma:g}), RDP composed at the previous order of the table",
        query=count,
        sensitivity=1.0,
        density=lambda: normal_product_density(sigma, releases, shared=True, sensitivity=1.0,
                                               note=f"each release: {_GRID_NOTE}"),
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        flaw=f"each part's epsilon read at the previous order of {WRONG_ORDER_TABLE}: claims alpha/4 where the truth is alpha/2",
        true_epsilon=WRONG_ORDER_TRUE_EPSILON,
        source="Mironov (2017) Prop. 1 (RDP composes order by order)",
    )
