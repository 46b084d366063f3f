"""Exact samplers on integers: no floating point decides any outcome.

Every random decision is an exact integer comparison ``rng.integers(0, den) < num`` (numpy draws
uniform integers by rejection, so this is Bernoulli(num / den) exactly).  The samplers follow
Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020 (CKS20),
with variable names from the paper, vectorised over the n samples with masks: the loops run over
*rounds* of rejection sampling, each round drawing for every sample still pending.

* :func:`bernoulli_exp_neg` -- Bernoulli(exp(-gamma)) for rational gamma >= 0 (CKS20 Alg. 1, and
  the reduction of gamma > 1 to integer steps of Bernoulli(exp(-1)) given there).
* :func:`discrete_laplace` -- P[Z = z] = (1 - a) / (1 + a) a^|z|, a = exp(-s/t) (CKS20 Alg. 2).
* :func:`discrete_gaussian` -- P[Z = z] proportional to exp(-z^2 / (2 sigma^2)) (CKS20 Alg. 3).
* :func:`exponential_choice` -- P[R = r] proportional to exp(w_r) over an allowed set of r, for
  rational weights w_r (uniform proposal, acceptance Bernoulli(exp(-(max w - w_r)))): the exact
  sampler behind randomized response, the exponential mechanism and peeling top-k.

Parameters are rationals (:class:`fractions.Fraction`); :func:`as_fraction` turns a float into the
nearest fraction with denominator at most ``max_denominator`` (so ``0.1`` becomes exactly 1/10), and
the mechanisms built on these samplers state that exact rational as their parameter.  Integers that
``rng.integers`` compares must stay below 2^62; a parameter whose denominator would overflow raises
:class:`~dpaudit.errors.InvalidArgument`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational, Real
from typing import Any

import numpy as np

from ..errors import InvalidArgument

__all__ = [
    "MAX_DENOMINATOR",
    "as_fraction",
    "bernoulli_exp_neg",
    "bernoulli_rational",
    "discrete_gaussian",
    "discrete_laplace",
    "exponential_choice",
    "integer_weights",
]

MAX_DENOMINATOR = 10**6
_LIMIT = 2**62  # rng.integers(0, high) with int64 needs high < 2^63; keep one bit of headroom


def as_fraction(name: str, value: Any, max_denominator: int = MAX_DENOMINATOR) -> Fraction:
    """``value`` as an exact rational: integers and Fractions unchanged, floats via limit_denominator.

    Raises :class:`InvalidArgument` for non-real or non-finite values.
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise InvalidArgument(f"{name}={value!r} must be a real number")
    if isinstance(value, Rational):
        return Fraction(value)
    if not math.isfinite(value):
        raise InvalidArgument(f"{name}={value!r} must be finite")
    return Fraction(value).limit_denominator(max_denominator)


def _check_denominator(name: str, den: int) -> int:
    if den <= 0 or den >= _LIMIT // 64:
        raise InvalidArgument(f"{name}={den!r} must be a positive integer below 2^56 (exact integer sampling)")
    return int(den)


def _as_integer_array(name: str, value: Any) -> np.ndarray:
    """Non-negative integers as an int64 array, or an object array of Python ints when too large."""
    arr = np.asarray(value)
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    elif arr.dtype == object and all(isinstance(v, int) and not isinstance(v, bool) for v in arr.reshape(-1).tolist()):
        values = arr.reshape(-1).tolist()
        if not values or max(values) < _LIMIT and min(values) >= -_LIMIT:
            arr = np.asarray(values, dtype=np.int64).reshape(arr.shape)
    else:
        raise InvalidArgument(f"{name}={value!r} must be an integer or an array of integers")
    if arr.size and min(arr.reshape(-1).tolist() if arr.dtype == object else [int(arr.min())]) < 0:
        raise InvalidArgument(f"{name}={value!r} must be >= 0 (gamma = numerator / denominator >= 0)")
    return arr


def bernoulli_rational(p: Fraction, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(p) draws for rational p in [0, 1]: ``rng.integers(0, den) < num``."""
    p = Fraction(p)
    if not 0 <= p <= 1:
        raise InvalidArgument(f"p={p!r} must lie in [0, 1]")
    den = _check_denominator("denominator of p", p.denominator)
    return rng.integers(0, den, size=size, dtype=np.int64) < p.numerator


def _bernoulli_exp_neg_fraction(num: np.ndarray, den: int, rng: np.random.Generator) -> np.ndarray:
    """CKS20 Alg. 1 for gamma = num / den in [0, 1]: K = 1; while Bernoulli(gamma / K): K += 1; return K odd.

    P[K > k] = gamma^k / k!, so P[K odd] = sum_k (-gamma)^k / k! = exp(-gamma).  Vectorised: every
    round draws Bernoulli(num / (den * K)) for the samples still counting.
    """
    out = np.zeros(num.shape, dtype=bool)
    active = np.arange(num.size)
    flat_num = num.reshape(-1)
    flat_out = out.reshape(-1)
    k = 1
    while active.size:
        if den * k >= _LIMIT:
            raise InvalidArgument(f"denominator={den!r} too large for exact sampling at round {k}")
        go_on = rng.integers(0, den * k, size=active.size, dtype=np.int64) < flat_num[active]
        stopped = active[~go_on]
        flat_out[stopped] = k % 2 == 1
        active = active[go_on]
        k += 1
    return out


def bernoulli_exp_neg(numerator: Any, denominator: int, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(-gamma)) draws for gamma = numerator / denominator >= 0, elementwise.

    ``numerator`` is an integer or an array of integers (any size, Python ints allowed); the result
    has its shape.  For gamma > 1 (CKS20 Alg. 1, second part): exp(-gamma) is the probability that
    floor(gamma) independent Bernoulli(exp(-1)) draws and one Bernoulli(exp(-(gamma - floor gamma)))
    draw all succeed; samples stop at their first failure, so the rounds end quickly.
    """
    den = _check_denominator("denominator", int(denominator))
    raw = _as_integer_array("numerator", numerator)
    if raw.dtype == object:  # Python ints beyond int64: split exactly, then both parts fit
        flat = raw.reshape(-1).tolist()
        whole = np.asarray([v // den for v in flat], dtype=np.int64).reshape(raw.shape)
        rest = np.asarray([v % den for v in flat], dtype=np.int64).reshape(raw.shape)
    else:
        whole, rest = np.divmod(raw, den)
    alive = np.ones(raw.shape, dtype=bool).reshape(-1)
    remaining = whole.reshape(-1).copy()
    one = np.ones(1, dtype=np.int64)
    pending = np.flatnonzero(remaining > 0)
    while pending.size:  # one Bernoulli(exp(-1)) per round for every sample with integer steps left
        ok = _bernoulli_exp_neg_fraction(np.broadcast_to(one, pending.shape), 1, rng)
        alive[pending[~ok]] = False
        remaining[pending] -= 1
        pending = pending[ok & (remaining[pending] > 0)]
    flat_rest = rest.reshape(-1)
    survivors = np.flatnonzero(alive)
    alive[survivors] = _bernoulli_exp_neg_fraction(flat_rest[survivors], den, rng)
    return alive.reshape(raw.shape)


def discrete_laplace(scale: Fraction, n: int, rng: np.random.Generator) -> np.ndarray:
    """n exact draws of the discrete Laplace distribution with ``scale`` = t / s (CKS20 Alg. 2).

    P[Z = z] = (1 - a) / (1 + a) a^|z| on the integers, a = exp(-1 / scale) = exp(-s / t).

    Per round, for every pending sample: U ~ Uniform{0..t-1}; D ~ Bernoulli(exp(-U/t)), restart if
    0; V ~ Geometric(1 - e^-1) as the number of Bernoulli(exp(-1)) successes before a failure;
    X = U + t V (geometric with parameter 1 - e^(-1/t)); Y = floor(X / s); B ~ Bernoulli(1/2);
    restart if B = 1 and Y = 0; else Z = (1 - 2B) Y.
    """
    scale = Fraction(scale)
    if scale <= 0:
        raise InvalidArgument(f"scale={scale!r} must be a positive rational")
    t, s = scale.numerator, scale.denominator
    _check_denominator("numerator of scale", t)
    _check_denominator("denominator of scale", s)
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    one = np.ones(1, dtype=np.int64)
    while pending.size:
        m = pending.size
        u = rng.integers(0, t, size=m, dtype=np.int64)
        keep = bernoulli_exp_neg(u, t, rng)
        v = np.zeros(m, dtype=np.int64)
        counting = np.flatnonzero(keep)
        while counting.size:  # V: successes of Bernoulli(exp(-1)) before the first failure
            ok = _bernoulli_exp_neg_fraction(np.broadcast_to(one, counting.shape), 1, rng)
            v[counting[ok]] += 1
            counting = counting[ok]
        y = (u + t * v) // s
        b = rng.integers(0, 2, size=m, dtype=np.int64)
        done = keep & ~((b == 1) & (y == 0))
        out[pending[done]] = ((1 - 2 * b) * y)[done]
        pending = pending[~done]
    return out


def discrete_gaussian(sigma2: Fraction, n: int, rng: np.random.Generator) -> np.ndarray:
    """n exact draws of the discrete Gaussian N_Z(0, sigma^2) (CKS20 Alg. 3).

    P[Z = z] = exp(-z^2 / (2 sigma^2)) / sum_x exp(-x^2 / (2 sigma^2)) on the integers.
    With t = floor(sigma) + 1: Y ~ discrete Laplace with scale t; accept with probability
    exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2)); for sigma^2 = a / b the exponent is the rational
    (|Y| b t - a)^2 / (2 a b t^2).
    """
    sigma2 = Fraction(sigma2)
    if sigma2 <= 0:
        raise InvalidArgument(f"sigma2={sigma2!r} must be a positive rational")
    a, b = sigma2.numerator, sigma2.denominator
    t = math.isqrt(a // b) + 1  # floor(sigma) + 1, exactly
    den = _check_denominator("2 a b t^2 (sigma2 = a/b)", 2 * a * b * t * t)
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        y = discrete_laplace(Fraction(t), pending.size, rng)
        gamma_num = [(abs(int(v)) * b * t - a) ** 2 for v in y.tolist()]
        accept = bernoulli_exp_neg(np.asarray(gamma_num, dtype=object), den, rng)
        out[pending[accept]] = y[accept]
        pending = pending[~accept]
    return out


def integer_weights(weights: Any) -> tuple[np.ndarray, int]:
    """Rational weights as (integer numerators, one common denominator): w = numerators / den."""
    fractions = [Fraction(w) for w in np.asarray(weights, dtype=object).reshape(-1).tolist()]
    den = math.lcm(*(f.denominator for f in fractions)) if fractions else 1
    numerators = np.asarray([int(f * den) for f in fractions], dtype=object)
    return numerators.reshape(np.shape(weights)), den


def exponential_choice(
    weights: Any, n: int, rng: np.random.Generator, allowed: np.ndarray | None = None
) -> np.ndarray:
    """n exact draws of R with P[R = r] = exp(w_r) / sum_{j allowed} exp(w_j).

    ``weights`` holds rationals (Fractions or ints), shape (m,) for one distribution or (n, m) for
    one per sample; ``allowed`` is an optional boolean (n, m) mask (at least one True per row).
    Rejection sampling: propose r uniformly from {0..m-1}; accept if allowed, with probability
    exp(-(max_allowed w - w_r)) (exact, :func:`bernoulli_exp_neg`).  A proposal is accepted with
    probability exp(w_r - max w) / m, so R has the stated law and each round accepts at least 1/m
    of the pending samples.
    """
    numerators, den = integer_weights(weights)
    _check_denominator("common denominator of the weights", den)
    per_sample = numerators.ndim == 2
    m = numerators.shape[-1]
    if m == 0:
        raise InvalidArgument("weights=[] must hold at least one candidate")
    if per_sample and numerators.shape[0] != n:
        raise InvalidArgument(f"weights of shape {numerators.shape} must have n={n} rows")
    if allowed is not None:
        allowed = np.asarray(allowed, dtype=bool)
        if allowed.shape != (n, m) or (n and not allowed.any(axis=1).all()):
            raise InvalidArgument(f"allowed of shape {allowed.shape} must be ({n}, {m}) with a True in every row")
    values = numerators.reshape(-1).tolist()
    if values and max(abs(v) for v in values) < _LIMIT // 4:  # int64 arithmetic is exact: gaps stay < 2^62
        numerators = numerators.astype(np.int64)
    table = numerators if per_sample else np.broadcast_to(numerators, (n, m))
    if allowed is None and not per_sample:
        row_max = np.broadcast_to(np.asarray(max(values), dtype=numerators.dtype), (n,))
    elif numerators.dtype == np.int64:
        masked = table if allowed is None else np.where(allowed, table, np.iinfo(np.int64).min)
        row_max = masked.max(axis=1)
    else:
        masks = allowed.tolist() if allowed is not None else [[True] * m] * n
        row_max = np.asarray(
            [max(w for w, ok in zip(row, mask) if ok) for row, mask in zip(table.tolist(), masks)], dtype=object
        )
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        r = rng.integers(0, m, size=pending.size, dtype=np.int64)
        ok = np.ones(pending.size, dtype=bool) if allowed is None else allowed[pending, r]
        proposed = np.flatnonzero(ok)
        rows_of = pending[proposed]
        gap = row_max[rows_of] - table[rows_of, r[proposed]]  # exact integers, >= 0
        ok[proposed] = bernoulli_exp_neg(gap, den, rng)
        out[pending[ok]] = r[ok]
        pending = pending[~ok]
    return out
