"""Exact laws of the catalogue's discrete samplers, written from the mechanisms' definitions.

A test oracle for the one-run samplers and for exact path enumeration (``certify``), independent of
both: nothing here reads a sampler's code.  Probabilities are exact -- :class:`fractions.Fraction`
where the law is rational, mpmath numbers at 60 significant digits (a private context, :data:`MP`)
where it involves exp -- and laws on infinite supports come truncated with their exact (or bounded)
outside mass (:class:`Truncated`).

* randomized response (Warner 1965): A(x) = X x + (1 - X) Y, X ~ Bernoulli(p), Y ~ Bernoulli(1/2):
  P[x] = (1 + p) / 2  (:func:`rr_pmf`);
* k-RR (Kairouz, Oh & Viswanath 2016): P[x] = e^eps / (e^eps + k - 1), P[j] = 1 / (e^eps + k - 1)
  (:func:`k_rr_pmf`);
* RAPPOR's permanent step (Erlingsson, Pihur & Korolova 2014): each one-hot bit kept with probability
  e^(eps/2) / (1 + e^(eps/2)), independently (:func:`rappor_pmf`);
* discrete Laplace / two-sided geometric (Ghosh, Roughgarden & Sundararajan 2009; CKS20 Def.):
  P[z] = (1 - a) / (1 + a) a^|z|, a = e^(-1/scale); outside |z| <= W the mass is 2 a^(W+1) / (1 + a)
  (:func:`discrete_laplace_pmf`, :func:`geometric_pmf`);
* discrete Gaussian (Canonne, Kamath & Steinke 2020, Def. 1): P[z] proportional to
  e^(-z^2 / (2 sigma^2)), normalised over |z| <= W with a bound on the mass outside
  (:func:`discrete_gaussian_pmf`);
* exponential mechanism (McSherry & Talwar 2007): P[r] = e^(w_r) / sum_j e^(w_j), w_r = eps u_r /
  (2 Delta) (:func:`exponential_pmf`, :func:`exponential_mechanism_pmf`), peeling top-k
  (:func:`top_k_pmf`); Meiser's K (:func:`meiser_k_pmf`); the thresholded histogram
  (:func:`thresholded_histogram_pmf`); the geometric by trials with its draw count
  (:func:`geometric_by_trials_joint_pmf`);
* float code: :func:`grid_bernoulli` and :func:`grid_categorical`, the exact laws of ``random() < p``
  and of inverting a float CDF with ``random()`` on CPython / numpy (NOTES.md Part 3);
  :func:`grid_count_below` (the grid points where a monotone float function of ``random()`` stays below
  a constant, by bisection with the float operations themselves) and :func:`choices_pmf`, the law of
  CPython's ``random.choices(population, weights)``;
* from two laws: :func:`exact_epsilon` (max |ln ratio|) and :func:`hockey_stick_delta`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

MP = mpmath.MPContext()
MP.dps = 60
"""The oracle's own mpmath context: 60 significant digits, whatever the global ``mpmath.mp`` says."""

GRID = 2**53
"""``random.Random.random()`` and numpy's ``Generator.random()`` return j / 2^53, j uniform on [0, 2^53)."""

Probability = Any  # a Fraction (rational laws) or an MP number (laws with exp)


@dataclass(frozen=True)
class Truncated:
    """A law on an infinite support: ``pmf`` on a finite window and ``tail``, the mass outside it.

    ``tail`` is exact where stated, otherwise an upper bound (see the function that built it).
    """

    pmf: dict[Any, Probability]
    tail: Probability


def _mpf(value: Any) -> Any:
    """An exact rational (int, Fraction) as an MP number (60 digits)."""
    value = Fraction(value)
    return MP.mpf(value.numerator) / value.denominator


# ---- float code ---------------------------------------------------------------------------------------


def grid_bernoulli(p: float) -> Fraction:
    """P[U < p] for U uniform on {j / 2^53 : 0 <= j < 2^53}: exactly ceil(p 2^53) / 2^53 (clipped to [0, 1]).

    So ``rng.random() < p`` on CPython (and numpy) is Bernoulli(ceil(p 2^53) / 2^53), which differs from
    p whenever p 2^53 is not an integer (NOTES.md Part 3).  ``p`` is read exactly (a double is a dyadic
    rational).
    """
    exact = Fraction(p)
    if exact <= 0:
        return Fraction(0)
    if exact >= 1:
        return Fraction(1)
    return Fraction(math.ceil(exact * GRID), GRID)


def grid_categorical(cdf: Sequence[float]) -> dict[int, Fraction]:
    """The law of ``bisect_right(cdf, U)`` for U uniform on the 2^-53 grid (numpy's ``choice(k, p=p)``).

    bisect_right(cdf, U) = i exactly when cdf[i - 1] <= U < cdf[i], so P[i] = grid_bernoulli(cdf[i]) -
    grid_bernoulli(cdf[i - 1]) (with cdf[-1] read as 0 and cdf[len] as 1); zero masses are left out.
    """
    bounds = [Fraction(0)] + [grid_bernoulli(c) for c in cdf] + [Fraction(1)]
    law = {i: hi - lo for i, (lo, hi) in enumerate(itertools.pairwise(bounds))}
    return {i: p for i, p in law.items() if p}


def grid_count_below(f: Any, c: float) -> int:
    """#{j in [0, 2^53) : f(j / 2^53) < c} for a float function f non-decreasing on [0, 1).

    {j : f(j / 2^53) < c} is then a prefix of the grid; its end is found by bisection, evaluating f with
    the float operations themselves (j * 2^-53 is exact in double for j < 2^53).
    """
    if not f(0.0) < c:
        return 0
    if f((GRID - 1) * 2.0**-53) < c:
        return GRID
    lo, hi = 0, GRID - 1  # f(lo) < c, not f(hi) < c
    while hi - lo > 1:
        middle = (lo + hi) // 2
        if f(middle * 2.0**-53) < c:
            lo = middle
        else:
            hi = middle
    return hi


def choices_pmf(weights: Sequence[float]) -> dict[int, Fraction]:
    """The law of CPython's ``random.choices(range(n), weights)[0]`` (3.11, ``Lib/random.py``).

    The code: ``cum_weights = list(accumulate(weights))``, ``total = cum_weights[-1] + 0.0``, then
    ``bisect(cum_weights, random() * total, 0, n - 1)``.  The index is >= i (1 <= i <= n - 1) exactly when
    ``random() * total >= cum_weights[i - 1]``, so P[index < i] = grid_count_below(u * total, cum[i - 1])
    / 2^53 (the product is monotone in u).  Zero masses are left out.
    """
    cum: list[float] = list(itertools.accumulate(float(w) for w in weights))
    total = cum[-1] + 0.0
    below = [0] + [grid_count_below(lambda u: u * total, cum[i - 1]) for i in range(1, len(cum))] + [GRID]
    law = {i: Fraction(hi - lo, GRID) for i, (lo, hi) in enumerate(itertools.pairwise(below))}
    return {i: p for i, p in law.items() if p}


# ---- randomized response ------------------------------------------------------------------------------


def rr_pmf(p: Fraction, x: int) -> dict[int, Fraction]:
    """A(x) = X x + (1 - X) Y, X ~ Bernoulli(p), Y ~ Bernoulli(1/2): P[x] = (1 + p)/2, P[1 - x] = (1 - p)/2."""
    p = Fraction(p)
    return {x: (1 + p) / 2, 1 - x: (1 - p) / 2}


def k_rr_pmf(epsilon: Fraction, k: int, x: int) -> dict[int, Any]:
    """P[x] = e^eps / (e^eps + k - 1), P[j] = 1 / (e^eps + k - 1) for j != x (Kairouz et al. 2016)."""
    e = MP.exp(_mpf(epsilon))
    return {j: (e if j == x else MP.mpf(1)) / (e + k - 1) for j in range(k)}


def rappor_pmf(epsilon: Fraction, k: int, x: int) -> dict[tuple[int, ...], Any]:
    """Permanent randomized response on the one-hot encoding of x: each bit kept w.p. e^(eps/2)/(1 + e^(eps/2))."""
    e = MP.exp(_mpf(epsilon) / 2)
    keep, flip = e / (1 + e), 1 / (1 + e)
    bits = tuple(int(j == x) for j in range(k))
    law = {}
    for y in itertools.product((0, 1), repeat=k):
        law[y] = MP.fprod(keep if yj == bj else flip for yj, bj in zip(y, bits))
    return law


def meiser_k_pmf(epsilon: Fraction, delta: Fraction, x: int) -> dict[int, Any]:
    """Meiser's K(0): P[0] = delta, P[1] = (1 - delta) e^eps/(1 + e^eps), P[2] = (1 - delta)/(1 + e^eps), P[3] = 0;
    K(1) is its mirror image y -> 3 - y (Meiser 2018)."""
    e, d = MP.exp(_mpf(epsilon)), _mpf(delta)
    k0 = {0: d, 1: (1 - d) * e / (1 + e), 2: (1 - d) / (1 + e), 3: MP.mpf(0)}
    return dict(k0) if x == 0 else {3 - y: p for y, p in k0.items()}


# ---- discrete Laplace, geometric, discrete Gaussian -----------------------------------------------------


def discrete_laplace_pmf(scale: Fraction, width: int) -> Truncated:
    """P[Z = z] = (1 - a)/(1 + a) a^|z|, a = e^(-1/scale), on |z| <= width; tail 2 a^(width+1)/(1 + a) exactly.

    (sum_{z > W} a^z = a^(W+1)/(1 - a), on both sides, times (1 - a)/(1 + a).)
    """
    a = MP.exp(-1 / _mpf(scale))
    c = (1 - a) / (1 + a)
    pmf = {z: c * a ** abs(z) for z in range(-width, width + 1)}
    return Truncated(pmf, 2 * a ** (width + 1) / (1 + a))


def geometric_pmf(epsilon: Fraction, q: int, width: int) -> Truncated:
    """The two-sided geometric mechanism on a count q: q + Z, Z discrete Laplace with scale 1/eps (Delta = 1)."""
    noise = discrete_laplace_pmf(1 / Fraction(epsilon), width)
    return Truncated({q + z: p for z, p in noise.pmf.items()}, noise.tail)


def discrete_gaussian_pmf(sigma2: Fraction, width: int, q: int = 0) -> Truncated:
    """q + Z, P[Z = z] = e^(-z^2/(2 sigma^2)) / sum_x e^(-x^2/(2 sigma^2)), normalised over |z| <= width.

    ``tail`` bounds the true mass outside the window: with g(z) = e^(-z^2/(2 sigma^2)), the ratio
    g(z + 1)/g(z) = e^(-(2z + 1)/(2 sigma^2)) is at most r = e^(-(2W + 3)/(2 sigma^2)) for z >= W + 1, so
    sum_{|z| > W} g(z) <= 2 g(W + 1)/(1 - r), and the true normaliser exceeds the window's sum S:
    tail <= 2 g(W + 1) / ((1 - r) S).  The window's pmf is within a factor (1 + tail) of the true pmf.
    """
    s2 = _mpf(sigma2)

    def g(z: int) -> Any:
        return MP.exp(-MP.mpf(z) ** 2 / (2 * s2))

    weights = {z: g(z) for z in range(-width, width + 1)}
    total = MP.fsum(weights.values())
    r = MP.exp(-MP.mpf(2 * width + 3) / (2 * s2))
    return Truncated({q + z: w / total for z, w in weights.items()}, 2 * g(width + 1) / ((1 - r) * total))


def thresholded_histogram_pmf(epsilon: Fraction, tau: int, counts: Sequence[int], sentinel: int = -1,
                              width: int = 60) -> Truncated:
    """Each key j independently: c_j + Z_j (Z discrete Laplace, a = e^-eps) if c_j >= 1 and c_j + Z_j >= tau,
    else the sentinel (Korolova et al. 2009).  Per key: P[released y] = (1 - a)/(1 + a) a^|y - c| for
    tau <= y <= c + width; the sentinel has P[c + Z < tau] = 1 - P[Z >= tau - c], with P[Z >= m] =
    a^m/(1 + a) for m >= 1 and 1 - a^(1 - m)/(1 + a) for m <= 0.  ``tail`` is the mass beyond c + width
    on any key (a union bound: at most U a^(width+1)/(1 + a))."""
    a = MP.exp(-_mpf(epsilon))
    c0 = (1 - a) / (1 + a)

    def at_least(m: int) -> Any:
        return a**m / (1 + a) if m >= 1 else 1 - a ** (1 - m) / (1 + a)

    keys = []
    for c in counts:
        if c <= 0:
            keys.append({sentinel: MP.mpf(1)})
            continue
        law = {y: c0 * a ** abs(y - c) for y in range(tau, max(tau, c + width + 1))}
        law[sentinel] = 1 - at_least(tau - c)
        keys.append(law)
    pmf = {ys: MP.fprod(law[y] for law, y in zip(keys, ys)) for ys in itertools.product(*keys)}
    return Truncated(pmf, len(counts) * a ** (width + 1) / (1 + a))


def geometric_by_trials_joint_pmf(q: int, max_draws: int) -> dict[tuple[int, int], Fraction]:
    """The law of (output, number of random() calls) of the two-sided geometric by trials with a = 1/2.

    One attempt draws a sign (1 draw), then counts k Bernoulli(1/2) successes before a failure (k + 1
    draws); (negative, k = 0) is rejected (2 draws, probability 1/4) and the attempt repeats.  After r
    rejections, the output q + s k with s = +1 for k = 0 has draw count d = 2r + 2 + k and probability
    (1/4)^r (1/2) (1/2)^k (1/2) = (1/4)^r (1/2)^(k + 2): every (o, d) with d - 2 - |o - q| even and >= 0
    (Jin et al. 2022, the timing channel).  Listed for d <= max_draws.
    """
    law = {}
    for d in range(2, max_draws + 1):
        for k in range(d - 1):
            if (d - 2 - k) % 2 == 0:
                r = (d - 2 - k) // 2
                p = Fraction(1, 4) ** r * Fraction(1, 2) ** (k + 2)
                for o in {q + k, q - k}:
                    law[(o, d)] = p
    return law


# ---- the exponential mechanism --------------------------------------------------------------------------


def exponential_pmf(log_weights: Sequence[Any], excluded: Sequence[int] = ()) -> dict[int, Any]:
    """P[r] = e^(w_r) / sum_{j not excluded} e^(w_j) over the candidates not excluded (McSherry & Talwar 2007)."""
    weights = {r: MP.exp(_mpf(w)) for r, w in enumerate(log_weights) if r not in excluded}
    total = MP.fsum(weights.values())
    return {r: w / total for r, w in weights.items()}


def exponential_mechanism_pmf(utilities: Sequence[Any], epsilon: Any, sensitivity: Any = 1,
                              factor: Any = Fraction(1, 2)) -> dict[int, Any]:
    """The exponential mechanism with log-weights factor * eps u_r / Delta (factor 1/2: Dwork & Roth Thm. 3.10)."""
    scale = Fraction(factor) * Fraction(epsilon) / Fraction(sensitivity)
    return exponential_pmf([scale * Fraction(u) for u in utilities])


def top_k_pmf(log_weights: Sequence[Any], k: int) -> dict[tuple[int, ...], Any]:
    """Peeling: k exponential choices, each over the candidates not yet chosen (Durfee & Rogers 2019)."""
    law = {}
    for picks in itertools.permutations(range(len(log_weights)), k):
        p = MP.mpf(1)
        for j, pick in enumerate(picks):
            p *= exponential_pmf(log_weights, picks[:j])[pick]
        law[picks] = p
    return law


# ---- epsilon and delta from two laws --------------------------------------------------------------------


def exact_epsilon(pmf_a: Mapping[Any, Any], pmf_b: Mapping[Any, Any]) -> Any:
    """max over outputs o of |ln(P_a(o) / P_b(o))|: the pure-DP epsilon of the pair (both directions).

    ``inf`` when an output has positive mass under one law and none under the other.  On truncated laws
    this is the epsilon of the window only.
    """
    worst = MP.mpf(0)
    for o in set(pmf_a) | set(pmf_b):
        pa, pb = _mpf_any(pmf_a.get(o, 0)), _mpf_any(pmf_b.get(o, 0))
        if pa == 0 and pb == 0:
            continue
        if pa == 0 or pb == 0:
            return MP.inf
        worst = max(worst, abs(MP.log(pa / pb)))
    return worst


def hockey_stick_delta(pmf_a: Mapping[Any, Any], pmf_b: Mapping[Any, Any], epsilon: Any) -> Any:
    """sum_o max(0, P_a(o) - e^eps P_b(o)): the smallest delta with P_a(S) <= e^eps P_b(S) + delta for
    every set S (the hockey-stick divergence; Balle, Barthe & Gaboardi 2018).  Directed: take the max
    with the swapped call for the pair's (eps, delta).  On truncated laws it misses at most the tail of P_a.
    """
    e = MP.exp(_mpf_any(epsilon))
    return MP.fsum(max(MP.mpf(0), _mpf_any(pmf_a.get(o, 0)) - e * _mpf_any(pmf_b.get(o, 0)))
                   for o in set(pmf_a) | set(pmf_b))


def _mpf_any(value: Any) -> Any:
    """A Fraction, int or MP number as an MP number."""
    return _mpf(value) if isinstance(value, (int, Fraction)) else MP.mpf(value)
