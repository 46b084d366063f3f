"""Plain one-run samplers ``f(data, rng)``, written as a user would write them, for the certifier's tests.

Module-level functions, so that ``certify(..., summarise="auto")`` summarises their helpers (the other
functions of this module and of :mod:`dpaudit.mechanisms.one_run`, which they call by name).  Parameters
are keyword arguments with defaults; a test binds them with :func:`functools.partial`.  Each sampler's
docstring states the law of its *code* (what an oracle must compute), where that differs from the law
of its definition.  The flawed ones say what is wrong.
"""

from __future__ import annotations

import bisect
import math
import random

from dpaudit.mechanisms.one_run import discrete_gaussian, discrete_laplace

# ---- randomized response on random.Random, p computed in float ----------------------------------------


def keep_probability(epsilon: float, k: int) -> float:
    """p = e^eps / (e^eps + k - 1), in float (what the code compares random() with)."""
    return math.exp(epsilon) / (math.exp(epsilon) + k - 1)


def randomized_response(x: int, rng: random.Random, epsilon: float = 1.0) -> int:
    """Binary RR: the bit with probability p = e^eps / (e^eps + 1), else its flip.  Code law: the grid
    Bernoulli of the double p, m = ceil(p 2^53): P[x] = m / 2^53, epsilon = ln(m / (2^53 - m))."""
    if rng.random() < keep_probability(epsilon, 2):
        return x
    return 1 - x


def k_randomized_response(x: int, rng: random.Random, epsilon: float = 1.0, k: int = 4) -> int:
    """k-RR: x with probability p = e^eps / (e^eps + k - 1), else one of the k - 1 others uniformly.
    Code law: P[x] = m / 2^53, P[j] = (1 - m / 2^53) / (k - 1); epsilon = ln((k - 1) m / (2^53 - m))."""
    if rng.random() < keep_probability(epsilon, k):
        return x
    other = rng.randrange(k - 1)
    return other if other < x else other + 1


def rappor_permanent(x: int, rng: random.Random, epsilon: float = 1.0, k: int = 4) -> tuple[int, ...]:
    """RAPPOR's permanent randomized response (Erlingsson et al. 2014) on the one-hot encoding of x: each
    bit kept with probability f = e^(eps/2) / (1 + e^(eps/2)) in float, independently.  Code law: each bit
    kept with m / 2^53, m = ceil(f 2^53); neighbours differ in two bits: epsilon = 2 ln(m / (2^53 - m))."""
    keep = math.exp(epsilon / 2) / (1 + math.exp(epsilon / 2))
    report = []
    for j in range(k):
        bit = int(j == x)
        report.append(bit if rng.random() < keep else 1 - bit)
    return tuple(report)


def rr_wrong_epsilon(x: int, rng: random.Random, epsilon: float = 1.0) -> int:
    """FLAWED: randomized response whose p is computed with the wrong epsilon -- 2 eps (the one-hot
    sensitivity of 2 applied the wrong way round): its code is (about) 2 eps-DP, not eps-DP."""
    if rng.random() < keep_probability(2 * epsilon, 2):
        return x
    return 1 - x


# ---- Canonne, Kamath & Steinke 2020 on counts -----------------------------------------------------------


def laplace_count(q: int, rng: random.Random, t: int = 1) -> int:
    """q + Z, Z the CKS20 discrete Laplace with scale t (a = e^(-1/t)): 1/t-DP on neighbouring counts."""
    return q + discrete_laplace(t, 1, rng)


def gaussian_count(q: int, rng: random.Random, sigma2: int = 4) -> int:
    """q + Z, Z the CKS20 discrete Gaussian with variance parameter sigma^2 (an integer here)."""
    return q + discrete_gaussian(sigma2, 1, rng)


# ---- the geometric by trials (a timing side channel) ----------------------------------------------------


def geometric_by_trials(q: int, rng: random.Random) -> int:
    """q + s k: k Bernoulli(1/2) successes before a failure, a sign, (negative, 0) redrawn (Jin et al. 2022).
    Its output is the two-sided geometric with a = 1/2 (ln 2-DP); its draw count 2 + |k| + 2 (rejections)
    has disjoint supports on neighbouring counts (epsilon infinite when the count is observed)."""
    while True:
        negative = rng.random() < 0.5
        k = 0
        while rng.random() < 0.5:
            k += 1
        if not (negative and k == 0):
            return q - k if negative else q + k


# ---- the exponential mechanism through random.choices ---------------------------------------------------


def exponential_choices(utilities: tuple[float, ...], rng: random.Random, epsilon: float = 1.0) -> int:
    """The exponential mechanism through ``random.choices``, weights exp(eps u / 2) (sensitivity 1)."""
    weights = [math.exp(epsilon * u / 2) for u in utilities]
    return rng.choices(range(len(utilities)), weights=weights)[0]


def exponential_choices_no_half(utilities: tuple[float, ...], rng: random.Random, epsilon: float = 1.0) -> int:
    """FLAWED: weights exp(eps u) -- the 1/2 missed: up to 2 eps-DP."""
    weights = [math.exp(epsilon * u) for u in utilities]
    return rng.choices(range(len(utilities)), weights=weights)[0]


def choices_law_cdf(weights: list[float]) -> list[float]:
    """What ``random.choices`` compares ``random() * total`` with: the float cumulative weights (CPython's
    ``itertools.accumulate``), and the total ``cum_weights[-1] + 0.0``."""
    cum, total = [], 0.0
    for w in weights:
        total += w
        cum.append(total)
    return cum


def choose_by_bisect(cdf: tuple[float, ...], rng: random.Random) -> int:
    """numpy's choice: ``bisect_right`` of a float CDF at one random()."""
    return bisect.bisect_right(cdf, rng.random())


# ---- small samplers built from parameters (the property tests) ------------------------------------------


def k_rr_rational(x: int, rng: random.Random, k: int = 2, num: int = 1, den: int = 2) -> int:
    """k-RR with an exact rational coin: x with probability num / den, else one of the k - 1 others."""
    if rng.randrange(den) < num:
        return x
    other = rng.randrange(k - 1)
    return other if other < x else other + 1


def float_threshold(x: int, rng: random.Random, p: float = 0.5) -> int:
    """x when random() < p (the grid Bernoulli of the double p), else 1 - x."""
    return x if rng.random() < p else 1 - x


def rejection(x: int, rng: random.Random, m: int = 3, c: int = 2) -> int:
    """A rejection loop: uniform on {0..c-1} by drawing from {0..m-1} until below c; shifted by x."""
    while True:
        u = rng.randrange(m)
        if u < c:
            return u + x


def weighted_choice(weights: tuple[float, ...], rng: random.Random) -> int:
    """``random.choices`` with the given weights (the law of :func:`oracle.choices_pmf`)."""
    return rng.choices(range(len(weights)), weights=weights)[0]
