"""Exact output probabilities of the sparse vector variants by one-dimensional quadrature over rho.

Independent of the samplers: P(y | q) = int p_rho(r) prod_i g_i(r) dr with g_i = 1 - F_nu(T + r - q_i)
for a ⊤ answer, F_nu(T + r - q_i) for a ⊥ answer and 1 for an unanswered query (Lyu, Su & Li 2017,
proof of Thm. 1); for Algorithm 3 a released value v replaces the ⊤ factor by f_nu(v - q_i) on
r <= v - T.  scipy's ``quad`` integrates between the breakpoints (relative error ~1e-10).
"""

from __future__ import annotations

import numpy as np
from scipy import integrate


def _cdf(x, b):
    """Laplace(0, b) CDF."""
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b))


def _pdf(x, b):
    return np.exp(-np.abs(x) / b) / (2 * b)


def _integrate(integrand, breakpoints, upper=np.inf):
    points = sorted({float(p) for p in breakpoints if p < upper})
    edges = [-np.inf, *points, upper]
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        if hi > lo:
            total += integrate.quad(integrand, lo, hi, limit=200, epsabs=0.0, epsrel=1e-10)[0]
    return total


def pattern_probability(y, q, *, threshold, rho_scale, nu_scale):
    """P(answers y | q) for y in {1 (⊤), 0 (⊥), -1 (not answered)}^k."""
    y, q = np.asarray(y, float), np.asarray(q, float)

    def integrand(r):
        x = threshold + r - q
        factors = np.where(y == 1, _cdf(-x, nu_scale), np.where(y == 0, _cdf(x, nu_scale), 1.0))
        return float(_pdf(r, rho_scale) * np.prod(factors))

    return _integrate(integrand, [*(q - threshold), 0.0])


def value_density(y, v, q, *, threshold, rho_scale, nu_scale):
    """Density of Alg. 3's output: answers y (⊥ = 0, -1), the ⊤ at the last answered query with value v."""
    y, q = np.asarray(y, float), np.asarray(q, float)
    top = int(np.flatnonzero(y != 0)[0]) if np.any(y != 0) else None
    below = q[:top]

    def integrand(r):
        return float(_pdf(r, rho_scale) * np.prod(_cdf(threshold + r - below, nu_scale)))

    mass = _integrate(integrand, [*(below - threshold), 0.0], upper=v - threshold)
    return mass * float(_pdf(v - q[top], nu_scale))
