"""Conversions between privacy definitions: zCDP, Rényi DP and Gaussian DP to (epsilon, delta).

Each function turns one guarantee into the (epsilon, delta)-DP guarantees it implies, in the
tightest form known for that definition:

* rho-zCDP (Bun & Steinke 2016, Def. 1.1) -> (epsilon, delta): Canonne, Kamath & Steinke (2020,
  "The discrete Gaussian for differential privacy", Cor. 13),

      delta(epsilon) = inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha;

* (alpha, epsilon_R(alpha))-RDP at finitely many orders (Mironov 2017) -> (epsilon, delta): Balle,
  Barthe, Gaboardi, Hsu & Sato (2020, "Hypothesis testing interpretations and Rényi differential
  privacy", Thm. 21; the same bound is CKS 2020 Prop. 12),

      epsilon(delta) = min_alpha epsilon_R(alpha) + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1);

* mu-GDP (Dong, Roth & Su 2022, Def. 2.6) <-> its whole (epsilon, delta(epsilon)) curve, exactly
  (Cor. 2.13):

      delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2).

Google's ``dp_accounting`` implements the RDP bound (``rdp_privacy_accountant.compute_epsilon``
and ``compute_delta``, over a list of orders); the functions here evaluate the same formulas (the
tests compare them) so that dpaudit does not depend on that library, and add what it lacks: the
infimum over every real order for zCDP and the exact GDP curve.

Soundness: every infimum is evaluated *at* an order found by a numerical search, so the value
returned is always a valid bound (a poorer search only loosens it, never breaks it).  Functions
take and return floats; scipy is imported on first call.
"""

from __future__ import annotations

import math
from typing import Sequence

from ._validation import check_nonnegative_finite, check_real, check_unit_interval
from .errors import InvalidArgument

__all__ = [
    "gdp_delta",
    "gdp_epsilon",
    "renyi_delta",
    "renyi_epsilon",
    "zcdp_delta",
    "zcdp_epsilon",
]

# The orders searched for the zCDP infimum: alpha - 1 = e^t for t in [_LOG_LOW, _LOG_HIGH].
_LOG_LOW, _LOG_HIGH, _GRID = -12.0, 16.0, 113


def _renyi_log_delta(alpha: float, renyi_epsilon: float, epsilon: float) -> float:
    """log delta at one order: (alpha - 1)(epsilon_R - epsilon + log(1 - 1/alpha)) - log alpha (CKS 2020, Prop. 12)."""
    return (alpha - 1.0) * (renyi_epsilon - epsilon + math.log1p(-1.0 / alpha)) - math.log(alpha)


def _renyi_epsilon_at(alpha: float, renyi_epsilon: float, log_delta: float) -> float:
    """epsilon at one order: epsilon_R + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1) (BBGHS 2020, Thm. 21)."""
    return renyi_epsilon + math.log1p(-1.0 / alpha) - (log_delta + math.log(alpha)) / (alpha - 1.0)


def _minimise_over_orders(objective) -> tuple[float, float]:
    """(min value, alpha) of ``objective(alpha)`` over alpha > 1: a log-spaced grid, then Brent's method.

    The value is the objective *at* the returned order, so it is attained, hence a valid bound.
    """
    from scipy.optimize import minimize_scalar

    step = (_LOG_HIGH - _LOG_LOW) / (_GRID - 1)
    grid = [_LOG_LOW + i * step for i in range(_GRID)]
    values = [objective(1.0 + math.exp(t)) for t in grid]
    best = min(range(_GRID), key=values.__getitem__)
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, _GRID - 1)]
    found = minimize_scalar(lambda t: objective(1.0 + math.exp(t)), bounds=(low, high), method="bounded",
                            options={"xatol": 1e-10})
    alpha = 1.0 + math.exp(float(found.x))
    value = objective(alpha)
    if values[best] < value:
        return values[best], 1.0 + math.exp(grid[best])
    return value, alpha


def _check_delta_open(delta: float) -> float:
    return check_unit_interval("delta", delta, low_open=True)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """The smallest delta with (epsilon, delta)-DP implied by rho-zCDP (Canonne, Kamath & Steinke 2020, Cor. 13).

    delta = inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha,
    evaluated in log space at the order found by :func:`_minimise_over_orders` (so the value is a
    valid delta; capped at 1).  rho = 0 gives delta = 0.

    >>> round(zcdp_delta(0.5, 2.0), 6)
    0.054293
    """
    rho = check_nonnegative_finite("rho", rho)
    epsilon = check_nonnegative_finite("epsilon", epsilon)
    if rho == 0.0:
        return 0.0
    log_delta, _ = _minimise_over_orders(lambda a: _renyi_log_delta(a, a * rho, epsilon))
    return math.exp(min(0.0, log_delta))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """The smallest epsilon with (epsilon, delta)-DP implied by rho-zCDP (Canonne, Kamath & Steinke 2020, Cor. 13).

    epsilon = inf_{alpha > 1} alpha rho + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1), the
    inverse of :func:`zcdp_delta` (never negative; rho = 0 gives 0).  For comparison the classic form
    rho + 2 sqrt(rho log(1/delta)) (Bun & Steinke 2016, Prop. 1.3) is always larger.

    >>> round(zcdp_epsilon(0.5, 1e-5), 4)
    4.7284
    """
    rho = check_nonnegative_finite("rho", rho)
    delta = _check_delta_open(delta)
    if rho == 0.0:
        return 0.0
    log_delta = math.log(delta)
    value, _ = _minimise_over_orders(lambda a: _renyi_epsilon_at(a, a * rho, log_delta))
    return max(0.0, value)


def _check_orders(orders: Sequence[float], epsilons: Sequence[float]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    orders, epsilons = tuple(orders), tuple(epsilons)
    if not orders or len(orders) != len(epsilons):
        raise InvalidArgument(f"orders={orders!r} and epsilons={epsilons!r} must be non-empty and of equal length")
    for alpha in orders:
        if not (check_real("alpha", alpha) > 1 and math.isfinite(alpha)):
            raise InvalidArgument(f"alpha={alpha!r} must be a finite Rényi order > 1")
    return tuple(map(float, orders)), tuple(check_nonnegative_finite("epsilon", e) for e in epsilons)


def renyi_epsilon(orders: Sequence[float], epsilons: Sequence[float], delta: float) -> tuple[float, float]:
    """(epsilon, alpha): the (epsilon, delta)-DP implied by (alpha, epsilon_R(alpha))-RDP at the given orders.

    epsilon = min_alpha epsilon_R(alpha) + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1)
    (Balle, Barthe, Gaboardi, Hsu & Sato 2020, Thm. 21), never below 0; ``alpha`` is the order attaining
    the minimum.  Equal to ``dp_accounting.rdp.compute_epsilon`` wherever that library's extra KL-divergence
    bound (for epsilon = 0) does not bind.
    """
    orders, epsilons = _check_orders(orders, epsilons)
    log_delta = math.log(_check_delta_open(delta))
    value, alpha = min((_renyi_epsilon_at(a, e, log_delta), a) for a, e in zip(orders, epsilons))
    return max(0.0, value), alpha


def renyi_delta(orders: Sequence[float], epsilons: Sequence[float], epsilon: float) -> tuple[float, float]:
    """(delta, alpha): the smallest delta with (epsilon, delta)-DP implied by RDP at the given orders.

    delta = min_alpha exp((alpha - 1)(epsilon_R(alpha) - epsilon + log(1 - 1/alpha))) / alpha
    (Canonne, Kamath & Steinke 2020, Prop. 12; the inverse of :func:`renyi_epsilon`), capped at 1.
    """
    orders, epsilons = _check_orders(orders, epsilons)
    epsilon = check_nonnegative_finite("epsilon", epsilon)
    log_delta, alpha = min((_renyi_log_delta(a, e, epsilon), a) for a, e in zip(orders, epsilons))
    return math.exp(min(0.0, log_delta)), alpha


def gdp_delta(mu: float, epsilon: float) -> float:
    """delta(epsilon) of mu-GDP, exactly (Dong, Roth & Su 2022, Cor. 2.13).

    delta = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2): the privacy profile of
    N(0, 1) vs N(mu, 1), which is also the Gaussian mechanism's with mu = Delta/sigma (Balle & Wang
    2018, Thm. 8).  The second term is exp(epsilon + log Phi(.)) so large epsilon does not overflow.

    >>> round(gdp_delta(1.0, 1.0), 6)
    0.126937
    """
    from scipy.special import log_ndtr, ndtr

    mu = check_nonnegative_finite("mu", mu)
    epsilon = check_nonnegative_finite("epsilon", epsilon)
    if mu == 0.0:
        return 0.0
    value = float(ndtr(-epsilon / mu + mu / 2) - math.exp(epsilon + float(log_ndtr(-epsilon / mu - mu / 2))))
    return min(1.0, max(0.0, value))


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest epsilon >= 0 with delta(epsilon) <= delta for mu-GDP (inverse of :func:`gdp_delta`).

    delta(epsilon) decreases strictly in epsilon (Dong, Roth & Su 2022, Cor. 2.13), so the root is
    bracketed by doubling and found with ``scipy.optimize.brentq``; the result is nudged up by ulps
    until ``gdp_delta(mu, epsilon) <= delta`` holds in floating point (never undershoots).

    >>> round(gdp_epsilon(1.0, 1e-5), 4)
    4.3772
    """
    from scipy.optimize import brentq

    mu = check_nonnegative_finite("mu", mu)
    delta = _check_delta_open(delta)
    if gdp_delta(mu, 0.0) <= delta:
        return 0.0
    high = 1.0
    while gdp_delta(mu, high) > delta:
        high *= 2.0
    epsilon = brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, high, xtol=1e-13, rtol=1e-13, maxiter=500)
    while gdp_delta(mu, epsilon) > delta:
        epsilon = math.nextafter(epsilon, math.inf)
    return float(epsilon)
