"""Mutants of randomized response and of the CKS20 samplers (:mod:`dpaudit.mechanisms.one_run`), for
``test_mutants.py``.  Each is the original code with one small change, named in its docstring, with the
law of the mutated code.  Module-level functions, so ``certify`` summarises them as it does the originals.
"""

from __future__ import annotations

import math
import random

from dpaudit.mechanisms.one_run import bernoulli_exp, discrete_laplace, geometric_exp_minus_one

# ---- randomized response (p = e^eps / (1 + e^eps) in float, eps = 1) ------------------------------------

P = math.exp(1.0) / (1 + math.exp(1.0))


def rr_wrong_threshold(x: int, rng: random.Random) -> int:
    """A wrong threshold: ``random() < p + 0.05``; P[x] = grid_bernoulli(p + 0.05)."""
    if rng.random() < P + 0.05:
        return x
    return 1 - x


def k_rr_flipped(x: int, rng: random.Random, k: int = 4) -> int:
    """k-RR (p = e / (e + 3) in float) with a flipped comparison: ``random() > p`` keeps x, so
    P[x] = #{j : j / 2^53 > p} / 2^53 (about 1 - p = 0.525) and each other value a third of the rest:
    epsilon about ln 3.3 = 1.2.  (In binary RR the same flip is nearly equivalent: it moves epsilon by 6e-16.)"""
    if rng.random() > math.exp(1.0) / (math.exp(1.0) + k - 1):
        return x
    other = rng.randrange(k - 1)
    return other if other < x else other + 1


def rr_float_flip(x: int, rng: random.Random, epsilon: float = 20.0) -> int:
    """p computed in float where the proof assumes it exact: flip with q = 1/(1 + e^eps) written as
    ``random() > 1 - q``; the float 1 - q leaves fewer grid points above it than q 2^53, so the flip is
    rarer than q and the ratio (1 - q') / q' exceeds e^eps by about 1 / (q 2^53) (8e-8 at eps = 20)."""
    q = 1 / (1 + math.exp(epsilon))
    if rng.random() > 1 - q:
        return 1 - x
    return x


def k_rr_missing_plus_one(x: int, rng: random.Random, k: int = 4) -> int:
    """k-RR (p = e / (e + 3) in float) with the ``+ 1`` that skips x missing: ``return other``, other uniform
    on {0..k-2}; P[x] = m/2^53 + (1 - m/2^53)/(k-1) if x < k - 1, and k - 1 is never reported for x < k - 1."""
    if rng.random() < math.exp(1.0) / (math.exp(1.0) + k - 1):
        return x
    return rng.randrange(k - 1)


# ---- the CKS20 discrete Laplace (Alg. 2) on counts ------------------------------------------------------


def geometric_wrong_threshold(rng: random.Random) -> int:
    """V counting Bernoulli(exp(-2)) successes (``bernoulli_exp(2, 1)``, the threshold of exp(-1) wrong): a
    copy of :func:`dpaudit.mechanisms.one_run.geometric_exp_minus_one` with that one change."""
    v = 0
    while True:
        success = bernoulli_exp(2, 1, rng)
        if not success:
            return v
        v += 1


def laplace_wrong_threshold(q: int, rng: random.Random) -> int:
    """t = 1 with V from :func:`geometric_wrong_threshold`: the discrete Laplace with a = e^-2 (2-DP)."""
    while True:
        v = geometric_wrong_threshold(rng)
        b = rng.randrange(2)
        if b == 0 or v != 0:
            return q + (1 - 2 * b) * v


def laplace_flipped(q: int, rng: random.Random) -> int:
    """t = 1 with the rejection test flipped: ``b == 0 or y == 0`` -- the noise is never negative."""
    while True:
        y = geometric_exp_minus_one(rng)
        b = rng.randrange(2)
        if b == 0 or y == 0:
            return q + (1 - 2 * b) * y


def laplace_missing_plus_one(q: int, rng: random.Random, t: int = 3) -> int:
    """U drawn by ``randrange(t - 1)``: the + 1 of range(0, t - 1 + 1) missing; X = U + t V skips t - 1 mod t."""
    while True:
        u = rng.randrange(t - 1)
        d = bernoulli_exp(u, t, rng)
        if d:
            v = geometric_exp_minus_one(rng)
            y = u + t * v
            b = rng.randrange(2)
            if b == 0 or y != 0:
                return q + (1 - 2 * b) * y


def gaussian_missing_plus_one(q: int, rng: random.Random, sigma2: int = 1) -> int:
    """CKS20 Alg. 3 with t = isqrt(sigma^2) instead of isqrt(sigma^2) + 1: an equivalent mutant for
    sigma^2 >= 1 (the rejection is exact for every t > 0), a crash (t = 0) below."""
    t = math.isqrt(sigma2)
    while True:
        y = discrete_laplace(t, 1, rng)
        accept = bernoulli_exp((abs(y) * t - sigma2) ** 2, 2 * sigma2 * t * t, rng)
        if accept:
            return q + y
