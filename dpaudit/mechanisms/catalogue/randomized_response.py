"""Randomized response: local DP for one person's value.

* ``rr-two-coin`` -- Warner (1965); Dwork & Roth (2014), Sect. 3.2: flip a fair coin; heads, answer
  truthfully; tails, answer with a second fair coin.  P[y = x] = 3/4, P[y != x] = 1/4, so the
  privacy loss is at most ln((3/4)/(1/4)) = ln 3 (pure ln 3-DP, tight).
* ``rr`` -- the same with a biased first coin: A(x) = X x + (1 - X) Y, X ~ Bernoulli(p),
  Y ~ Bernoulli(1/2).  P[y = x] = (1 + p)/2, P[y != x] = (1 - p)/2, epsilon = ln((1 + p)/(1 - p))
  = ln(1 + 2p/(1 - p)).  p = 1/2 is two-coin randomized response.
* ``k-rr`` -- k-ary randomized response (Kairouz, Oh & Viswanath 2016, "Extremal mechanisms for local
  differential privacy", JMLR; Wang, Blocki, Li & Jha 2017, "Locally differentially private protocols
  for frequency estimation", USENIX Security, "direct encoding"): P[y = x] = e^eps / (e^eps + k - 1),
  P[y = j] = 1 / (e^eps + k - 1) for j != x.  The ratio of any output's probabilities under two
  inputs is e^eps, 1 or e^-eps: pure eps-DP, tight.
* ``rappor`` -- basic one-time RAPPOR (Erlingsson, Pihur & Korolova 2014, CCS, Sect. 3): the value
  x in {0..k-1} is one-hot encoded and each bit goes through the permanent randomised response
  with f = 2 / (1 + e^(eps/2)): the bit is replaced by a fair coin with probability f, so it is kept
  with probability 1 - f/2 = e^(eps/2) / (1 + e^(eps/2)).  Two inputs differ in two bits, each
  contributing a ratio of at most (1 - f/2) / (f/2) = e^(eps/2): epsilon = 2 ln((1 - f/2)/(f/2)) = eps.

All samplers are exact: fair coins and Bernoulli(p) for rational p are integer comparisons, and the
e^eps-weighted choices use :func:`~dpaudit.mechanisms._discrete_sampling.exponential_choice` with
epsilon read as a rational (``as_fraction``: a float becomes the nearest fraction with denominator
at most 10^6; the claim and the density state that rational).  Each entry's ``one_run`` draws the same
law one output at a time from a ``random.Random`` (:mod:`dpaudit.mechanisms.one_run`).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import numpy as np

from ..._validation import check_positive_int
from ...claims import PureDP
from ...errors import InvalidArgument, InvalidDataset
from ...neighbours import Local
from .._discrete_sampling import (
    as_fraction,
    bernoulli_rational,
    exponential_choice,
    integer_weights,
)
from ..base import Mechanism
from ..one_run import bernoulli
from ..one_run import exponential_choice as choose_one
from ..registry import register

__all__ = ["k_rr", "rappor", "rr", "rr_two_coin"]

_SOURCE_RR = "Warner (1965), J. Amer. Statist. Assoc. 60:63-69; Dwork & Roth (2014) Sect. 3.2"


def _value_in(name: str, data: Any, k: int) -> int:
    """The person's value: an integer in {0..k-1} (a bool or a 0-d array of one is accepted)."""
    value = np.asarray(data)
    if value.ndim != 0 or value.dtype.kind not in "biuf" or float(value) not in range(k):
        raise InvalidDataset(f"{name}={data!r} must be one value in {{0, ..., {k - 1}}}")
    return int(value)


def _binary_density(keep, epsilon, instance: dict, assumptions: tuple = (), note: str = ""):
    """pmf of a binary randomized response: keep if y == q, 1 - keep otherwise; y, q in {0, 1}."""
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q = symbol("y"), symbol("q")
    return SymbolicDensity(
        expr=sympy.Piecewise((keep, sympy.Eq(y, q)), (1 - keep, True)),
        outputs=(y,),
        inputs=(q,),
        epsilon=epsilon,
        discrete=True,
        output_domain=sympy.FiniteSet(0, 1),
        input_domain=((0,), (1,)),
        instance=instance,
        assumptions=assumptions,
        note=note,
    )


@register("rr-two-coin")
def rr_two_coin() -> Mechanism:
    """Two fair coins: answer the truth on heads, the second coin on tails (epsilon = ln 3)."""

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        x = _value_in("data", data, 2)
        first, second = rng.integers(0, 2, size=(2, n), dtype=np.int64)
        return np.where(first == 1, x, second)

    def one_run(data: Any, rng: random.Random) -> int:
        x = _value_in("data", data, 2)
        first = rng.randrange(2)
        if first == 1:
            return x
        return rng.randrange(2)

    def density():
        import sympy

        return _binary_density(sympy.Rational(3, 4), sympy.log(3), {})

    return Mechanism(
        name="rr-two-coin",
        claim=PureDP(math.log(3)),
        neighbours=Local(),
        sampler=sample,
        one_run=one_run,
        family="randomized-response",
        description="binary randomized response with two fair coins, epsilon = ln 3",
        density=density,
        domain=(0, 1),
        pairs=((1, 0), (0, 1)),
        true_epsilon=math.log(3),
        source=_SOURCE_RR,
    )


@register("rr")
def rr(p: float = 0.5) -> Mechanism:
    """A(x) = X x + (1 - X) Y, X ~ Bernoulli(p), Y ~ Bernoulli(1/2); epsilon = ln((1 + p)/(1 - p)).

    ``p`` is read as a rational (denominator <= 10^6) and must lie in (0, 1).
    """
    p_exact = as_fraction("p", p)
    if not 0 < p_exact < 1:
        raise InvalidArgument(f"p={p!r} must lie in (0, 1)")
    epsilon = math.log((1 + p_exact) / (1 - p_exact))

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        x = _value_in("data", data, 2)
        truthful = bernoulli_rational(p_exact, n, rng)
        coin = rng.integers(0, 2, size=n, dtype=np.int64)
        return np.where(truthful, x, coin)

    def one_run(data: Any, rng: random.Random) -> int:
        x = _value_in("data", data, 2)
        truthful = bernoulli(p_exact.numerator, p_exact.denominator, rng)
        if truthful:
            return x
        return rng.randrange(2)

    def density():
        import sympy

        from ..density import symbol

        ps = symbol("p")
        return _binary_density(
            (1 + ps) / 2,
            sympy.log((1 + ps) / (1 - ps)),
            {ps: sympy.Rational(p_exact.numerator, p_exact.denominator)},
            assumptions=(ps < 1,),
        )

    return Mechanism(
        name="rr",
        claim=PureDP(epsilon),
        neighbours=Local(),
        sampler=sample,
        one_run=one_run,
        family="randomized-response",
        description=f"randomized response, truthful with probability p={float(p_exact):g} else a fair coin",
        density=density,
        domain=(0, 1),
        pairs=((1, 0), (0, 1)),
        true_epsilon=epsilon,
        source=_SOURCE_RR,
    )


def _krr_weights(epsilon: Fraction, x: int, k: int) -> list[Fraction]:
    """log-weights of k-RR: epsilon for the true value, 0 for the k - 1 others."""
    return [epsilon if j == x else Fraction(0) for j in range(k)]


@register("k-rr")
def k_rr(epsilon: float = 1.0, k: int = 4) -> Mechanism:
    """k-ary randomized response: the true value with probability e^eps / (e^eps + k - 1)."""
    k = check_positive_int("k", k)
    if k < 2:
        raise InvalidArgument(f"k={k!r} must be at least 2")
    eps = as_fraction("epsilon", epsilon)
    if eps <= 0:
        raise InvalidArgument(f"epsilon={epsilon!r} must be positive")

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return exponential_choice(_krr_weights(eps, _value_in("data", data, k), k), n, rng)

    def one_run(data: Any, rng: random.Random) -> int:
        numerators, den = integer_weights(_krr_weights(eps, _value_in("data", data, k), k))
        return choose_one(tuple(numerators.tolist()), den, (), rng)

    def density():
        import sympy

        from ..density import SymbolicDensity, symbol

        y, q, e = symbol("y"), symbol("q"), symbol("epsilon")
        norm = sympy.exp(e) + k - 1
        return SymbolicDensity(
            expr=sympy.Piecewise((sympy.exp(e) / norm, sympy.Eq(y, q)), (1 / norm, True)),
            outputs=(y,),
            inputs=(q,),
            epsilon=e,
            discrete=True,
            output_domain=sympy.FiniteSet(*range(k)),
            input_domain=tuple((j,) for j in range(k)),
            instance={e: sympy.Rational(eps.numerator, eps.denominator)},
        )

    return Mechanism(
        name="k-rr",
        claim=PureDP(float(eps)),
        neighbours=Local(),
        sampler=sample,
        one_run=one_run,
        family="randomized-response",
        description=f"{k}-ary randomized response, epsilon={float(eps):g}",
        density=density,
        domain=tuple(range(k)),
        pairs=((0, 1), (1, 0)),
        true_epsilon=float(eps),
        source="Kairouz, Oh & Viswanath (2016) JMLR 17; Wang, Blocki, Li & Jha (2017) USENIX Security",
    )


def one_hot(value: int, k: int) -> tuple[int, ...]:
    """The one-hot encoding of ``value`` in {0..k-1} as a k-tuple of bits."""
    return tuple(int(j == value) for j in range(k))


@register("rappor")
def rappor(epsilon: float = 1.0, k: int = 4) -> Mechanism:
    """Basic one-time RAPPOR on a one-hot encoding: each bit kept with probability e^(eps/2)/(1 + e^(eps/2))."""
    k = check_positive_int("k", k)
    if k < 2:
        raise InvalidArgument(f"k={k!r} must be at least 2")
    eps = as_fraction("epsilon", epsilon)
    if eps <= 0:
        raise InvalidArgument(f"epsilon={epsilon!r} must be positive")
    half = eps / 2
    f = 2 / (1 + math.exp(float(half)))

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        bits = np.asarray(one_hot(_value_in("data", data, k), k), dtype=np.int64)
        # exponential_choice over {keep, flip} with log-weights (eps/2, 0): keep w.p. e^(eps/2)/(1 + e^(eps/2))
        flips = exponential_choice([half, Fraction(0)], n * k, rng).reshape(n, k)
        return np.where(flips == 0, bits, 1 - bits).astype(np.int8)

    def one_run(data: Any, rng: random.Random) -> tuple[int, ...]:
        bits = one_hot(_value_in("data", data, k), k)
        reported: tuple[int, ...] = ()
        while True:  # the permanent randomized response of each bit in turn: keep w.p. e^(eps/2)/(1 + e^(eps/2))
            flip = choose_one((half.numerator, 0), half.denominator, (), rng)
            bit = bits[len(reported)]
            reported = reported + ((bit if flip == 0 else 1 - bit),)
            if len(reported) == k:
                return reported

    def density():
        import sympy

        from ..density import SymbolicDensity, symbol

        e = symbol("epsilon")
        ys = tuple(symbol(f"y{j}") for j in range(k))
        qs = tuple(symbol(f"q{j}") for j in range(k))
        keep = sympy.exp(e / 2)
        expr = sympy.Mul(*(sympy.Piecewise((keep, sympy.Eq(yj, qj)), (1, True)) for yj, qj in zip(ys, qs)))
        return SymbolicDensity(
            expr=expr / (1 + keep) ** k,
            outputs=ys,
            inputs=qs,
            epsilon=e,
            discrete=True,
            output_domain=sympy.FiniteSet(0, 1),
            input_domain=tuple(one_hot(j, k) for j in range(k)),
            instance={e: sympy.Rational(eps.numerator, eps.denominator)},
            note="inputs are the one-hot encoding query(data); outputs the k reported bits",
        )

    return Mechanism(
        name="rappor",
        claim=PureDP(float(eps)),
        neighbours=Local(),
        sampler=sample,
        one_run=one_run,
        family="randomized-response",
        description=f"basic one-time RAPPOR, {k} one-hot bits, f={f:.4g} (epsilon={float(eps):g})",
        query=lambda data: one_hot(_value_in("data", data, k), k),
        density=density,
        domain=tuple(range(k)),
        pairs=((0, 1), (1, 0)),
        true_epsilon=float(eps),
        source="Erlingsson, Pihur & Korolova (2014), RAPPOR, CCS, Sect. 3 (permanent randomized response)",
    )
