"""Small mechanisms for the auditor's tests: correct ones at their exact epsilon and broken twins.

Each is a vectorised ``Mechanism`` on query values (``QueryDistance``), so the tests do not depend on
which catalogue entries exist.  Continuous outputs are released on the power-of-two grid of
:mod:`dpaudit.mechanisms._grid` (post-processing, so the epsilon is unchanged): a bare ``q + noise``
in doubles leaks q through its float lattice, which the default audit's leak checks rightly flag.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import ApproxDP, Local, Mechanism, PureDP, QueryDistance
from dpaudit.mechanisms._grid import snap_to_grid


def laplace(epsilon: float = 1.0, scale_factor: float = 1.0) -> Mechanism:
    """q + Lap(scale_factor / epsilon): epsilon-DP when scale_factor = 1, epsilon/scale_factor otherwise."""
    scale = scale_factor / epsilon

    def sample(q, n, rng):
        return snap_to_grid(float(q) + rng.laplace(0.0, scale, size=n), scale)

    return Mechanism(name=f"test-laplace-{scale_factor:g}", claim=PureDP(epsilon), neighbours=QueryDistance(1.0),
                     sampler=sample, domain=0.0, pairs=((0.0, 1.0),), true_epsilon=epsilon / scale_factor)


def geometric(epsilon: float = 1.0) -> Mechanism:
    """q + two-sided geometric noise P[k] ~ e^(-epsilon |k|) (Ghosh et al. 2009): epsilon-DP, integers."""
    p = 1.0 - math.exp(-epsilon)

    def sample(q, n, rng):
        return int(q) + rng.geometric(p, size=n) - rng.geometric(p, size=n)

    return Mechanism(name="test-geometric", claim=PureDP(epsilon), neighbours=QueryDistance(1.0),
                     sampler=sample, domain=0, pairs=((0, 1),), true_epsilon=epsilon)


def randomized_response(epsilon: float = 1.0, keep: float | None = None) -> Mechanism:
    """Keep the bit with probability e^eps/(1+e^eps) (Warner 1965): epsilon-LDP; ``keep`` miscalibrates it."""
    p_keep = math.exp(epsilon) / (1 + math.exp(epsilon)) if keep is None else keep

    def sample(bit, n, rng):
        return np.where(rng.random(n) < p_keep, int(bit), 1 - int(bit))

    return Mechanism(name="test-rr", claim=PureDP(epsilon), neighbours=Local(), sampler=sample, domain=(0, 1),
                     true_epsilon=math.log(p_keep / (1 - p_keep)))


def gaussian(epsilon: float = 1.0, delta: float = 1e-5, sigma_factor: float = 1.0) -> Mechanism:
    """q + N(0, sigma^2), sigma = sqrt(2 ln(1.25/delta))/epsilon: (epsilon, delta)-DP (Dwork & Roth Thm A.1)."""
    sigma = sigma_factor * math.sqrt(2 * math.log(1.25 / delta)) / epsilon

    def sample(q, n, rng):
        return snap_to_grid(float(q) + rng.normal(0.0, sigma, size=n), sigma)

    return Mechanism(name="test-gaussian", claim=ApproxDP(epsilon, delta), neighbours=QueryDistance(1.0),
                     sampler=sample, domain=0.0, pairs=((0.0, 1.0),))


def noisy_max(epsilon: float = 1.0, k: int = 3, leak_value: bool = False) -> Mechanism:
    """Report noisy max with Lap(2/eps) (Dwork & Roth Claim 3.9): eps-DP; returning the value leaks (k eps/2)."""

    def sample(q, n, rng):
        noisy = snap_to_grid(np.asarray(q, dtype=float) + rng.laplace(0.0, 2.0 / epsilon, size=(n, k)), 2.0 / epsilon)
        return noisy.max(axis=1) if leak_value else noisy.argmax(axis=1)

    pair = ((0.0,) * k, (1.0,) + (-1.0,) * (k - 1)) if not leak_value else ((0.0,) * k, (1.0,) * k)
    return Mechanism(name="test-noisy-max", claim=PureDP(epsilon), neighbours=QueryDistance(1.0, "linf"),
                     sampler=sample, domain=(0.0,) * k, pairs=(pair,))


def one_sided(epsilon: float = 1.0) -> Mechanism:
    """q + Exp(1/epsilon): the supports [q, inf) differ, so epsilon = inf (a support mismatch)."""

    def sample(q, n, rng):
        return snap_to_grid(float(q) + rng.exponential(1.0 / epsilon, size=n), 1.0 / epsilon)

    return Mechanism(name="test-one-sided", claim=PureDP(epsilon), neighbours=QueryDistance(1.0),
                     sampler=sample, domain=0.0, pairs=((0.0, 1.0),), true_epsilon=math.inf)


def answer_pattern(epsilon: float = 1.0, noisy_queries: bool = True) -> Mechanism:
    """Above-threshold indicators of 4 queries against a noisy threshold 0 (sparse-vector style, no cutoff).

    Without query noise the pattern is a deterministic function of the queries given the threshold
    noise, and some patterns are impossible under one input: epsilon = inf.
    """

    def sample(q, n, rng):
        q = np.asarray(q, dtype=float)
        rho = rng.laplace(0.0, 2.0 / epsilon, size=(n, 1))
        nu = rng.laplace(0.0, 4.0 * q.size / epsilon, size=(n, q.size)) if noisy_queries else 0.0
        return (q + nu >= rho).astype(np.int8)

    base = (0.0, 0.0, 0.0, 0.0)
    return Mechanism(name="test-answer-pattern", claim=PureDP(epsilon), neighbours=QueryDistance(1.0, "linf"),
                     sampler=sample, domain=base, pairs=(((1.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 1.0)),))
