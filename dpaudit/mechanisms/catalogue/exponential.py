"""Selection from a finite range: the exponential mechanism, report noisy max and peeling top-k.

Inputs are vectors of utilities (query answers) u = (u_0, ..., u_{k-1}); neighbours move every entry
by at most Delta (``QueryDistance(Delta, "linf")``, the "ALL" neighbourhood of Ding et al. 2018).

* ``exponential`` -- McSherry & Talwar, "Mechanism design via differential privacy", FOCS 2007;
  Dwork & Roth (2014) Thm. 3.10: P[r] = exp(eps u_r/(2 Delta)) / sum_j exp(eps u_j/(2 Delta)).
  Proof idea: the numerator moves by at most a factor e^(eps/2), the normaliser by at most e^(eps/2)
  the other way, so the ratio is at most e^eps.  The supremum eps is approached (not attained) when
  u_r drops by Delta, every other utility rises by Delta and u_r is far below the others.
* ``report-noisy-max`` -- Dwork & Roth (2014) Claim 3.9: argmax_r (u_r + Lap(2 Delta/eps)), k = 5;
  pure eps-DP under the linf neighbourhood (the factor 2 pays for all answers moving together).
* ``report-noisy-max-2`` -- the same with two answers, declared by its exact pmf.  With d = u_0 - u_1
  and b = 2 Delta/eps, W = Z_1 - Z_0 has density (1 + |w|/b) e^(-|w|/b) / (4b), so
  P[y = 0] = P[W < d] = 1 - (1 + d/(2b)) e^(-d/b) / 2 for d >= 0 and (1 - d/(2b)) e^(d/b) / 2 for
  d < 0 (at eps = 1, d = 1: 1 - 5 e^(-1/2)/8).
* ``top-k`` -- Durfee & Rogers, "Practical differentially private top-k selection with pay-what-you-get
  composition", NeurIPS 2019: k rounds of the exponential mechanism, each over the candidates not yet
  chosen, each eps-DP; the ordered k indices are k eps-DP by basic composition (Dwork & Roth Thm. 3.16).

The exponential-mechanism samplers are exact (:func:`~dpaudit.mechanisms._discrete_sampling.exponential_choice`):
epsilon, Delta and the utilities are read as rationals with denominator at most 10^6 (exact for
integers and short decimals), and that rational epsilon is the one claimed; their ``one_run`` draws
the same law from a ``random.Random`` (:func:`dpaudit.mechanisms.one_run.exponential_choice`).  Report
noisy max uses numpy's float Laplace noise; only the argmax index is released.
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction
from typing import Any

import numpy as np

from ..._validation import check_positive_int
from ...claims import PureDP
from ...errors import InvalidArgument, InvalidDataset
from ...neighbours import QueryDistance
from .._discrete_sampling import as_fraction, exponential_choice, integer_weights
from ..base import Mechanism
from ..one_run import exponential_choice as choose_one
from ..registry import register
from ..structure import Part, SequentialComposition
from .geometric import positive_fraction

__all__ = [
    "exponential_density",
    "exponential_mechanism",
    "report_noisy_max",
    "report_noisy_max_2",
    "report_noisy_max_2_density",
    "top_k",
]

_SOURCE_EM = "McSherry & Talwar (2007) FOCS; Dwork & Roth (2014) Thm. 3.10"


def _utilities(data: Any, k: int) -> np.ndarray:
    """``data`` as a length-k vector of finite utilities."""
    try:
        u = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise InvalidDataset(f"data={data!r} must be a vector of {k} numbers") from None
    if u.shape != (k,) or not np.all(np.isfinite(u)):
        raise InvalidDataset(f"data={data!r} must be a vector of {k} finite numbers")
    return u


def _em_weights(data: Any, k: int, eps: Fraction, sensitivity: Fraction) -> list[Fraction]:
    """Rational log-weights eps u_r / (2 Delta) of the exponential mechanism."""
    return [eps * as_fraction("utility", u) / (2 * sensitivity) for u in _utilities(data, k).tolist()]


def _em_numerators(data: Any, k: int, eps: Fraction, sensitivity: Fraction) -> tuple[tuple[int, ...], int]:
    """The log-weights of :func:`_em_weights` as (integer numerators, common denominator), exact."""
    return _numerators_of(tuple(_utilities(data, k).tolist()), eps, sensitivity)


@functools.lru_cache(maxsize=256)  # a one-run sampler is called once per output: read the utilities once
def _numerators_of(utilities: tuple[float, ...], eps: Fraction, sensitivity: Fraction) -> tuple[tuple[int, ...], int]:
    numerators, den = integer_weights(_em_weights(utilities, len(utilities), eps, sensitivity))
    return tuple(numerators.tolist()), den


def _rational(value: Fraction):
    import sympy

    return sympy.Rational(value.numerator, value.denominator)


def exponential_density(k: int, epsilon: Fraction, sensitivity: Fraction):
    """pmf P[y = r | u] = exp(eps u_r/(2 Delta)) / sum_j exp(eps u_j/(2 Delta)), y in {0..k-1}."""
    import sympy

    from ..density import SymbolicDensity, symbol

    y, eps, sens = symbol("y"), symbol("epsilon"), symbol("Delta")
    us = tuple(symbol(f"u{j}") for j in range(k))
    weights = [sympy.exp(eps * u / (2 * sens)) for u in us]
    numerator = sympy.Piecewise(*((w, sympy.Eq(y, j)) for j, w in enumerate(weights)), (0, True))
    return SymbolicDensity(
        expr=numerator / sympy.Add(*weights),
        outputs=(y,),
        inputs=us,
        epsilon=eps,
        sensitivity=sens,
        norm="linf",
        discrete=True,
        output_domain=sympy.FiniteSet(*range(k)),
        instance={eps: _rational(epsilon), sens: _rational(sensitivity)},
        note="exact sampler; utilities read as rationals with denominator <= 10^6",
    )


@register("exponential")
def exponential_mechanism(epsilon: float = 1.0, k: int = 3, sensitivity: float = 1.0) -> Mechanism:
    """Exponential mechanism on k candidates whose utilities are the data."""
    k = check_positive_int("k", k)
    eps, sens = positive_fraction("epsilon", epsilon), positive_fraction("sensitivity", sensitivity)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return exponential_choice(_em_weights(data, k, eps, sens), n, rng)

    def one_run(data: Any, rng: random.Random) -> int:
        numerators, den = _em_numerators(data, k, eps, sens)
        return choose_one(numerators, den, (), rng)

    s = float(sens)
    return Mechanism(
        name="exponential",
        claim=PureDP(float(eps)),
        neighbours=QueryDistance(s, "linf"),
        sampler=sample,
        one_run=one_run,
        family="exponential",
        description=f"exponential mechanism over {k} candidates, utilities = data, epsilon={float(eps):g}",
        query=lambda data: tuple(_utilities(data, k).tolist()),
        sensitivity=s,
        density=lambda: exponential_density(k, eps, sens),
        domain=(0.0,) * k,
        pairs=(((0.0,) + (4 * s,) * (k - 1), (-s,) + (5 * s,) * (k - 1)), ((s,) + (0.0,) * (k - 1), (0.0,) + (s,) * (k - 1))),
        true_epsilon=float(eps),
        source=_SOURCE_EM,
    )


def _noisy_max_program(name: str, eps: float, sens: float, k: int):
    def program():
        from ..programs import noisy_max_program

        return noisy_max_program(name, epsilon=eps, queries=k, scale=lambda e, s: 2 * s / e, sensitivity=sens)

    return program


def _noisy_argmax(k: int, scale: float):
    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        u = _utilities(data, k)
        return np.argmax(u + rng.laplace(0.0, scale, size=(n, k)), axis=1).astype(np.int64)

    return sample


@register("report-noisy-max")
def report_noisy_max(epsilon: float = 1.0, k: int = 5, sensitivity: float = 1.0) -> Mechanism:
    """argmax of the k answers plus independent Laplace(2 Delta/eps) noise."""
    k = check_positive_int("k", k)
    eps, sens = float(positive_fraction("epsilon", epsilon)), float(positive_fraction("sensitivity", sensitivity))
    return Mechanism(
        name="report-noisy-max",
        claim=PureDP(eps),
        neighbours=QueryDistance(sens, "linf"),
        sampler=_noisy_argmax(k, 2 * sens / eps),
        family="report-noisy-max",
        description=f"report noisy max over {k} answers, Laplace(2/epsilon) noise, epsilon={eps:g}",
        query=lambda data: tuple(_utilities(data, k).tolist()),
        sensitivity=sens,
        domain=(0.0,) * k,
        # First: answer 0 trails the others by Delta, then by 3 Delta; {argmax = 0} has loss 0.9957 at
        # k = 5, eps = 1 (mass 0.12) against 0.9184 (mass 0.31) on the second, Ding et al.'s pair --
        # the loss of the winner's Laplace tail approaches eps as it falls further behind.
        pairs=(
            ((0.0,) + (sens,) * (k - 1), (-sens,) + (2 * sens,) * (k - 1)),
            ((sens,) + (0.0,) * (k - 1), (0.0,) + (sens,) * (k - 1)),
            ((0.0,) * k, (sens,) * k),
        ),
        source="Dwork & Roth (2014) Claim 3.9; Ding, Wang, Wang, Zhang & Kifer (2018) CCS",
        program=_noisy_max_program("report-noisy-max", eps, sens, k),
    )


def report_noisy_max_2_density(epsilon: Fraction, sensitivity: Fraction):
    """Exact pmf of argmax(u_0 + Z_0, u_1 + Z_1), Z_i ~ Lap(b), b = 2 Delta/eps (see module docstring)."""
    import sympy

    from ..density import SymbolicDensity, symbol

    y, eps, sens = symbol("y"), symbol("epsilon"), symbol("Delta")
    u0, u1 = symbol("u0"), symbol("u1")
    b = 2 * sens / eps
    d = u0 - u1
    p0 = sympy.Piecewise(
        (1 - (1 + d / (2 * b)) * sympy.exp(-d / b) / 2, d >= 0),
        ((1 - d / (2 * b)) * sympy.exp(d / b) / 2, True),
    )
    return SymbolicDensity(
        expr=sympy.Piecewise((p0, sympy.Eq(y, 0)), (1 - p0, sympy.Eq(y, 1)), (0, True)),
        outputs=(y,),
        inputs=(u0, u1),
        epsilon=eps,
        sensitivity=sens,
        norm="linf",
        discrete=True,
        output_domain=sympy.FiniteSet(0, 1),
        instance={eps: _rational(epsilon), sens: _rational(sensitivity)},
        note="float Laplace noise; only the argmax index is released",
    )


@register("report-noisy-max-2")
def report_noisy_max_2(epsilon: float = 1.0, sensitivity: float = 1.0) -> Mechanism:
    """Report noisy max with two answers, declared by its exact closed-form pmf."""
    eps, sens = positive_fraction("epsilon", epsilon), positive_fraction("sensitivity", sensitivity)
    e, s = float(eps), float(sens)
    return Mechanism(
        name="report-noisy-max-2",
        claim=PureDP(e),
        neighbours=QueryDistance(s, "linf"),
        sampler=_noisy_argmax(2, 2 * s / e),
        family="report-noisy-max",
        description=f"report noisy max over 2 answers, Laplace(2/epsilon) noise, epsilon={e:g}",
        query=lambda data: tuple(_utilities(data, 2).tolist()),
        sensitivity=s,
        density=lambda: report_noisy_max_2_density(eps, sens),
        domain=(0.0, 0.0),
        pairs=(((s, 0.0), (0.0, s)), ((s, 0.0), (0.0, 0.0))),
        source="Dwork & Roth (2014) Claim 3.9; closed form by integrating the Laplace difference density",
        program=_noisy_max_program("report-noisy-max-2", e, s, 2),
    )


@register("top-k")
def top_k(epsilon: float = 1.0, k: int = 2, candidates: int = 5, sensitivity: float = 1.0) -> Mechanism:
    """Peeling top-k: k rounds of the eps exponential mechanism without replacement; k eps-DP."""
    k, m = check_positive_int("k", k), check_positive_int("candidates", candidates)
    if k > m:
        raise InvalidArgument(f"k={k!r} must be at most candidates={m!r}")
    eps, sens = positive_fraction("epsilon", epsilon), positive_fraction("sensitivity", sensitivity)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        weights = _em_weights(data, m, eps, sens)
        remaining = np.ones((n, m), dtype=bool)
        chosen = np.zeros((n, k), dtype=np.int64)
        for j in range(k):  # one exponential mechanism per round, over the candidates left
            pick = exponential_choice(weights, n, rng, allowed=remaining)
            chosen[:, j] = pick
            remaining[np.arange(n), pick] = False
        return chosen

    def one_run(data: Any, rng: random.Random) -> tuple[int, ...]:
        numerators, den = _em_numerators(data, m, eps, sens)
        chosen: tuple[int, ...] = ()
        while True:  # one exponential mechanism per round, over the candidates not yet chosen
            pick = choose_one(numerators, den, chosen, rng)
            chosen = chosen + (pick,)
            if len(chosen) == k:
                return chosen

    s = float(sens)
    structure = SequentialComposition(
        parts=tuple(
            Part(
                label=f"round {j + 1}: exponential mechanism over the {m - j} candidates not yet chosen",
                mechanism=exponential_mechanism(epsilon=float(eps), k=m - j, sensitivity=s),
                input="the utilities of the remaining candidates (which ones remain is fixed by the earlier rounds)",
                input_sensitivity=s,
                sensitivity_reason=f"a sub-vector of u, and neighbours move every entry of u by at most Delta = {s:g}",
            )
            for j in range(k)
        ),
        output=f"the {k} chosen indices in order (the transcript itself)",
    )
    return Mechanism(
        name="top-k",
        claim=PureDP(k * float(eps)),
        neighbours=QueryDistance(s, "linf"),
        sampler=sample,
        one_run=one_run,
        family="exponential",
        description=f"peeling top-{k} of {m} by repeated exponential mechanism, epsilon={float(eps):g} per round",
        structure=structure,
        query=lambda data: tuple(_utilities(data, m).tolist()),
        sensitivity=s,
        domain=(0.0,) * m,
        pairs=(((s,) + (0.0,) * (m - 1), (0.0,) + (s,) * (m - 1)), ((0.0,) + (4 * s,) * (m - 1), (-s,) + (5 * s,) * (m - 1))),
        source="Durfee & Rogers (2019) NeurIPS; McSherry & Talwar (2007); Dwork & Roth (2014) Thm. 3.16",
    )
