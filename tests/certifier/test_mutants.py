"""Mutants of randomized response and of the CKS20 samplers: each moves the certificate or is refuted, and
none is certified at a claim it breaks.

Each mutant (:mod:`tests.certifier.mutants`: a wrong threshold, a flipped comparison, a missing ``+ 1``, a
probability computed in float where the proof assumes it exact) has its exact law written here from the
mutated algorithm -- grid counts for float comparisons, the CKS20 Alg. 2 structure for the discrete
Laplace: P[X = u + t v] proportional to P[U = u] e^(-u/t) (1 - r) r^v, Z = +-floor(X) with (-, 0) redrawn
(:func:`cks_laplace`, checked against the oracle's discrete Laplace on the original parameters).  For
every mutant: the intervals contain the exact law, ``epsilon_up`` >= its exact epsilon (or the certificate
holds), the delta at the claim is bracketed, and the verdict is never ``certified`` for a claim the exact
law breaks; each claim-breaking mutant is refuted, each other one moves ``epsilon_up`` off the original's.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import pytest

import dpaudit
from dpaudit.claims import FLOAT_TOLERANCE

from . import mutants, oracle
from .checks import (
    as_law,
    assert_claim_bracket_sound,
    assert_epsilon_sound,
    assert_intervals_contain,
    exact_epsilon,
    hockey_stick_low,
)
from .oracle import GRID, MP, Truncated

WIDTH = 70


def cks_laplace(t: int, u_values: range, r: Any, flipped: bool = False, width: int = WIDTH) -> Truncated:
    """The law of Z from CKS20 Alg. 2 (s = 1) with U uniform on ``u_values`` accepted w.p. e^(-u/t) and V
    geometric with ratio r: P[X = u + t v] = c e^(-u/t) (1 - r) r^v.  Z = (1 - 2B) X, B a fair coin,
    (B = 1, X = 0) redrawn -- or, ``flipped``, (B = 1, X != 0) redrawn.  Window |z| <= width, its outside
    mass exact (P[X > width] / normaliser)."""
    r = MP.mpf(r)
    w = {u: MP.exp(-MP.mpf(u) / t) for u in u_values}
    total = MP.fsum(w.values())
    px = {}
    for x in range(width + 1):
        u, v = x % t, x // t
        px[x] = w[u] / total * (1 - r) * r**v if u in w else MP.mpf(0)
    beyond = MP.fsum(w[u] / total * r ** ((width - u) // t + 1) for u in w)  # P[X > width]
    if flipped:
        norm = 1 - (1 - px[0]) / 2
        pmf = {z: px[z] / 2 / norm for z in range(1, width + 1)}
        pmf[0] = px[0] / norm
        return Truncated(pmf, beyond / 2 / norm)
    norm = 1 - px[0] / 2
    pmf = {z: px[abs(z)] / 2 / norm for z in range(-width, width + 1)}
    return Truncated(pmf, beyond / norm)


def shifted(law: Truncated, q: int) -> Truncated:
    return Truncated({q + z: p for z, p in law.pmf.items()}, law.tail)


def test_the_cks_law_of_the_original_parameters_is_the_discrete_laplace():
    for t in (1, 3):
        mine, reference = cks_laplace(t, range(t), MP.exp(-1)), oracle.discrete_laplace_pmf(Fraction(t), WIDTH)
        assert all(abs(mine.pmf[z] - reference.pmf[z]) < MP.mpf(10) ** -55 for z in reference.pmf)
        assert abs(mine.tail - reference.tail) < MP.mpf(10) ** -55


def _grid_greater(p: float) -> Fraction:
    """P[random() > p] = #{j : j / 2^53 > p} / 2^53 = (2^53 - floor(p 2^53) - 1) / 2^53 for 0 <= p < 1."""
    return Fraction(GRID - math.floor(Fraction(p) * GRID) - 1, GRID)


def _binary(keep: Fraction) -> Callable[[int], dict[int, Fraction]]:
    return lambda x: {x: keep, 1 - x: 1 - keep}


_K_RR_P = math.exp(1.0) / (math.exp(1.0) + 3)


def _k_rr_flipped_law(x: int, k: int = 4) -> dict[int, Fraction]:
    keep = _grid_greater(_K_RR_P)
    return {j: keep if j == x else (1 - keep) / (k - 1) for j in range(k)}


def _k_rr_missing_law(x: int, k: int = 4) -> dict[int, Fraction]:
    keep = oracle.grid_bernoulli(_K_RR_P)
    law = {j: (1 - keep) / (k - 1) for j in range(k - 1)}
    law[x] = law.get(x, 0) + keep
    return {j: p for j, p in law.items() if p}


@dataclass(frozen=True)
class Mutant:
    """A mutant, the law of its code, the claim of the original, and the original's exact epsilon at that
    claim (what the mutant must move, unless it breaks the claim and is refuted)."""

    name: str
    sampler: Callable[..., Any]
    law: Callable[[Any], Any]
    pair: tuple[Any, Any]
    epsilon: float
    delta: float
    original_epsilon: Any
    pure: bool = True  # the exact epsilon is finite (else the (epsilon_up, delta_up) certificate is checked)
    equivalent: bool = False  # the mutation leaves the law unchanged


_RR_EPS = MP.log(oracle._mpf(oracle.grid_bernoulli(mutants.P) / (1 - oracle.grid_bernoulli(mutants.P))))
_K_RR_EPS = MP.log(3 * oracle._mpf(oracle.grid_bernoulli(_K_RR_P) / (1 - oracle.grid_bernoulli(_K_RR_P))))
_FLIP_Q = 1 / (1 + math.exp(20.0))

MUTANTS = [
    Mutant("rr-wrong-threshold", mutants.rr_wrong_threshold, _binary(oracle.grid_bernoulli(mutants.P + 0.05)),
           (0, 1), 1.0, 0.0, _RR_EPS),
    Mutant("k-rr-flipped-comparison", mutants.k_rr_flipped, _k_rr_flipped_law, (0, 1), 1.0, 0.0, _K_RR_EPS),
    Mutant("rr-p-in-float", mutants.rr_float_flip, _binary(1 - _grid_greater(1 - _FLIP_Q)), (0, 1), 20.0, 0.0,
           MP.mpf(20)),
    Mutant("k-rr-missing-plus-one", mutants.k_rr_missing_plus_one, _k_rr_missing_law, (0, 1), 1.0, 0.0, _K_RR_EPS),
    Mutant("laplace-wrong-threshold", mutants.laplace_wrong_threshold,
           lambda q: shifted(cks_laplace(1, range(1), MP.exp(-2)), q), (0, 1), 1.0, 1e-12, MP.mpf(1)),
    Mutant("laplace-flipped-comparison", mutants.laplace_flipped,
           lambda q: shifted(cks_laplace(1, range(1), MP.exp(-1), flipped=True), q), (0, 1), 1.0, 1e-12,
           MP.mpf(1), pure=False),
    Mutant("laplace-missing-plus-one", mutants.laplace_missing_plus_one,
           lambda q: shifted(cks_laplace(3, range(2), MP.exp(-1)), q), (0, 1), 1 / 3, 1e-12, MP.mpf(1) / 3,
           pure=False),
    Mutant("gaussian-missing-plus-one", functools.partial(mutants.gaussian_missing_plus_one, sigma2=1),
           lambda q: oracle.discrete_gaussian_pmf(Fraction(1), WIDTH, q), (0, 1), 1.0, 0.15, MP.inf, pure=False,
           equivalent=True),
]


def _exact_delta(mutant: Mutant, epsilon: float) -> Any:
    """A lower bound of the mutant's exact hockey-stick delta at epsilon (both directions)."""
    a, b = as_law(mutant.law(mutant.pair[0])), as_law(mutant.law(mutant.pair[1]))
    return max(hockey_stick_low(a, b, epsilon), hockey_stick_low(b, a, epsilon))


def _breaks(mutant: Mutant) -> bool:
    """The exact law breaks the claim, read (as certify reads it) with its float tolerance."""
    slack = mutant.epsilon * (1 + FLOAT_TOLERANCE)
    if mutant.delta == 0:
        a, b = as_law(mutant.law(mutant.pair[0])), as_law(mutant.law(mutant.pair[1]))
        return exact_epsilon(a, b) > slack
    return _exact_delta(mutant, slack) > mutant.delta * (1 + FLOAT_TOLERANCE)


@pytest.fixture(scope="module", params=MUTANTS, ids=[m.name for m in MUTANTS])
def certified(request):
    mutant: Mutant = request.param
    result = dpaudit.certify(mutant.sampler, pair=mutant.pair, epsilon=mutant.epsilon, delta=mutant.delta or None,
                             tolerance=1e-12, time_limit=10)
    return mutant, result


def test_intervals_contain_the_mutants_exact_law(certified):
    mutant, result = certified
    assert_intervals_contain(result, mutant.law)
    assert_claim_bracket_sound(result, mutant.law)


def test_epsilon_up_is_at_least_the_mutants_exact_epsilon(certified):
    mutant, result = certified
    assert_epsilon_sound(result, mutant.law, mutant.pure)


def test_no_mutant_is_certified_at_a_claim_it_breaks_and_each_breaking_one_is_refuted(certified):
    mutant, result = certified
    if _breaks(mutant):
        assert result.refuted, result.reason
    else:
        assert not result.refuted, result.reason


def test_each_mutant_moves_epsilon_up_or_is_refuted(certified):
    mutant, result = certified
    if mutant.equivalent:  # the law is unchanged: so is the certificate (the oracle's delta in its bracket)
        low, up = result.delta_at_claim
        exact = max(oracle.hockey_stick_delta(mutant.law(0).pmf, mutant.law(1).pmf, 1),
                    oracle.hockey_stick_delta(mutant.law(1).pmf, mutant.law(0).pmf, 1))
        assert MP.mpf(low) <= exact <= MP.mpf(up) and result.certified
        return
    if result.refuted:
        return
    a, b = as_law(mutant.law(mutant.pair[0])), as_law(mutant.law(mutant.pair[1]))
    exact = exact_epsilon(a, b)
    assert abs(exact - mutant.original_epsilon) > 1e-12 * mutant.original_epsilon  # the mutation is visible
    assert abs(MP.mpf(result.epsilon_up) - exact) <= 1e-9 * exact  # and the certificate follows it
