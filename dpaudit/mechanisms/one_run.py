"""Exact one-run samplers over a ``random.Random``: the code ``certify`` enumerates.

The catalogue's exact discrete samplers (:mod:`dpaudit.mechanisms._discrete_sampling`) are vectorised
over n samples with masks, which no path enumerator can follow.  This module states the same laws as
plain one-run code: every function draws one output, and draws ONLY through scalar calls on a
``random.Random`` -- ``rng.randrange(n)``, which CPython draws by rejection from ``getrandbits``
(``_randbelow_with_getrandbits``), so it is exactly uniform on {0..n-1}.  Every random decision is an
integer comparison ``rng.randrange(den) < num``, a Bernoulli(num / den) with an exact rational
probability; every argument is an exact int (or a tuple of ints), never a float.  The samplers are
those of Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020
(CKS20), Algorithms 1-3, with the paper's variable names:

* :func:`bernoulli` -- Bernoulli(num / den): ``rng.randrange(den) < num``.
* :func:`bernoulli_exp_fraction` -- Bernoulli(exp(-gamma)) for gamma = num / den in [0, 1] (CKS20
  Alg. 1): K = 1; while Bernoulli(gamma / K): K += 1; return K odd.  P[K > k] = gamma^k / k!, so
  P[K odd] = sum_k (-gamma)^k / k! = exp(-gamma).
* :func:`bernoulli_exp` -- Bernoulli(exp(-gamma)) for any rational gamma = num / den >= 0 (CKS20
  Alg. 1, second part): floor(gamma) Bernoulli(exp(-1)) draws and one Bernoulli(exp(-(gamma -
  floor gamma))) must all succeed.
* :func:`geometric_exp_minus_one` -- V = the number of Bernoulli(exp(-1)) successes before the first
  failure: P[V = v] = (1 - e^-1) e^-v.
* :func:`discrete_laplace` -- P[Z = z] = (1 - a) / (1 + a) a^|z|, a = exp(-s / t) (CKS20 Alg. 2).
* :func:`discrete_gaussian` -- P[Z = z] proportional to exp(-z^2 / (2 sigma^2)), sigma^2 =
  sigma2_num / sigma2_den (CKS20 Alg. 3: rejection from the discrete Laplace with t = floor(sigma) + 1).
* :func:`exponential_choice` -- P[R = r] = exp(w_r) / sum_{j not excluded} exp(w_j) for rational
  log-weights w_r = numerators[r] / den (uniform proposal, acceptance Bernoulli(exp(-(max w - w_r)))).

The code keeps the shape an enumerator can summarise: helpers are pure module-level functions (the
result depends only on the arguments and the draws), each helper call is the whole right-hand side
of an assignment, and each loop is ``while True:`` whose iterations carry only a small state (a
counter, the outputs so far) and return from inside.  A helper's law is then one table per argument
tuple (Markov chain over the loop state), which is what makes exact enumeration tractable.

Each catalogue entry with a discrete output attaches its own one-run sampler (``Mechanism.one_run``)
built from these helpers with the parameters its vectorised sampler uses (the same rationals, read by
``as_fraction``), and a test checks that the two agree in law (``tests/certifier/test_one_run.py``).
"""

from __future__ import annotations

import math
import random

__all__ = [
    "bernoulli",
    "bernoulli_exp",
    "bernoulli_exp_fraction",
    "discrete_gaussian",
    "discrete_laplace",
    "exponential_choice",
    "geometric_exp_minus_one",
]


def bernoulli(num: int, den: int, rng: random.Random) -> bool:
    """Bernoulli(num / den) for integers 0 <= num <= den, den >= 1: ``rng.randrange(den) < num`` (exact)."""
    return rng.randrange(den) < num


def bernoulli_exp_fraction(num: int, den: int, rng: random.Random) -> bool:
    """Bernoulli(exp(-gamma)) for gamma = num / den in [0, 1] (CKS20 Alg. 1).

    K = 1; while Bernoulli(gamma / K) succeeds, K += 1; return K odd.  Since P[K > k] = gamma^k / k!,
    P[K odd] = sum_{k >= 0} (-gamma)^k / k! = exp(-gamma).  The k-th trial is
    ``rng.randrange(den * k) < num``: Bernoulli(gamma / k) exactly.
    """
    k = 1
    while True:
        going_on = bernoulli(num, den * k, rng)
        if not going_on:
            return k % 2 == 1
        k += 1


def bernoulli_exp(num: int, den: int, rng: random.Random) -> bool:
    """Bernoulli(exp(-gamma)) for rational gamma = num / den >= 0 (CKS20 Alg. 1, gamma > 1 by steps).

    exp(-gamma) = exp(-1)^floor(gamma) exp(-(gamma - floor(gamma))): floor(gamma) draws of
    Bernoulli(exp(-1)) and, if all succeed, one of Bernoulli(exp(-(num mod den) / den)) (none when
    gamma is an integer).  The first failure stops the draws (as the vectorised sampler's rounds do).
    """
    remaining = num // den
    while True:
        if remaining == 0:
            if num % den == 0:
                return True
            last = bernoulli_exp_fraction(num % den, den, rng)
            return last
        step = bernoulli_exp_fraction(1, 1, rng)
        if not step:
            return False
        remaining -= 1


def geometric_exp_minus_one(rng: random.Random) -> int:
    """V = the number of Bernoulli(exp(-1)) successes before the first failure: P[V = v] = (1 - e^-1) e^-v."""
    v = 0
    while True:
        success = bernoulli_exp(1, 1, rng)
        if not success:
            return v
        v += 1


def discrete_laplace(t: int, s: int, rng: random.Random) -> int:
    """One exact draw of the discrete Laplace law with scale t / s (CKS20 Alg. 2).

    P[Z = z] = (1 - a) / (1 + a) a^|z| on the integers, a = exp(-s / t); t, s positive integers.
    Repeat: U ~ Uniform{0..t-1}; D ~ Bernoulli(exp(-U / t)), restart if D = 0; V as
    :func:`geometric_exp_minus_one`; X = U + t V (geometric with parameter 1 - e^(-1/t));
    Y = floor(X / s); B ~ Bernoulli(1/2); restart if B = 1 and Y = 0; else return (1 - 2B) Y.
    """
    while True:
        u = rng.randrange(t)
        d = bernoulli_exp(u, t, rng)
        if d:
            v = geometric_exp_minus_one(rng)
            y = (u + t * v) // s
            b = rng.randrange(2)
            if b == 0 or y != 0:
                return (1 - 2 * b) * y


def discrete_gaussian(sigma2_num: int, sigma2_den: int, rng: random.Random) -> int:
    """One exact draw of the discrete Gaussian N_Z(0, sigma^2), sigma^2 = sigma2_num / sigma2_den (CKS20 Alg. 3).

    P[Z = z] = exp(-z^2 / (2 sigma^2)) / sum_x exp(-x^2 / (2 sigma^2)) on the integers.  With
    t = floor(sigma) + 1: Y ~ discrete Laplace with scale t; accept with probability
    exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2)), for sigma^2 = a / b the rational
    (|Y| b t - a)^2 / (2 a b t^2); else repeat.
    """
    a, b = sigma2_num, sigma2_den
    t = math.isqrt(a // b) + 1  # floor(sigma) + 1, exactly
    while True:
        y = discrete_laplace(t, 1, rng)
        accept = bernoulli_exp((abs(y) * b * t - a) ** 2, 2 * a * b * t * t, rng)
        if accept:
            return y


def exponential_choice(numerators: tuple[int, ...], den: int, excluded: tuple[int, ...], rng: random.Random) -> int:
    """One exact draw of R with P[R = r] = exp(w_r) / sum_{j not excluded} exp(w_j), w = numerators / den.

    Rejection sampling: propose r uniformly from {0..m-1}; reject it if excluded, else accept with
    probability exp(-(max_{j not excluded} w_j - w_r)) (:func:`bernoulli_exp`).  A proposal is
    accepted with probability exp(w_r - max w) / m, so R has the stated law.
    """
    top = max(w for j, w in enumerate(numerators) if j not in excluded)
    while True:
        r = rng.randrange(len(numerators))
        if r not in excluded:
            accept = bernoulli_exp(top - numerators[r], den, rng)
            if accept:
                return r
